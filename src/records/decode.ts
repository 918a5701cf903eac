/**
 * Reading record sets: magic-2 record batches (the protocol guide's "Record Batch", KIP-98) and
 * legacy magic 0/1 message sets, as Kafka's `MemoryRecords.batches()`, `DefaultRecordBatch` and
 * `AbstractLegacyRecordBatch` read them, with the checks of `ensureValid()` and of record iteration.
 *
 * Strict by default: where Kafka's reader silently accepts something no Kafka writer produces
 * (unused attribute bits, non-minimal varints, negative lengths other than -1, offset deltas out
 * of order, invalid UTF-8 header keys...), we reject it; `lenient: true` reads as Kafka does.
 */

import { KafkaDecodeError, KafkaRecordsError, KafkaWireError, type KafkaWireErrorCode } from "../runtime/errors.js";
import { readUtf8 } from "../runtime/utf8.js";
import {
  codecFor,
  COMPRESSION_NAMES,
  missingCodecReason,
  type Codecs,
  type Compression,
  type CompressionName,
  type MaybePromise,
} from "./codecs.js";
import { crc32, crc32c } from "./crc.js";
import {
  CONTROL_TYPE_NAMES,
  type ControlRecord,
  type ControlRecordTypeName,
  type DefaultRecord,
  type LegacyBatch,
  type LegacyRecord,
  type RecordBatch,
  type RecordHeader,
  type RecordSet,
  type TimestampType,
} from "./types.js";
import { cursor, varint, varlong } from "./varint.js";

/** Options of {@link decodeRecords}. Every default is the safe choice. */
export interface DecodeRecordsOptions {
  /** Codecs for compressed batches (`kafka-wire-compression` exports all four as `codecs`). gzip defaults to the platform's DecompressionStream (asynchronous). */
  readonly codecs?: Codecs;
  /** Verify each batch's CRC-32C (legacy: CRC-32), as Kafka's consumer does with `check.crcs=true`. Default true. */
  readonly verifyCrc?: boolean;
  /** The most bytes one batch may decompress to (a decompression bomb fails with `DECOMPRESSED_TOO_LARGE`). Default 64 MiB. */
  readonly maxDecompressedBytes?: number;
  /**
   * Read as Kafka's Java reader does where it is lenient: unused attribute bits, non-zero record
   * attributes, the transactional bit without a producer id, recordCount 0 with records present
   * (read as no records), non-minimal varints and dropped high bits, negative lengths other than
   * -1 (read as null), offset deltas that do not increase or exceed lastOffsetDelta, CreateTime
   * records newer than maxTimestamp, invalid UTF-8 header keys (read with U+FFFD), short
   * transaction markers, bytes after a legacy message's value. Default false: all are
   * `CORRUPT_RECORD` / `INVALID_VARINT` / `INVALID_LENGTH` / `INVALID_STRING` errors.
   */
  readonly lenient?: boolean;
  /**
   * Decodes the value of a control record that is not a transaction marker (the KRaft types
   * LEADER_CHANGE ... KRAFT_VOTERS, and unknown types); its result is the record's
   * `control.decoded`. E.g. `(type, _typeId, value) => type === "LEADER_CHANGE" && value !== null ? LeaderChangeMessage.decode(value, 0) : undefined`
   * with codecs generated from Kafka's raft schemas. A throw fails the decode (as a KafkaRecordsError).
   */
  readonly controlDecoder?: (type: ControlRecordTypeName, typeId: number, value: Uint8Array | null) => unknown;
  /**
   * A CRC-32C implementation to use instead of the built-in pure-JavaScript one (about 1.7 GB/s),
   * e.g. a native or hardware-accelerated one: `(data) => nativeCrc32c(data)`. It gets the bytes
   * from a batch's attributes to its end and returns the unsigned CRC.
   */
  readonly crc32c?: (data: Uint8Array) => number;
}

/** Kafka's `DefaultRecordBatch.RECORD_BATCH_OVERHEAD`. */
export const RECORD_BATCH_OVERHEAD = 61;
/** Kafka's `Records.LOG_OVERHEAD`: offset int64 + length int32. */
const LOG_OVERHEAD = 12;
/** Kafka's `Records.HEADER_SIZE_UP_TO_MAGIC`. */
const HEADER_SIZE_UP_TO_MAGIC = 17;
/** Kafka's `LegacyRecord.RECORD_OVERHEAD_V0`: the smallest length field any entry may have. */
const RECORD_OVERHEAD_V0 = 14;
const RECORD_OVERHEAD_V1 = 22;
/** The fewest bytes one magic-2 record takes: 7 one-byte fields. */
const MIN_RECORD_SIZE = 7;
/** The default {@link DecodeRecordsOptions.maxDecompressedBytes}. */
export const DEFAULT_MAX_DECOMPRESSED_BYTES = 64 * 1024 * 1024;

const MAX_INT32 = 0x7fffffff;
const MAX_SAFE = Number.MAX_SAFE_INTEGER;

interface Context {
  readonly strict: boolean;
  readonly verifyCrc: boolean;
  readonly maxBytes: number;
  readonly codecs: Codecs | undefined;
  readonly controlDecoder: DecodeRecordsOptions["controlDecoder"];
  readonly crc32c: ((data: Uint8Array) => number) | undefined;
}

/** Kafka's `DefaultRecordBatch.incrementSequence`, with Java's int overflow. */
function incrementSequence(sequence: number, increment: number): number {
  if (sequence > ((MAX_INT32 - increment) | 0)) return (increment - ((MAX_INT32 - sequence) | 0) - 1) | 0;
  return (sequence + increment) | 0;
}

function int32(b: Uint8Array, p: number): number {
  return (b[p]! << 24) | (b[p + 1]! << 16) | (b[p + 2]! << 8) | b[p + 3]!;
}

function int64(b: Uint8Array, p: number): bigint {
  return (BigInt(int32(b, p)) << 32n) | BigInt(int32(b, p + 4) >>> 0);
}

function recordsError(
  code: KafkaWireErrorCode,
  reason: string,
  offset: number,
  path: string,
  baseOffset: bigint | null,
  batchOffset: number,
  cause?: unknown,
): KafkaRecordsError {
  return new KafkaRecordsError(code, reason, offset, path, baseOffset, batchOffset, { cause });
}

// ---------------------------------------------------------------------------------------------
// Magic 2
// ---------------------------------------------------------------------------------------------

/** Ints kept per record by the decode pass (see {@link RecordsData}). */
const STRIDE = 9;
const OFFSET_DELTA = 0;
const ATTRIBUTES = 1;
const SIZE = 2;
const KEY_AT = 3;
const KEY_LENGTH = 4;
const VALUE_AT = 5;
const VALUE_LENGTH = 6;
const HEADERS_AT = 7;
const HEADER_COUNT = 8;

/**
 * What the decode pass keeps of a batch's records: positions and small ints, STRIDE per record in
 * one Int32Array, plus the timestamp deltas. Records are thin handles over it (a batch and an
 * index): key, value and headers are made on access, so a consumer pays only for what it reads.
 */
class RecordsData {
  constructor(
    readonly batch: Batch,
    readonly buf: Uint8Array,
    readonly meta: Int32Array,
    readonly timestampDeltas: (number | bigint)[],
    readonly controls: (ControlRecord | undefined)[] | null,
  ) {}
}

/** A magic-2 record (a handle into its batch's {@link RecordsData}). Key and value views are new on each access. */
class Record implements DefaultRecord {
  readonly #d: RecordsData;
  readonly #i: number;
  #headers: RecordHeader[] | undefined = undefined;
  constructor(d: RecordsData, i: number) {
    this.#d = d;
    this.#i = i * STRIDE;
  }

  get offsetDelta(): number {
    return this.#d.meta[this.#i + OFFSET_DELTA]!;
  }

  get attributes(): number {
    return this.#d.meta[this.#i + ATTRIBUTES]!;
  }

  get sizeInBytes(): number {
    return this.#d.meta[this.#i + SIZE]!;
  }

  get control(): ControlRecord | undefined {
    return this.#d.controls?.[this.#i / STRIDE];
  }

  get key(): Uint8Array | null {
    const m = this.#d.meta;
    const at = m[this.#i + KEY_AT]!;
    const n = m[this.#i + KEY_LENGTH]!;
    return n < 0 ? null : this.#d.buf.subarray(at, at + n);
  }

  get value(): Uint8Array | null {
    const m = this.#d.meta;
    const at = m[this.#i + VALUE_AT]!;
    const n = m[this.#i + VALUE_LENGTH]!;
    return n < 0 ? null : this.#d.buf.subarray(at, at + n);
  }

  get headers(): readonly RecordHeader[] {
    const m = this.#d.meta;
    return (this.#headers ??= readHeaders(this.#d.buf, m[this.#i + HEADERS_AT]!, m[this.#i + HEADER_COUNT]!));
  }

  get offset(): bigint {
    return this.#d.batch.baseOffset + BigInt(this.offsetDelta);
  }

  get timestamp(): bigint {
    const b = this.#d.batch;
    if (b.timestampType === "LogAppendTime") return b.maxTimestamp;
    return BigInt.asIntN(64, b.baseTimestamp + BigInt(this.#d.timestampDeltas[this.#i / STRIDE]!));
  }

  get timestampDelta(): bigint {
    return BigInt(this.#d.timestampDeltas[this.#i / STRIDE]!);
  }

  get sequence(): number {
    const base = this.#d.batch.baseSequence;
    return base === -1 ? -1 : incrementSequence(base, this.offsetDelta);
  }
}

/** Headers whose bytes the decode pass has validated (so no checks here; any negative value length is null, as lenient reads it). */
function readHeaders(buf: Uint8Array, p: number, count: number): RecordHeader[] {
  const headers = new Array<RecordHeader>(count);
  for (let h = 0; h < count; h++) {
    const keyLength = varint(buf, p, buf.length, false);
    p = cursor.next;
    const key = readUtf8(buf, p, keyLength, false);
    p += keyLength;
    const valueLength = varint(buf, p, buf.length, false);
    p = cursor.next;
    let value: Uint8Array | null = null;
    if (valueLength >= 0) value = buf.subarray(p, (p += valueLength));
    headers[h] = { key, value };
  }
  return headers;
}

/** Checks that `buf[p..p+n)` is UTF-8 (ASCII fast path; the platform's strict decoder otherwise). */
function checkUtf8(buf: Uint8Array, p: number, n: number): void {
  const end = p + n;
  for (let i = p; i < end; i++) {
    if (buf[i]! >= 0x80) {
      readUtf8(buf, p, n, true);
      return;
    }
  }
}

class Batch implements RecordBatch {
  readonly magic = 2 as const;
  readonly baseOffset: bigint;
  readonly batchLength: number;
  readonly partitionLeaderEpoch: number;
  readonly crc: number;
  readonly attributes: number;
  readonly compression: Compression;
  readonly timestampType: "CreateTime" | "LogAppendTime";
  readonly isTransactional: boolean;
  readonly isControl: boolean;
  readonly hasDeleteHorizon: boolean;
  readonly deleteHorizonMs: bigint | null;
  readonly lastOffsetDelta: number;
  readonly baseTimestamp: bigint;
  readonly maxTimestamp: bigint;
  readonly producerId: bigint;
  readonly producerEpoch: number;
  readonly baseSequence: number;
  readonly lastSequence: number;
  readonly recordCount: number;
  readonly raw: Uint8Array;
  readonly byteOffset: number;
  #records: Record[] | null = null;
  #error: KafkaRecordsError | null = null;

  constructor(raw: Uint8Array, byteOffset: number) {
    this.raw = raw;
    this.byteOffset = byteOffset;
    this.baseOffset = int64(raw, 0);
    this.batchLength = int32(raw, 8);
    this.partitionLeaderEpoch = int32(raw, 12);
    this.crc = int32(raw, 17) >>> 0;
    const a = (raw[21]! << 8) | raw[22]!;
    this.attributes = (a << 16) >> 16;
    this.compression = COMPRESSION_NAMES[a & 7] ?? "none";
    this.timestampType = a & 8 ? "LogAppendTime" : "CreateTime";
    this.isTransactional = (a & 0x10) !== 0;
    this.isControl = (a & 0x20) !== 0;
    this.hasDeleteHorizon = (a & 0x40) !== 0;
    this.lastOffsetDelta = int32(raw, 23);
    this.baseTimestamp = int64(raw, 27);
    this.maxTimestamp = int64(raw, 35);
    this.producerId = int64(raw, 43);
    this.producerEpoch = (((raw[51]! << 8) | raw[52]!) << 16) >> 16;
    this.baseSequence = int32(raw, 53);
    this.recordCount = int32(raw, 57);
    this.deleteHorizonMs = this.hasDeleteHorizon ? this.baseTimestamp : null;
    this.lastSequence = this.baseSequence === -1 ? -1 : incrementSequence(this.baseSequence, this.lastOffsetDelta);
  }

  get records(): readonly DefaultRecord[] {
    if (this.#records === null) throw this.#error!;
    return this.#records;
  }

  get recordsAvailable(): boolean {
    return this.#records !== null;
  }

  get nextOffset(): bigint {
    return this.baseOffset + BigInt(this.lastOffsetDelta) + 1n;
  }

  /** @internal */
  setRecords(records: Record[]): void {
    this.#records = records;
  }

  /** @internal */
  setError(error: KafkaRecordsError): void {
    this.#error = error;
  }
}

/** Control record key and value (Kafka's `ControlRecordType.parse` and `EndTransactionMarker`). */
function parseControl(
  key: Uint8Array | null,
  value: Uint8Array | null,
  ctx: Context,
  keyAt: number,
  valueAt: number,
): ControlRecord {
  if (key === null || key.length < 4) {
    throw new KafkaDecodeError(
      "CORRUPT_RECORD",
      `a control record's key needs 4 bytes (int16 version, int16 type), it has ${key === null ? "none (null)" : key.length}`,
      keyAt,
    );
  }
  const keyVersion = (((key[0]! << 8) | key[1]!) << 16) >> 16;
  if (keyVersion < 0) {
    throw new KafkaDecodeError("CORRUPT_RECORD", `negative control key version ${keyVersion}`, keyAt);
  }
  const typeId = (((key[2]! << 8) | key[3]!) << 16) >> 16;
  const type = CONTROL_TYPE_NAMES[typeId] ?? "UNKNOWN";
  if (typeId === 0 || typeId === 1) {
    if (value === null || value.length < 6) {
      if (ctx.strict) {
        throw new KafkaDecodeError(
          "CORRUPT_RECORD",
          `a transaction marker's value needs 6 bytes (int16 version, int32 coordinatorEpoch), it has ${value === null ? "none (null)" : value.length}`,
          valueAt,
        );
      }
      return { keyVersion, typeId, type };
    }
    const version = (((value[0]! << 8) | value[1]!) << 16) >> 16;
    if (version < 0)
      throw new KafkaDecodeError("CORRUPT_RECORD", `negative transaction marker version ${version}`, valueAt);
    return { keyVersion, typeId, type, marker: { version, coordinatorEpoch: int32(value, 2) } };
  }
  if (ctx.controlDecoder === undefined) return { keyVersion, typeId, type };
  let decoded: unknown;
  try {
    decoded = ctx.controlDecoder(type, typeId, value);
  } catch (e) {
    if (e instanceof KafkaWireError) throw new KafkaDecodeError(e.code, `control record value: ${e.reason}`, valueAt);
    throw new KafkaDecodeError("INVALID_VALUE", `controlDecoder failed: ${(e as Error)?.message ?? e}`, valueAt, "", {
      cause: e,
    });
  }
  return { keyVersion, typeId, type, decoded };
}

/**
 * The records of one batch from `buf[start..end)` (the batch itself, or its decompressed
 * records). Errors are positioned in `buf`; the caller turns them into KafkaRecordsErrors.
 */
function parseRecords(buf: Uint8Array, start: number, end: number, batch: Batch, ctx: Context, at: { i: number }) {
  const count = batch.recordCount;
  const strict = ctx.strict;
  if (count === 0) {
    if (strict && end > start) {
      throw new KafkaDecodeError(
        "CORRUPT_RECORD",
        `recordCount is 0 but ${end - start} bytes of records follow (Kafka ignores them; lenient reads no records)`,
        start,
      );
    }
    return [];
  }
  if (count < 0 || count > (end - start) / MIN_RECORD_SIZE) {
    throw new KafkaDecodeError(
      "CORRUPT_RECORD",
      `recordCount ${count} cannot be ${count < 0 ? "negative" : `held by ${end - start} bytes of records`}`,
      start,
    );
  }
  const createTime = batch.timestampType === "CreateTime";
  // Strict check of CreateTime timestamps against maxTimestamp, in doubles when exact.
  const baseTs = Number(batch.baseTimestamp);
  const maxTs = Number(batch.maxTimestamp);
  const numericTs = createTime && strict && Math.abs(baseTs) < 2 ** 52 && Math.abs(maxTs) < 2 ** 52;
  const lastOffsetDelta = batch.lastOffsetDelta;
  const control = batch.isControl;
  const meta = new Int32Array(count * STRIDE);
  const timestampDeltas = new Array<number | bigint>(count);
  const controls = control ? new Array<ControlRecord | undefined>(count) : null;
  let prevOffsetDelta = -1;
  let p = start;
  for (let i = 0; i < count; i++) {
    at.i = i;
    const recordStart = p;
    const length = varint(buf, p, end, strict);
    p = cursor.next;
    if (length < 0 || length > end - p) {
      throw new KafkaDecodeError(
        "CORRUPT_RECORD",
        `record length ${length} ${length < 0 ? "is negative" : `runs past the ${end - p} bytes left in the batch`}`,
        recordStart,
      );
    }
    const bodyEnd = p + length;
    if (p >= bodyEnd) throw new KafkaDecodeError("CORRUPT_RECORD", "record of length 0 has no attributes", p);
    const attributes = (buf[p]! << 24) >> 24;
    if (strict && attributes !== 0) {
      throw new KafkaDecodeError("CORRUPT_RECORD", `record attributes are ${attributes}, Kafka writes 0`, p);
    }
    const timestampDelta = varlong(buf, p + 1, bodyEnd, strict);
    const offsetDelta = varint(buf, cursor.next, bodyEnd, strict);
    p = cursor.next;
    if (strict && (offsetDelta <= prevOffsetDelta || offsetDelta > lastOffsetDelta)) {
      throw new KafkaDecodeError(
        "CORRUPT_RECORD",
        `offsetDelta ${offsetDelta} ${offsetDelta <= prevOffsetDelta ? `does not increase (previous ${prevOffsetDelta})` : `is above lastOffsetDelta ${lastOffsetDelta}`}`,
        p - 1,
      );
    }
    prevOffsetDelta = offsetDelta;
    if (createTime && strict) {
      const late =
        numericTs && typeof timestampDelta === "number"
          ? baseTs + timestampDelta > maxTs
          : BigInt.asIntN(64, batch.baseTimestamp + BigInt(timestampDelta)) > batch.maxTimestamp;
      if (late) {
        throw new KafkaDecodeError(
          "CORRUPT_RECORD",
          `record timestamp is above the batch's maxTimestamp ${batch.maxTimestamp}`,
          recordStart,
        );
      }
    }
    const keyAt = p;
    let keyLength = varint(buf, p, bodyEnd, strict);
    p = cursor.next;
    const keyStart = p;
    if (keyLength >= 0) {
      if (keyLength > bodyEnd - p) throw lengthPast("key", keyLength, bodyEnd - p, keyAt);
      p += keyLength;
    } else if (strict && keyLength !== -1) {
      throw negativeLength("key", keyLength, keyAt);
    } else {
      keyLength = -1;
    }
    const valueAt = p;
    let valueLength = varint(buf, p, bodyEnd, strict);
    p = cursor.next;
    const valueStart = p;
    if (valueLength >= 0) {
      if (valueLength > bodyEnd - p) throw lengthPast("value", valueLength, bodyEnd - p, valueAt);
      p += valueLength;
    } else if (strict && valueLength !== -1) {
      throw negativeLength("value", valueLength, valueAt);
    } else {
      valueLength = -1;
    }
    const headerCountAt = p;
    const headerCount = varint(buf, p, bodyEnd, strict);
    p = cursor.next;
    if (headerCount < 0 || headerCount * 2 > bodyEnd - p) {
      throw new KafkaDecodeError(
        "CORRUPT_RECORD",
        `header count ${headerCount} ${headerCount < 0 ? "is negative" : `cannot fit in the record's ${bodyEnd - p} remaining bytes`}`,
        headerCountAt,
      );
    }
    const headersAt = p;
    for (let h = 0; h < headerCount; h++) {
      const hkAt = p;
      const hkLength = varint(buf, p, bodyEnd, strict);
      p = cursor.next;
      if (hkLength < 0) throw new KafkaDecodeError("CORRUPT_RECORD", `header key length ${hkLength} is negative`, hkAt);
      if (hkLength > bodyEnd - p) throw lengthPast("header key", hkLength, bodyEnd - p, hkAt);
      if (strict) checkUtf8(buf, p, hkLength);
      p += hkLength;
      const hvAt = p;
      const hvLength = varint(buf, p, bodyEnd, strict);
      p = cursor.next;
      if (hvLength >= 0) {
        if (hvLength > bodyEnd - p) throw lengthPast("header value", hvLength, bodyEnd - p, hvAt);
        p += hvLength;
      } else if (strict && hvLength !== -1) {
        throw negativeLength("header value", hvLength, hvAt);
      }
    }
    if (p !== bodyEnd) {
      throw new KafkaDecodeError(
        "CORRUPT_RECORD",
        `record length says ${length} bytes, its fields take ${p - (bodyEnd - length)}`,
        recordStart,
      );
    }
    if (controls !== null) {
      controls[i] = parseControl(
        keyLength < 0 ? null : buf.subarray(keyStart, keyStart + keyLength),
        valueLength < 0 ? null : buf.subarray(valueStart, valueStart + valueLength),
        ctx,
        keyAt,
        valueAt,
      );
    }
    const m = i * STRIDE;
    meta[m + OFFSET_DELTA] = offsetDelta;
    meta[m + ATTRIBUTES] = attributes;
    meta[m + SIZE] = bodyEnd - recordStart;
    meta[m + KEY_AT] = keyStart;
    meta[m + KEY_LENGTH] = keyLength;
    meta[m + VALUE_AT] = valueStart;
    meta[m + VALUE_LENGTH] = valueLength;
    meta[m + HEADERS_AT] = headersAt;
    meta[m + HEADER_COUNT] = headerCount;
    timestampDeltas[i] = timestampDelta;
  }
  if (p !== end) {
    throw new KafkaDecodeError(
      "CORRUPT_RECORD",
      `${end - p} bytes follow the batch's ${count} records (recordCount too small, or trailing bytes)`,
      p,
    );
  }
  const data = new RecordsData(batch, buf, meta, timestampDeltas, controls);
  const records = new Array<Record>(count);
  for (let i = 0; i < count; i++) records[i] = new Record(data, i);
  return records;
}

function lengthPast(what: string, length: number, left: number, at: number): KafkaDecodeError {
  return new KafkaDecodeError(
    "INVALID_LENGTH",
    `${what} length ${length} exceeds the ${left} bytes left in the record`,
    at,
  );
}

function negativeLength(what: string, length: number, at: number): KafkaDecodeError {
  return new KafkaDecodeError(
    "INVALID_LENGTH",
    `${what} length ${length}: only -1 means null (Kafka reads any negative length as null; lenient does too)`,
    at,
  );
}

/** A KafkaDecodeError from parsing becomes a KafkaRecordsError of batch `index`. */
function inBatch(
  e: unknown,
  index: number,
  baseOffset: bigint | null,
  batchOffset: number,
  at: { i: number } | null,
  decompressed: boolean,
): KafkaRecordsError {
  if (e instanceof KafkaRecordsError) return e;
  const path = `batches[${index}]${at === null ? "" : `.records[${at.i}]`}`;
  if (e instanceof KafkaWireError) {
    if (decompressed) {
      const where = e.offset >= 0 ? ` (byte ${e.offset} of the decompressed records)` : "";
      return recordsError(e.code, e.reason + where, batchOffset, path, baseOffset, batchOffset);
    }
    return recordsError(e.code, e.reason, batchOffset + e.offset, path, baseOffset, batchOffset);
  }
  return recordsError(
    "CORRUPT_RECORD",
    `unexpected failure: ${(e as Error)?.message ?? e}`,
    batchOffset,
    path,
    baseOffset,
    batchOffset,
    e,
  );
}

/** A codec's failure as a KafkaRecordsError. */
function codecError(e: unknown, name: CompressionName, path: string, base: bigint | null, batchOffset: number) {
  if (e instanceof KafkaRecordsError) return e;
  const tooLarge = (e as { code?: unknown } | null)?.code === "DECOMPRESSED_TOO_LARGE";
  return recordsError(
    tooLarge ? "DECOMPRESSED_TOO_LARGE" : "COMPRESSION_FAILED",
    `${name}: ${(e as Error)?.message ?? String(e)}`,
    batchOffset,
    path,
    base,
    batchOffset,
    e,
  );
}

/**
 * Decompresses `payload` with the codec for `name`, then runs `then` on the result; returns a
 * Promise when the codec is asynchronous. A missing codec calls `missing` instead.
 */
function decompress(
  name: CompressionName,
  payload: Uint8Array,
  magic: 0 | 1 | 2,
  ctx: Context,
  path: string,
  baseOffset: bigint | null,
  batchOffset: number,
  then: (data: Uint8Array) => void,
  missing: (e: KafkaRecordsError) => void,
): Promise<void> | undefined {
  const codec = codecFor(name, ctx.codecs);
  if (codec === undefined) {
    missing(
      recordsError("UNSUPPORTED_COMPRESSION", missingCodecReason(name), batchOffset, path, baseOffset, batchOffset),
    );
    return undefined;
  }
  const maxBytes = ctx.maxBytes;
  const check = (data: Uint8Array) => {
    if (!(data instanceof Uint8Array)) throw new Error(`the codec returned ${typeof data}, not a Uint8Array`);
    if (data.length > maxBytes)
      throw Object.assign(new Error(`decompressed ${data.length} bytes, above the cap of ${maxBytes}`), {
        code: "DECOMPRESSED_TOO_LARGE",
      });
    return data;
  };
  let result: MaybePromise<Uint8Array>;
  try {
    result = codec.decompress(payload, { maxBytes, magic });
    if (!(result instanceof Promise)) result = check(result);
  } catch (e) {
    throw codecError(e, name, path, baseOffset, batchOffset);
  }
  if (!(result instanceof Promise)) {
    then(result);
    return undefined;
  }
  return result.then(
    (data) => {
      let checked: Uint8Array;
      try {
        checked = check(data);
      } catch (e) {
        throw codecError(e, name, path, baseOffset, batchOffset);
      }
      then(checked);
    },
    (e) => {
      throw codecError(e, name, path, baseOffset, batchOffset);
    },
  );
}

function decodeBatch(raw: Uint8Array, byteOffset: number, index: number, ctx: Context, pending: Promise<void>[]) {
  const path = `batches[${index}]`;
  if (raw.length < RECORD_BATCH_OVERHEAD) {
    throw recordsError(
      "CORRUPT_RECORD",
      `record batch of ${raw.length} bytes is smaller than its ${RECORD_BATCH_OVERHEAD}-byte header`,
      byteOffset + 8,
      path,
      int64(raw, 0),
      byteOffset,
    );
  }
  const batch = new Batch(raw, byteOffset);
  const base = batch.baseOffset;
  if (ctx.verifyCrc) {
    const computed = ctx.crc32c === undefined ? crc32c(raw, 21) : ctx.crc32c(raw.subarray(21)) >>> 0;
    if (computed !== batch.crc) {
      throw recordsError(
        "CRC_MISMATCH",
        `record batch CRC-32C is ${batch.crc}, its bytes give ${computed}`,
        byteOffset + 17,
        path,
        base,
        byteOffset,
      );
    }
  }
  const attributes = batch.attributes;
  if ((attributes & 7) > 4) {
    throw recordsError(
      "UNSUPPORTED_COMPRESSION",
      `unknown compression codec id ${attributes & 7}`,
      byteOffset + 21,
      path,
      base,
      byteOffset,
    );
  }
  if (ctx.strict) {
    if (attributes & 0xff80) {
      throw recordsError(
        "CORRUPT_RECORD",
        `unused attribute bits are set (attributes 0x${(attributes & 0xffff).toString(16)}; Kafka ignores them, lenient does too)`,
        byteOffset + 21,
        path,
        base,
        byteOffset,
      );
    }
    if (batch.isTransactional && batch.producerId < 0n) {
      throw recordsError(
        "CORRUPT_RECORD",
        "transactional batch without a producer id",
        byteOffset + 43,
        path,
        base,
        byteOffset,
      );
    }
  }
  if (batch.recordCount < 0) {
    throw recordsError(
      "CORRUPT_RECORD",
      `negative recordCount ${batch.recordCount}`,
      byteOffset + 57,
      path,
      base,
      byteOffset,
    );
  }
  const at = { i: 0 };
  const name = batch.compression;
  if (name === "none" || (batch.recordCount === 0 && raw.length === RECORD_BATCH_OVERHEAD)) {
    try {
      batch.setRecords(parseRecords(raw, RECORD_BATCH_OVERHEAD, raw.length, batch, ctx, at));
    } catch (e) {
      throw inBatch(e, index, base, byteOffset, at, false);
    }
    return batch;
  }
  if (batch.recordCount === 0 && !ctx.strict) {
    // Kafka's iterator returns nothing for a count of 0 without decompressing.
    batch.setRecords([]);
    return batch;
  }
  const payload = raw.subarray(RECORD_BATCH_OVERHEAD);
  const wait = decompress(
    name,
    payload,
    2,
    ctx,
    path,
    base,
    byteOffset,
    (data) => {
      try {
        batch.setRecords(parseRecords(data, 0, data.length, batch, ctx, at));
      } catch (e) {
        throw inBatch(e, index, base, byteOffset, at, true);
      }
    },
    (e) => batch.setError(e),
  );
  if (wait !== undefined) pending.push(wait);
  return batch;
}

// ---------------------------------------------------------------------------------------------
// Magic 0 and 1 (legacy message sets)
// ---------------------------------------------------------------------------------------------

interface LegacyMessage {
  offset: bigint;
  size: number;
  crc: number;
  magic: 0 | 1;
  attributes: number;
  timestamp: bigint | null;
  key: Uint8Array | null;
  value: Uint8Array | null;
}

/** One legacy message at `buf[p..p + 12 + size)`; checks its CRC-32 and layout. */
function readLegacyMessage(buf: Uint8Array, p: number, end: number, ctx: Context): LegacyMessage {
  if (end - p < LOG_OVERHEAD + RECORD_OVERHEAD_V0) {
    throw new KafkaDecodeError("CORRUPT_RECORD", `${end - p} bytes cannot hold a legacy message`, p);
  }
  const offset = int64(buf, p);
  const size = int32(buf, p + 8);
  const magic = buf[p + 16]!;
  if (magic > 1)
    throw new KafkaDecodeError("CORRUPT_RECORD", `legacy message with magic ${(magic << 24) >> 24}`, p + 16);
  const overhead = magic === 0 ? RECORD_OVERHEAD_V0 : RECORD_OVERHEAD_V1;
  if (size < overhead || size > end - p - LOG_OVERHEAD) {
    throw new KafkaDecodeError(
      "CORRUPT_RECORD",
      `legacy message size ${size} ${size < overhead ? `is below the ${overhead}-byte minimum of magic ${magic}` : `runs past the ${end - p - LOG_OVERHEAD} bytes left`}`,
      p + 8,
    );
  }
  const stop = p + LOG_OVERHEAD + size;
  const crc = int32(buf, p + 12) >>> 0;
  if (ctx.verifyCrc) {
    const computed = crc32(buf, p + 16, stop);
    if (computed !== crc) {
      throw new KafkaDecodeError("CRC_MISMATCH", `legacy message CRC-32 is ${crc}, its bytes give ${computed}`, p + 12);
    }
  }
  const attributes = (buf[p + 17]! << 24) >> 24;
  let q = p + 18;
  let timestamp: bigint | null = null;
  if (magic === 1) {
    timestamp = int64(buf, q);
    q += 8;
  }
  const sized = (what: string): Uint8Array | null => {
    if (stop - q < 4) throw new KafkaDecodeError("CORRUPT_RECORD", `legacy message ends inside its ${what} length`, q);
    const n = int32(buf, q);
    q += 4;
    if (n < 0) {
      if (n !== -1 && ctx.strict) throw negativeLength(what, n, q - 4);
      return null;
    }
    if (n > stop - q) throw lengthPast(what, n, stop - q, q - 4);
    return buf.subarray(q, (q += n));
  };
  const key = sized("key");
  const value = sized("value");
  if (q !== stop && ctx.strict) {
    throw new KafkaDecodeError("CORRUPT_RECORD", `${stop - q} bytes follow the legacy message's value`, q);
  }
  return { offset, size, crc, magic: magic as 0 | 1, attributes, timestamp, key, value };
}

function timestampTypeOf(magic: number, attributes: number): TimestampType {
  return magic === 0 ? "NoTimestampType" : attributes & 8 ? "LogAppendTime" : "CreateTime";
}

class Legacy implements LegacyBatch {
  readonly magic: 0 | 1;
  readonly offset: bigint;
  readonly messageSize: number;
  readonly crc: number;
  readonly attributes: number;
  readonly compression: Compression;
  readonly timestampType: TimestampType;
  readonly timestamp: bigint | null;
  readonly key: Uint8Array | null;
  readonly value: Uint8Array | null;
  readonly maxTimestamp: bigint;
  readonly raw: Uint8Array;
  readonly byteOffset: number;
  readonly isControl = false as const;
  #records: LegacyRecord[] | null = null;
  #error: KafkaRecordsError | null = null;

  constructor(m: LegacyMessage, raw: Uint8Array, byteOffset: number) {
    this.magic = m.magic;
    this.offset = m.offset;
    this.messageSize = m.size;
    this.crc = m.crc;
    this.attributes = m.attributes;
    this.compression = COMPRESSION_NAMES[m.attributes & 7] ?? "none";
    this.timestampType = timestampTypeOf(m.magic, m.attributes);
    this.timestamp = m.timestamp;
    this.key = m.key;
    this.value = m.value;
    this.maxTimestamp = m.timestamp ?? -1n;
    this.raw = raw;
    this.byteOffset = byteOffset;
  }

  get records(): readonly LegacyRecord[] {
    if (this.#records === null) throw this.#error!;
    return this.#records;
  }

  get recordsAvailable(): boolean {
    return this.#records !== null;
  }

  get baseOffset(): bigint {
    const records = this.records;
    return records.length === 0 ? this.offset : records[0]!.offset;
  }

  get recordCount(): number {
    return this.records.length;
  }

  get nextOffset(): bigint {
    return this.offset + 1n;
  }

  /** @internal */
  setRecords(records: LegacyRecord[]): void {
    this.#records = records;
  }

  /** @internal */
  setError(error: KafkaRecordsError): void {
    this.#error = error;
  }
}

function legacyRecord(m: LegacyMessage, offset: bigint, timestampType: TimestampType, timestamp: bigint): LegacyRecord {
  return {
    offset,
    timestamp,
    key: m.key,
    value: m.value,
    headers: [],
    magic: m.magic,
    crc: m.crc,
    attributes: m.attributes,
    timestampType,
  };
}

/** The inner messages of a compressed wrapper (Kafka's `AbstractLegacyRecordBatch.DeepRecordsIterator`). */
function innerRecords(data: Uint8Array, wrapper: Legacy, ctx: Context): LegacyRecord[] {
  const messages: LegacyMessage[] = [];
  for (let p = 0; p < data.length;) {
    const m = readLegacyMessage(data, p, data.length, ctx);
    if (m.magic !== wrapper.magic) {
      throw new KafkaDecodeError(
        "CORRUPT_RECORD",
        `inner message of magic ${m.magic} inside a wrapper of magic ${wrapper.magic}`,
        p + 16,
      );
    }
    if ((m.attributes & 7) !== 0) {
      throw new KafkaDecodeError("CORRUPT_RECORD", "compressed message inside a compressed wrapper", p + 17);
    }
    messages.push(m);
    p += LOG_OVERHEAD + m.size;
  }
  if (messages.length === 0)
    throw new KafkaDecodeError("CORRUPT_RECORD", "compressed wrapper with no inner messages", 0);
  // Magic 1 wrappers store relative inner offsets (0..n-1) and their own absolute offset is the
  // last inner one's; a wrapper offset of 0 means absolute inner offsets (librdkafka's old writers).
  const relative = wrapper.magic === 1 && wrapper.offset !== 0n;
  const base = relative ? wrapper.offset - messages[messages.length - 1]!.offset : 0n;
  const logAppend = wrapper.timestampType === "LogAppendTime";
  return messages.map((m) => {
    const type = logAppend ? "LogAppendTime" : timestampTypeOf(m.magic, m.attributes);
    const ts = logAppend ? wrapper.timestamp! : (m.timestamp ?? -1n);
    return legacyRecord(m, relative ? base + m.offset : m.offset, type, ts);
  });
}

function decodeLegacy(raw: Uint8Array, byteOffset: number, index: number, ctx: Context, pending: Promise<void>[]) {
  const path = `batches[${index}]`;
  const baseOffset = int64(raw, 0);
  let m: LegacyMessage;
  try {
    m = readLegacyMessage(raw, 0, raw.length, ctx);
  } catch (e) {
    throw inBatch(e, index, baseOffset, byteOffset, null, false);
  }
  const entry = new Legacy(m, raw, byteOffset);
  const codecId = m.attributes & 7;
  if (codecId === 0) {
    entry.setRecords([legacyRecord(m, m.offset, entry.timestampType, m.timestamp ?? -1n)]);
    return entry;
  }
  if (codecId > 3) {
    // zstd (4) needs magic 2 (KIP-110).
    throw recordsError(
      "UNSUPPORTED_COMPRESSION",
      `compression codec id ${codecId} is not valid for magic ${m.magic}`,
      byteOffset + 17,
      path,
      baseOffset,
      byteOffset,
    );
  }
  if (m.value === null) {
    throw recordsError(
      "CORRUPT_RECORD",
      "compressed wrapper message with a null value",
      byteOffset,
      path,
      baseOffset,
      byteOffset,
    );
  }
  const wait = decompress(
    entry.compression as CompressionName,
    m.value,
    m.magic,
    ctx,
    path,
    baseOffset,
    byteOffset,
    (data) => {
      try {
        entry.setRecords(innerRecords(data, entry, ctx));
      } catch (e) {
        throw inBatch(e, index, baseOffset, byteOffset, null, true);
      }
    },
    (e) => entry.setError(e),
  );
  if (wait !== undefined) pending.push(wait);
  return entry;
}

// ---------------------------------------------------------------------------------------------
// Record sets
// ---------------------------------------------------------------------------------------------

/**
 * Decodes a record set: the batches back to back in a Produce/Fetch `records` field or a log
 * segment, as Kafka's `MemoryRecords.batches()` reads them, each checked like `ensureValid()` and
 * its records read like Kafka's record iterator.
 *
 * A partial trailing batch (a Fetch response cut by its max bytes) is not an error: it is
 * reported as `incompleteTail` (its byte count); a set with no complete batch has no batches.
 * Keys, values, header values and `raw` are plain Uint8Array views into `bytes` (or into the
 * decompressed records), also when `bytes` is a Node.js Buffer.
 * Compressed batches are decompressed with `options.codecs`; a batch whose codec is missing keeps
 * its header and `raw` bytes and throws `UNSUPPORTED_COMPRESSION` only when its `records` are read.
 *
 * @returns the record set, or a Promise of it when an asynchronous codec (such as the default
 *   gzip) had to run.
 * @throws KafkaRecordsError (a KafkaDecodeError with `baseOffset` and `batchOffset`):
 *   `CORRUPT_RECORD`, `CRC_MISMATCH`, `UNSUPPORTED_COMPRESSION` (an unknown codec id),
 *   `COMPRESSION_FAILED`, `DECOMPRESSED_TOO_LARGE`, `INVALID_VARINT`, `INVALID_LENGTH`,
 *   `INVALID_STRING`, `BUFFER_UNDERFLOW`. An asynchronous decode rejects with the same errors.
 */
export function decodeRecords(bytes: Uint8Array, options: DecodeRecordsOptions = {}): RecordSet | Promise<RecordSet> {
  if (!(bytes instanceof Uint8Array)) {
    throw new KafkaRecordsError("INVALID_VALUE", "decodeRecords needs a Uint8Array", -1, "", null, 0);
  }
  // A subclass (Node's Buffer) makes every subarray() go through its species constructor, several
  // times slower than a plain view: read through a plain Uint8Array over the same memory.
  if (bytes.constructor !== Uint8Array) bytes = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const maxBytes = options.maxDecompressedBytes ?? DEFAULT_MAX_DECOMPRESSED_BYTES;
  // NaN or a negative cap would silently switch the decompression-bomb guard off.
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 0) {
    throw new KafkaRecordsError(
      "INVALID_VALUE",
      `maxDecompressedBytes must be a whole number of bytes, 0 or more; got ${String(maxBytes)}`,
      -1,
      "",
      null,
      0,
    );
  }
  const ctx: Context = {
    strict: options.lenient !== true,
    verifyCrc: options.verifyCrc !== false,
    maxBytes,
    codecs: options.codecs,
    controlDecoder: options.controlDecoder,
    crc32c: options.crc32c,
  };
  const batches: (RecordBatch | LegacyBatch)[] = [];
  const pending: Promise<void>[] = [];
  const n = bytes.length;
  let pos: number;
  let incompleteTail = 0;
  try {
    pos = readBatches(bytes, ctx, batches, pending);
  } catch (e) {
    // Batches before the failing one may still be decompressing: their outcome no longer matters.
    for (const p of pending) p.catch(() => undefined);
    throw e;
  }
  if (pos < 0) {
    incompleteTail = -pos - 1;
    pos = n - incompleteTail;
  }
  const set: RecordSet = { batches, incompleteTail, validBytes: pos };
  if (pending.length === 0) return set;
  return Promise.all(pending).then(() => set);
}

/** Reads complete batches into `batches`; returns the end of the last one, or -(incomplete tail bytes) - 1. */
function readBatches(
  bytes: Uint8Array,
  ctx: Context,
  batches: (RecordBatch | LegacyBatch)[],
  pending: Promise<void>[],
): number {
  const n = bytes.length;
  let pos = 0;
  while (pos < n) {
    const remaining = n - pos;
    if (remaining < LOG_OVERHEAD) {
      return -remaining - 1;
    }
    const index = batches.length;
    const size = int32(bytes, pos + 8);
    if (size < RECORD_OVERHEAD_V0) {
      throw recordsError(
        "CORRUPT_RECORD",
        `batch length ${size} is below the minimum of ${RECORD_OVERHEAD_V0}`,
        pos + 8,
        `batches[${index}]`,
        int64(bytes, pos),
        pos,
      );
    }
    if (remaining < HEADER_SIZE_UP_TO_MAGIC) {
      return -remaining - 1;
    }
    const magic = (bytes[pos + 16]! << 24) >> 24;
    if (magic < 0 || magic > 2) {
      throw recordsError(
        "CORRUPT_RECORD",
        `unknown magic ${magic} (0, 1 and 2 exist)`,
        pos + 16,
        `batches[${index}]`,
        int64(bytes, pos),
        pos,
      );
    }
    if (remaining - LOG_OVERHEAD < size) {
      return -remaining - 1;
    }
    const raw = bytes.subarray(pos, pos + LOG_OVERHEAD + size);
    batches.push(
      magic === 2 ? decodeBatch(raw, pos, index, ctx, pending) : decodeLegacy(raw, pos, index, ctx, pending),
    );
    pos += LOG_OVERHEAD + size;
  }
  return pos;
}

/**
 * The records a consumer should see, in order: every record of every data batch, skipping
 * control batches (transaction markers, KRaft control records), which are never data.
 * @throws KafkaRecordsError `UNSUPPORTED_COMPRESSION` for a batch whose codec was not given.
 */
export function* dataRecords(set: RecordSet): Generator<KafkaRecordWithBatch, void, undefined> {
  for (const batch of set.batches) {
    if (batch.isControl) continue;
    for (const record of batch.records) yield record;
  }
}

/** What {@link dataRecords} yields. */
export type KafkaRecordWithBatch = DefaultRecord | LegacyRecord;
