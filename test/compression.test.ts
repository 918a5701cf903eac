/**
 * kafka-wire-compression's decoders on hostile payloads (issue 17), each expected result worked
 * out by hand from the format (the bytes and what they mean are spelled out next to each case):
 * snappy (raw and xerial: snappy's format_description.txt, snappy-java's framing), zstd (RFC 8878
 * frame and block headers), lz4 (Kafka's one-frame reading), gzip (the cap). Whole record sets go
 * through `decodeRecords` to check what a caller sees: a `KafkaRecordsError` whose `cause` names
 * the byte of the compressed payload.
 */

import { gzipSync } from "node:zlib";
import { beforeAll, describe, expect, it } from "vitest";
import {
  codecs,
  CorruptCompressedDataError,
  gzip,
  initZstd,
  lz4,
  snappy,
  snappyCompressXerial,
  snappyDecompress,
  zstd,
  zstdDecompress,
} from "../compression/src/index.js";
import { decodeRecords, KafkaRecordsError, type RecordBatch, type RecordSet } from "../src/records/index.js";
import {
  batchAround,
  CODEC_ID,
  concat,
  fromHex,
  lz4StoredFrame,
  plainRecords,
  SNAPPY_LOOP_HEX,
  snappyLiteral,
  windowDescriptor,
  xerial,
  zstdFrame,
  zstdSingleSegment,
  zstdSkippable,
} from "./support/hostile-records.js";

const text = (s: string) => new TextEncoder().encode(s);
const str = (b: Uint8Array) => new TextDecoder().decode(b);
const MiB = 1 << 20;

function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  throw new Error("expected an error");
}

/** The error a corrupt payload gives: its class, the offset in the payload, words of its message. */
function expectCorrupt(f: () => unknown, offset: number, words: RegExp): void {
  const e = thrown(f);
  expect(e).toBeInstanceOf(CorruptCompressedDataError);
  expect((e as CorruptCompressedDataError).code).toBe("COMPRESSION_FAILED");
  expect((e as CorruptCompressedDataError).offset).toBe(offset);
  expect((e as Error).message).toMatch(words);
  expect((e as Error).message).toContain(`byte ${offset} of the compressed payload`);
}

function expectTooLarge(f: () => unknown, words?: RegExp): void {
  const e = thrown(f) as Error & { code?: string };
  expect(e.code).toBe("DECOMPRESSED_TOO_LARGE");
  if (words !== undefined) expect(e.message).toMatch(words);
}

/** decodeRecords on a whole record set, strict and lenient: the strict KafkaRecordsError. */
async function recordsError(bytes: Uint8Array, maxDecompressedBytes?: number): Promise<KafkaRecordsError> {
  const errors: unknown[] = [];
  for (const lenient of [false, true]) {
    try {
      await decodeRecords(bytes, {
        codecs,
        lenient,
        ...(maxDecompressedBytes === undefined ? {} : { maxDecompressedBytes }),
      });
      errors.push(null);
    } catch (e) {
      errors.push(e);
    }
  }
  for (const e of errors) expect(e).toBeInstanceOf(KafkaRecordsError);
  return errors[0] as KafkaRecordsError;
}

beforeAll(() => initZstd());

describe("snappy", () => {
  it("the issue's 67-byte batch fails at its literal tag instead of looping", async () => {
    const bytes = fromHex(SNAPPY_LOOP_HEX);
    expect(bytes.length).toBe(67);
    const e = await recordsError(bytes);
    expect(e.code).toBe("COMPRESSION_FAILED");
    expect(e.batchOffset).toBe(0);
    // Payload 01 fc fa ff ff ff: varint 1 at byte 0, the literal tag at byte 1; its length is
    // 0xfffffffa + 1 = 4294967291 bytes, with 0 bytes left in the block.
    expect(e.cause).toBeInstanceOf(CorruptCompressedDataError);
    expect((e.cause as CorruptCompressedDataError).offset).toBe(1);
    expect(e.message).toContain("literal of 4294967291 bytes runs past the block");
  });

  it("the same block in xerial framing fails at the same tag (16-byte header, 4-byte chunk length)", () => {
    expectCorrupt(() => snappyDecompress(xerial(fromHex("01fcfaffffff")), MiB), 21, /4294967291/);
  });

  it("copies: 'abc' and a 7-byte copy at distance 3 give 'abcabcabca'", () => {
    // 0a: length 10; 08: literal of 3; 'abc'; 0d = copy with 1-byte offset, length (0d >> 2 & 7) + 4 = 7; 03: offset 3.
    expect(str(snappyDecompress(fromHex("0a 08 616263 0d 03"), MiB))).toBe("abcabcabca");
  });

  it("output short of the declared length is an error (snappy-java rejects it; snappyjs zero-padded)", () => {
    // Declares 5, holds the literal 'abc' only: the block ends (byte 5) with 3 bytes out.
    expectCorrupt(
      () => snappyDecompress(fromHex("05 08 616263"), MiB),
      5,
      /decompresses to 3 bytes, short of its declared 5/,
    );
  });

  it("output past the declared length is an error (snappyjs dropped the extra bytes)", () => {
    // Declares 2, then a literal of 3 at byte 1.
    expectCorrupt(() => snappyDecompress(fromHex("02 08 616263"), MiB), 1, /more than its declared length/);
    // Declares 4: 'abc' then a copy of 4 (tag 01: length 4, offset 1) would make 7.
    expectCorrupt(() => snappyDecompress(fromHex("04 08 616263 01 01"), MiB), 5, /more than its declared length/);
  });

  it("a copy reaching before the block's output, or with offset 0, is an error", () => {
    // 'ab' (2 bytes out), then a copy at distance 3.
    expectCorrupt(() => snappyDecompress(fromHex("06 04 6162 01 03"), MiB), 4, /offset 3 points before/);
    expectCorrupt(() => snappyDecompress(fromHex("06 04 6162 01 00"), MiB), 4, /offset 0 points before/);
    // Each xerial chunk is its own block: the second chunk's copy may not reach into the first's output.
    expectCorrupt(() => snappyDecompress(xerial(fromHex("02 04 6162"), fromHex("04 01 02")), MiB), 29, /offset 2/);
  });

  it("a declared length above the cap fails before allocating; one the bytes cannot hold is corrupt", () => {
    // ff ff ff ff 0f = 2^32 - 1.
    expectTooLarge(() => snappyDecompress(fromHex("ffffffff0f 00"), MiB), /4294967295/);
    // 1000 (e8 07) from 3 tag bytes: at most 64 bytes (one 3-byte copy).
    expectCorrupt(() => snappyDecompress(fromHex("e807 000000"), MiB), 0, /declares 1000 bytes, more than its 3 bytes/);
    // A sixth length byte is not a uint32 varint.
    expectCorrupt(() => snappyDecompress(fromHex("ffffffffff01"), MiB), 0, /not a uint32 varint/);
  });

  it("xerial: chunks concatenate, a second xerial header is read through, the cap counts every chunk", () => {
    const a = snappyLiteral(text("hello "));
    const b = snappyLiteral(text("world"));
    expect(str(snappyDecompress(xerial(a, b), MiB))).toBe("hello world");
    // snappy-java reads concatenated xerial streams: header, chunk, header, chunk.
    expect(str(snappyDecompress(concat(xerial(a), xerial(b)), MiB))).toBe("hello world");
    // 6 + 5 bytes against a cap of 10: the second chunk's declared 5 passes what is left (4).
    expectTooLarge(() => snappyDecompress(xerial(a, b), 10));
    // A chunk length past the input, and a truncated one.
    expectCorrupt(() => snappyDecompress(concat(xerial(a), fromHex("000000ff 00")), MiB), 28, /255 bytes runs past/);
    expectCorrupt(() => snappyDecompress(concat(xerial(a), fromHex("0000")), MiB), 28, /length is truncated/);
  });

  it("round trip through snappyjs's compressor and our framing, 100 KB in 4 chunks", () => {
    const data = new Uint8Array(100_000);
    for (let i = 0; i < data.length; i++) data[i] = (i * 7919) % 251 < 60 ? i & 0xff : 97;
    const framed = snappyCompressXerial(data);
    expect(snappyDecompress(framed, MiB)).toEqual(data);
    expect(snappy.decompress(framed, { maxBytes: data.length, magic: 2 })).toEqual(data);
    expectTooLarge(() => snappy.decompress(framed, { maxBytes: data.length - 1, magic: 2 }));
  });
});

describe("zstd", () => {
  // 2^30 + 7 × 2^27 (window descriptor a7: exponent 20, mantissa 7).
  const BIG = 2013265920;
  const bigWindow = zstdFrame(0xa7, new Uint8Array(0));

  it("a frame declaring a 1.9 GB window is refused, naming the window (byte 5: the descriptor)", async () => {
    expectCorrupt(() => zstdDecompress(bigWindow, 64 * MiB), 5, new RegExp(`window of ${BIG} bytes`));
    const e = await recordsError(batchAround(CODEC_ID.zstd, bigWindow));
    expect(e.code).toBe("COMPRESSION_FAILED");
    expect(e.message).toContain(`window of ${BIG} bytes`);
  });

  it("a skippable or an empty first frame does not hide the next frame's window", () => {
    // Skippable frame of 0 bytes: 8 bytes, so the big frame's descriptor is byte 13.
    expectCorrupt(() => zstdDecompress(concat(zstdSkippable(new Uint8Array(0)), bigWindow), 64 * MiB), 13, /window/);
    // An empty single-segment frame: magic, FHD 20, FCS 00, last raw block of 0 (01 00 00): 9 bytes.
    const empty = zstdSingleSegment(new Uint8Array(0));
    expect(empty.length).toBe(9);
    expectCorrupt(() => zstdDecompress(concat(empty, bigWindow), 64 * MiB), 14, /window/);
  });

  it("a 2^27-byte window (zstd's limit) decodes; 2^27 + 2^24 does not", () => {
    expect(str(zstdDecompress(zstdFrame(windowDescriptor(27), text("abc")), MiB) as Uint8Array)).toBe("abc");
    // Mantissa 1: 2^27 + 2^27/8.
    expectCorrupt(() => zstdDecompress(zstdFrame(windowDescriptor(27) | 1, text("abc")), MiB), 5, /150994944/);
  });

  it("declared content sizes count against the cap, each frame and their sum", () => {
    // One byte of FCS: 200 > 100.
    expectTooLarge(() => zstdDecompress(zstdSingleSegment(new Uint8Array(200)), 100), /declaring 200 bytes/);
    // 60 + 60 > 100.
    const sixty = zstdSingleSegment(new Uint8Array(60));
    expectTooLarge(() => zstdDecompress(concat(sixty, sixty), 100), /120 with the frames before it/);
    expect((zstdDecompress(concat(sixty, sixty), 120) as Uint8Array).length).toBe(120);
  });

  it("output past the cap without a declared size fails at the cap", () => {
    // An RLE block of 1000 'x': header (1000 << 3) | (1 << 1) | 1 = 0x1f43, then the byte.
    const rle = concat([0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x00], [0x43, 0x1f, 0x00], text("x"));
    expect(str(zstdDecompress(rle, 1000) as Uint8Array)).toBe("x".repeat(1000));
    expectTooLarge(() => zstdDecompress(rle, 999));
  });

  it("frames concatenate; bytes after the last frame, a wrong checksum or content size are errors", () => {
    const ab = zstdFrame(windowDescriptor(10), text("ab"));
    const cd = zstdSingleSegment(text("cd"));
    expect(str(zstdDecompress(concat(ab, cd), MiB) as Uint8Array)).toBe("abcd");
    // 'ab' frame: 4 + 2 + 3 + 2 = 11 bytes; then one garbage byte.
    expectCorrupt(() => zstdDecompress(concat(ab, [0x00]), MiB), 11, /magic number is truncated/);
    expectCorrupt(() => zstdDecompress(concat(ab, [1, 2, 3, 4]), MiB), 11, /not a zstd frame/);
    // FHD 04: a content checksum follows the last block; 00000000 is not xxh64('ab')'s low 32 bits.
    const withChecksum = concat([0x28, 0xb5, 0x2f, 0xfd, 0x04, 0x00], [0x11, 0x00, 0x00], text("ab"), [0, 0, 0, 0]);
    expectCorrupt(() => zstdDecompress(withChecksum, MiB), 0, /checksum/);
    // Declares 5 bytes (single segment), its one raw block holds 2: refused before allocating 5.
    expectCorrupt(
      () => zstdDecompress(zstdSingleSegment(text("ab"), 5), MiB),
      0,
      /declares 5 bytes, more than its blocks can produce \(2\)/,
    );
    // Declares 2, its block holds 3 (the window is the content size, so the block is also too big).
    expectCorrupt(
      () => zstdDecompress(zstdSingleSegment(text("abc"), 2), MiB),
      6,
      /larger than the frame's 2-byte blocks/,
    );
  });

  it("block headers: the reserved type, sizes past the input or above the block maximum", () => {
    // Block header 07 00 00: last, type 3.
    expectCorrupt(() => zstdDecompress(fromHex("28b52ffd 0000 070000"), MiB), 6, /reserved type 3/);
    // A raw block of 16 bytes (0x81 = 16 << 3 | 1) with 2 bytes left.
    expectCorrupt(() => zstdDecompress(fromHex("28b52ffd 0000 810000 6162"), MiB), 6, /16 bytes runs past/);
    // A 1 KiB window (descriptor 00) and a raw block of 1025 bytes: 1025 << 3 | 1 = 0x2009.
    const over = concat(fromHex("28b52ffd 0000 092000"), new Uint8Array(1025));
    expectCorrupt(() => zstdDecompress(over, MiB), 6, /larger than the frame's 1024-byte blocks/);
  });

  it("round trip through the reference compressor, 300 KB at level 3", async () => {
    const data = new Uint8Array(300_000);
    for (let i = 0; i < data.length; i++) data[i] = (i * 31) % 97 < 20 ? i & 0xff : 65;
    const compressed = (await zstd.compress(data, { level: 3, magic: 2 })) as Uint8Array;
    expect(zstd.decompress(compressed, { maxBytes: data.length, magic: 2 })).toEqual(data);
    expectTooLarge(() => zstd.decompress(compressed, { maxBytes: data.length - 1, magic: 2 }));
  });
});

describe("lz4", () => {
  it("reads the first frame only and stops at its end mark, as Kafka's Lz4BlockInputStream", () => {
    const two = concat(lz4StoredFrame(text("abc")), lz4StoredFrame(text("def")));
    expect(str(lz4.decompress(two, { maxBytes: MiB, magic: 2 }) as Uint8Array)).toBe("abc");
    expect(
      str(lz4.decompress(concat(lz4StoredFrame(text("abc")), [1, 2, 3]), { maxBytes: MiB, magic: 2 }) as Uint8Array),
    ).toBe("abc");
  });

  it("a batch whose records are in the first frame decodes; a second frame of records is not read", async () => {
    const records = plainRecords(2, text("v"));
    const first = batchAround(CODEC_ID.lz4, concat(lz4StoredFrame(records), lz4StoredFrame(records)), 2);
    const set = (await decodeRecords(first, { codecs })) as RecordSet;
    expect((set.batches[0] as RecordBatch).records.map((r) => str(r.value!))).toEqual(["v", "v"]);
    // The count says 4: Kafka would find 2 and fail, and so do we (the second frame is not read).
    const four = batchAround(CODEC_ID.lz4, concat(lz4StoredFrame(records), lz4StoredFrame(records)), 4);
    expect((await recordsError(four)).code).toBe("CORRUPT_RECORD");
  });

  it("names the byte: a frame cut before its end mark (7-byte header, 4-byte size, 3 bytes)", () => {
    const cut = lz4StoredFrame(text("abc")).subarray(0, 14);
    expectCorrupt(() => lz4.decompress(cut, { maxBytes: MiB, magic: 2 }), 14, /without its end mark/);
  });
});

describe("gzip", () => {
  it("a zip bomb stops at the cap (8 MiB of zeros against 1 MiB)", async () => {
    const bomb = gzipSync(new Uint8Array(8 * MiB), { level: 9 });
    expect(bomb.length).toBeLessThan(16 * 1024);
    expectTooLarge(() => gzip.decompress(bomb, { maxBytes: MiB, magic: 2 }));
    const e = await recordsError(batchAround(CODEC_ID.gzip, bomb), MiB);
    expect(e.code).toBe("DECOMPRESSED_TOO_LARGE");
  });

  it("reads concatenated members, as Kafka's GZIPInputStream does", () => {
    const two = concat(gzipSync(text("ab")), gzipSync(text("cd")));
    expect(str(gzip.decompress(two, { maxBytes: MiB, magic: 2 }) as Uint8Array)).toBe("abcd");
  });
});
