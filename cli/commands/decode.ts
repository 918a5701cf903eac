/** `kafka-wire decode <message> <version> [hex]`: a message body from hex to Kafka JSON. */

import type { Command } from "commander";
import { contextOf, type CliIO } from "../context.js";
import { decodeOptions, explainErrors, withDecodeFlags, type DecodeFlags } from "../decoding.js";
import { findCodec, loadCodecs, parseVersion, SCHEMA_SET_HELP, withSchemaSet } from "../schema-set.js";
import { eachLine, indentJson, parseHex, readHex, writeOut } from "../text-io.js";

async function decodeCommand(
  io: CliIO,
  name: string,
  versionText: string,
  hex: string | undefined,
  flags: DecodeFlags,
): Promise<void> {
  const codecs = await loadCodecs(io, flags);
  const codec = findCodec(codecs, name);
  const version = parseVersion(versionText);
  const options = decodeOptions(flags);
  const decodeOne = async (input: string | Uint8Array, line?: number): Promise<void> => {
    const message = codec.decode(typeof input === "string" ? parseHex(input) : input, version, options);
    const json = codec.toJson(message, version);
    await writeOut(io.stdout, (flags.jsonl === true ? json : indentJson(json)) + "\n");
    if (flags.explainErrors === true) await explainErrors(io, message, line);
  };
  if (flags.jsonl === true) await eachLine(io, hex, "hex", decodeOne);
  else await decodeOne(hex ?? (await readHex(io.stdin, "hex")));
}

/** Registers `decode` on the program. */
export function registerDecode(program: Command): void {
  withDecodeFlags(
    withSchemaSet(
      program
        .command("decode")
        .description("decode a message body from hex and print it as Kafka JSON (JsonConverter form)")
        .argument("<message>", "message name, e.g. StreamsGroupHeartbeatResponse (see `kafka-wire list`)")
        .argument("<version>", "message version")
        .argument("[hex]", "the body bytes as hex (whitespace and a 0x prefix allowed); read from stdin when omitted"),
    ),
  )
    .option("--jsonl", "one hex body per input line; print one compact JSON object per line")
    .addHelpText(
      "after",
      `\nExamples:\n  kafka-wire decode StreamsGroupHeartbeatResponse 0 0000000000000100000000...00\n` +
        `  kafka-wire decode MetadataRequest 12 0000000000 --kafka 4.1.0\n` +
        `  cat bodies.hex | kafka-wire decode MetadataResponse 12 --jsonl --schemas kafka/clients/src/main/resources/common/message\n` +
        SCHEMA_SET_HELP,
    )
    .action(async (name: string, version: string, hex: string | undefined, flags: DecodeFlags, command: Command) => {
      await decodeCommand(contextOf(command).io, name, version, hex, flags);
    });
}
