/**
 * Snappy as Kafka's peers write it: Kafka's Java producer writes snappy-java's xerial framing
 * (magic `82 53 4e 41 50 50 59 00`, int32 version 1, int32 compatible version 1, then chunks of
 * int32 big-endian length + raw snappy block); librdkafka writes one raw snappy block. Reading
 * tells them apart by the 8-byte magic; writing uses the xerial framing in 32 KiB chunks, which
 * both Kafka and librdkafka read. The raw blocks are snappyjs's.
 */

import snappyjs from "snappyjs";
import { tooLarge, type CompressionCodec } from "./types.js";

const XERIAL_MAGIC = [0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00];
const XERIAL_HEADER = 16;
/** snappy-java's default chunk size (SnappyOutputStream's 32 KiB blocks), as Kafka writes them. */
const CHUNK = 32 * 1024;

function isXerial(b: Uint8Array): boolean {
  if (b.length < XERIAL_HEADER) return false;
  for (let i = 0; i < 8; i++) if (b[i] !== XERIAL_MAGIC[i]) return false;
  return true;
}

/** The uncompressed length a raw snappy block declares (its varint preamble), or -1. */
function declaredLength(b: Uint8Array, p: number, end: number): number {
  let value = 0;
  for (let shift = 0; shift < 35 && p < end; shift += 7) {
    const c = b[p++]!;
    value += (c & 0x7f) * 2 ** shift;
    if (c < 0x80) return value;
  }
  return -1;
}

function rawBlock(b: Uint8Array, maxBytes: number): Uint8Array {
  const declared = declaredLength(b, 0, b.length);
  if (declared < 0) throw new Error("invalid snappy block: bad length preamble");
  if (declared > maxBytes) throw tooLarge(maxBytes, `snappy block of ${declared} bytes`);
  return snappyjs.uncompress(b, maxBytes) as Uint8Array;
}

/** Decompresses xerial-framed or raw snappy. */
export function snappyDecompress(data: Uint8Array, maxBytes: number): Uint8Array {
  if (!isXerial(data)) return rawBlock(data, maxBytes);
  const chunks: Uint8Array[] = [];
  let total = 0;
  let p = XERIAL_HEADER;
  while (p < data.length) {
    if (data.length - p < 4) throw new Error("xerial snappy chunk length is truncated");
    const n = ((data[p]! << 24) | (data[p + 1]! << 16) | (data[p + 2]! << 8) | data[p + 3]!) >>> 0;
    p += 4;
    if (n > data.length - p) throw new Error(`xerial snappy chunk of ${n} bytes runs past the input`);
    const chunk = rawBlock(data.subarray(p, p + n), maxBytes - total);
    total += chunk.length;
    chunks.push(chunk);
    p += n;
  }
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(total);
  let q = 0;
  for (const c of chunks) {
    out.set(c, q);
    q += c.length;
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
