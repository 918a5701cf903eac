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
import { eachLine, readAll, toHex, writeOut } from "../text-io.js";

async function encodeCommand(
  io: CliIO,
  name: string,
  versionText: string,
  json: string | undefined,
  flags: SchemaSetFlags & { readonly jsonl?: boolean },
): Promise<void> {
  const codecs = await loadCodecs(io, flags);
  const codec = findCodec(codecs, name);
  const version = parseVersion(versionText);
  const encodeOne = async (text: string): Promise<void> => {
    const message = codec.fromJson(text, version);
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
    .addHelpText(
      "after",
      "\nExample:\n  echo '{\"throttleTimeMs\":0, ...}' | kafka-wire encode StreamsGroupHeartbeatResponse 0\n" +
        SCHEMA_SET_HELP,
    )
    .action(
      async (name: string, version: string, json: string | undefined, flags: SchemaSetFlags, command: Command) => {
        await encodeCommand(contextOf(command).io, name, version, json, flags);
      },
    );
}
