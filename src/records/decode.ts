/**
 * Reading record sets: magic-2 record batches (the protocol guide's "Record Batch", KIP-98) and
 * legacy magic 0/1 message sets, as Kafka's `MemoryRecords.batches()`, `DefaultRecordBatch` and
 * `AbstractLegacyRecordBatch` read them, with the checks of `ensureValid()` and of record iteration.
 * The parts: decode/batch.ts (magic 2), decode/legacy.ts (magic 0/1), decode/decompress.ts
 * (codecs under the byte cap), decode/context.ts (the call's options and budget, a batch's position).
 *
 * Strict by default: where Kafka's reader silently accepts something no Kafka writer produces
 * (unused attribute bits, non-minimal varints, negative lengths other than -1, offset deltas out
 * of order, invalid UTF-8 header keys...), we reject it; `lenient: true` reads as Kafka does.
 */

import { KafkaRecordsError } from "../runtime/errors.js";
import type { Codecs } from "./codecs.js";
import type {
  ControlRecordTypeName,
  DefaultRecord,
  LegacyBatch,
  LegacyRecord,
  RecordBatch,
  RecordSet,
} from "./types.js";
import { Batch, decodeBatch } from "./decode/batch.js";
import {
  BatchPosition,
  HEADER_SIZE_UP_TO_MAGIC,
  int32,
  int64,
  LOG_OVERHEAD,
  RECORD_OVERHEAD_V0,
  type Context,
} from "./decode/context.js";
import { decodeLegacy, Legacy } from "./decode/legacy.js";

export { RECORD_BATCH_OVERHEAD } from "./decode/context.js";

import type { DecodeRecordsOptions } from "./decode/options.js";

export type { DecodeRecordsOptions };

/** The default {@link DecodeRecordsOptions.maxDecompressedBytes}. */
export const DEFAULT_MAX_DECOMPRESSED_BYTES = 64 * 1024 * 1024;
/** The default {@link DecodeRecordsOptions.maxRecords}. */
export const DEFAULT_MAX_RECORDS = 1_000_000;

function optionError(reason: string): KafkaRecordsError {
  return new KafkaRecordsError("INVALID_VALUE", reason, -1, "", null, 0);
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
    throw optionError(`maxDecompressedBytes must be a whole number of bytes, 0 or more; got ${String(maxBytes)}`);
  }
  const maxRecords = options.maxRecords ?? DEFAULT_MAX_RECORDS;
  if (maxRecords !== Infinity && (!Number.isSafeInteger(maxRecords) || maxRecords < 0)) {
    throw optionError(`maxRecords must be a whole number, 0 or more, or Infinity; got ${String(maxRecords)}`);
  }
  const { crc32c, controlDecoder } = options;
  if (crc32c !== undefined && typeof crc32c !== "function") throw optionError("crc32c must be a function");
  if (controlDecoder !== undefined && typeof controlDecoder !== "function") {
    throw optionError("controlDecoder must be a function");
  }
  const ctx: Context = {
    strict: options.lenient !== true,
    verifyCrc: options.verifyCrc !== false,
    maxBytes,
    maxRecords,
    codecs: options.codecs,
    controlDecoder,
    crc32c,
    recordsLeft: maxRecords,
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
      throw new BatchPosition(index, pos, int64(bytes, pos)).error(
        "CORRUPT_RECORD",
        `batch length ${size} is below the minimum of ${RECORD_OVERHEAD_V0}`,
        8,
      );
    }
    if (remaining < HEADER_SIZE_UP_TO_MAGIC) {
      return -remaining - 1;
    }
    const magic = (bytes[pos + 16]! << 24) >> 24;
    if (magic < 0 || magic > 2) {
      throw new BatchPosition(index, pos, int64(bytes, pos)).error(
        "CORRUPT_RECORD",
        `unknown magic ${magic} (0, 1 and 2 exist)`,
        16,
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
    // Our own batches make each record as it is read: a consumer that stops early pays for what it read.
    if (batch instanceof Batch || batch instanceof Legacy) yield* batch.eachRecord();
    else yield* batch.records;
  }
}

/** What {@link dataRecords} yields. */
export type KafkaRecordWithBatch = DefaultRecord | LegacyRecord;
