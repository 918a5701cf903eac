/**
 * The entry of assets/compression.js (see compression.ts): kafka-wire-compression's codecs.
 * zstd's module (the Emscripten loader, which throws as it loads where there is no WebAssembly,
 * and zstd.wasm) is evaluated only when {@link startZstd} is called: snappy and lz4 work without it.
 */
import type { CompressionCodec } from "../../src/records/index.js";

export { lz4 } from "../../compression/src/lz4.js";
export { snappy } from "../../compression/src/snappy.js";

/** Loads zstd's WebAssembly module and gives the codec, synchronous from then on. */
export async function startZstd(): Promise<CompressionCodec> {
  const { initZstd, zstd } = await import("../../compression/src/zstd.js");
  await initZstd();
  return zstd;
}
