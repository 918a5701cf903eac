/**
 * `kafka-wire/records`: the data inside Produce and Fetch. Record batches (magic 2) decoded and
 * encoded, legacy message sets (magic 0/1) decoded, CRC-32C/CRC-32, compression through pluggable
 * codecs (gzip built in over the platform's streams; snappy, lz4, zstd from `kafka-wire-compression`),
 * control records. Uint8Array and DataView only: runs in Node, browsers, Deno and Bun.
 */
export * from "./codecs.js";
export * from "./crc.js";
export * from "./types.js";
export * from "./decode.js";
export { KafkaRecordsError } from "../runtime/errors.js";
export * from "./encode.js";
