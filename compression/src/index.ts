/**
 * `kafka-wire-compression`: the codecs `kafka-wire/records` leaves out of its core, ready to pass:
 *
 *   import { decodeRecords, encodeRecordBatch } from "kafka-wire/records";
 *   import { codecs } from "kafka-wire-compression";
 *   const set = decodeRecords(bytes, { codecs });
 *
 * gzip (node:zlib, synchronous), snappy (xerial-framed and raw; our bounded decoder, snappyjs to
 * compress), lz4 (Kafka's frame around lz4js blocks; our bounded block decoder), zstd (the
 * reference library as WebAssembly: @bokuweb/zstd-wasm's zstd.wasm on an instance of our own, behind
 * our walk of every frame header).
 * No native build.
 *
 * @module kafka-wire-compression
 */
import { gzip } from "./gzip.js";
import { lz4 } from "./lz4.js";
import { snappy } from "./snappy.js";
import type { Codecs } from "./types.js";
import { zstd } from "./zstd-node.js";

export { gzip, lz4, snappy, zstd };
export { initZstd, zstdDecompress } from "./zstd-node.js";
export { lz4CompressFrame, lz4DecompressFrame } from "./lz4.js";
export { snappyCompressXerial, snappyDecompress } from "./snappy.js";
export { ZSTD_MAX_WINDOW } from "./zstd.js";
export { CorruptCompressedDataError } from "./types.js";

/** All four codecs, for the `codecs` option of `decodeRecords` and `encodeRecordBatch`. */
export const codecs: Codecs = { gzip, snappy, lz4, zstd };
