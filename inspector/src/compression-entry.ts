/**
 * The entry of assets/compression.js (see compression.ts): kafka-wire-compression's codecs.
 * zstd starts only when {@link startZstd} is called (snappy and lz4 work without WebAssembly),
 * from zstd.wasm inlined as a data: URL by vite.compression.config.ts (a file:// page cannot
 * fetch it from beside the script).
 */
import type { CompressionCodec } from "../../src/records/index.js";

export { lz4 } from "../../compression/src/lz4.js";
export { snappy } from "../../compression/src/snappy.js";

/** zstd.wasm as a data: URL (vite.compression.config.ts defines it). */
declare const ZSTD_WASM_URL: string;

/** Loads zstd's WebAssembly module and gives the codec, synchronous from then on. */
export async function startZstd(): Promise<CompressionCodec> {
  const { initZstd, zstd } = await import("../../compression/src/zstd-browser.js");
  await initZstd(ZSTD_WASM_URL);
  return zstd;
}
