/**
 * Writing record batches (magic 2) as Kafka's `MemoryRecordsBuilder` / `DefaultRecord.writeTo` /
 * `DefaultRecordBatch.writeHeader` do, and passing decoded batches on unchanged.
 */

import { KafkaEncodeError, KafkaWireError } from "../runtime/errors.js";
import { utf8Length, writeUtf8 } from "../runtime/utf8.js";
import {
  codecFor,
  COMPRESSION_NAMES,
  missingCodecReason,
  type Codecs,
  type Compression,
  type CompressionName,
  type MaybePromise,
} from "./codecs.js";
import { crc32c } from "./crc.js";
import { RECORD_BATCH_OVERHEAD } from "./decode.js";
import type { LegacyBatch, RecordBatch } from "./types.js";
import { varintSize, varlongSize, writeVarint, writeVarlong } from "./varint.js";

/** Bytes (written as they are) or text (written as UTF-8). */
export type BytesInit = Uint8Array | string;

/** One record to write. */
export interface RecordInit {
  /** Offset relative to the batch's baseOffset. Default: the record's index. */
  readonly offsetDelta?: number;
  /** Absolute timestamp in ms (int64). Default: the batch's baseTimestamp (then the current time). */
  readonly timestamp?: bigint | number;
  /** Instead of `timestamp`: the stored delta to baseTimestamp (int64); wins when both are given (as in decoded records, so they re-encode as stored). */
  readonly timestampDelta?: bigint | number;
  /** null (default) or bytes/text. */
  readonly key?: BytesInit | null;
  /** null (default: a tombstone) or bytes/text. */
  readonly value?: BytesInit | null;
  /** In order; keys may repeat, values may be null. */
  readonly headers?: readonly {
    /** The header key (UTF-8). */
    readonly key: string;
    /** The header value, or null. */
    readonly value: BytesInit | null;
  }[];
}

/** A batch to write: Kafka's header field names; everything but `records` is optional. */
export interface RecordBatchInit {
  /** int64, default 0 (a producer writes 0; the broker assigns offsets on append). */
  readonly baseOffset?: bigint | number;
  /** int32, default -1. */
  readonly partitionLeaderEpoch?: number;
  /** Default `"none"`. */
  readonly compression?: Compression;
  /** The codec's level (Kafka's `compression.<codec>.level`); default the codec's. */
  readonly compressionLevel?: number;
  /** Default `"CreateTime"`. */
  readonly timestampType?: "CreateTime" | "LogAppendTime";
  /** Attribute bit 4: written by a transactional producer (default false). */
  readonly isTransactional?: boolean;
  /** Only with `validation: "log"`: producers may not write control batches. */
  readonly isControl?: boolean;
  /** Only with `validation: "log"` (the log cleaner sets it; baseTimestamp is then the delete horizon). */
  readonly hasDeleteHorizon?: boolean;
  /** Default: the last record's offsetDelta (0 for an empty batch). */
  readonly lastOffsetDelta?: number;
  /** int64. Default: the first record's timestamp (-1 for an empty batch). */
  readonly baseTimestamp?: bigint | number;
  /** int64. Default: the largest record timestamp (baseTimestamp for an empty batch). */
  readonly maxTimestamp?: bigint | number;
  /** int64, default -1 (not idempotent). */
  readonly producerId?: bigint | number;
  /** int16, default -1. */
  readonly producerEpoch?: number;
  /** int32, default -1. */
  readonly baseSequence?: number;
  /** When given, must equal `records.length`. */
  readonly recordCount?: number;
  /** The records, in offset order (offset deltas 0, 1, …). */
  readonly records: readonly RecordInit[];
}

/** Options of {@link encodeRecordBatch}. */
export interface EncodeRecordBatchOptions {
  /** Codecs for `compression` (`kafka-wire-compression`'s `codecs`); gzip defaults to the platform's CompressionStream (asynchronous). */
  readonly codecs?: Codecs;
  /**
   * `"producer"` (default): what a broker accepts in a Produce request (Kafka's `LogValidator`):
   * at least one record, offset deltas 0..n-1 so that recordCount = lastOffsetDelta + 1, a
   * producer id only with baseSequence ≥ 0 and producerEpoch ≥ 0, transactional only with a
   * producer id, no control batch, no delete horizon.
   * `"log"`: what a log may hold (compacted batches with offset gaps, empty batches, control
   * batches, delete horizons), as a broker or the log cleaner writes them.
   */
  readonly validation?: "producer" | "log";
  /** A CRC-32C implementation to use instead of the built-in one (see `DecodeRecordsOptions.crc32c`). */
  readonly crc32c?: (data: Uint8Array) => number;
}

const MAX_INT32 = 0x7fffffff;
const MIN_INT64 = -(2n ** 63n);
const MAX_INT64 = 2n ** 63n - 1n;
const textEncoder = /*@__PURE__*/ new TextEncoder();

function fail(reason: string, path = "", code: "INVALID_VALUE" | "INT_OUT_OF_RANGE" = "INVALID_VALUE"): never {
  throw new KafkaEncodeError(code, reason, -1, path);
}

function int32(v: unknown, name: string, dflt: number, min = -0x80000000, max = MAX_INT32): number {
  if (v === undefined) return dflt;
  if (typeof v !== "number" || !Number.isInteger(v)) fail(`${name} must be an integer`, name);
  if (v < min || v > max) fail(`${name} ${v} is outside ${min}..${max}`, name, "INT_OUT_OF_RANGE");
  return v;
}

function int64(v: unknown, name: string): bigint {
  let b: bigint;
  if (typeof v === "bigint") b = v;
  else if (typeof v === "number" && Number.isSafeInteger(v)) b = BigInt(v);
  else fail(`${name} must be a bigint (or a safe integer number)`, name);
  if (b < MIN_INT64 || b > MAX_INT64) fail(`${name} ${b} is outside the int64 range`, name, "INT_OUT_OF_RANGE");
  return b;
}

function bytesOf(v: BytesInit | null | undefined, path: string): Uint8Array | null {
  if (v === null || v === undefined) return null;
  if (v instanceof Uint8Array) return v;
  if (typeof v === "string") {
    utf8Length(v); // rejects lone surrogates
    return textEncoder.encode(v);
  }
  return fail("must be a Uint8Array, a string or null", path);
}

interface PreparedRecord {
  offsetDelta: number;
  timestampDelta: number | bigint;
  key: Uint8Array | null;
  value: Uint8Array | null;
  headerKeys: string[];
  headerKeyLengths: number[];
  headerValues: (Uint8Array | null)[];
  bodySize: number;
}

/** Normalised header fields and the records, measured. */
interface Prepared {
  baseOffset: bigint;
  partitionLeaderEpoch: number;
  attributes: number;
  compression: Compression;
  lastOffsetDelta: number;
  baseTimestamp: bigint;
  maxTimestamp: bigint;
  producerId: bigint;
  producerEpoch: number;
  baseSequence: number;
  records: PreparedRecord[];
  recordsSize: number;
}

/** The options, checked: an options object whose values have the documented types. */
function checkOptions(options: unknown): EncodeRecordBatchOptions {
  if (options === undefined) return {};
  if (options === null || typeof options !== "object") fail("the options must be an object (or omitted)", "options");
  const o = options as EncodeRecordBatchOptions;
  const validation: unknown = o.validation;
  // A typo would otherwise silently switch the producer checks off.
  if (validation !== undefined && validation !== "producer" && validation !== "log") {
    fail(`validation must be "producer" or "log", got ${describe(validation)}`, "options.validation");
  }
  if (o.crc32c !== undefined && typeof o.crc32c !== "function") fail("crc32c must be a function", "options.crc32c");
  return o;
}

function describe(v: unknown): string {
  return typeof v === "string" ? JSON.stringify(v) : typeof v === "symbol" ? v.toString() : String(v);
}

/** A timestamp value: a bigint, or a number (checked as int64 where it is used). */
function timestampValue(v: unknown, path: string): bigint | number {
  if (typeof v !== "bigint" && typeof v !== "number") fail("must be a bigint (or a safe integer number)", path);
  return v;
}

function prepare(init: RecordBatchInit, options: EncodeRecordBatchOptions): Prepared {
  if (init === null || typeof init !== "object" || !Array.isArray(init.records)) {
    fail("a record batch needs a records array", "records");
  }
  const producer = (options.validation ?? "producer") === "producer";
  const compression = init.compression ?? "none";
  const codecId = COMPRESSION_NAMES.indexOf(compression);
  if (codecId < 0) fail(`unknown compression ${String(compression)}`, "compression");
  const timestampType = init.timestampType ?? "CreateTime";
  if (timestampType !== "CreateTime" && timestampType !== "LogAppendTime") {
    fail(`timestampType must be CreateTime or LogAppendTime`, "timestampType");
  }
  const isTransactional = init.isTransactional === true;
  const isControl = init.isControl === true;
  const hasDeleteHorizon = init.hasDeleteHorizon === true;
  const attributes =
    codecId |
    (timestampType === "LogAppendTime" ? 0x08 : 0) |
    (isTransactional ? 0x10 : 0) |
    (isControl ? 0x20 : 0) |
    (hasDeleteHorizon ? 0x40 : 0);
  const baseOffset = init.baseOffset === undefined ? 0n : int64(init.baseOffset, "baseOffset");
  const partitionLeaderEpoch = int32(init.partitionLeaderEpoch, "partitionLeaderEpoch", -1);
  const producerId = init.producerId === undefined ? -1n : int64(init.producerId, "producerId");
  const producerEpoch = int32(init.producerEpoch, "producerEpoch", -1, -0x8000, 0x7fff);
  const baseSequence = int32(init.baseSequence, "baseSequence", -1);
  const n = init.records.length;
  if (init.recordCount !== undefined && init.recordCount !== n) {
    fail(`recordCount ${init.recordCount} differs from the ${n} records given`, "recordCount");
  }
  if (producer) {
    if (isControl) fail('producers may not write control batches (validation: "log" allows it)', "isControl");
    if (hasDeleteHorizon)
      fail('only the log cleaner sets the delete horizon (validation: "log" allows it)', "hasDeleteHorizon");
    if (n === 0) fail("a produced batch needs at least one record", "records");
    if (producerId >= 0n && (baseSequence < 0 || producerEpoch < 0)) {
      fail("an idempotent batch (producerId ≥ 0) needs baseSequence ≥ 0 and producerEpoch ≥ 0", "baseSequence");
    }
    if (isTransactional && producerId < 0n) fail("a transactional batch needs a producerId", "isTransactional");
  }

  // Timestamps: absolute where given, relative to baseTimestamp otherwise.
  let baseTimestamp: bigint;
  const first = init.records[0];
  if (init.baseTimestamp !== undefined) baseTimestamp = int64(init.baseTimestamp, "baseTimestamp");
  else if (first === undefined) baseTimestamp = -1n;
  else if (first.timestamp !== undefined) baseTimestamp = int64(first.timestamp, "records[0].timestamp");
  else if (first.timestampDelta !== undefined) fail("timestampDelta needs a baseTimestamp", "baseTimestamp");
  else baseTimestamp = BigInt(Date.now());
  const baseNum = Number(baseTimestamp);
  const baseSafe = Number.isSafeInteger(baseNum);

  const records = new Array<PreparedRecord>(n);
  // The largest timestamp: numbers while they are exact, bigints beyond.
  let maxBig: bigint | undefined;
  let maxNum = -Infinity;
  let previous = -1;
  let recordsSize = 0;
  for (let i = 0; i < n; i++) {
    const path = `records[${i}]`;
    const r = init.records[i]!;
    if (r === null || typeof r !== "object") fail("a record must be an object", path);
    const offsetDelta = int32(r.offsetDelta, `${path}.offsetDelta`, i, 0);
    if (offsetDelta <= previous)
      fail(`offsetDelta ${offsetDelta} does not increase (previous ${previous})`, `${path}.offsetDelta`);
    if (producer && offsetDelta !== i) {
      fail(`a produced batch has offset deltas 0..${n - 1}; record ${i} has ${offsetDelta}`, `${path}.offsetDelta`);
    }
    previous = offsetDelta;
    let timestampDelta: number | bigint;
    let timestamp: bigint | number;
    if (r.timestampDelta !== undefined) {
      const d = r.timestampDelta;
      if (typeof d === "number" && Number.isSafeInteger(d) && baseSafe) {
        timestampDelta = d;
        timestamp = baseNum + d;
      } else {
        const big = int64(d, `${path}.timestampDelta`);
        timestampDelta = big;
        timestamp = BigInt.asIntN(64, baseTimestamp + big);
      }
    } else {
      const t = r.timestamp === undefined ? baseTimestamp : timestampValue(r.timestamp, `${path}.timestamp`);
      const tNum = typeof t === "number" ? t : Number(t);
      if (baseSafe && Number.isSafeInteger(tNum) && Number.isSafeInteger(tNum - baseNum)) {
        if (typeof t === "number" || BigInt(tNum) === t) {
          timestampDelta = tNum - baseNum;
          timestamp = tNum;
        } else {
          timestamp = int64(t, `${path}.timestamp`);
          timestampDelta = timestamp - baseTimestamp;
        }
      } else {
        timestamp = int64(t, `${path}.timestamp`);
        timestampDelta = timestamp - baseTimestamp;
      }
    }
    if (typeof timestamp === "number") {
      if (producer && timestamp < 0 && timestamp !== -1)
        fail(`timestamp ${timestamp}: the only negative timestamp is -1 (none)`, `${path}.timestamp`);
      if (timestamp > maxNum) maxNum = timestamp;
    } else {
      if (producer && timestamp < 0n && timestamp !== -1n)
        fail(`timestamp ${timestamp}: the only negative timestamp is -1 (none)`, `${path}.timestamp`);
      if (maxBig === undefined || timestamp > maxBig) maxBig = timestamp;
    }
    if (typeof timestampDelta === "bigint" && timestampDelta >= -(2n ** 52n) && timestampDelta <= 2n ** 52n) {
      timestampDelta = Number(timestampDelta);
    }
    const key = bytesOf(r.key, `${path}.key`);
    const value = bytesOf(r.value, `${path}.value`);
    const headers = r.headers ?? [];
    if (!Array.isArray(headers)) fail("headers must be an array", `${path}.headers`);
    const h = headers.length;
    const headerKeys = new Array<string>(h);
    const headerKeyLengths = new Array<number>(h);
    const headerValues = new Array<Uint8Array | null>(h);
    let bodySize =
      1 +
      varlongSize(timestampDelta) +
      varintSize(offsetDelta) +
      (key === null ? 1 : varintSize(key.length) + key.length) +
      (value === null ? 1 : varintSize(value.length) + value.length) +
      varintSize(h);
    for (let j = 0; j < h; j++) {
      const header = headers[j]!;
      const hk = header?.key;
      if (typeof hk !== "string") fail("a header key must be a string", `${path}.headers[${j}].key`);
      let hkLength: number;
      try {
        hkLength = utf8Length(hk);
      } catch (e) {
        if (e instanceof KafkaWireError) e.prependPath(`${path}.headers[${j}].key`);
        throw e;
      }
      const hv = bytesOf(header.value, `${path}.headers[${j}].value`);
      headerKeys[j] = hk;
      headerKeyLengths[j] = hkLength;
      headerValues[j] = hv;
      bodySize += varintSize(hkLength) + hkLength + (hv === null ? 1 : varintSize(hv.length) + hv.length);
    }
    if (bodySize > MAX_INT32) fail("record larger than 2^31-1 bytes", path);
    recordsSize += varintSize(bodySize) + bodySize;
    if (recordsSize > MAX_INT32 - RECORD_BATCH_OVERHEAD) fail("batch larger than 2^31-1 bytes", "records");
    records[i] = { offsetDelta, timestampDelta, key, value, headerKeys, headerKeyLengths, headerValues, bodySize };
  }
  const lastOffsetDelta = int32(init.lastOffsetDelta, "lastOffsetDelta", n === 0 ? 0 : previous, 0);
  if (lastOffsetDelta < previous) {
    fail(`lastOffsetDelta ${lastOffsetDelta} is below the last record's offsetDelta ${previous}`, "lastOffsetDelta");
  }
  if (producer && lastOffsetDelta !== n - 1) {
    fail(
      `a produced batch has recordCount = lastOffsetDelta + 1; lastOffsetDelta is ${lastOffsetDelta} for ${n} records`,
      "lastOffsetDelta",
    );
  }
  let max: bigint;
  if (init.maxTimestamp !== undefined) max = int64(init.maxTimestamp, "maxTimestamp");
  else if (n === 0) max = baseTimestamp;
  else if (maxBig === undefined) max = BigInt(maxNum);
  else max = maxNum !== -Infinity && BigInt(maxNum) > maxBig ? BigInt(maxNum) : maxBig;
  return {
    baseOffset,
    partitionLeaderEpoch,
    attributes,
    compression,
    lastOffsetDelta,
    baseTimestamp,
    maxTimestamp: max,
    producerId,
    producerEpoch,
    baseSequence,
    records,
    recordsSize,
  };
}

function writeBytes(buf: Uint8Array, p: number, b: Uint8Array | null): number {
  if (b === null) {
    buf[p] = 1; // zigzag(-1)
    return p + 1;
  }
  p = writeVarint(buf, p, b.length);
  buf.set(b, p);
  return p + b.length;
}

function writeRecords(buf: Uint8Array, p: number, records: PreparedRecord[]): number {
  for (const r of records) {
    p = writeVarint(buf, p, r.bodySize);
    buf[p++] = 0; // attributes: unused, 0
    p = writeVarlong(buf, p, r.timestampDelta);
    p = writeVarint(buf, p, r.offsetDelta);
    p = writeBytes(buf, p, r.key);
    p = writeBytes(buf, p, r.value);
    const h = r.headerKeys.length;
    p = writeVarint(buf, p, h);
    for (let j = 0; j < h; j++) {
      const len = r.headerKeyLengths[j]!;
      p = writeVarint(buf, p, len);
      p = writeUtf8(buf, p, r.headerKeys[j]!, len);
      p = writeBytes(buf, p, r.headerValues[j]!);
    }
  }
  return p;
}

/** Writes the 61-byte header into `out` (whose records section is in place) and its CRC. */
function writeHeader(
  out: Uint8Array,
  b: Prepared,
  recordCount: number,
  crc?: (data: Uint8Array) => number,
): Uint8Array {
  const v = new DataView(out.buffer, out.byteOffset, out.byteLength);
  v.setBigInt64(0, b.baseOffset);
  v.setInt32(8, out.length - 12);
  v.setInt32(12, b.partitionLeaderEpoch);
  out[16] = 2;
  v.setInt16(21, b.attributes);
  v.setInt32(23, b.lastOffsetDelta);
  v.setBigInt64(27, b.baseTimestamp);
  v.setBigInt64(35, b.maxTimestamp);
  v.setBigInt64(43, b.producerId);
  v.setInt16(51, b.producerEpoch);
  v.setInt32(53, b.baseSequence);
  v.setInt32(57, recordCount);
  v.setUint32(17, crc === undefined ? crc32c(out, 21) : pluggedCrc(crc, out.subarray(21)));
  return out;
}

/** The CRC a `crc32c` option computes, checked: a non-number must not be written as CRC 0. */
export function pluggedCrc(crc: (data: Uint8Array) => number, data: Uint8Array): number {
  let got: unknown;
  try {
    got = crc(data);
  } catch (e) {
    if (e instanceof KafkaWireError) throw e;
    throw new KafkaEncodeError(
      "INVALID_VALUE",
      `the crc32c option failed: ${(e as Error)?.message ?? String(e)}`,
      -1,
      "options.crc32c",
      { cause: e },
    );
  }
  // Past 32 bits, `>>> 0` would write some other CRC (2^40 gives 0); signed results are the same 32 bits.
  if (typeof got !== "number" || !Number.isInteger(got) || got < -0x80000000 || got > 0xffffffff) {
    fail(`the crc32c option returned ${describe(got)}, not a 32-bit integer`, "options.crc32c");
  }
  return got >>> 0;
}

/**
 * Runs `f`, turning what is not a KafkaWireError (a throwing getter of the caller's, a value of a
 * type no check expected) into a KafkaEncodeError, so callers only ever see ours.
 */
function guarded<T>(f: () => T, path = ""): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof KafkaWireError) throw e;
    throw new KafkaEncodeError(
      "INVALID_VALUE",
      `value has the wrong shape: ${(e as Error)?.message ?? String(e)}`,
      -1,
      path,
      {
        cause: e,
      },
    );
  }
}

/** True for batches `decodeRecords` returned (not copies made with spread syntax). */
function isDecoded(init: unknown): init is RecordBatch | LegacyBatch {
  return (
    init !== null &&
    typeof init === "object" &&
    Object.getPrototypeOf(init) !== Object.prototype &&
    (init as { raw?: unknown }).raw instanceof Uint8Array &&
    typeof Object.getOwnPropertyDescriptor(Object.getPrototypeOf(init), "records")?.get === "function"
  );
}

/**
 * Writes one record batch (magic 2): computes lastOffsetDelta, maxTimestamp, recordCount, the
 * batch length and the CRC-32C, compresses the records with `compression`'s codec, and validates
 * as a broker does (see {@link EncodeRecordBatchOptions.validation}). For uncompressed batches
 * the result equals Kafka's bytes for the same fields.
 *
 * A batch that `decodeRecords` returned is passed through unchanged: its bytes (compressed
 * payload and CRC included) are returned as they are.
 *
 * @returns the batch, or a Promise of it when the codec is asynchronous.
 * @throws KafkaEncodeError `INVALID_VALUE` / `INT_OUT_OF_RANGE` (with the field path),
 *   `UNSUPPORTED_COMPRESSION` (no codec), `COMPRESSION_FAILED`.
 */
export function encodeRecordBatch(
  init: RecordBatchInit | RecordBatch,
  options: EncodeRecordBatchOptions = {},
): Uint8Array | Promise<Uint8Array> {
  if (isDecoded(init)) return init.raw;
  options = checkOptions(options);
  const b = guarded(() => prepare(init, options));
  const n = b.records.length;
  if (b.compression === "none" || n === 0) {
    const out = new Uint8Array(RECORD_BATCH_OVERHEAD + b.recordsSize);
    writeRecords(out, RECORD_BATCH_OVERHEAD, b.records);
    return writeHeader(out, b, n, options.crc32c);
  }
  const name = b.compression as CompressionName;
  const codec = codecFor(name, options.codecs);
  if (codec === undefined)
    throw new KafkaEncodeError("UNSUPPORTED_COMPRESSION", missingCodecReason(name), -1, "compression");
  const plain = new Uint8Array(b.recordsSize);
  writeRecords(plain, 0, b.records);
  const finish = (payload: Uint8Array) => {
    if (!(payload instanceof Uint8Array))
      throw new KafkaEncodeError("COMPRESSION_FAILED", `${name} codec returned no bytes`, -1);
    const out = new Uint8Array(RECORD_BATCH_OVERHEAD + payload.length);
    out.set(payload, RECORD_BATCH_OVERHEAD);
    return writeHeader(out, b, n, options.crc32c);
  };
  const failed = (e: unknown) =>
    new KafkaEncodeError("COMPRESSION_FAILED", `${name}: ${(e as Error)?.message ?? e}`, -1, "compression", {
      cause: e,
    });
  let result: MaybePromise<Uint8Array>;
  try {
    result = codec.compress(plain, { level: init.compressionLevel, magic: 2 });
  } catch (e) {
    throw failed(e);
  }
  if (result instanceof Promise) {
    return result.then(finish, (e) => {
      throw failed(e);
    });
  }
  return finish(result);
}

/**
 * A record set of batches back to back: decoded batches keep their own bytes, inits are encoded.
 * @returns the set, or a Promise of it when an asynchronous codec ran.
 */
export function encodeRecords(
  batches: readonly (RecordBatchInit | RecordBatch | LegacyBatch | Uint8Array)[],
  options: EncodeRecordBatchOptions = {},
): Uint8Array | Promise<Uint8Array> {
  if (!Array.isArray(batches)) fail("encodeRecords needs an array of batches", "batches");
  options = checkOptions(options);
  const parts = batches.map((b, i) => {
    if (b instanceof Uint8Array) return b;
    if (isDecoded(b)) return b.raw;
    try {
      return encodeRecordBatch(b as RecordBatchInit, options);
    } catch (e) {
      if (e instanceof KafkaWireError) e.prependPath(`batches[${i}]`);
      throw e;
    }
  });
  const join = (done: Uint8Array[]) => {
    let size = 0;
    for (const p of done) size += p.length;
    const out = new Uint8Array(size);
    let at = 0;
    for (const p of done) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  };
  if (parts.some((p) => p instanceof Promise)) return Promise.all(parts).then(join);
  return join(parts as Uint8Array[]);
}

/** The header fields a broker sets when it appends a batch (see {@link withBatchHeader}). */
export interface BatchHeaderUpdate {
  /** int64: the offset the log assigns (Kafka's `setLastOffset(baseOffset + lastOffsetDelta)`). */
  readonly baseOffset?: bigint | number;
  /** int32 (`setPartitionLeaderEpoch`). */
  readonly partitionLeaderEpoch?: number;
  /** Sets the timestamp type and maxTimestamp (`setMaxTimestamp`, e.g. LogAppendTime with the append time): inside the CRC, so the CRC is recomputed. */
  readonly maxTimestamp?: {
    /** The new timestamp type. */
    readonly timestampType: "CreateTime" | "LogAppendTime";
    /** The new maxTimestamp (int64 ms). */
    readonly timestamp: bigint | number;
  };
}

/**
 * A copy of a magic-2 batch's bytes with the fields a broker sets on append. baseOffset and
 * partitionLeaderEpoch lie outside the CRC: the rest of the bytes (compressed payload, CRC) stay
 * as they are. `raw` itself is not modified.
 *
 * With `into` (exactly `raw.length` bytes, e.g. a slot of a log segment) the copy is written
 * there and `into` is returned, so that a broker storing many batches allocates once for many;
 * `into` may be `raw` itself, to update the batch in place. Every field is checked before a byte
 * is written: on error `into` is as it was.
 * @throws KafkaEncodeError `INVALID_VALUE` when `raw` is not a magic-2 batch or `into` is not a
 *   Uint8Array of `raw.length` bytes; `INT_OUT_OF_RANGE` for a field outside its type's range.
 */
export function withBatchHeader(raw: Uint8Array, update: BatchHeaderUpdate, into?: Uint8Array): Uint8Array {
  if (!(raw instanceof Uint8Array) || raw.length < RECORD_BATCH_OVERHEAD || raw[16] !== 2) {
    fail("withBatchHeader needs the bytes of a magic-2 record batch", "raw");
  }
  if (update === null || typeof update !== "object") fail("the update must be an object", "update");
  if (into !== undefined && (!(into instanceof Uint8Array) || into.length !== raw.length)) {
    fail(`into must be a Uint8Array of the batch's ${raw.length} bytes`, "into");
  }
  return guarded(() => applyHeader(raw, update, into));
}

function applyHeader(raw: Uint8Array, update: BatchHeaderUpdate, into: Uint8Array | undefined): Uint8Array {
  const baseOffset = update.baseOffset === undefined ? undefined : int64(update.baseOffset, "baseOffset");
  const epoch =
    update.partitionLeaderEpoch === undefined
      ? undefined
      : int32(update.partitionLeaderEpoch, "partitionLeaderEpoch", -1);
  let timestampType: "CreateTime" | "LogAppendTime" | undefined;
  let maxTimestamp: bigint | undefined;
  if (update.maxTimestamp !== undefined) {
    if (update.maxTimestamp === null || typeof update.maxTimestamp !== "object") {
      fail("maxTimestamp must be an object { timestampType, timestamp }", "maxTimestamp");
    }
    timestampType = update.maxTimestamp.timestampType;
    if (timestampType !== "CreateTime" && timestampType !== "LogAppendTime") {
      fail("timestampType must be CreateTime or LogAppendTime", "maxTimestamp.timestampType");
    }
    maxTimestamp = int64(update.maxTimestamp.timestamp, "maxTimestamp.timestamp");
  }
  let out: Uint8Array;
  if (into === undefined) out = raw.slice();
  else {
    // `set` copies as if through a temporary buffer: `into` overlapping `raw` is safe.
    if (into !== raw) into.set(raw);
    out = into;
  }
  const v = new DataView(out.buffer, out.byteOffset, out.byteLength);
  if (baseOffset !== undefined) v.setBigInt64(0, baseOffset);
  if (epoch !== undefined) v.setInt32(12, epoch);
  if (maxTimestamp !== undefined) {
    const attributes = v.getInt16(21);
    v.setInt16(21, timestampType === "LogAppendTime" ? attributes | 0x08 : attributes & ~0x08);
    v.setBigInt64(35, maxTimestamp);
    v.setUint32(17, crc32c(out, 21));
  }
  return out;
}

/** What {@link endTransactionMarker} writes (Kafka's `MemoryRecords.withEndTransactionMarker`). */
export interface EndTransactionMarkerInit {
  /** Which marker. */
  readonly type: "COMMIT" | "ABORT";
  /** int64, default 0 (the broker assigns it on append). */
  readonly baseOffset?: bigint | number;
  /** The batch and record timestamp (ms); default now. */
  readonly timestamp?: bigint | number;
  /** int32, default -1. */
  readonly partitionLeaderEpoch?: number;
  /** int64: the transactional producer's id. */
  readonly producerId: bigint | number;
  /** int16: the producer's epoch. */
  readonly producerEpoch: number;
  /** int32: the transaction coordinator's epoch. */
  readonly coordinatorEpoch: number;
  /** The marker value's int16 version, default 0. */
  readonly version?: number;
}

/**
 * A transaction marker batch, as the transaction coordinator has the partition leader write it:
 * a transactional control batch holding one control record, key `int16 0, int16 type` (ABORT 0,
 * COMMIT 1), value `int16 version, int32 coordinatorEpoch`.
 */
export function endTransactionMarker(init: EndTransactionMarkerInit): Uint8Array {
  if (init === null || typeof init !== "object")
    fail("endTransactionMarker needs an object { type, producerId, ... }", "");
  return guarded(() => marker(init));
}

function marker(init: EndTransactionMarkerInit): Uint8Array {
  if (init.type !== "COMMIT" && init.type !== "ABORT") fail("type must be COMMIT or ABORT", "type");
  const key = new Uint8Array([0, 0, 0, init.type === "COMMIT" ? 1 : 0]);
  const value = new Uint8Array(6);
  const v = new DataView(value.buffer);
  v.setInt16(0, int32(init.version, "version", 0, 0, 0x7fff));
  v.setInt32(2, int32(init.coordinatorEpoch, "coordinatorEpoch", 0));
  const timestamp = init.timestamp ?? Date.now();
  return encodeRecordBatch(
    {
      baseOffset: init.baseOffset ?? 0n,
      partitionLeaderEpoch: init.partitionLeaderEpoch ?? -1,
      isTransactional: true,
      isControl: true,
      producerId: init.producerId,
      producerEpoch: init.producerEpoch,
      baseTimestamp: timestamp,
      records: [{ key, value, timestamp }],
    },
    { validation: "log" },
  ) as Uint8Array;
}
