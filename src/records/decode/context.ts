/**
 * What every part of record decoding shares: the options of one `decodeRecords` call (with its
 * record budget), the position of the batch being read (which every error names), and the
 * format's sizes.
 */

import { KafkaDecodeError, KafkaRecordsError, KafkaWireError, type KafkaWireErrorCode } from "../../runtime/errors.js";
import type { Codecs } from "../codecs.js";
import type { DecodeRecordsOptions } from "./options.js";

/** Kafka's `DefaultRecordBatch.RECORD_BATCH_OVERHEAD`. */
export const RECORD_BATCH_OVERHEAD = 61;
/** Kafka's `Records.LOG_OVERHEAD`: offset int64 + length int32. */
export const LOG_OVERHEAD = 12;
/** Kafka's `Records.HEADER_SIZE_UP_TO_MAGIC`. */
export const HEADER_SIZE_UP_TO_MAGIC = 17;
/** Kafka's `LegacyRecord.RECORD_OVERHEAD_V0`: the smallest length field any entry may have. */
export const RECORD_OVERHEAD_V0 = 14;
export const RECORD_OVERHEAD_V1 = 22;
/** The fewest bytes one magic-2 record takes: 7 one-byte fields. */
export const MIN_RECORD_SIZE = 7;

/** One `decodeRecords` call: its options, and how many more records it may hold. */
export interface Context {
  readonly strict: boolean;
  readonly verifyCrc: boolean;
  readonly maxBytes: number;
  readonly maxRecords: number;
  readonly codecs: Codecs | undefined;
  readonly controlDecoder: DecodeRecordsOptions["controlDecoder"];
  readonly crc32c: ((data: Uint8Array) => number) | undefined;
  /** maxRecords minus the records of the batches read so far. */
  recordsLeft: number;
}

export function int32(b: Uint8Array, p: number): number {
  return (b[p]! << 24) | (b[p + 1]! << 16) | (b[p + 2]! << 8) | b[p + 3]!;
}

export function int64(b: Uint8Array, p: number): bigint {
  return (BigInt(int32(b, p)) << 32n) | BigInt(int32(b, p + 4) >>> 0);
}

/**
 * Where one batch (or legacy entry) of the record set is: its index, byte offset and base offset,
 * and the record being read. Every error of the batch is made here, so it names all of them.
 */
export class BatchPosition {
  /** The record being read (its index in the batch), -1 while reading the batch itself. */
  record = -1;
  readonly path: string;

  constructor(
    readonly index: number,
    /** Byte offset of the batch in the record set. */
    readonly byteOffset: number,
    readonly baseOffset: bigint | null,
  ) {
    this.path = `batches[${index}]`;
  }

  /** An error at byte `offset` of the batch (0 = its first byte). */
  error(code: KafkaWireErrorCode, reason: string, offset: number, cause?: unknown): KafkaRecordsError {
    const path = this.record < 0 ? this.path : `${this.path}.records[${this.record}]`;
    return new KafkaRecordsError(code, reason, this.byteOffset + offset, path, this.baseOffset, this.byteOffset, {
      cause,
    });
  }

  /**
   * A KafkaDecodeError from parsing becomes a KafkaRecordsError of this batch: positioned in the
   * batch's bytes, or (`decompressed`) at the batch with the position in the decompressed records
   * named in the message.
   */
  wrap(e: unknown, decompressed: boolean): KafkaRecordsError {
    if (e instanceof KafkaRecordsError) return e;
    if (e instanceof KafkaWireError) {
      if (decompressed) {
        const where = e.offset >= 0 ? ` (byte ${e.offset} of the decompressed records)` : "";
        return this.error(e.code, e.reason + where, 0);
      }
      return this.error(e.code, e.reason, e.offset);
    }
    return this.error("CORRUPT_RECORD", `unexpected failure: ${(e as Error)?.message ?? e}`, 0, e);
  }

  /**
   * Takes `count` records from the call's budget (before anything is allocated for them);
   * `atLeast`: the batch has `count` or more (a legacy wrapper, counted as it is read).
   */
  take(ctx: Context, count: number, at: number, atLeast = false): void {
    if (count > ctx.recordsLeft) {
      const total = ctx.maxRecords - ctx.recordsLeft + count;
      throw new KafkaDecodeError(
        "TOO_MANY_RECORDS",
        `${atLeast ? "over " : ""}${total - (atLeast ? 1 : 0)} records (this batch: ${atLeast ? "over " : ""}${count - (atLeast ? 1 : 0)}) exceed the maxRecords cap of ${ctx.maxRecords}; a larger maxRecords reads them`,
        at,
      );
    }
    ctx.recordsLeft -= count;
  }
}

export function lengthPast(what: string, length: number, left: number, at: number): KafkaDecodeError {
  return new KafkaDecodeError(
    "INVALID_LENGTH",
    `${what} length ${length} exceeds the ${left} bytes left in the record`,
    at,
  );
}

export function negativeLength(what: string, length: number, at: number): KafkaDecodeError {
  return new KafkaDecodeError(
    "INVALID_LENGTH",
    `${what} length ${length}: only -1 means null (Kafka reads any negative length as null; lenient does too)`,
    at,
  );
}
