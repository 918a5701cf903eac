/**
 * Zstandard (KIP-110), both ways through @bokuweb/zstd-wasm: the reference C library compiled to
 * WebAssembly (compressing with `ZSTD_compress`, decompressing each frame with the one-shot
 * `ZSTD_decompress`, which checks content sizes and checksums and decodes into its output buffer:
 * no window buffer besides it).
 *
 * Before any byte is decompressed, our own walk over the payload reads every frame's header and
 * every block header (RFC 8878 §3.1), so that no frame, whichever its place, gets past the limits:
 * - a window above 2^27 bytes is refused (zstd's own default `ZSTD_d_windowLogMax`, which
 *   zstd-jni, Kafka's reader, keeps), naming the window;
 * - a declared content size above what is left of the cap fails with `DECOMPRESSED_TOO_LARGE`;
 * - each frame's output buffer is the least of the cap left, its content size and what its
 *   blocks can produce (a raw or RLE block its size, a compressed block at most 128 KiB), so an
 *   allocation is always one the input justifies; the frames' total never passes the cap;
 * - skippable frames are stepped over; anything after the last frame that is not a frame fails,
 *   as zstd-jni fails (Kafka rejects trailing bytes after a zstd payload).
 * fzstd, the pure-JavaScript decoder this replaced, allocated the window a frame declared (up to
 * 2 GB from 70 bytes) and moved it whole after every block (a 2^27-byte window and 200 one-byte
 * blocks: 4.4 s from 878 bytes), and checked neither checksums nor content sizes.
 *
 * The WebAssembly module loads asynchronously: until it has loaded, `compress` and `decompress`
 * return a Promise (and so does `decodeRecords`); afterwards they are synchronous. Call
 * {@link initZstd} once at start-up to have synchronous zstd from the first batch. In browsers
 * pass `initZstd` the URL of `@bokuweb/zstd-wasm`'s `zstd.wasm` if your bundler does not serve
 * it next to the module.
 */

import * as zstdWasm from "@bokuweb/zstd-wasm";
import { corrupt, CorruptCompressedDataError, tooLarge, type CompressionCodec } from "./types.js";

/** Kafka's default `compression.zstd.level`. */
const DEFAULT_LEVEL = 3;

/** zstd's default decoder limit (ZSTD_WINDOWLOG_LIMIT_DEFAULT = 27), kept by zstd-jni. */
export const ZSTD_MAX_WINDOW = 2 ** 27;

/** The largest block a frame may hold (Block_Maximum_Size: the window, at most 128 KiB). */
const BLOCK_MAX = 128 * 1024;

let ready: Promise<void> | null = null;
let loaded = false;

/** Loads the WebAssembly module (once; later calls return the same Promise). */
export function initZstd(wasmUrl?: string): Promise<void> {
  ready ??= (wasmUrl === undefined ? zstdWasm.init() : (zstdWasm.init as (p?: string) => Promise<void>)(wasmUrl)).then(
    () => {
      loaded = true;
    },
  );
  return ready;
}

/** One zstd frame found by {@link scanFrames}. */
export interface ZstdFrame {
  readonly start: number;
  readonly end: number;
  /** The declared content size, or -1. */
  readonly contentSize: number;
  /** The most its blocks can produce (a raw or RLE block its size, a compressed block its block maximum). */
  readonly blocksBound: number;
}

/**
 * Walks every frame and block header of `b` (RFC 8878 §3.1); checks windows, declared content
 * sizes (each, and their sum, against `maxBytes`) and block sizes; returns the zstd frames
 * (skippable ones left out). Allocates nothing the input does not hold.
 */
export function scanFrames(b: Uint8Array, maxBytes: number): ZstdFrame[] {
  const frames: ZstdFrame[] = [];
  let declared = 0;
  let p = 0;
  while (p < b.length) {
    if (b.length - p < 4) corrupt("zstd frame magic number is truncated", p);
    const magic = (b[p]! | (b[p + 1]! << 8) | (b[p + 2]! << 16) | (b[p + 3]! << 24)) >>> 0;
    if (magic >>> 4 === 0x184d2a5) {
      // Skippable frame: 4-byte little-endian size, then that many bytes.
      if (b.length - p < 8) corrupt("zstd skippable frame size is truncated", p + 4);
      const size = (b[p + 4]! | (b[p + 5]! << 8) | (b[p + 6]! << 16) | (b[p + 7]! << 24)) >>> 0;
      if (size > b.length - p - 8) corrupt(`zstd skippable frame of ${size} bytes runs past the input`, p);
      p += 8 + size;
      continue;
    }
    if (magic !== 0xfd2fb528) corrupt("not a zstd frame (bad magic number)", p);
    const start = p;
    if (b.length - p < 5) corrupt("zstd frame header is truncated", b.length);
    const fhd = b[p + 4]!;
    if (fhd & 0x08) corrupt("zstd frame header descriptor has its reserved bit set", p + 4);
    const singleSegment = (fhd & 0x20) !== 0;
    const checksum = (fhd & 0x04) !== 0;
    const dictBytes = [0, 1, 2, 4][fhd & 3]!;
    const fcsBytes = [singleSegment ? 1 : 0, 2, 4, 8][fhd >>> 6]!;
    const headerEnd = p + 5 + (singleSegment ? 0 : 1) + dictBytes + fcsBytes;
    if (headerEnd > b.length) corrupt("zstd frame header is truncated", b.length);
    let window = -1;
    if (!singleSegment) {
      // Window_Descriptor: exponent in bits 3–7, mantissa in bits 0–2.
      const wd = b[p + 5]!;
      const base = 2 ** (10 + (wd >>> 3));
      window = base + (base / 8) * (wd & 7);
    }
    let contentSize = -1;
    if (fcsBytes > 0) {
      contentSize = 0;
      for (let i = 0, q = headerEnd - fcsBytes; i < fcsBytes; i++) contentSize += b[q + i]! * 2 ** (8 * i);
      if (fcsBytes === 2) contentSize += 256;
      if (singleSegment) window = contentSize;
    }
    if (window > ZSTD_MAX_WINDOW) {
      corrupt(`zstd frame declares a window of ${window} bytes, above zstd's limit of ${ZSTD_MAX_WINDOW}`, p + 5);
    }
    if (contentSize >= 0) {
      declared += contentSize;
      if (declared > maxBytes) {
        throw tooLarge(
          maxBytes,
          `zstd frame at byte ${p} declaring ${contentSize} bytes (${declared} with the frames before it)`,
        );
      }
    }
    const blockMax = Math.min(window, BLOCK_MAX);
    let blocksBound = 0;
    p = headerEnd;
    for (let last = false; !last;) {
      if (b.length - p < 3) corrupt("zstd frame ends inside a block header", p);
      const h = b[p]! | (b[p + 1]! << 8) | (b[p + 2]! << 16);
      last = (h & 1) === 1;
      const type = (h >>> 1) & 3;
      const size = h >>> 3;
      if (type === 3) corrupt("zstd block of the reserved type 3", p);
      if (size > blockMax) corrupt(`zstd block of ${size} bytes is larger than the frame's ${blockMax}-byte blocks`, p);
      const stored = type === 1 ? 1 : size; // RLE: one byte, repeated `size` times
      if (stored > b.length - p - 3) corrupt(`zstd block of ${stored} bytes runs past the input`, p);
      blocksBound += type === 2 ? blockMax : size;
      p += 3 + stored;
    }
    if (checksum) {
      if (b.length - p < 4) corrupt("zstd frame ends inside its content checksum", p);
      p += 4;
    }
    // Checked before the decoder allocates the declared size: a frame cannot hold more than its blocks produce.
    if (contentSize > blocksBound) {
      corrupt(`zstd frame declares ${contentSize} bytes, more than its blocks can produce (${blocksBound})`, start);
    }
    frames.push({ start, end: p, contentSize, blocksBound });
  }
  return frames;
}

/** zstd's error codes (zstd_errors.h) that a corrupted frame gives, by number. */
const ZSTD_ERRORS: Record<number, string> = {
  1: "generic error",
  10: "unknown frame descriptor",
  12: "version unsupported",
  14: "unsupported frame parameter",
  16: "window too large",
  20: "corrupted block",
  22: "content checksum mismatch",
  24: "literals header wrong",
  30: "dictionary corrupted",
  32: "the frame needs a dictionary",
  44: "table log too large",
  46: "max symbol value too large",
  64: "out of memory",
  70: "output larger than the frame's content size or blocks allow",
  72: "frame truncated, or its content size does not match its blocks",
};

/** zstd's dstSize_tooSmall: the output buffer is full. */
const DST_TOO_SMALL = 70;

/** Decompresses one frame into at most `capacity` bytes (the module has loaded). */
function decompressFrame(frame: Uint8Array, capacity: number, at: number, full: () => Error): Uint8Array {
  try {
    return zstdWasm.decompress(frame, { defaultHeapSize: capacity });
  } catch (e) {
    const code = /code (-?\d+)/.exec(String((e as Error)?.message))?.[1];
    const n = code === undefined ? NaN : Math.abs(Number(code));
    if (n === DST_TOO_SMALL) throw full();
    corrupt(`zstd frame does not decompress: ${ZSTD_ERRORS[n] ?? `zstd error ${code ?? String(e)}`}`, at);
  }
}

function decompressFrames(data: Uint8Array, frames: readonly ZstdFrame[], maxBytes: number): Uint8Array {
  const parts: Uint8Array[] = [];
  let total = 0;
  for (const f of frames) {
    const left = maxBytes - total;
    if (f.contentSize > left)
      throw tooLarge(maxBytes, `zstd frame at byte ${f.start} declaring ${f.contentSize} bytes`);
    const bound = Math.min(f.contentSize >= 0 ? f.contentSize : f.blocksBound, f.blocksBound);
    const capacity = Math.min(bound, left);
    // Full before its blocks' bound: the cap; at it, a frame that lies about its blocks.
    const full = () =>
      capacity < bound
        ? tooLarge(maxBytes)
        : new CorruptCompressedDataError(
            `zstd frame decompresses to more than its content size or its blocks allow`,
            f.start,
          );
    const out = decompressFrame(data.subarray(f.start, f.end), capacity, f.start, full);
    if (out.length > capacity) throw full();
    total += out.length;
    parts.push(out);
  }
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(total);
  let p = 0;
  for (const c of parts) {
    out.set(c, p);
    p += c.length;
  }
  return out;
}

/**
 * Decompresses zstd frames (several back to back, skippable ones among them) into at most
 * `maxBytes` bytes; a Promise until the WebAssembly module has loaded (see {@link initZstd}).
 * Errors: `DECOMPRESSED_TOO_LARGE` (content sizes above the cap, output past it) or a
 * {@link CorruptCompressedDataError} naming the byte of the payload (a window above 2^27, bad
 * headers, blocks or checksums, bytes after the last frame).
 */
export function zstdDecompress(data: Uint8Array, maxBytes: number): Uint8Array | Promise<Uint8Array> {
  // The walk first, also before loading: a hostile payload fails without waiting for the module.
  const frames = scanFrames(data, maxBytes);
  if (loaded) return decompressFrames(data, frames, maxBytes);
  return initZstd().then(() => decompressFrames(data, frames, maxBytes));
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
