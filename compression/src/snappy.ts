/**
 * Snappy as Kafka's peers write it: Kafka's Java producer writes snappy-java's xerial framing
 * (magic `82 53 4e 41 50 50 59 00`, int32 version 1, int32 compatible version 1, then chunks of
 * int32 big-endian length + raw snappy block); librdkafka writes one raw snappy block. Reading
 * tells them apart by the 8-byte magic (as snappy-java's `SnappyInputStream` does); writing uses
 * the xerial framing in 32 KiB chunks, which both Kafka and librdkafka read.
 *
 * Compressing is snappyjs's. Decompressing is ours (snappy's format_description.txt; the format
 * is five tag kinds): snappyjs loops forever on a literal length above 2^31 (issue 17), and
 * neither checks a block's output against the length it declares, which snappy itself (and so
 * snappy-java, Kafka's reader) rejects both ways. This decoder:
 * - consumes at least one input byte per step and never reads or writes out of bounds;
 * - refuses a declared length above the cap, or above what the block's bytes could produce at
 *   snappy's highest ratio (64 bytes per 3-byte copy), before allocating anything;
 * - allocates the output once: the sum of the xerial chunks' declared lengths, read first;
 * - fails when the output would pass the declared length, or ends short of it.
 */

import snappyjs from "snappyjs";
import { corrupt, tooLarge, type CompressionCodec } from "./types.js";

const XERIAL_MAGIC = [0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00];
const XERIAL_HEADER = 16;
/** snappy-java's default chunk size (SnappyOutputStream's 32 KiB blocks), as Kafka writes them. */
const CHUNK = 32 * 1024;

function isXerialHeader(b: Uint8Array, p: number): boolean {
  if (b.length - p < XERIAL_HEADER) return false;
  for (let i = 0; i < 8; i++) if (b[p + i] !== XERIAL_MAGIC[i]) return false;
  return true;
}

/** The varint preamble of the raw block at `p`: its declared length and where the tags start. */
function preamble(b: Uint8Array, p: number, end: number): { length: number; body: number } {
  let value = 0;
  // snappy's length is a uint32: at most 5 bytes, the fifth below 0x10.
  for (let i = 0; i < 5; i++) {
    if (p + i >= end) corrupt("snappy block ends inside its length preamble", p + i);
    const c = b[p + i]!;
    value += (c & 0x7f) * 2 ** (7 * i);
    if (c < 0x80) {
      if (i === 4 && c >= 0x10) break;
      return { length: value, body: p + i + 1 };
    }
  }
  return corrupt("snappy block length preamble is not a uint32 varint", p);
}

/**
 * The declared length of the block `b[p..end)`, checked against the cap and against what its
 * tag bytes can produce (a copy of 64 bytes per 3 input bytes at best).
 */
function checkedLength(b: Uint8Array, p: number, end: number, maxBytes: number): { length: number; body: number } {
  const pre = preamble(b, p, end);
  if (pre.length > maxBytes) throw tooLarge(maxBytes, `snappy block declaring ${pre.length} bytes`);
  const most = Math.floor(((end - pre.body) * 64) / 3);
  if (pre.length > most) {
    corrupt(`snappy block declares ${pre.length} bytes, more than its ${end - pre.body} bytes can hold`, p);
  }
  return pre;
}

/** Reads `n` (1–4) bytes little-endian at `s`, unsigned. */
function readLE(b: Uint8Array, s: number, n: number): number {
  let v = 0;
  for (let i = n - 1; i >= 0; i--) v = v * 256 + b[s + i]!;
  return v;
}

/**
 * Decodes the tags `src[s..sEnd)` of one raw block into exactly `dst[dStart..dEnd)`; copies may
 * reach back to `dStart` only (each block is independent). Every step consumes at least one input
 * byte. Offsets in errors are positions in `src`.
 */
function decodeTags(src: Uint8Array, s: number, sEnd: number, dst: Uint8Array, dStart: number, dEnd: number): void {
  let d = dStart;
  while (s < sEnd) {
    const at = s;
    const tag = src[s++]!;
    const kind = tag & 3;
    if (kind === 0) {
      // Literal: length - 1 in the tag's upper 6 bits, or (60–63) in the next 1–4 bytes.
      let length = (tag >>> 2) + 1;
      if (length > 60) {
        const n = length - 60;
        if (sEnd - s < n) corrupt("snappy literal length runs past the block", at);
        length = readLE(src, s, n) + 1;
        s += n;
      }
      if (length > sEnd - s) corrupt(`snappy literal of ${length} bytes runs past the block`, at);
      if (length > dEnd - d) corrupt("snappy block decompresses to more than its declared length", at);
      dst.set(src.subarray(s, s + length), d);
      s += length;
      d += length;
      continue;
    }
    // Copies: 1-byte offset (length 4–11, offset's 3 high bits in the tag), 2- or 4-byte offset (length 1–64).
    let length: number;
    let offset: number;
    if (kind === 1) {
      if (s >= sEnd) corrupt("snappy copy runs past the block", at);
      length = ((tag >>> 2) & 7) + 4;
      offset = ((tag >>> 5) << 8) | src[s++]!;
    } else {
      const n = kind === 2 ? 2 : 4;
      if (sEnd - s < n) corrupt("snappy copy runs past the block", at);
      length = (tag >>> 2) + 1;
      offset = readLE(src, s, n);
      s += n;
    }
    if (offset === 0 || offset > d - dStart)
      corrupt(`snappy copy offset ${offset} points before the block's output`, at);
    if (length > dEnd - d) corrupt("snappy block decompresses to more than its declared length", at);
    let m = d - offset;
    if (offset >= length) {
      dst.copyWithin(d, m, m + length);
      d += length;
    } else {
      for (const stop = d + length; d < stop;) dst[d++] = dst[m++]!;
    }
  }
  if (d !== dEnd) {
    corrupt(`snappy block decompresses to ${d - dStart} bytes, short of its declared ${dEnd - dStart}`, sEnd);
  }
}

/** Decompresses xerial-framed or raw snappy into at most `maxBytes` bytes. */
export function snappyDecompress(data: Uint8Array, maxBytes: number): Uint8Array {
  if (!isXerialHeader(data, 0)) {
    const { length, body } = checkedLength(data, 0, data.length, maxBytes);
    const out = new Uint8Array(length);
    decodeTags(data, body, data.length, out, 0, length);
    return out;
  }
  // First pass: the chunks' places and declared lengths, so that the output is allocated once.
  const chunks: number[] = []; // triples: tags start, chunk end, declared length
  let total = 0;
  let p = XERIAL_HEADER;
  while (p < data.length) {
    // snappy-java reads concatenated xerial streams: a header may follow a chunk.
    if (isXerialHeader(data, p)) {
      p += XERIAL_HEADER;
      continue;
    }
    if (data.length - p < 4) corrupt("xerial snappy chunk length is truncated", p);
    const n = ((data[p]! << 24) | (data[p + 1]! << 16) | (data[p + 2]! << 8) | data[p + 3]!) >>> 0;
    if (n > data.length - p - 4) corrupt(`xerial snappy chunk of ${n} bytes runs past the input`, p);
    p += 4;
    const { length, body } = checkedLength(data, p, p + n, maxBytes - total);
    total += length;
    chunks.push(body, p + n, length);
    p += n;
  }
  const out = new Uint8Array(total);
  let d = 0;
  for (let i = 0; i < chunks.length; i += 3) {
    const length = chunks[i + 2]!;
    decodeTags(data, chunks[i]!, chunks[i + 1]!, out, d, d + length);
    d += length;
  }
  return out;
}

/** Compresses with the xerial framing, as Kafka's Java producer does. */
export function snappyCompressXerial(data: Uint8Array): Uint8Array {
  const blocks: Uint8Array[] = [];
  let total = XERIAL_HEADER;
  for (let s = 0; s < data.length; s += CHUNK) {
    const block = snappyjs.compress(data.subarray(s, Math.min(data.length, s + CHUNK))) as Uint8Array;
    blocks.push(block);
    total += 4 + block.length;
  }
  const out = new Uint8Array(total);
  out.set(XERIAL_MAGIC, 0);
  out[11] = 1; // version 1
  out[15] = 1; // compatible version 1
  let p = XERIAL_HEADER;
  for (const b of blocks) {
    out[p] = b.length >>> 24;
    out[p + 1] = b.length >>> 16;
    out[p + 2] = b.length >>> 8;
    out[p + 3] = b.length;
    out.set(b, p + 4);
    p += 4 + b.length;
  }
  return out;
}

/** Kafka's snappy (compression.type=snappy). `level` is ignored: snappy has none. */
export const snappy: CompressionCodec = {
  compress: (data) => snappyCompressXerial(data),
  decompress: (data, options) => snappyDecompress(data, options.maxBytes),
};
