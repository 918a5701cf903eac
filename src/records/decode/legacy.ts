/**
 * Legacy message sets (magic 0 and 1), read as Kafka's `AbstractLegacyRecordBatch` (its
 * `DeepRecordsIterator` for compressed wrappers) and `LegacyRecord` read them.
 *
 * Memory: a wrapper's inner messages are checked and kept as one int32 position each (4 bytes,
 * for messages of at least 26 bytes); their `LegacyRecord` handles are made when `records` is
 * first read, and every field is read from the bytes on access.
 */

import { KafkaDecodeError } from "../../runtime/errors.js";
import { COMPRESSION_NAMES, type Compression, type CompressionName } from "../codecs.js";
import { crc32 } from "../crc.js";
import type { LegacyBatch, LegacyRecord, RecordHeader, TimestampType } from "../types.js";
import {
  BatchPosition,
  int32,
  int64,
  lengthPast,
  LOG_OVERHEAD,
  negativeLength,
  RECORD_OVERHEAD_V0,
  RECORD_OVERHEAD_V1,
  type Context,
} from "./context.js";
import { decompress } from "./decompress.js";

/** Bytes before the key length: offset, size, crc, magic, attributes (+ timestamp for magic 1). */
function keyLengthAt(buf: Uint8Array, p: number): number {
  return p + 18 + (buf[p + 16] === 1 ? 8 : 0);
}

/** The key (`which` 0) or value (1) of the checked message at `p`: a view, or null for a negative length. */
function sized(buf: Uint8Array, p: number, which: 0 | 1): Uint8Array | null {
  let q = keyLengthAt(buf, p);
  if (which === 1) q += 4 + Math.max(int32(buf, q), 0);
  const n = int32(buf, q);
  return n < 0 ? null : buf.subarray(q + 4, q + 4 + n);
}

/** Checks one legacy message at `buf[p..end)` (its CRC-32 and layout); returns its length with the log overhead. */
function checkMessage(buf: Uint8Array, p: number, end: number, ctx: Context): number {
  if (end - p < LOG_OVERHEAD + RECORD_OVERHEAD_V0) {
    throw new KafkaDecodeError("CORRUPT_RECORD", `${end - p} bytes cannot hold a legacy message`, p);
  }
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
  if (ctx.verifyCrc) {
    const crc = int32(buf, p + 12) >>> 0;
    const computed = crc32(buf, p + 16, stop);
    if (computed !== crc) {
      throw new KafkaDecodeError("CRC_MISMATCH", `legacy message CRC-32 is ${crc}, its bytes give ${computed}`, p + 12);
    }
  }
  let q = keyLengthAt(buf, p);
  for (const what of ["key", "value"]) {
    if (stop - q < 4) throw new KafkaDecodeError("CORRUPT_RECORD", `legacy message ends inside its ${what} length`, q);
    const n = int32(buf, q);
    q += 4;
    if (n < 0) {
      if (n !== -1 && ctx.strict) throw negativeLength(what, n, q - 4);
    } else {
      if (n > stop - q) throw lengthPast(what, n, stop - q, q - 4);
      q += n;
    }
  }
  if (q !== stop && ctx.strict) {
    throw new KafkaDecodeError("CORRUPT_RECORD", `${stop - q} bytes follow the legacy message's value`, q);
  }
  return LOG_OVERHEAD + size;
}

function timestampTypeOf(magic: number, attributes: number): TimestampType {
  return magic === 0 ? "NoTimestampType" : attributes & 8 ? "LogAppendTime" : "CreateTime";
}

const NO_HEADERS: readonly RecordHeader[] = Object.freeze([]);

/** The checked messages of one entry: their positions in `buf`, and what the wrapper lends them. */
class Messages {
  constructor(
    readonly buf: Uint8Array,
    readonly positions: Int32Array,
    readonly count: number,
    /** Added to the stored offsets (a magic-1 wrapper's relative offsets), or null when they are absolute. */
    readonly base: bigint | null,
    /** The wrapper's timestamp type (Kafka's `wrapperRecordTimestampType`), or null for an uncompressed entry. */
    readonly wrapperType: TimestampType | null,
    readonly wrapperTimestamp: bigint,
  ) {}
}

/** A legacy message as a record: a handle into its entry's {@link Messages}; key and value views are new on each access. */
class Record implements LegacyRecord {
  readonly #m: Messages;
  readonly #p: number;
  constructor(m: Messages, i: number) {
    this.#m = m;
    this.#p = m.positions[i]!;
  }

  get offset(): bigint {
    const stored = int64(this.#m.buf, this.#p);
    const base = this.#m.base;
    return base === null ? stored : base + stored;
  }

  get magic(): 0 | 1 {
    return this.#m.buf[this.#p + 16] as 0 | 1;
  }

  get crc(): number {
    return int32(this.#m.buf, this.#p + 12) >>> 0;
  }

  get attributes(): number {
    return (this.#m.buf[this.#p + 17]! << 24) >> 24;
  }

  // Kafka's LegacyRecord.timestampType()/timestamp() with the wrapper's type and timestamp.
  get timestampType(): TimestampType {
    if (this.magic === 0) return "NoTimestampType";
    return this.#m.wrapperType ?? timestampTypeOf(1, this.attributes);
  }

  get timestamp(): bigint {
    if (this.magic === 0) return -1n;
    if (this.#m.wrapperType === "LogAppendTime") return this.#m.wrapperTimestamp;
    return int64(this.#m.buf, this.#p + 18);
  }

  get key(): Uint8Array | null {
    return sized(this.#m.buf, this.#p, 0);
  }

  get value(): Uint8Array | null {
    return sized(this.#m.buf, this.#p, 1);
  }

  get headers(): readonly RecordHeader[] {
    return NO_HEADERS;
  }
}

export class Legacy implements LegacyBatch {
  readonly magic: 0 | 1;
  readonly offset: bigint;
  readonly messageSize: number;
  readonly crc: number;
  readonly attributes: number;
  readonly compression: Compression;
  readonly timestampType: TimestampType;
  readonly timestamp: bigint | null;
  readonly maxTimestamp: bigint;
  readonly raw: Uint8Array;
  readonly byteOffset: number;
  readonly isControl = false as const;
  #messages: Messages | null = null;
  #records: Record[] | null = null;
  #error: KafkaDecodeError | null = null;

  /** `raw` holds one checked message. */
  constructor(raw: Uint8Array, byteOffset: number) {
    this.magic = raw[16] as 0 | 1;
    this.offset = int64(raw, 0);
    this.messageSize = int32(raw, 8);
    this.crc = int32(raw, 12) >>> 0;
    this.attributes = (raw[17]! << 24) >> 24;
    this.compression = COMPRESSION_NAMES[this.attributes & 7] ?? "none";
    this.timestampType = timestampTypeOf(this.magic, this.attributes);
    this.timestamp = this.magic === 1 ? int64(raw, 18) : null;
    this.maxTimestamp = this.timestamp ?? -1n;
    this.raw = raw;
    this.byteOffset = byteOffset;
  }

  get key(): Uint8Array | null {
    return sized(this.raw, 0, 0);
  }

  get value(): Uint8Array | null {
    return sized(this.raw, 0, 1);
  }

  #data(): Messages {
    if (this.#messages === null) throw this.#error!;
    return this.#messages;
  }

  get records(): readonly LegacyRecord[] {
    if (this.#records !== null) return this.#records;
    const m = this.#data();
    const records = new Array<Record>(m.count);
    for (let i = 0; i < m.count; i++) records[i] = new Record(m, i);
    return (this.#records = records);
  }

  /** @internal The records one by one, without making the array (what `dataRecords` reads). */
  *eachRecord(): Generator<LegacyRecord, void, undefined> {
    if (this.#records !== null) return yield* this.#records;
    const m = this.#data();
    for (let i = 0; i < m.count; i++) yield new Record(m, i);
  }

  get recordsAvailable(): boolean {
    return this.#messages !== null;
  }

  get baseOffset(): bigint {
    const m = this.#data();
    return new Record(m, 0).offset;
  }

  get recordCount(): number {
    return this.#data().count;
  }

  get nextOffset(): bigint {
    return this.offset + 1n;
  }

  /** @internal */
  setMessages(messages: Messages): void {
    this.#messages = messages;
  }

  /** @internal */
  setError(error: KafkaDecodeError): void {
    this.#error = error;
  }
}

/** The inner messages of a compressed wrapper (Kafka's `AbstractLegacyRecordBatch.DeepRecordsIterator`). */
function innerMessages(data: Uint8Array, wrapper: Legacy, ctx: Context, at: BatchPosition): Messages {
  let positions = new Int32Array(Math.min(1024, Math.ceil(data.length / (LOG_OVERHEAD + RECORD_OVERHEAD_V0))));
  let count = 0;
  let last = 0;
  for (let p = 0; p < data.length;) {
    at.record = count;
    const length = checkMessage(data, p, data.length, ctx);
    const magic = data[p + 16]!;
    // Kafka's consumer reads an inner magic that differs from the wrapper's (only its broker's
    // LogValidator refuses it).
    if (magic !== wrapper.magic && ctx.strict) {
      throw new KafkaDecodeError(
        "CORRUPT_RECORD",
        `inner message of magic ${magic} inside a wrapper of magic ${wrapper.magic} (Kafka's consumer reads it; lenient does too)`,
        p + 16,
      );
    }
    if ((data[p + 17]! & 7) !== 0) {
      throw new KafkaDecodeError("CORRUPT_RECORD", "compressed message inside a compressed wrapper", p + 17);
    }
    if (count === ctx.recordsLeft) at.take(ctx, count + 1, p, true); // throws TOO_MANY_RECORDS
    if (count === positions.length) {
      const grown = new Int32Array(positions.length * 2);
      grown.set(positions);
      positions = grown;
    }
    positions[count++] = p;
    last = p;
    p += length;
  }
  at.record = -1;
  if (count === 0) throw new KafkaDecodeError("CORRUPT_RECORD", "compressed wrapper with no inner messages", 0);
  at.take(ctx, count, 0);
  // Magic 1 wrappers store relative inner offsets (0..n-1) and their own absolute offset is the
  // last inner one's; a wrapper offset of 0 means absolute inner offsets (librdkafka's old writers).
  let base: bigint | null = null;
  if (wrapper.magic === 1 && wrapper.offset !== 0n) {
    const lastInner = int64(data, last);
    if (wrapper.offset < lastInner) {
      at.record = count - 1;
      throw new KafkaDecodeError(
        "CORRUPT_RECORD",
        `the wrapper's offset ${wrapper.offset} is below its last inner message's relative offset ${lastInner} (Kafka rejects it)`,
        last,
      );
    }
    base = wrapper.offset - lastInner;
  }
  return new Messages(data, positions, count, base, wrapper.timestampType, wrapper.maxTimestamp);
}

const ONE = /*@__PURE__*/ new Int32Array(1);

/** One legacy entry, `raw` at `byteOffset` of the record set; a compressed one may add to `pending`. */
export function decodeLegacy(
  raw: Uint8Array,
  byteOffset: number,
  index: number,
  ctx: Context,
  pending: Promise<void>[],
): Legacy {
  const at = new BatchPosition(index, byteOffset, int64(raw, 0));
  try {
    checkMessage(raw, 0, raw.length, ctx);
  } catch (e) {
    throw at.wrap(e, false);
  }
  const entry = new Legacy(raw, byteOffset);
  const codecId = entry.attributes & 7;
  if (codecId === 0) {
    try {
      at.take(ctx, 1, 0);
    } catch (e) {
      throw at.wrap(e, false);
    }
    entry.setMessages(new Messages(raw, ONE, 1, null, null, -1n));
    return entry;
  }
  if (codecId > 3) {
    // zstd (4) needs magic 2 (KIP-110).
    throw at.error(
      "UNSUPPORTED_COMPRESSION",
      `compression codec id ${codecId} is not valid for magic ${entry.magic}`,
      17,
    );
  }
  const value = entry.value;
  if (value === null) throw at.error("CORRUPT_RECORD", "compressed wrapper message with a null value", 0);
  const wait = decompress(
    entry.compression as CompressionName,
    value,
    entry.magic,
    ctx,
    at,
    (data) => {
      try {
        entry.setMessages(innerMessages(data, entry, ctx, at));
      } catch (e) {
        throw at.wrap(e, true);
      }
    },
    (e) => entry.setError(e),
  );
  if (wait !== undefined) pending.push(wait);
  return entry;
}
