/**
 * zstd for Node.js, Deno and Bun (the package's default entry): zstd.wasm read from the installed
 * @bokuweb/zstd-wasm (nothing is downloaded), or from the path or URL given to {@link initZstd}.
 */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { CompressionCodec } from "./types.js";
import { decompressZstd, startZstd, zstdCodec, type ZstdWasmSource } from "./zstd.js";

/** zstd.wasm beside @bokuweb/zstd-wasm's Node entry (dist/common/index.node.js; its `exports` name no other file). */
function packageWasm(): string {
  const entry = createRequire(import.meta.url).resolve("@bokuweb/zstd-wasm");
  return path.join(path.dirname(entry), "zstd.wasm");
}

function load(wasmUrl: string | undefined): Promise<ZstdWasmSource> {
  if (wasmUrl === undefined) return readFile(packageWasm());
  if (/^(https?|data|blob):/i.test(wasmUrl)) return fetch(wasmUrl);
  return readFile(wasmUrl.startsWith("file:") ? fileURLToPath(wasmUrl) : wasmUrl);
}

/**
 * Loads zstd's WebAssembly module, once (later calls return the same Promise; after a failure
 * the next call tries again). Call it at start-up to have synchronous zstd from the first batch.
 * `wasmUrl`: a file path, a `file:` URL, or an `http(s):`/`data:` URL of a `zstd.wasm` to load
 * instead of @bokuweb/zstd-wasm's. Rejects when the file does not load or is not that build.
 */
export function initZstd(wasmUrl?: string): Promise<void> {
  return startZstd(() => load(wasmUrl));
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
