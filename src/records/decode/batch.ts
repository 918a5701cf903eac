/**
 * Magic-2 record batches (the protocol guide's "Record Batch", KIP-98), read as Kafka's
 * `DefaultRecordBatch` and `DefaultRecord` read them, with the checks of `ensureValid()` and of
 * record iteration, plus the strict checks (see `DecodeRecordsOptions.lenient`).
 *
 * Memory: the decode pass checks every record and keeps only what a broker's validation reads
 * (the largest record timestamp, the null keys, control records' contents): a Produce is
 * validated without a per-record allocation. When a batch's `records` are first read, its
 * records are walked again (without checks) for four int32 positions and the timestamp delta
 * per record (24 bytes, for records of at least 7 bytes), and its `Record` handles are made; key,
 * value, headers and timestamp are read from the bytes on access. The call's `maxRecords`
 * budget is taken before anything is allocated for a batch's records.
 */

import { KafkaDecodeError, KafkaWireError } from "../../runtime/errors.js";
import { readUtf8 } from "../../runtime/utf8.js";
import { COMPRESSION_NAMES, type Compression } from "../codecs.js";
import { crc32c } from "../crc.js";
import {
  CONTROL_TYPE_NAMES,
  type ControlRecord,
  type DefaultRecord,
  type RecordBatch,
  type RecordHeader,
} from "../types.js";
import { cursor, varint, varlong } from "../varint.js";
import {
  BatchPosition,
  int32,
  int64,
  lengthPast,
  MIN_RECORD_SIZE,
  negativeLength,
  RECORD_BATCH_OVERHEAD,
  type Context,
} from "./context.js";
import { decompress } from "./decompress.js";

const MAX_INT32 = 0x7fffffff;

/** Kafka's `DefaultRecordBatch.incrementSequence`, with Java's int overflow. */
function incrementSequence(sequence: number, increment: number): number {
  if (sequence > ((MAX_INT32 - increment) | 0)) return (increment - ((MAX_INT32 - sequence) | 0) - 1) | 0;
  return (sequence + increment) | 0;
}

/** Ints kept per record by the decode pass (see {@link RecordsData}). */
const STRIDE = 4;
/** Where the record starts (its length varint). */
const RECORD_AT = 0;
const OFFSET_DELTA = 1;
/** Where the key's length varint is. */
const KEY_AT = 2;
/** Where the value's length varint is (the header count follows the value). */
const VALUE_AT = 3;

/**
 * What the decode pass keeps of a batch's records `buf[start..)`, and their index: STRIDE
 * positions per record in one Int32Array, made on first use. The bytes have been checked, so the
 * index and the handles re-read their varints without checks (the lenient reading gives the
 * strict one's values on bytes the strict reading accepted).
 */
class RecordsData {
  #meta: Int32Array | null = null;
  #timestampDeltas: Float64Array | null = null;
  constructor(
    readonly batch: Batch,
    readonly buf: Uint8Array,
    readonly start: number,
    readonly count: number,
    readonly controls: (ControlRecord | undefined)[] | null,
    /** RecordBatch.recordsMaxTimestamp. */
    readonly maxTimestamp: bigint,
    /** RecordBatch.nullKeyRecords. */
    readonly nullKeys: number,
  ) {}

  get meta(): Int32Array {
    if (this.#meta === null) this.#index();
    return this.#meta!;
  }

  /** Timestamp deltas; NaN for one beyond 2^53 (read again from the bytes). */
  get timestampDeltas(): Float64Array {
    if (this.#timestampDeltas === null) this.#index();
    return this.#timestampDeltas!;
  }

  #index(): void {
    const { buf, count } = this;
    const meta = new Int32Array(count * STRIDE);
    const timestampDeltas = new Float64Array(count);
    const end = buf.length;
    let p = this.start;
    for (let i = 0, m = 0; i < count; i++, m += STRIDE) {
      meta[m + RECORD_AT] = p;
      const length = varint(buf, p, end, false);
      const body = cursor.next;
      const timestampDelta = varlong(buf, body + 1, end, false);
      timestampDeltas[i] = typeof timestampDelta === "number" ? timestampDelta : NaN;
      meta[m + OFFSET_DELTA] = varint(buf, cursor.next, end, false);
      const keyAt = cursor.next;
      meta[m + KEY_AT] = keyAt;
      const keyLength = varint(buf, keyAt, end, false);
      meta[m + VALUE_AT] = cursor.next + (keyLength < 0 ? 0 : keyLength);
      p = body + length;
    }
    this.#meta = meta;
    this.#timestampDeltas = timestampDeltas;
  }
}

/** A magic-2 record: a handle into its batch's {@link RecordsData}. Key and value views are new on each access. */
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

  /** The position after the record's length varint (its attributes byte). */
  #body(): number {
    const buf = this.#d.buf;
    varint(buf, this.#d.meta[this.#i + RECORD_AT]!, buf.length, false);
    return cursor.next;
  }

  get attributes(): number {
    return (this.#d.buf[this.#body()]! << 24) >> 24;
  }

  get sizeInBytes(): number {
    const buf = this.#d.buf;
    const at = this.#d.meta[this.#i + RECORD_AT]!;
    const length = varint(buf, at, buf.length, false);
    return cursor.next - at + length;
  }

  get control(): ControlRecord | undefined {
    return this.#d.controls?.[this.#i / STRIDE];
  }

  get key(): Uint8Array | null {
    return this.#bytes(KEY_AT);
  }

  get value(): Uint8Array | null {
    return this.#bytes(VALUE_AT);
  }

  #bytes(field: number): Uint8Array | null {
    const buf = this.#d.buf;
    const n = varint(buf, this.#d.meta[this.#i + field]!, buf.length, false);
    const at = cursor.next;
    return n < 0 ? null : buf.subarray(at, at + n);
  }

  get headers(): readonly RecordHeader[] {
    if (this.#headers !== undefined) return this.#headers;
    const buf = this.#d.buf;
    const n = varint(buf, this.#d.meta[this.#i + VALUE_AT]!, buf.length, false);
    let p = cursor.next + (n < 0 ? 0 : n);
    const count = varint(buf, p, buf.length, false);
    p = cursor.next;
    return (this.#headers = readHeaders(buf, p, count));
  }

  get offset(): bigint {
    return this.#d.batch.baseOffset + BigInt(this.offsetDelta);
  }

  get timestamp(): bigint {
    const b = this.#d.batch;
    if (b.timestampType === "LogAppendTime") return b.maxTimestamp;
    return BigInt.asIntN(64, b.baseTimestamp + this.timestampDelta);
  }

  get timestampDelta(): bigint {
    const delta = this.#d.timestampDeltas[this.#i / STRIDE]!;
    if (delta === delta) return BigInt(delta);
    const buf = this.#d.buf;
    return BigInt(varlong(buf, this.#body() + 1, buf.length, false));
  }

  get sequence(): number {
    const base = this.#d.batch.baseSequence;
    return base === -1 ? -1 : incrementSequence(base, this.offsetDelta);
  }
}

/** Headers whose bytes the decode pass has checked (so no checks here; any negative value length is null, as lenient reads it). */
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

const NO_RECORDS: readonly Record[] = Object.freeze([]);

export class Batch implements RecordBatch {
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
  #data: RecordsData | null = null;
  #records: readonly Record[] | null = null;
  #error: KafkaDecodeError | null = null;

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
    if (this.#records !== null) return this.#records;
    const d = this.#data;
    if (d === null) throw this.#error!;
    const records = new Array<Record>(d.count);
    for (let i = 0; i < d.count; i++) records[i] = new Record(d, i);
    return (this.#records = records);
  }

  /** @internal The records one by one, without making the array (what `dataRecords` reads). */
  *eachRecord(): Generator<DefaultRecord, void, undefined> {
    if (this.#records !== null) return yield* this.#records;
    const d = this.#data;
    if (d === null) throw this.#error!;
    for (let i = 0; i < d.count; i++) yield new Record(d, i);
  }

  get recordsAvailable(): boolean {
    return this.#data !== null || this.#records !== null;
  }

  get recordsMaxTimestamp(): bigint {
    return this.#parsed()?.maxTimestamp ?? -1n;
  }

  get nullKeyRecords(): number {
    return this.#parsed()?.nullKeys ?? 0;
  }

  /** The decode pass's data; null for no records; throws as `records` when they could not be read. */
  #parsed(): RecordsData | null {
    if (this.#data !== null) return this.#data;
    if (this.#records === null) throw this.#error!;
    return null;
  }

  get nextOffset(): bigint {
    return this.baseOffset + BigInt(this.lastOffsetDelta) + 1n;
  }

  /** @internal */
  setRecords(data: RecordsData | null): void {
    if (data === null) this.#records = NO_RECORDS;
    else this.#data = data;
  }

  /** @internal */
  setError(error: KafkaDecodeError): void {
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
 * Checks the records of one batch in `buf[start..end)` (the batch itself, or its decompressed
 * records) and keeps their positions; null for no records. Errors are KafkaDecodeErrors
 * positioned in `buf`; `at.record` names the record being read. Takes the records from the call's
 * budget unless `budgeted` (taken before decompressing).
 */
function parseRecords(
  buf: Uint8Array,
  start: number,
  end: number,
  batch: Batch,
  ctx: Context,
  at: BatchPosition,
  budgeted: boolean,
): RecordsData | null {
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
    return null;
  }
  if (count < 0 || count > (end - start) / MIN_RECORD_SIZE) {
    throw new KafkaDecodeError(
      "CORRUPT_RECORD",
      `recordCount ${count} cannot be ${count < 0 ? "negative" : `held by ${end - start} bytes of records`}`,
      start,
    );
  }
  // Not budgeted: `buf` is the batch itself (a compressed batch took its count before decompressing), byte 57 its recordCount.
  if (!budgeted) at.take(ctx, count, 57);
  const createTime = batch.timestampType === "CreateTime";
  // Strict check of CreateTime timestamps against maxTimestamp, in doubles when exact.
  const baseTs = Number(batch.baseTimestamp);
  const maxTs = Number(batch.maxTimestamp);
  const numericTs = createTime && strict && Math.abs(baseTs) < 2 ** 52 && Math.abs(maxTs) < 2 ** 52;
  const lastOffsetDelta = batch.lastOffsetDelta;
  const controls = batch.isControl ? new Array<ControlRecord | undefined>(count) : null;
  let prevOffsetDelta = -1;
  // The largest record timestamp from NO_TIMESTAMP (-1), in doubles while exact (baseTs within
  // 2^52 and a delta of at most 7 varlong bytes, below 2^48), else in bigint.
  const exactBase = Math.abs(baseTs) < 2 ** 52;
  let maxNumber = -1;
  let maxBig = -1n;
  let nullKeys = 0;
  let p = start;
  for (let i = 0; i < count; i++) {
    at.record = i;
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
    const attributes = buf[p]!;
    if (strict && attributes !== 0) {
      throw new KafkaDecodeError(
        "CORRUPT_RECORD",
        `record attributes are ${(attributes << 24) >> 24}, Kafka writes 0`,
        p,
      );
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
    let timestamp = 0;
    let bigTimestamp: bigint | null = null;
    if (exactBase && typeof timestampDelta === "number") {
      timestamp = baseTs + timestampDelta;
      if (timestamp > maxNumber) maxNumber = timestamp;
    } else {
      bigTimestamp = BigInt.asIntN(64, batch.baseTimestamp + BigInt(timestampDelta));
      if (bigTimestamp > maxBig) maxBig = bigTimestamp;
    }
    if (createTime && strict) {
      const late =
        bigTimestamp !== null
          ? bigTimestamp > batch.maxTimestamp
          : numericTs
            ? timestamp > maxTs
            : BigInt(timestamp) > batch.maxTimestamp;
      if (late) {
        throw new KafkaDecodeError(
          "CORRUPT_RECORD",
          `record timestamp is above the batch's maxTimestamp ${batch.maxTimestamp}`,
          recordStart,
        );
      }
    }
    const keyAt = p;
    const keyLength = varint(buf, p, bodyEnd, strict);
    p = cursor.next;
    const keyStart = p;
    if (keyLength >= 0) {
      if (keyLength > bodyEnd - p) throw lengthPast("key", keyLength, bodyEnd - p, keyAt);
      p += keyLength;
    } else if (strict && keyLength !== -1) {
      throw negativeLength("key", keyLength, keyAt);
    } else {
      nullKeys++;
    }
    const valueAt = p;
    const valueLength = varint(buf, p, bodyEnd, strict);
    p = cursor.next;
    const valueStart = p;
    if (valueLength >= 0) {
      if (valueLength > bodyEnd - p) throw lengthPast("value", valueLength, bodyEnd - p, valueAt);
      p += valueLength;
    } else if (strict && valueLength !== -1) {
      throw negativeLength("value", valueLength, valueAt);
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
  }
  if (p !== end) {
    throw new KafkaDecodeError(
      "CORRUPT_RECORD",
      `${end - p} bytes follow the batch's ${count} records (recordCount too small, or trailing bytes)`,
      p,
    );
  }
  const fromNumbers = BigInt(maxNumber);
  const maxTimestamp = fromNumbers > maxBig ? fromNumbers : maxBig;
  return new RecordsData(batch, buf, start, count, controls, maxTimestamp, nullKeys);
}

/** One magic-2 batch, `raw` at `byteOffset` of the record set; a compressed one may add to `pending`. */
export function decodeBatch(
  raw: Uint8Array,
  byteOffset: number,
  index: number,
  ctx: Context,
  pending: Promise<void>[],
): Batch {
  if (raw.length < RECORD_BATCH_OVERHEAD) {
    throw new BatchPosition(index, byteOffset, int64(raw, 0)).error(
      "CORRUPT_RECORD",
      `record batch of ${raw.length} bytes is smaller than its ${RECORD_BATCH_OVERHEAD}-byte header`,
      8,
    );
  }
  const batch = new Batch(raw, byteOffset);
  const at = new BatchPosition(index, byteOffset, batch.baseOffset);
  if (ctx.verifyCrc) {
    let computed: number;
    if (ctx.crc32c === undefined) computed = crc32c(raw, 21);
    else {
      let got: unknown;
      try {
        got = ctx.crc32c(raw.subarray(21));
      } catch (e) {
        throw at.error("INVALID_VALUE", `the crc32c option failed: ${(e as Error)?.message ?? String(e)}`, 17, e);
      }
      // A plug-in returning a non-number, or a number past 32 bits, would otherwise compare as some
      // other CRC (2^40 >>> 0 is 0). Signed results (-2^31..-1, as Java's int) are the same 32 bits.
      if (typeof got !== "number" || !Number.isInteger(got) || got < -0x80000000 || got > 0xffffffff) {
        throw at.error(
          "INVALID_VALUE",
          `the crc32c option returned ${typeof got === "number" ? got : typeof got}, not a 32-bit integer`,
          17,
        );
      }
      computed = got >>> 0;
    }
    if (computed !== batch.crc) {
      throw at.error("CRC_MISMATCH", `record batch CRC-32C is ${batch.crc}, its bytes give ${computed}`, 17);
    }
  }
  const attributes = batch.attributes;
  if ((attributes & 7) > 4) {
    throw at.error("UNSUPPORTED_COMPRESSION", `unknown compression codec id ${attributes & 7}`, 21);
  }
  if (ctx.strict) {
    if (attributes & 0xff80) {
      throw at.error(
        "CORRUPT_RECORD",
        `unused attribute bits are set (attributes 0x${(attributes & 0xffff).toString(16)}; Kafka ignores them, lenient does too)`,
        21,
      );
    }
    if (batch.isTransactional && batch.producerId < 0n) {
      throw at.error("CORRUPT_RECORD", "transactional batch without a producer id", 43);
    }
    // Kafka's LogValidator refuses such a produced batch (an invalid offset range); its reader
    // does not, and a consumer advancing to nextOffset would fetch the same offset again.
    if (batch.lastOffsetDelta < 0) {
      throw at.error(
        "CORRUPT_RECORD",
        `lastOffsetDelta ${batch.lastOffsetDelta} is negative: nextOffset would not pass baseOffset (lenient reads it, as Kafka's reader does)`,
        23,
      );
    }
  }
  if (batch.recordCount < 0) {
    throw at.error("CORRUPT_RECORD", `negative recordCount ${batch.recordCount}`, 57);
  }
  const name = batch.compression;
  if (name === "none" || (batch.recordCount === 0 && raw.length === RECORD_BATCH_OVERHEAD)) {
    try {
      batch.setRecords(parseRecords(raw, RECORD_BATCH_OVERHEAD, raw.length, batch, ctx, at, false));
    } catch (e) {
      throw at.wrap(e, false);
    }
    return batch;
  }
  if (batch.recordCount === 0 && !ctx.strict) {
    // Kafka's iterator returns nothing for a count of 0 without decompressing.
    batch.setRecords(null);
    return batch;
  }
  // The declared count is taken from the budget before decompressing (a count the cap's bytes
  // cannot hold fails as corrupt once decompressed).
  const budgeted = batch.recordCount <= ctx.maxBytes / MIN_RECORD_SIZE;
  if (budgeted) {
    try {
      at.take(ctx, batch.recordCount, 57);
    } catch (e) {
      throw at.wrap(e, false);
    }
  }
  const wait = decompress(
    name,
    raw.subarray(RECORD_BATCH_OVERHEAD),
    2,
    ctx,
    at,
    (data) => {
      try {
        batch.setRecords(parseRecords(data, 0, data.length, batch, ctx, at, budgeted));
      } catch (e) {
        throw at.wrap(e, true);
      }
    },
    (e) => batch.setError(e),
  );
  if (wait !== undefined) pending.push(wait);
  return batch;
}
