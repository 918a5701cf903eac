/** The options of `decodeRecords` (their own module: the decode steps read them without importing the entry point). */

import type { Codecs } from "../codecs.js";
import type { ControlRecordTypeName } from "../types.js";

/** Options of {@link decodeRecords}. Every default is the safe choice. */
export interface DecodeRecordsOptions {
  /** Codecs for compressed batches (`kafka-wire-compression` exports all four as `codecs`). gzip defaults to the platform's DecompressionStream (asynchronous). */
  readonly codecs?: Codecs;
  /** Verify each batch's CRC-32C (legacy: CRC-32), as Kafka's consumer does with `check.crcs=true`. Default true. */
  readonly verifyCrc?: boolean;
  /** The most bytes one batch may decompress to (a decompression bomb fails with `DECOMPRESSED_TOO_LARGE`). Default 64 MiB. */
  readonly maxDecompressedBytes?: number;
  /**
   * The most records the whole record set may hold (every batch's, legacy inner messages
   * included); more fail with `TOO_MANY_RECORDS` before their records are allocated (a compressed
   * batch: before it is decompressed, from its recordCount). It bounds the memory of a decode
   * (about 16 bytes per record, plus 40-50 bytes per record handle once a batch's `records` are
   * read) where `maxDecompressedBytes` bounds only bytes: tiny records decompressed from a few
   * KB could otherwise fill 64 MiB with 9.6 million records. Default 1,000,000: a partition of a
   * real Fetch holds far fewer (the consumer's 1 MiB `max.partition.fetch.bytes`; a 1 MiB batch
   * of 10-byte records decompressing 10:1 is 1 million). `Infinity` switches the cap off.
   */
  readonly maxRecords?: number;
  /**
   * Read as Kafka's Java reader does where it is lenient: unused attribute bits, non-zero record
   * attributes, the transactional bit without a producer id, recordCount 0 with records present
   * (read as no records), non-minimal varints and dropped high bits, negative lengths other than
   * -1 (read as null), offset deltas that do not increase or exceed lastOffsetDelta, CreateTime
   * records newer than maxTimestamp, invalid UTF-8 header keys (read with U+FFFD), short
   * transaction markers, bytes after a legacy message's value, a negative lastOffsetDelta (Kafka's
   * broker refuses it on produce: a consumer advancing to `nextOffset` would not move), legacy
   * inner messages of another magic than their wrapper's. Default false: all are
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
