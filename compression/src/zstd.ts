/**
 * Zstandard (KIP-110), both ways through the reference C library compiled to WebAssembly: the
 * `zstd.wasm` that @bokuweb/zstd-wasm ships, instantiated here with our own imports (compressing
 * with `ZSTD_compress_usingDict` and no dictionary, which is `ZSTD_compressCCtx`; decompressing
 * each frame with `ZSTD_decompress_usingDict` and no dictionary, which is `ZSTD_decompressDCtx`:
 * the one-shot decoder, which checks content sizes and checksums and decodes into its output
 * buffer, no window buffer besides it; one context of each, kept).
 *
 * The instance is this module's own. @bokuweb/zstd-wasm's JavaScript glue is one module-level
 * Emscripten `Module` shared by every user of the package in a process: a second `init()` (another
 * library, or a second copy of kafka-wire-compression) instantiated zstd.wasm again and, once that
 * settled (after its Promise had resolved), pointed the glue's memory views at the new instance
 * while the exports bound on first use stayed the old one's, so valid frames decompressed into
 * zeros. Nothing outside this module can reach our instance or its memory.
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
 * return a Promise (and so does `decodeRecords`); afterwards they are synchronous. Each entry
 * point binds where zstd.wasm comes from (zstd-node.ts: read from the installed package;
 * zstd-browser.ts: fetched from beside the module, or from the URL given to `initZstd`).
 */

import { corrupt, CorruptCompressedDataError, tooLarge, type CompressionCodec } from "./types.js";

/** Kafka's default `compression.zstd.level`. */
const DEFAULT_LEVEL = 3;

/** zstd's default decoder limit (ZSTD_WINDOWLOG_LIMIT_DEFAULT = 27), kept by zstd-jni. */
export const ZSTD_MAX_WINDOW = 2 ** 27;

/** The largest block a frame may hold (Block_Maximum_Size: the window, at most 128 KiB). */
const BLOCK_MAX = 128 * 1024;

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

/**
 * zstd.wasm's exports by the names @bokuweb/zstd-wasm 0.0.27's Emscripten build minified them to
 * (its dist/common/zstd.js binds the same letters: `Module['_ZSTD_compress'] = wasmExports['m']`;
 * test/compression-zstd-instance.test.ts reads them from there, so an upgrade that renames them
 * fails a test rather than a call). Sizes and pointers are wasm32 `size_t`: i32 in JavaScript.
 */
export const ZSTD_WASM_EXPORTS = {
  memory: "f",
  /** `__wasm_call_ctors`, run once before anything else. */
  ctors: "g",
  isError: "h",
  compressBound: "i",
  createCCtx: "j",
  /** `ZSTD_compress_usingDict(cctx, dst, dstCapacity, src, srcSize, dict, dictSize, level)`. */
  compressUsingDict: "l",
  createDCtx: "n",
  /** `ZSTD_decompress_usingDict(dctx, dst, dstCapacity, src, srcSize, dict, dictSize)`. */
  decompressUsingDict: "q",
  malloc: "s",
  free: "t",
} as const;

/** The most the heap may grow to (Emscripten's getHeapMax for this build: 2 GiB). */
const HEAP_MAX = 2 ** 31;
const PAGE = 65536;

/** What zstd.wasm can be instantiated from: its bytes, or a Response carrying them (compiled while it streams). */
export type ZstdWasmSource = Response | ArrayBuffer | ArrayBufferView;

type Fn = (...args: number[]) => number;

/** The reference library on an instance of zstd.wasm that only this module holds. */
class ZstdWasm {
  private readonly cctx: number;
  private readonly dctx: number;
  private readonly isError: Fn;
  private readonly compressBound: Fn;
  private readonly compressUsingDict: Fn;
  private readonly decompressUsingDict: Fn;
  private readonly malloc: Fn;
  private readonly free: Fn;

  private constructor(
    exports: WebAssembly.Exports,
    private readonly memory: WebAssembly.Memory,
  ) {
    const fn = (name: keyof typeof ZSTD_WASM_EXPORTS): Fn => {
      const f = exports[ZSTD_WASM_EXPORTS[name]];
      if (typeof f !== "function")
        throw new Error(`zstd.wasm has no export for ${name}: not the build this module binds`);
      return f as Fn;
    };
    fn("ctors")();
    this.isError = fn("isError");
    this.compressBound = fn("compressBound");
    this.compressUsingDict = fn("compressUsingDict");
    this.decompressUsingDict = fn("decompressUsingDict");
    this.malloc = fn("malloc");
    this.free = fn("free");
    this.cctx = fn("createCCtx")();
    this.dctx = fn("createDCtx")();
    if (this.cctx === 0 || this.dctx === 0) throw new Error("zstd.wasm could not allocate its contexts");
  }

  static async instantiate(source: ZstdWasmSource): Promise<ZstdWasm> {
    let memory: WebAssembly.Memory | undefined;
    const fail = (what: string) => () => {
      throw new WebAssembly.RuntimeError(`zstd.wasm ${what}`);
    };
    // Emscripten's _emscripten_resize_heap: grow by at least a fifth (fewer, larger grows), to at
    // least what malloc asked for, within HEAP_MAX; 1 on success, 0 (malloc returns NULL) else.
    const resizeHeap = (requested: number): number => {
      const m = memory!;
      const old = m.buffer.byteLength;
      requested >>>= 0;
      if (requested > HEAP_MAX) return 0;
      for (const target of [Math.max(requested, Math.min(old * 1.2, requested + 96 * 2 ** 20)), requested]) {
        const size = Math.min(HEAP_MAX, Math.ceil(target / PAGE) * PAGE);
        try {
          m.grow((size - old) / PAGE);
          return 1;
        } catch {
          // Past what the engine gives: the exact size next.
        }
      }
      return 0;
    };
    // Module "a": the Emscripten runtime functions the package's glue gives as a `_proc_exit`, b
    // `_emscripten_runtime_keepalive_clear`, c `__abort_js`, d `__setitimer_js`, e
    // `_emscripten_resize_heap` (the only one zstd reaches: malloc growing the heap).
    const imports = {
      a: { a: fail("exited"), b: () => undefined, c: fail("aborted"), d: fail("set a timer"), e: resizeHeap },
    };
    const { instance } = await instantiateFrom(source, imports);
    const m = instance.exports[ZSTD_WASM_EXPORTS.memory];
    if (!(m instanceof WebAssembly.Memory))
      throw new Error("zstd.wasm exports no memory: not the build this module binds");
    memory = m;
    return new ZstdWasm(instance.exports, m);
  }

  private alloc(n: number): number {
    const p = this.malloc(Math.max(n, 1));
    if (p === 0) throw new RangeError(`zstd's WebAssembly memory cannot hold ${n} more bytes`);
    return p;
  }

  /** Copies `data` into the instance's memory (freed by the caller). */
  private put(data: Uint8Array): number {
    const p = this.alloc(data.length);
    new Uint8Array(this.memory.buffer).set(data, p);
    return p;
  }

  /** The bytes at [p, p + n), copied out (the memory's buffer is a new one whenever it grows). */
  private take(p: number, n: number): Uint8Array {
    return new Uint8Array(this.memory.buffer, p, n).slice();
  }

  /** zstd's error code (ZSTD_ErrorCode, zstd_errors.h) of a size_t result, or 0 when it is a size. */
  private error(result: number): number {
    return this.isError(result) ? -result : 0;
  }

  compress(data: Uint8Array, level: number): Uint8Array {
    const bound = this.compressBound(data.length) >>> 0;
    const src = this.put(data);
    try {
      const dst = this.alloc(bound);
      try {
        const n = this.compressUsingDict(this.cctx, dst, bound, src, data.length, 0, 0, level);
        const code = this.error(n);
        if (code !== 0) throw new Error(`zstd compression failed: ${ZSTD_ERRORS[code] ?? `zstd error ${code}`}`);
        return this.take(dst, n >>> 0);
      } finally {
        this.free(dst);
      }
    } finally {
      this.free(src);
    }
  }

  /** One frame into at most `capacity` bytes: the bytes, or zstd's error code. */
  decompress(frame: Uint8Array, capacity: number): Uint8Array | number {
    const src = this.put(frame);
    try {
      const dst = this.alloc(capacity);
      try {
        const n = this.decompressUsingDict(this.dctx, dst, capacity, src, frame.length, 0, 0);
        return this.error(n) || this.take(dst, n >>> 0);
      } finally {
        this.free(dst);
      }
    } finally {
      this.free(src);
    }
  }
}

/** Instantiates from bytes, or from a Response (streaming when it is served as application/wasm). */
async function instantiateFrom(
  source: ZstdWasmSource,
  imports: WebAssembly.Imports,
): Promise<WebAssembly.WebAssemblyInstantiatedSource> {
  if (typeof Response !== "undefined" && source instanceof Response) {
    if (!source.ok) throw new Error(`zstd.wasm did not load from ${source.url}: HTTP ${source.status}`);
    const type = source.headers.get("content-type")?.split(";")[0]?.trim();
    if (typeof WebAssembly.instantiateStreaming === "function" && type === "application/wasm") {
      return WebAssembly.instantiateStreaming(source, imports);
    }
    return WebAssembly.instantiate(await source.arrayBuffer(), imports);
  }
  return WebAssembly.instantiate(source as BufferSource, imports);
}

let ready: Promise<void> | null = null;
let wasm: ZstdWasm | null = null;

/**
 * Instantiates zstd.wasm from what `load` gives, once: later calls return the same Promise; after
 * a failure the next call tries again. What each entry point's `initZstd` does.
 */
export function startZstd(load: () => Promise<ZstdWasmSource>): Promise<void> {
  ready ??= (async () => {
    if (typeof WebAssembly !== "object") throw new Error("zstd needs WebAssembly, which this runtime does not have");
    wasm = await ZstdWasm.instantiate(await load());
  })().catch((e: unknown) => {
    ready = null;
    throw e;
  });
  return ready;
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
  const out = wasm!.decompress(frame, capacity);
  if (typeof out !== "number") return out;
  if (out === DST_TOO_SMALL) throw full();
  corrupt(`zstd frame does not decompress: ${ZSTD_ERRORS[out] ?? `zstd error ${out}`}`, at);
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
 * `maxBytes` bytes, starting zstd with `init` first if it has not loaded (then a Promise). What
 * each entry point's `zstdDecompress` does.
 */
export function decompressZstd(
  data: Uint8Array,
  maxBytes: number,
  init: () => Promise<void>,
): Uint8Array | Promise<Uint8Array> {
  // The walk first, also before loading: a hostile payload fails without waiting for the module.
  const frames = scanFrames(data, maxBytes);
  if (wasm !== null) return decompressFrames(data, frames, maxBytes);
  return init().then(() => decompressFrames(data, frames, maxBytes));
}

/** Kafka's zstd codec, starting zstd with `init` on first use; `level` as `compression.zstd.level` (default 3). */
export function zstdCodec(init: () => Promise<void>): CompressionCodec {
  return {
    compress(data, options) {
      const level = options.level ?? DEFAULT_LEVEL;
      if (wasm !== null) return wasm.compress(data, level);
      return init().then(() => wasm!.compress(data, level));
    },
    decompress: (data, options) => decompressZstd(data, options.maxBytes, init),
  };
}
