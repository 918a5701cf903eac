/**
 * `kafka-wire/records`: the data inside Produce and Fetch. Record batches (magic 2) decoded and
 * encoded, legacy message sets (magic 0/1) decoded, CRC-32C/CRC-32, compression through pluggable
 * codecs (gzip built in over the platform's streams; snappy, lz4, zstd from `kafka-wire-compression`),
 * control records. Uint8Array and DataView only (the CRCs also run as a small WebAssembly module
 * where the platform allows it, else in JavaScript): runs in Node, browsers, Deno and Bun.
 *
 * The public API is this list, one export statement per module, one name per line (a new public
 * name is one line here; test/api-report.test.ts shows the change in api/records.api.md).
 *
 * @module kafka-wire/records
 */

export { KafkaRecordsError } from "../runtime/errors.js";

// Decoding
export {
  decodeRecords,
  dataRecords,
  DEFAULT_MAX_DECOMPRESSED_BYTES,
  DEFAULT_MAX_RECORDS,
  type DecodeRecordsOptions,
  type KafkaRecordWithBatch,
} from "./decode.js";

// Byte spans of a record set (for decodeWithSpans of kafka-wire/runtime)
export { recordSpans, type RecordSpansOptions } from "./spans.js";

// Encoding
export {
  encodeRecordBatch,
  encodeRecords,
  endTransactionMarker,
  withBatchHeader,
  type BatchHeaderUpdate,
  type BytesInit,
  type EncodeRecordBatchOptions,
  type EndTransactionMarkerInit,
  type RecordBatchInit,
  type RecordInit,
} from "./encode.js";

// What a decoded record set is made of
export type {
  ControlRecord,
  ControlRecordTypeName,
  DefaultRecord,
  KafkaRecord,
  LegacyBatch,
  LegacyRecord,
  RecordBatch,
  RecordBatchHeader,
  RecordHeader,
  RecordSet,
  TimestampType,
} from "./types.js";

// Compression codecs (what kafka-wire-compression implements)
export type {
  Codecs,
  Compression,
  CompressionCodec,
  CompressionName,
  CompressOptions,
  DecompressOptions,
  MaybePromise,
} from "./codecs.js";

// Checksums
export { crc32, crc32c } from "./crc.js";
