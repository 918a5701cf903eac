/**
 * Hand-built hostile record sets for the compression codecs (issue 17), shared by the codec tests
 * (test/compression.test.ts), the fuzz target's seeds (test/support/fuzz-codecs.ts) and the
 * measurement script (bench/hostile.ts). Every payload is written byte by byte here,
 * with a comment saying what each byte means; the batch around it is a magic-2 header with a
 * correct CRC-32C, so that decoding reaches the codec.
 *
 * No vitest here: the fuzzer and the measurement script import this module under plain tsx.
 */

import { crc32, crc32c } from "../../src/records/crc.js";

/** Codec ids of the attributes' bits 0–2. */
export const CODEC_ID = { none: 0, gzip: 1, snappy: 2, lz4: 3, zstd: 4 } as const;

export function fromHex(hex: string): Uint8Array {
  return Uint8Array.from(Buffer.from(hex.replace(/\s+/g, ""), "hex"));
}

export function toHex(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("hex");
}

export function concat(...parts: (Uint8Array | readonly number[])[]): Uint8Array {
  const n = parts.reduce((s, p) => s + p.length, 0);
  const out = new Uint8Array(n);
  let p = 0;
  for (const part of parts) {
    out.set(part, p);
    p += part.length;
  }
  return out;
}

/**
 * One magic-2 record batch around `payload` (the records section, compressed or not): baseOffset
 * 0, partitionLeaderEpoch -1, lastOffsetDelta `recordCount - 1`, timestamps 0, no producer,
 * `recordCount` records, and the CRC-32C over attributes..end.
 */
export function batchAround(codec: number, payload: Uint8Array, recordCount = 1): Uint8Array {
  const b = new Uint8Array(61 + payload.length);
  const v = new DataView(b.buffer);
  v.setBigInt64(0, 0n);
  v.setInt32(8, 49 + payload.length); // batchLength: bytes after the length field
  v.setInt32(12, -1); // partitionLeaderEpoch
  b[16] = 2; // magic
  v.setInt16(21, codec);
  v.setInt32(23, Math.max(0, recordCount - 1)); // lastOffsetDelta
  v.setBigInt64(27, 0n); // baseTimestamp
  v.setBigInt64(35, 0n); // maxTimestamp
  v.setBigInt64(43, -1n); // producerId
  v.setInt16(51, -1); // producerEpoch
  v.setInt32(53, -1); // baseSequence
  v.setInt32(57, recordCount);
  b.set(payload, 61);
  v.setUint32(17, crc32c(b, 21));
  return b;
}

/**
 * One uncompressed record with offsetDelta `i`, timestamp delta 0, a null key, `value` and no
 * headers (Kafka's record layout: length, attributes, timestampDelta, offsetDelta, key length,
 * key, value length, value, header count; every varint zigzag).
 */
export function plainRecord(i: number, value: Uint8Array): Uint8Array {
  const zz = (n: number) => (n << 1) ^ (n >> 31);
  const varint = (n: number) => {
    const out: number[] = [];
    for (n >>>= 0; n >= 0x80; n >>>= 7) out.push((n & 0x7f) | 0x80);
    out.push(n);
    return out;
  };
  const body = concat([0], varint(zz(0)), varint(zz(i)), varint(zz(-1)), varint(zz(value.length)), value, [0]);
  return concat(varint(zz(body.length)), body);
}

/** The records section of `n` records whose values are `value`. */
export function plainRecords(n: number, value: Uint8Array): Uint8Array {
  const parts = Array.from({ length: n }, (_, i) => plainRecord(i, value));
  const out = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  let p = 0;
  for (const r of parts) {
    out.set(r, p);
    p += r.length;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// snappy
// ---------------------------------------------------------------------------------------------

/**
 * Issue 17, class 1: the 67-byte record set (attributes 0x0002, payload `01 fc fa ff ff ff`) that
 * sends snappyjs into an endless loop. Payload: varint 1 (one byte declared), then tag 0xfc
 * (literal, length code 63: the length is the next 4 bytes, little-endian, plus 1) with length
 * bytes `fa ff ff ff` = 0xfffffffa + 1 = 4294967291 bytes of literal, which snappyjs reads as a
 * negative int32 and steps back onto the same tag.
 */
export const SNAPPY_LOOP_HEX =
  "000000000000000000000037ffffffff02e159e7f400020000000000000000000000000000000000000000ffffffffffffffffffffffffffff0000000101fcfaffffff";

/** The xerial header: magic, version 1, compatible version 1. */
export const XERIAL_HEADER = fromHex("82534e4150505900 00000001 00000001");

/** xerial framing around raw snappy blocks (int32 big-endian length before each). */
export function xerial(...blocks: Uint8Array[]): Uint8Array {
  const parts: Uint8Array[] = [XERIAL_HEADER];
  for (const b of blocks) {
    const len = new Uint8Array(4);
    new DataView(len.buffer).setUint32(0, b.length);
    parts.push(len, b);
  }
  return concat(...parts);
}

/**
 * A raw snappy block holding `data` as one literal: the varint length, then a literal tag (up
 * to 60 bytes: `(len - 1) << 2`; else tag 0xf0 with one length byte, or 0xf4 with two, holding
 * len - 1 little-endian) and the bytes.
 */
export function snappyLiteral(data: Uint8Array, declared = data.length): Uint8Array {
  const varint: number[] = [];
  for (let n = declared; ; n = Math.floor(n / 128)) {
    if (n < 128) {
      varint.push(n);
      break;
    }
    varint.push((n % 128) | 0x80);
  }
  const n = data.length - 1;
  const tag = data.length <= 60 ? [n << 2] : n < 256 ? [0xf0, n] : [0xf4, n & 0xff, n >> 8];
  return concat(varint, data.length === 0 ? [] : tag, data);
}

// ---------------------------------------------------------------------------------------------
// zstd
// ---------------------------------------------------------------------------------------------

/** The zstd frame magic, little-endian. */
export const ZSTD_MAGIC = [0x28, 0xb5, 0x2f, 0xfd];

/**
 * Window_Descriptor for a window of 2^log bytes (mantissa 0): exponent = log - 10 in bits 3–7.
 * 0xa7 = exponent 20, mantissa 7: 2^30 + 7 × 2^27 = 2013265920 bytes (the largest fzstd takes).
 */
export const windowDescriptor = (log: number): number => (log - 10) << 3;

/**
 * A zstd frame without a content size or checksum (Frame_Header_Descriptor 0x00), window
 * descriptor `wd`, then `tinyBlocks` raw blocks of one zero byte each (block header `08 00 00`:
 * not last, raw, size 1) and a last raw block holding `last` (header: bit 0 last, bits 1–2 type
 * 0, bits 3–23 the size).
 */
export function zstdFrame(wd: number, last: Uint8Array, tinyBlocks = 0): Uint8Array {
  const header = last.length * 8 + 1;
  const parts: (Uint8Array | number[])[] = [ZSTD_MAGIC, [0x00, wd]];
  for (let i = 0; i < tinyBlocks; i++) parts.push([0x08, 0, 0, 0]);
  parts.push([header & 0xff, (header >> 8) & 0xff, header >> 16], last);
  return concat(...parts);
}

/**
 * A single-segment zstd frame declaring its content size in one byte (Frame_Header_Descriptor
 * 0x20: single segment, FCS field 1 byte): the window is the content size. One last raw block
 * holds `data` (its length must be `declared` for a valid frame).
 */
export function zstdSingleSegment(data: Uint8Array, declared = data.length): Uint8Array {
  const header = data.length * 8 + 1;
  return concat(ZSTD_MAGIC, [0x20, declared], [header & 0xff, (header >> 8) & 0xff, header >> 16], data);
}

/** A skippable frame (magic 0x184d2a50, little-endian int32 size, then that many bytes). */
export function zstdSkippable(content: Uint8Array): Uint8Array {
  const size = new Uint8Array(4);
  new DataView(size.buffer).setUint32(0, content.length, true);
  return concat([0x50, 0x2a, 0x4d, 0x18], size, content);
}

// ---------------------------------------------------------------------------------------------
// lz4
// ---------------------------------------------------------------------------------------------

/**
 * An LZ4 frame as Kafka writes it (magic `04 22 4d 18`, FLG 0x60, BD 0x40, header checksum
 * 0x82 = byte 1 of xxh32(`60 40`), seed 0) with one stored (uncompressed) block holding `data`
 * (size with the high bit set, little-endian), then the end mark.
 */
export function lz4StoredFrame(data: Uint8Array): Uint8Array {
  const size = new Uint8Array(4);
  new DataView(size.buffer).setUint32(0, (0x80000000 | data.length) >>> 0, true);
  return concat([0x04, 0x22, 0x4d, 0x18, 0x60, 0x40, 0x82], size, data, [0, 0, 0, 0]);
}

// ---------------------------------------------------------------------------------------------
// The classes, as record sets
// ---------------------------------------------------------------------------------------------

export interface HostileCase {
  readonly name: string;
  readonly bytes: Uint8Array;
  /** Decode options beyond `codecs`. */
  readonly maxDecompressedBytes?: number;
}

/** The hostile record sets of the compression half of issue 17 (classes 1 and 2). */
export function hostileCases(): HostileCase[] {
  const value = new TextEncoder().encode("v");
  return [
    { name: "snappy: the issue's 67-byte batch (literal length 0xfffffffa)", bytes: fromHex(SNAPPY_LOOP_HEX) },
    {
      name: "snappy: the same block inside xerial framing",
      bytes: batchAround(CODEC_ID.snappy, xerial(fromHex("01fcfaffffff"))),
    },
    {
      // 4 + 2 + 3 bytes of zstd; the window: 2^30 + 7·2^27 bytes.
      name: "zstd: a frame declaring a 1.9 GB window",
      bytes: batchAround(CODEC_ID.zstd, zstdFrame(0xa7, new Uint8Array(0))),
    },
    {
      // 200 one-byte raw blocks: fzstd moves its whole window after each.
      name: "zstd: a 2^27-byte window (zstd's own limit), 200 one-byte blocks",
      bytes: batchAround(CODEC_ID.zstd, zstdFrame(windowDescriptor(27), plainRecords(1, value), 200)),
    },
    {
      name: "zstd: a 2^30-byte window, 200 one-byte blocks",
      bytes: batchAround(CODEC_ID.zstd, zstdFrame(windowDescriptor(30), plainRecords(1, value), 200)),
    },
    {
      name: "zstd: a skippable first frame, then a 1.9 GB window",
      bytes: batchAround(CODEC_ID.zstd, concat(zstdSkippable(new Uint8Array(0)), zstdFrame(0xa7, new Uint8Array(0)))),
    },
    {
      name: "zstd: an empty first frame, then a 1.9 GB window",
      bytes: batchAround(
        CODEC_ID.zstd,
        concat(zstdSingleSegment(new Uint8Array(0)), zstdFrame(0xa7, plainRecords(1, value))),
      ),
    },
  ];
}

// ---------------------------------------------------------------------------------------------
// Issue 17, class 3: many records from few bytes (memory per record)
// ---------------------------------------------------------------------------------------------

/**
 * A magic-0 wrapper message (attributes 1: gzip) around `n` minimal magic-0 messages: offset i,
 * size 14 (crc 4, magic 1, attributes 1, key length 4, value length 4), null key and value. They
 * differ only in their offset field, which the CRC-32 does not cover, so they compress to almost
 * nothing. `compress` is the gzip to use (node:zlib's, passed in to keep this module portable).
 */
export function legacyGzipWrapper(n: number, compress: (b: Uint8Array) => Uint8Array): Uint8Array {
  const inner = new Uint8Array(26 * n);
  const v = new DataView(inner.buffer);
  const body = fromHex("0000ffffffffffffffff"); // magic 0, attributes 0, key -1, value -1
  const crc = crc32(body);
  for (let i = 0; i < n; i++) {
    const p = 26 * i;
    v.setBigInt64(p, BigInt(i));
    v.setInt32(p + 8, 14);
    v.setUint32(p + 12, crc);
    inner.set(body, p + 16);
  }
  const value = compress(inner);
  const m = new Uint8Array(26 + value.length);
  const w = new DataView(m.buffer);
  w.setBigInt64(0, BigInt(n - 1)); // a magic-0 wrapper's offset: its last inner message's
  w.setInt32(8, 14 + value.length);
  m[16] = 0; // magic
  m[17] = 1; // gzip
  w.setInt32(18, -1); // null key
  w.setInt32(22, value.length);
  m.set(value, 26);
  w.setUint32(12, crc32(m, 16));
  return m;
}

/** A magic-2 batch of `n` records with a null key and an empty value (7–9 bytes each), compressed. */
export function tinyRecordsBatch(codec: number, n: number, compress: (b: Uint8Array) => Uint8Array): Uint8Array {
  return batchAround(codec, compress(plainRecords(n, new Uint8Array(0))), n);
}
