/**
 * The browser build of `kafka-wire-compression` (the package's `browser` condition): snappy, lz4
 * and zstd; gzip is left to `kafka-wire/records`' built-in CompressionStream codec (node:zlib does
 * not exist there).
 */
import { lz4 } from "./lz4.js";
import { snappy } from "./snappy.js";
import type { Codecs } from "./types.js";
import { zstd } from "./zstd-browser.js";

export { lz4, snappy, zstd };
export { initZstd, zstdDecompress } from "./zstd-browser.js";
export { lz4CompressFrame, lz4DecompressFrame } from "./lz4.js";
export { snappyCompressXerial, snappyDecompress } from "./snappy.js";
export { ZSTD_MAX_WINDOW } from "./zstd.js";
export { CorruptCompressedDataError } from "./types.js";

/** snappy, lz4 and zstd (gzip: the core's default). */
export const codecs: Codecs = { snappy, lz4, zstd };
