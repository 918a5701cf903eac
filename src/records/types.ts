/**
 * The shapes of decoded records and batches (Kafka's names, from `DefaultRecordBatch`,
 * `DefaultRecord` and `AbstractLegacyRecordBatch`), shared by the decoder and the encoder.
 */

import type { Compression } from "./codecs.js";

/** A record header: keys are UTF-8 text, values bytes or null. Kafka keeps headers in stored order, repeats allowed. */
export interface RecordHeader {
  /** The header key (UTF-8). */
  readonly key: string;
  /** The header value: a view into the input, or null. */
  readonly value: Uint8Array | null;
}

/** `CreateTime` (the producer's clock) or `LogAppendTime` (the broker's); magic 0 has neither. */
export type TimestampType = "CreateTime" | "LogAppendTime" | "NoTimestampType";

/** What every record gives a consumer, whatever its format. */
export interface KafkaRecord {
  /** The record's absolute offset (int64). */
  readonly offset: bigint;
  /** Milliseconds since the epoch (int64) as a consumer sees it: the batch's `maxTimestamp` for LogAppendTime, -1 for none. */
  readonly timestamp: bigint;
  /** A view into the input (or the decompressed records), or null. */
  readonly key: Uint8Array | null;
  /** A view into the input (or the decompressed records), or null (a tombstone). */
  readonly value: Uint8Array | null;
  /** In stored order; empty for legacy messages. */
  readonly headers: readonly RecordHeader[];
}

/** Kafka's `ControlRecordType` names (key bytes 2–3); other ids decode as `"UNKNOWN"` and are kept raw. */
export type ControlRecordTypeName =
  | "ABORT"
  | "COMMIT"
  | "LEADER_CHANGE"
  | "SNAPSHOT_HEADER"
  | "SNAPSHOT_FOOTER"
  | "KRAFT_VERSION"
  | "KRAFT_VOTERS"
  | "UNKNOWN";

/** Ids 0–6 of {@link ControlRecordTypeName}. */
export const CONTROL_TYPE_NAMES: readonly ControlRecordTypeName[] = [
  "ABORT",
  "COMMIT",
  "LEADER_CHANGE",
  "SNAPSHOT_HEADER",
  "SNAPSHOT_FOOTER",
  "KRAFT_VERSION",
  "KRAFT_VOTERS",
];

/**
 * The key of a control record (int16 version, int16 type) and its decoded value: for COMMIT and
 * ABORT the transaction marker (`EndTransactionMarker`: int16 version, int32 coordinatorEpoch);
 * for the KRaft types whatever the caller's `controlDecoder` returned (undefined without one).
 */
export interface ControlRecord {
  /** The key's int16 version (Kafka writes 0 and reads higher versions as version 0). */
  readonly keyVersion: number;
  /** The key's int16 type id. */
  readonly typeId: number;
  /** The type's name (`UNKNOWN` for ids Kafka does not define). */
  readonly type: ControlRecordTypeName;
  /** COMMIT/ABORT only. */
  /** COMMIT/ABORT only. */
  readonly marker?: {
    /** The marker value's int16 version. */
    readonly version: number;
    /** int32: the transaction coordinator's epoch. */
    readonly coordinatorEpoch: number;
  };
  /** KRaft types: the `controlDecoder`'s result. */
  readonly decoded?: unknown;
}

/** One record of a magic-2 batch. */
export interface DefaultRecord extends KafkaRecord {
  /** The stored offset delta: offset − the batch's baseOffset. */
  readonly offsetDelta: number;
  /** The stored timestamp delta (relative to baseTimestamp, also in LogAppendTime batches). */
  readonly timestampDelta: bigint;
  /** baseSequence + offsetDelta, wrapping from 2^31-1 to 0; -1 when the batch has no producer. */
  readonly sequence: number;
  /** The record's int8 attributes (unused: Kafka writes 0). */
  readonly attributes: number;
  /** The record's total size including its length varint. */
  readonly sizeInBytes: number;
  /** Control batches only. */
  readonly control: ControlRecord | undefined;
}

/** The header of a magic-2 record batch (the protocol guide's "Record Batch"; KIP-98). */
export interface RecordBatchHeader {
  /** int64. */
  readonly baseOffset: bigint;
  /** The int32 length field: the bytes after it. */
  readonly batchLength: number;
  /** int32, -1 when none. */
  readonly partitionLeaderEpoch: number;
  /** The format version: 2 (KIP-98). */
  readonly magic: 2;
  /** The stored CRC-32C, unsigned. */
  readonly crc: number;
  /** The raw int16 attributes. */
  readonly attributes: number;
  /** The codec of attribute bits 0–2. */
  readonly compression: Compression;
  /** Attribute bit 3. */
  readonly timestampType: "CreateTime" | "LogAppendTime";
  /** Attribute bit 4: written by a transactional producer. */
  readonly isTransactional: boolean;
  /** Attribute bit 5: the records are control records (transaction markers, KRaft). */
  readonly isControl: boolean;
  /** Attribute bit 6 (KIP-534): baseTimestamp then holds the delete horizon. */
  readonly hasDeleteHorizon: boolean;
  /** baseTimestamp when `hasDeleteHorizon`, else null. */
  readonly deleteHorizonMs: bigint | null;
  /** int32: the last record's offset − baseOffset. */
  readonly lastOffsetDelta: number;
  /** int64 ms: the first record's timestamp (the delete horizon when `hasDeleteHorizon`). */
  readonly baseTimestamp: bigint;
  /** int64 ms: the largest record timestamp (the append time for LogAppendTime). */
  readonly maxTimestamp: bigint;
  /** int64, -1 when not idempotent. */
  readonly producerId: bigint;
  /** int16, -1 when not idempotent. */
  readonly producerEpoch: number;
  /** int32: the first record's sequence number, -1 when not idempotent. */
  readonly baseSequence: number;
  /** baseSequence + lastOffsetDelta (wrapping), or -1. */
  readonly lastSequence: number;
  /** The int32 count field. */
  readonly recordCount: number;
}

/** A decoded magic-2 record batch. */
export interface RecordBatch extends RecordBatchHeader {
  /**
   * The records. @throws KafkaRecordsError `UNSUPPORTED_COMPRESSION` when the batch is
   * compressed and no codec for it was given: the batch still has its header and `raw` bytes.
   */
  readonly records: readonly DefaultRecord[];
  /** True when `records` can be read (uncompressed, or decompressed with a codec). */
  readonly recordsAvailable: boolean;
  /**
   * int64 ms: the largest record timestamp as the records give it (baseTimestamp +
   * timestampDelta, whatever `timestampType` says), from NO_TIMESTAMP (-1): -1 for no records.
   * What Kafka's `LogValidator` compares with maxTimestamp, and sets it to on a CreateTime batch
   * (`DefaultRecordBatch.setMaxTimestamp`). Found by the decode pass: reading it makes no record.
   * @throws like `records`.
   */
  readonly recordsMaxTimestamp: bigint;
  /**
   * How many records have a null key (Kafka's `LogValidator` refuses any on a compacted topic:
   * "Compacted topic cannot accept message without key"). Counted by the decode pass.
   * @throws like `records`.
   */
  readonly nullKeyRecords: number;
  /** The batch's own bytes (a view into the input): write them back to pass the batch on unchanged. */
  readonly raw: Uint8Array;
  /** Where the batch starts in the record set. */
  readonly byteOffset: number;
  /** baseOffset + lastOffsetDelta + 1: where the next batch starts (also across compaction gaps). */
  readonly nextOffset: bigint;
}

/** One message of a legacy (magic 0/1) message set. */
export interface LegacyRecord extends KafkaRecord {
  /** The message format version. */
  readonly magic: 0 | 1;
  /** The stored CRC-32, unsigned. */
  readonly crc: number;
  /** The int8 attributes. */
  readonly attributes: number;
  /** From attribute bit 3 (magic 1), or `NoTimestampType` (magic 0). */
  readonly timestampType: TimestampType;
}

/**
 * One entry of a legacy message set (magic 0 or 1): an uncompressed message (its own only record)
 * or a compressed wrapper message, whose value holds the inner messages.
 */
export interface LegacyBatch {
  /** The message format version. */
  readonly magic: 0 | 1;
  /** The entry's int64 offset field; for a wrapper, the absolute offset of its last inner message. */
  readonly offset: bigint;
  /** The int32 size field. */
  readonly messageSize: number;
  /** The stored CRC-32, unsigned. */
  readonly crc: number;
  /** The raw int8 attributes. */
  readonly attributes: number;
  /** The codec of attribute bits 0–2 (a wrapper message when not `none`). */
  readonly compression: Compression;
  /** From attribute bit 3 (magic 1), or `NoTimestampType` (magic 0). */
  readonly timestampType: TimestampType;
  /** Magic 1: the int64 timestamp field; magic 0: null. */
  readonly timestamp: bigint | null;
  /** The message key: a view into the input, or null. */
  readonly key: Uint8Array | null;
  /** For a wrapper: the compressed payload. */
  readonly value: Uint8Array | null;
  /** The first record's offset. @throws like `records` for an undecodable wrapper. */
  readonly baseOffset: bigint;
  /** The timestamp field (magic 1), -1 for magic 0. */
  readonly maxTimestamp: bigint;
  /** @throws like `records`. */
  readonly recordCount: number;
  /** @throws KafkaRecordsError `UNSUPPORTED_COMPRESSION` for a wrapper whose codec was not given. */
  readonly records: readonly LegacyRecord[];
  /** True when `records` can be read (uncompressed, or decompressed with a codec). */
  readonly recordsAvailable: boolean;
  /** The entry's own bytes (a view into the input). */
  readonly raw: Uint8Array;
  /** Where the entry starts in the record set. */
  readonly byteOffset: number;
  /** offset + 1. */
  readonly nextOffset: bigint;
  /** Always false (legacy formats have no control batches). */
  readonly isControl: false;
}

/** What a record set (a `records` field of Produce/Fetch, a log segment) holds. */
export interface RecordSet {
  /** Every complete batch, in order (magic 0/1 entries as {@link LegacyBatch}). */
  readonly batches: readonly (RecordBatch | LegacyBatch)[];
  /**
   * Bytes of a partial trailing batch (a Fetch response cut by its max bytes), 0 when none: not
   * an error; fetch again from the last batch's `nextOffset`.
   */
  readonly incompleteTail: number;
  /** Bytes covered by the complete batches (Kafka's `MemoryRecords.validBytes()`). */
  readonly validBytes: number;
}
