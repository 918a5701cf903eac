/**
 * LZ4 as Kafka uses it: the LZ4 frame format (lz4_Frame_format.md) around LZ4 blocks, the way
 * Kafka's `Lz4BlockOutputStream` writes it (FLG 0x60: version 01, independent blocks, no
 * checksums; BD 0x40: 64 KiB blocks; end mark; no content checksum) and its
 * `Lz4BlockInputStream` reads it (content size, block and content checksums honoured when
 * flagged). Magic-0 frames carry Kafka's historical wrong header checksum (KAFKA-3160: xxhash32
 * of the magic number, FLG and BD instead of FLG and BD alone), which Kafka accepts for magic 0 only.
 *
 * We write the frame ourselves: lz4js's own `compressFrame` writes 4 MiB blocks that depend on
 * each other (one hash table across blocks) and an FLG without the independence bit, which Kafka's
 * Java reader rejects. Blocks are compressed with lz4js's `compressBlock` (a fresh hash table per
 * block keeps them independent) and decompressed by the bounds-checked decoder below (lz4js's
 * `decompressBlock` trusts its input: a bad match offset reads outside the output silently).
 * Reading stops at the first frame's end mark, as Kafka's does.
 */

import lz4js from "lz4js";
import xxh32 from "lz4js/xxh32.js";
import { corrupt, tooLarge, type CompressionCodec } from "./types.js";

const MAGIC = 0x184d2204;
const BLOCK_MAX = 64 * 1024;
/** FLG: version 01, block independence. */
const FLG = 0x60;
/** BD: 64 KiB maximum block size. */
const BD = 0x40;
const BLOCK_SIZES = [0, 0, 0, 0, 64 * 1024, 256 * 1024, 1024 * 1024, 4 * 1024 * 1024];

function readU32LE(b: Uint8Array, p: number): number {
  return (b[p]! | (b[p + 1]! << 8) | (b[p + 2]! << 16) | (b[p + 3]! << 24)) >>> 0;
}

function writeU32LE(b: Uint8Array, p: number, v: number): void {
  b[p] = v;
  b[p + 1] = v >>> 8;
  b[p + 2] = v >>> 16;
  b[p + 3] = v >>> 24;
}

function hash(b: Uint8Array, start: number, length: number): number {
  return xxh32.hash(0, b, start, length) >>> 0;
}

/** Compresses into one LZ4 frame as Kafka writes it. */
export function lz4CompressFrame(data: Uint8Array): Uint8Array {
  const blocks = Math.max(1, Math.ceil(data.length / BLOCK_MAX));
  // Worst case: every block stored uncompressed (4-byte size each), header 7, end mark 4.
  const out = new Uint8Array(7 + blocks * (4 + BLOCK_MAX) + 4);
  writeU32LE(out, 0, MAGIC);
  out[4] = FLG;
  out[5] = BD;
  out[6] = (hash(out, 4, 2) >>> 8) & 0xff;
  let p = 7;
  const scratch = new Uint8Array(lz4js.compressBound(BLOCK_MAX));
  for (let s = 0; s < data.length; s += BLOCK_MAX) {
    const n = Math.min(BLOCK_MAX, data.length - s);
    // A fresh table per block: no match may reach into the previous block.
    const table = new Uint32Array(1 << 16);
    const size = lz4js.compressBlock(data, scratch, s, n, table);
    if (size > 0 && size < n) {
      writeU32LE(out, p, size);
      out.set(scratch.subarray(0, size), p + 4);
      p += 4 + size;
    } else {
      writeU32LE(out, p, (0x80000000 | n) >>> 0);
      out.set(data.subarray(s, s + n), p + 4);
      p += 4 + n;
    }
  }
  writeU32LE(out, p, 0);
  return out.subarray(0, p + 4);
}

/** Thrown by {@link decodeBlock} when the output would pass `dEnd`. */
const OVERFLOW = new Error("lz4 block decompresses past its maximum size");

/**
 * Decodes one LZ4 block `src[s..sEnd)` into `dst` from `d`, never past `dEnd`; returns the new
 * output position. Matches may reach back into earlier output (`dStart` limits how far: 0 for
 * linked blocks, the block's start for independent ones).
 */
function decodeBlock(src: Uint8Array, s: number, sEnd: number, dst: Uint8Array, d: number, dEnd: number): number {
  for (;;) {
    if (s >= sEnd) corrupt("lz4 block ends before its last sequence", s);
    const token = src[s++]!;
    let literals = token >>> 4;
    if (literals === 15) {
      let b: number;
      do {
        if (s >= sEnd) corrupt("lz4 literal length runs past the block", s);
        b = src[s++]!;
        literals += b;
      } while (b === 255);
    }
    if (literals > sEnd - s) corrupt("lz4 literals run past the block", s);
    if (literals > dEnd - d) throw OVERFLOW;
    dst.set(src.subarray(s, s + literals), d);
    s += literals;
    d += literals;
    if (s === sEnd) return d; // the last sequence has literals only
    if (sEnd - s < 2) corrupt("lz4 match offset runs past the block", s);
    const offset = src[s]! | (src[s + 1]! << 8);
    s += 2;
    if (offset === 0 || offset > d) corrupt(`lz4 match offset ${offset} points before the output`, s - 2);
    let length = (token & 15) + 4;
    if ((token & 15) === 15) {
      let b: number;
      do {
        if (s >= sEnd) corrupt("lz4 match length runs past the block", s);
        b = src[s++]!;
        length += b;
      } while (b === 255);
    }
    if (length > dEnd - d) throw OVERFLOW;
    let m = d - offset;
    if (offset >= length) {
      dst.copyWithin(d, m, m + length);
      d += length;
    } else {
      for (const stop = d + length; d < stop;) dst[d++] = dst[m++]!;
    }
  }
}

/**
 * Decompresses the first LZ4 frame of `src` and stops at its end mark, as Kafka's
 * `Lz4BlockInputStream` does: bytes after it (another frame, garbage) are not read.
 * `legacyHeaderChecksum` (magic 0) accepts Kafka's historical header checksum as well as the
 * correct one. Errors give the byte offset in `src`.
 */
export function lz4DecompressFrame(src: Uint8Array, maxBytes: number, legacyHeaderChecksum: boolean): Uint8Array {
  let out = new Uint8Array(Math.min(maxBytes, Math.max(64, src.length * 4)));
  let d = 0;
  let s = 0;
  const grow = (need: number) => {
    if (need > maxBytes) throw tooLarge(maxBytes);
    if (need <= out.length) return;
    const next = new Uint8Array(Math.min(maxBytes, Math.max(need, out.length * 2)));
    next.set(out.subarray(0, d));
    out = next;
  };
  if (src.length - s < 7) corrupt("lz4 frame header is truncated", src.length);
  if (readU32LE(src, s) !== MAGIC) corrupt("not an lz4 frame (bad magic number)", s);
  const flg = src[s + 4]!;
  const bd = src[s + 5]!;
  if (flg >>> 6 !== 1) corrupt(`lz4 frame version ${flg >>> 6}, expected 1`, s + 4);
  if (flg & 0x03 || bd & 0x8f) corrupt("lz4 frame descriptor has reserved bits set", s + 4);
  const blockMax = BLOCK_SIZES[(bd >>> 4) & 7]!;
  if (blockMax === 0) corrupt(`lz4 frame has an invalid block size id ${(bd >>> 4) & 7}`, s + 5);
  const independent = (flg & 0x20) !== 0;
  const blockChecksum = (flg & 0x10) !== 0;
  const hasContentSize = (flg & 0x08) !== 0;
  const contentChecksum = (flg & 0x04) !== 0;
  const descriptorEnd = s + 6 + (hasContentSize ? 8 : 0);
  if (src.length - descriptorEnd < 1) corrupt("lz4 frame header is truncated", src.length);
  if (hasContentSize) {
    const hi = readU32LE(src, s + 10);
    const declared = hi * 2 ** 32 + readU32LE(src, s + 6);
    if (d + declared > maxBytes) throw tooLarge(maxBytes, `lz4 frame content size ${declared}`);
  }
  const hc = src[descriptorEnd]!;
  const expected = (hash(src, s + 4, descriptorEnd - s - 4) >>> 8) & 0xff;
  if (hc !== expected && !(legacyHeaderChecksum && hc === ((hash(src, s, descriptorEnd - s) >>> 8) & 0xff))) {
    corrupt("lz4 frame header checksum mismatch", descriptorEnd);
  }
  s = descriptorEnd + 1;
  const frameStart = d;
  for (;;) {
    if (src.length - s < 4) corrupt("lz4 frame ends without its end mark", s);
    const word = readU32LE(src, s);
    s += 4;
    if (word === 0) break;
    const stored = word >= 0x80000000;
    const size = word & 0x7fffffff;
    if (size > blockMax) corrupt(`lz4 block of ${size} bytes exceeds the frame's ${blockMax}-byte block size`, s - 4);
    if (src.length - s < size + (blockChecksum ? 4 : 0)) corrupt("lz4 block runs past the input", s - 4);
    if (blockChecksum && hash(src, s, size) !== readU32LE(src, s + size))
      corrupt("lz4 block checksum mismatch", s + size);
    if (stored) {
      grow(d + size);
      out.set(src.subarray(s, s + size), d);
      d += size;
    } else {
      // Room for a full block, or up to the cap.
      const room = Math.min(blockMax, maxBytes - d);
      grow(d + room);
      try {
        // Independent blocks may not reference earlier blocks: decode them as if output started here.
        d = independent
          ? d + decodeBlock(src, s, s + size, out.subarray(d), 0, room)
          : decodeBlock(src, s, s + size, out, d, d + room);
      } catch (e) {
        if (e === OVERFLOW && room < blockMax) throw tooLarge(maxBytes);
        throw e;
      }
    }
    s += size + (blockChecksum ? 4 : 0);
  }
  if (contentChecksum) {
    if (src.length - s < 4) corrupt("lz4 frame ends inside its content checksum", s);
    if (hash(out, frameStart, d - frameStart) !== readU32LE(src, s)) corrupt("lz4 content checksum mismatch", s);
    s += 4;
  }
  return out.subarray(0, d);
}

/** Kafka's lz4 (compression.type=lz4). `level` is ignored: lz4js has one level. */
export const lz4: CompressionCodec = {
  compress: (data) => lz4CompressFrame(data),
  decompress: (data, options) => lz4DecompressFrame(data, options.maxBytes, options.magic === 0),
};
