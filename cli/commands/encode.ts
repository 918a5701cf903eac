/** `kafka-wire encode <message> <version> [json]`: Kafka JSON to a message body as hex. */

import type { Command } from "commander";
import { CliError, contextOf, type CliIO } from "../context.js";
import {
  findCodec,
  loadCodecs,
  parseVersion,
  SCHEMA_SET_HELP,
  withSchemaSet,
  type SchemaSetFlags,
} from "../schema-set.js";
import { template, withDefaults } from "../json-defaults.js";
import { eachLine, indentJson, readAll, toHex, writeOut } from "../text-io.js";

interface EncodeFlags extends SchemaSetFlags {
  readonly jsonl?: boolean;
  readonly strict?: boolean;
  readonly template?: boolean;
}

async function encodeCommand(
  io: CliIO,
  name: string,
  versionText: string,
  json: string | undefined,
  flags: EncodeFlags,
): Promise<void> {
  const codecs = await loadCodecs(io, flags);
  const codec = findCodec(codecs, name);
  const version = parseVersion(versionText);
  if (flags.template === true) {
    if (json !== undefined) throw new CliError("--template prints a message to fill in: give it without JSON");
    // The codec checks the version (UNSUPPORTED_VERSION) as it writes the JSON form.
    await writeOut(io.stdout, indentJson(template(codec, version)) + "\n");
    return;
  }
  const encodeOne = async (text: string): Promise<void> => {
    const message = codec.fromJson(flags.strict === true ? text : withDefaults(codec, text, version), version);
    await writeOut(io.stdout, toHex(codec.encode(message, version)) + "\n");
  };
  if (flags.jsonl === true) {
    await eachLine(io, json, "JSON", encodeOne);
    return;
  }
  const text = json ?? (await readAll(io.stdin, "JSON"));
  if (text.trim() === "") throw new CliError("no JSON given: the input is empty");
  await encodeOne(text);
}

/** Registers `encode` on the program. */
export function registerEncode(program: Command): void {
  withSchemaSet(
    program
      .command("encode")
      .description("encode Kafka JSON (JsonConverter form) and print the message body as lowercase hex")
      .argument("<message>", "message name (see `kafka-wire list`)")
      .argument("<version>", "message version")
      .argument("[json]", "the message as JSON; read from stdin when omitted"),
  )
    .option("--jsonl", "one JSON object per input line; print one hex body per line")
    .option(
      "--strict",
      "require every field of the version (as Kafka's JsonConverter does) instead of filling defaults",
    )
    .option("--template", "print the message with every field at its default, as JSON to fill in (arrays empty)")
    .addHelpText(
      "after",
      "\nFields the JSON leaves out, at any depth, take their schema defaults (as create() fills them).\n\n" +
        "Examples:\n  kafka-wire encode StreamsGroupHeartbeatResponse 0 --template > response.json\n" +
        '  echo \'{"memberId":"m1","memberEpoch":5}\' | kafka-wire encode StreamsGroupHeartbeatResponse 0\n' +
        SCHEMA_SET_HELP,
    )
    .action(async (name: string, version: string, json: string | undefined, flags: EncodeFlags, command: Command) => {
      await encodeCommand(contextOf(command).io, name, version, json, flags);
    });
}
