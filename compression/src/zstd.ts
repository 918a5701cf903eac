/**
 * Zstandard (KIP-110): decompressed by fzstd (pure JavaScript; frames without a content size and
 * several frames back to back, as Kafka's and librdkafka's streaming compressors write them),
 * compressed by @bokuweb/zstd-wasm (the reference C library compiled to WebAssembly).
 *
 * The WebAssembly module loads asynchronously: the first `compress` returns a Promise (later ones
 * are synchronous), or call {@link initZstd} once at start-up. In browsers pass `initZstd` the
 * URL of `@bokuweb/zstd-wasm`'s `zstd.wasm` if your bundler does not serve it next to the module.
 */

import { Decompress } from "fzstd";
import * as zstdWasm from "@bokuweb/zstd-wasm";
import { tooLarge, type CompressionCodec } from "./types.js";

/** Kafka's default `compression.zstd.level`. */
const DEFAULT_LEVEL = 3;

let ready: Promise<void> | null = null;
let loaded = false;

/** Loads the WebAssembly compressor (once; later calls return the same Promise). */
export function initZstd(wasmUrl?: string): Promise<void> {
  ready ??= (wasmUrl === undefined ? zstdWasm.init() : (zstdWasm.init as (p?: string) => Promise<void>)(wasmUrl)).then(
    () => {
      loaded = true;
    },
  );
  return ready;
}

/** The content size the first frame declares (Frame_Content_Size), or -1 when absent. */
function declaredSize(b: Uint8Array): number {
  if (b.length < 6 || b[0] !== 0x28 || b[1] !== 0xb5 || b[2] !== 0x2f || b[3] !== 0xfd) return -1;
  const descriptor = b[4]!;
  const fcsFlag = descriptor >>> 6;
  const singleSegment = (descriptor >>> 5) & 1;
  const fcsBytes = [singleSegment ? 1 : 0, 2, 4, 8][fcsFlag]!;
  if (fcsBytes === 0) return -1;
  let p = 5 + (singleSegment ? 0 : 1) + [0, 1, 2, 4][descriptor & 3]!;
  if (b.length < p + fcsBytes) return -1;
  let value = 0;
  for (let i = 0; i < fcsBytes; i++) value += b[p++]! * 2 ** (8 * i);
  return fcsBytes === 2 ? value + 256 : value;
}

/** Decompresses one or more zstd frames, failing as soon as the output passes `maxBytes`. */
export function zstdDecompress(data: Uint8Array, maxBytes: number): Uint8Array {
  const declared = declaredSize(data);
  if (declared > maxBytes) throw tooLarge(maxBytes, `zstd frame content size ${declared}`);
  const chunks: Uint8Array[] = [];
  let total = 0;
  const stream = new Decompress((chunk) => {
    total += chunk.length;
    if (total > maxBytes) throw tooLarge(maxBytes);
    // fzstd may reuse its window buffer for later chunks: keep a copy.
    chunks.push(chunk.slice());
  });
  stream.push(data, true);
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(total);
  let p = 0;
  for (const c of chunks) {
    out.set(c, p);
    p += c.length;
  }
  return out;
}

/** Kafka's zstd (compression.type=zstd); `level` as `compression.zstd.level` (default 3). */
export const zstd: CompressionCodec = {
  compress(data, options) {
    const level = options.level ?? DEFAULT_LEVEL;
    if (loaded) return zstdWasm.compress(data, level);
    return initZstd().then(() => zstdWasm.compress(data, level));
  },
  decompress: (data, options) => zstdDecompress(data, options.maxBytes),
};
