/**
 * zstd for browsers (the package's `browser` entry): zstd.wasm fetched from beside this module
 * (the package's build copies it next to the bundle, where a bundler that follows
 * `new URL("./zstd.wasm", import.meta.url)` finds it), or from the URL given to {@link initZstd}.
 */
import type { CompressionCodec } from "./types.js";
import { decompressZstd, startZstd, zstdCodec } from "./zstd.js";

/**
 * Loads zstd's WebAssembly module, once (later calls return the same Promise; after a failure
 * the next call tries again). Call it at start-up to have synchronous zstd from the first batch.
 * `wasmUrl`: where your app serves @bokuweb/zstd-wasm's `zstd.wasm`, if your bundler does not
 * serve it next to this module. Rejects when it does not load or is not that build.
 */
export function initZstd(wasmUrl?: string): Promise<void> {
  return startZstd(() => fetch(wasmUrl ?? new URL("./zstd.wasm", import.meta.url)));
}

/**
 * Decompresses zstd frames (several back to back, skippable ones among them) into at most
 * `maxBytes` bytes; a Promise until the WebAssembly module has loaded (see {@link initZstd}).
 * Errors: `DECOMPRESSED_TOO_LARGE` (content sizes above the cap, output past it) or a
 * `CorruptCompressedDataError` naming the byte of the payload (a window above 2^27, bad
 * headers, blocks or checksums, bytes after the last frame).
 */
export function zstdDecompress(data: Uint8Array, maxBytes: number): Uint8Array | Promise<Uint8Array> {
  return decompressZstd(data, maxBytes, initZstd);
}

/** Kafka's zstd (compression.type=zstd); `level` as `compression.zstd.level` (default 3). */
export const zstd: CompressionCodec = /* @__PURE__ */ zstdCodec(initZstd);
