/**
 * `kafka-wire decode <message> <version> [hex]`: a message body from hex to Kafka JSON, or with
 * `--spans` the byte span of every field (see spans.ts).
 */

import type { Command } from "commander";
import { contextOf, type CliIO } from "../context.js";
import { decodeOptions, explainErrors, withDecodeFlags, type DecodeFlags } from "../decoding.js";
import { CliError } from "../context.js";
import { findCodec, loadCodecs, parseVersion, SCHEMA_SET_HELP, withSchemaSet, type CodecSet } from "../schema-set.js";
import { eachLine, indentJson, parseHex, readHex, writeOut } from "../text-io.js";

async function decodeCommand(
  io: CliIO,
  name: string,
  versionText: string,
  hex: string | undefined,
  flags: DecodeFlags & SpanFlags,
): Promise<void> {
  if (flags.json === true && flags.spans !== true) throw new CliError("--json goes with --spans");
  if (flags.spans === true && flags.jsonl === true) throw new CliError("--spans decodes one body: not with --jsonl");
  const codecs = await loadCodecs(io, flags);
  const codec = findCodec(codecs, name);
  const version = parseVersion(versionText);
  const options = decodeOptions(flags);
  if (flags.spans === true) {
    await printSpans(io, codecs, name, version, hex, flags);
    return;
  }
  const decodeOne = async (input: string | Uint8Array, line?: number): Promise<void> => {
    const message = codec.decode(typeof input === "string" ? parseHex(input) : input, version, options);
    const json = codec.toJson(message, version);
    await writeOut(io.stdout, (flags.jsonl === true ? json : indentJson(json)) + "\n");
    if (flags.explainErrors === true) await explainErrors(io, message, line);
  };
  if (flags.jsonl === true) await eachLine(io, hex, "hex", decodeOne);
  else await decodeOne(hex ?? (await readHex(io.stdin, "hex")));
}

interface SpanFlags {
  readonly spans?: boolean;
  readonly json?: boolean;
}

/** `--spans`: the body decoded by its field table, each span on stdout; a failure prints the spans found before it. */
async function printSpans(
  io: CliIO,
  codecs: CodecSet,
  name: string,
  version: number,
  hex: string | undefined,
  flags: DecodeFlags & SpanFlags,
): Promise<void> {
  const table = codecs.fieldTables?.[name];
  if (table === undefined) throw new CliError(`no field table for ${name} in this schema set`);
  const { decodeWithSpans, spansOf } = await import("../../src/runtime/spans.js");
  const { recordSpans } = await import("../../src/records/spans.js");
  const { spansJson, spansTable } = await import("../spans.js");
  const bytes = hex === undefined ? await readHex(io.stdin, "hex") : parseHex(hex);
  const print = (spans: Parameters<typeof spansTable>[0]): Promise<void> =>
    writeOut(io.stdout, flags.json === true ? spansJson(spans, bytes) : spansTable(spans, bytes));
  let result: ReturnType<typeof decodeWithSpans>;
  try {
    result = decodeWithSpans(table, bytes, version, { ...decodeOptions(flags), recordSpans });
  } catch (error) {
    const found = spansOf(error);
    if (found !== undefined && found.length > 0) await print(found);
    throw error;
  }
  await print(result.spans);
  if (flags.explainErrors === true) await explainErrors(io, result.value);
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
    .option(
      "--spans",
      "print where each field is instead: offset, length, path, value and hex of every field, array element, tagged field and record",
    )
    .option("--json", "with --spans: the spans as JSON, one object per line")
    .addHelpText(
      "after",
      `\nExamples:\n  kafka-wire decode StreamsGroupHeartbeatResponse 0 0000000000000100000000...00\n` +
        `  kafka-wire decode MetadataRequest 12 0000000000 --kafka 4.1.0\n` +
        `  kafka-wire decode StreamsGroupDescribeRequest 0 0302610362630100 --spans\n` +
        `  cat bodies.hex | kafka-wire decode MetadataResponse 12 --jsonl --schemas kafka/clients/src/main/resources/common/message\n` +
        SCHEMA_SET_HELP,
    )
    .action(
      async (
        name: string,
        version: string,
        hex: string | undefined,
        flags: DecodeFlags & SpanFlags,
        command: Command,
      ) => {
        await decodeCommand(contextOf(command).io, name, version, hex, flags);
      },
    );
}
