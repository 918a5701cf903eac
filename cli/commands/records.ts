/**
 * `kafka-wire records`: a record set (a Fetch/Produce `records` field, a log segment) as JSON
 * lines, one per record, with its batch's fields.
 *
 * Compressed batches decode with the codecs of `kafka-wire-compression`, loaded by its package
 * name when a record set needs them.
 */

import { readFile } from "node:fs/promises";
import path from "node:path";
import type { Command } from "commander";
import type {
  DecodeRecordsOptions,
  DefaultRecord,
  LegacyBatch,
  RecordBatch,
  RecordSet,
} from "../../src/records/index.js";
import { CliError, contextOf, type CliContext } from "../context.js";
import { loadCodecs, withSchemaSet, type SchemaSetFlags } from "../schema-set.js";
import { parseHex, readAllBytes } from "../text-io.js";

/** How key, value and header value bytes are printed. */
export type BytesFormat = "auto" | "utf8" | "base64" | "hex";
const BYTES_FORMATS: readonly BytesFormat[] = ["auto", "utf8", "base64", "hex"];

interface RecordsFlags extends SchemaSetFlags {
  readonly file?: string;
  readonly bytes?: string;
  readonly topic?: string;
  readonly skipCrc?: boolean;
  readonly lenient?: boolean;
  readonly allowIncompleteTail?: boolean;
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });
const lossyUtf8 = new TextDecoder("utf-8");

/**
 * Bytes as JSON-ready text in `format`; `auto` is UTF-8 text where the bytes are valid UTF-8,
 * base64 otherwise, and says which it chose.
 */
export function showBytes(
  bytes: Uint8Array | null,
  format: BytesFormat,
): { text: string | null; encoding: "utf8" | "base64" | "hex" | null } {
  if (bytes === null) return { text: null, encoding: null };
  if (format === "hex") return { text: Buffer.from(bytes).toString("hex"), encoding: "hex" };
  if (format === "base64") return { text: Buffer.from(bytes).toString("base64"), encoding: "base64" };
  if (format === "utf8") return { text: lossyUtf8.decode(bytes), encoding: "utf8" };
  try {
    return { text: strictUtf8.decode(bytes), encoding: "utf8" };
  } catch {
    return { text: Buffer.from(bytes).toString("base64"), encoding: "base64" };
  }
}

/** True when `bytes` are hex text (digits, whitespace, an optional 0x) rather than a binary record set. */
function isHexText(bytes: Uint8Array): boolean {
  let digits = 0;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]!;
    const hex = (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
    const space = c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
    const prefix = (c === 0x78 || c === 0x58) && digits === 1 && bytes[i - 1] === 0x30;
    if (hex) digits++;
    else if (!space && !prefix) return false;
  }
  return digits > 0;
}

/**
 * The batch fields printed with each record (Kafka's names; int64 values as decimal strings):
 * of a magic-2 batch its header up to recordCount, of a legacy message (magic 0/1) its own
 * fields. The record tests' vector descriptions (test/records/support.ts) start from these too.
 */
export function batchFields(b: RecordBatch | LegacyBatch): Record<string, unknown> {
  if (b.magic === 2) {
    return {
      baseOffset: String(b.baseOffset),
      batchLength: b.batchLength,
      partitionLeaderEpoch: b.partitionLeaderEpoch,
      magic: b.magic,
      crc: b.crc,
      attributes: b.attributes,
      compression: b.compression,
      timestampType: b.timestampType,
      isTransactional: b.isTransactional,
      isControl: b.isControl,
      hasDeleteHorizon: b.hasDeleteHorizon,
      lastOffsetDelta: b.lastOffsetDelta,
      baseTimestamp: String(b.baseTimestamp),
      maxTimestamp: String(b.maxTimestamp),
      producerId: String(b.producerId),
      producerEpoch: b.producerEpoch,
      baseSequence: b.baseSequence,
      recordCount: b.recordCount,
    };
  }
  return {
    offset: String(b.offset),
    messageSize: b.messageSize,
    magic: b.magic,
    crc: b.crc,
    attributes: b.attributes,
    compression: b.compression,
    timestampType: b.timestampType,
    timestamp: b.timestamp === null ? null : String(b.timestamp),
  };
}

/** JSON.stringify with bigint as decimal strings (decoded KRaft control records hold int64s). */
function toJsonLine(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === "bigint" ? String(v) : v));
}

async function readRecordSet(context: CliContext, hex: string | undefined, file: string | undefined) {
  if (hex !== undefined && file !== undefined) throw new CliError("give the record set as hex or --file, not both");
  if (hex !== undefined) return parseHex(hex);
  const bytes =
    file !== undefined
      ? new Uint8Array(
          await readFile(path.resolve(context.cwd, file)).catch((e: NodeJS.ErrnoException) => {
            throw new CliError(`cannot read ${file}: ${e.code ?? e.message}`);
          }),
        )
      : await readAllBytes(context.io.stdin, "record set");
  return isHexText(bytes) ? parseHex(Buffer.from(bytes).toString("latin1")) : bytes;
}

async function recordsCommand(context: CliContext, hex: string | undefined, flags: RecordsFlags): Promise<void> {
  const format = (flags.bytes ?? "auto") as BytesFormat;
  if (!BYTES_FORMATS.includes(format)) {
    throw new CliError(`--bytes ${JSON.stringify(flags.bytes)}: expected one of ${BYTES_FORMATS.join(", ")}`);
  }
  const bytes = await readRecordSet(context, hex, flags.file);
  const codecSet = await loadCodecs(context.io, flags);
  const internal = flags.topic === undefined ? undefined : codecSet.internalTopics;
  if (flags.topic !== undefined && (internal === undefined || !internal.topics.includes(flags.topic))) {
    throw new CliError(
      `no internal-topic records for ${flags.topic} in ${codecSet.shipped ? "the shipped codecs" : "this schema set"}` +
        (codecSet.shipped ? "; pass --kafka <version> for Kafka's" : ""),
    );
  }
  const { codecs } = await import("kafka-wire-compression");
  const { decodeRecords } = await import("../../src/records/index.js");
  const set: RecordSet = await decodeRecords(bytes, {
    codecs: codecs as DecodeRecordsOptions["codecs"],
    verifyCrc: flags.skipCrc !== true,
    lenient: flags.lenient === true,
    ...(codecSet.controlDecoder === undefined ? {} : { controlDecoder: codecSet.controlDecoder }),
  });
  for (const batch of set.batches) {
    const fields = batchFields(batch);
    for (const r of batch.records) {
      const key = showBytes(r.key, format);
      const value = showBytes(r.value, format);
      const line: Record<string, unknown> = {
        batch: fields,
        offset: String(r.offset),
        timestamp: String(r.timestamp),
        key: key.text,
        value: value.text,
      };
      if (format === "auto") {
        line["keyEncoding"] = key.encoding;
        line["valueEncoding"] = value.encoding;
      }
      line["headers"] = r.headers.map((h) => {
        const v = showBytes(h.value, format);
        return format === "auto"
          ? { key: h.key, value: v.text, valueEncoding: v.encoding }
          : { key: h.key, value: v.text };
      });
      const control = batch.magic === 2 ? (r as DefaultRecord).control : undefined;
      if (control !== undefined) line["control"] = control;
      if (internal !== undefined && control === undefined) {
        line["internal"] = JSON.parse(internal.toJson(flags.topic!, internal.decode(flags.topic!, r.key, r.value)));
      }
      context.io.stdout.write(`${toJsonLine(line)}\n`);
    }
  }
  if (set.incompleteTail > 0) {
    const tail = incompleteTailText(bytes, set.validBytes);
    // Strict by default, as decode is with trailing bytes: a cut-short fetch is normal, a length
    // that no data follows (0x7fffffff) is as likely a corrupt record set.
    if (flags.allowIncompleteTail !== true) {
      throw new CliError(
        `${tail}; a fetch response cut short by its max bytes ends so: pass --allow-incomplete-tail to accept it`,
      );
    }
    context.io.stderr.write(`note: ${tail} (a fetch cut short), not shown\n`);
  }
}

/** What the incomplete last batch at `start` is: its declared length against the bytes that follow. */
function incompleteTailText(bytes: Uint8Array, start: number): string {
  const count = bytes.length - start;
  const head = `the last ${count} bytes are an incomplete batch`;
  // baseOffset (int64), then the batch length (int32): the bytes after it.
  if (count < 12) return `${head} (too short for a batch header: 12 bytes)`;
  const declared = new DataView(bytes.buffer, bytes.byteOffset + start + 8, 4).getInt32(0);
  return `${head} (its length at byte offset ${start + 8} says ${declared} bytes follow, ${count - 12} do)`;
}

/** Registers `records` on the program. */
export function registerRecords(program: Command): void {
  withSchemaSet(
    program
      .command("records")
      .description(
        "decode a record set (a Fetch/Produce `records` field, a log segment) into JSON lines: one per record, with its batch's fields",
      )
      .argument("[hex]", "the record set as hex; else --file, else stdin (binary or hex)"),
  )
    .option("--file <path>", "read the record set from a file (binary, or hex text)")
    .option(
      "--bytes <format>",
      "how keys, values and header values print: auto (UTF-8 text where valid, else base64; adds keyEncoding/valueEncoding), utf8, base64 or hex",
      "auto",
    )
    .option("--topic <name>", "also decode each key/value as a record of this internal topic (e.g. __consumer_offsets)")
    .option("--skip-crc", "do not verify batch CRCs (as a consumer with check.crcs=false)")
    .option("--lenient", "read what Kafka's Java reader tolerates (see decodeRecords' `lenient`)")
    .option(
      "--allow-incomplete-tail",
      "accept an incomplete last batch (a fetch response cut short by its max bytes): noted on stderr, exit 0",
    )
    .addHelpText(
      "after",
      "\nint64 values print as decimal strings. Compressed batches (gzip, snappy, lz4, zstd) decode with\n" +
        "kafka-wire-compression. KRaft control records decode with a schema set that has their schemas\n" +
        "(--kafka <version>).\n\nExamples:\n  kafka-wire records --file 00000000000000000000.log --bytes hex\n" +
        "  kafka-wire records --file offsets.bin --topic __consumer_offsets --kafka 4.1.0",
    )
    .action(async (hex: string | undefined, flags: RecordsFlags, command: Command) => {
      await recordsCommand(contextOf(command), hex, flags);
    });
}
