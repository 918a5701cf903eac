import { describe, it, expect } from "vitest";
import { KafkaDecodeError, KafkaEncodeError, Reader, Writer, uvarintSize } from "../support/runtime-internals.js";
import { bytes, expectError, hex } from "./helpers.js";

/** Writes one unsigned varint into a buffer with one spare byte, returns the written bytes. */
function writeUvarint(v: number): Uint8Array {
  const w = new Writer(new Uint8Array(6), 0, []);
  w.uvarint(v);
  return w.buf.subarray(0, w.pos);
}

function writeUvarlong(v: bigint): Uint8Array {
  const w = new Writer(new Uint8Array(11), 0, []);
  w.uvarlong(v);
  return w.buf.subarray(0, w.pos);
}

// Each case: value, hand-encoded bytes (7 bits per byte, least significant group first, 0x80 on
// every byte but the last), byte count.
const UVARINT_CASES: Array<[string, number, string, number]> = [
  // 0 fits in 7 bits -> one byte 00
  ["0", 0, "00", 1],
  // 1 -> 01
  ["1", 1, "01", 1],
  // 127 = 0b1111111, the largest 7-bit value -> 7f
  ["127", 127, "7f", 1],
  // 128 = 0b1_0000000 -> low 7 bits 0x00|0x80 = 0x80, then 128>>7 = 1 -> 80 01
  ["128", 128, "80 01", 2],
  // 300 = 0b10_0101100 -> low 7 bits 0x2c|0x80 = 0xac, then 300>>7 = 2 -> ac 02
  ["300", 300, "ac 02", 2],
  // 16383 = 2^14-1 = two groups of seven 1-bits -> 0x7f|0x80 = ff, then 7f
  ["2^14-1", 16383, "ff 7f", 2],
  // 16384 = 2^14 -> groups 0, 0, 1 -> 80 80 01
  ["2^14", 16384, "80 80 01", 3],
  // 2^21-1 = three groups of seven 1-bits -> ff ff 7f
  ["2^21-1", 2 ** 21 - 1, "ff ff 7f", 3],
  // 2^21 -> groups 0, 0, 0, 1 -> 80 80 80 01
  ["2^21", 2 ** 21, "80 80 80 01", 4],
  // 2^28-1 = four groups of seven 1-bits -> ff ff ff 7f
  ["2^28-1", 2 ** 28 - 1, "ff ff ff 7f", 4],
  // 2^28 -> groups 0, 0, 0, 0, 1 -> 80 80 80 80 01
  ["2^28", 2 ** 28, "80 80 80 80 01", 5],
  // 2^31-1 = 31 one-bits: four full groups (28 bits) ff ff ff ff, then 3 one-bits 0b111 = 07
  ["2^31-1", 2 ** 31 - 1, "ff ff ff ff 07", 5],
  // 2^31 = bit 31 only: four zero groups, then bit 31-28 = 3 -> 0b1000 = 08
  ["2^31", 2 ** 31, "80 80 80 80 08", 5],
  // 2^32-1 = 32 one-bits: ff ff ff ff, then the remaining 4 one-bits 0b1111 = 0f
  ["2^32-1", 2 ** 32 - 1, "ff ff ff ff 0f", 5],
];

describe("unsigned varint (KIP-482)", () => {
  describe.each(UVARINT_CASES)("%s", (_name, value, encoded, size) => {
    it(`Writer.uvarint writes ${encoded}`, () => {
      expect(hex(writeUvarint(value))).toBe(encoded);
    });
    it(`uvarintSize is ${size}`, () => {
      expect(uvarintSize(value)).toBe(size);
    });
    it(`Reader.uvarint reads ${encoded} back and consumes ${size} bytes`, () => {
      // A trailing 0x7f after the varint must not be read.
      const input = bytes(`${encoded} 7f`);
      const r = new Reader(input);
      expect(r.uvarint()).toBe(value);
      expect(r.pos).toBe(size);
    });
  });

  it("writes at the writer's position, not at 0", () => {
    const w = new Writer(new Uint8Array(5), 0, []);
    w.int8(0x11);
    w.uvarint(300);
    // 11, then 300 = ac 02 (see above), then the untouched zero bytes
    expect(hex(w.buf)).toBe("11 ac 02 00 00");
    expect(w.pos).toBe(3);
  });

  it("reads a varint at an offset and returns a value above 2^31 as a positive number", () => {
    // 2^32-1 = ff ff ff ff 0f, preceded by two unrelated bytes
    const r = new Reader(bytes("aa bb ff ff ff ff 0f"), 2);
    expect(r.uvarint()).toBe(4294967295);
    expect(r.pos).toBe(7);
  });

  it("accepts a non-minimal encoding as Kafka does (80 00 = 0 in two bytes)", () => {
    // 0x80 = group 0 with the continuation bit, 0x00 = group 0, last byte -> 0, two bytes consumed
    const r = new Reader(bytes("80 00"));
    expect(r.uvarint()).toBe(0);
    expect(r.pos).toBe(2);
  });

  describe("decode errors", () => {
    it("six bytes 80 80 80 80 80 01 -> INVALID_VARINT at the varint's start", () => {
      // the 5th byte 0x80 still has the continuation bit: a sixth byte would be needed
      const e = expectError(
        () => new Reader(bytes("80 80 80 80 80 01")).uvarint(),
        KafkaDecodeError,
        "INVALID_VARINT",
        0,
      );
      expect(e.message).toContain("byte offset 0");
    });

    it("ff ff ff ff 1f (5th byte > 0x0f, so the value is above 2^32-1) -> INVALID_VARINT", () => {
      // the 5th byte carries bits 28..34; 0x1f sets bit 32, i.e. a value >= 2^32
      expectError(() => new Reader(bytes("ff ff ff ff 1f")).uvarint(), KafkaDecodeError, "INVALID_VARINT", 0);
    });

    it("80 80 80 80 10 (exactly 2^32) -> INVALID_VARINT", () => {
      // 0x10 in the 5th group = 1 << (28 + 4) = 2^32, one above the uint32 range
      expectError(() => new Reader(bytes("80 80 80 80 10")).uvarint(), KafkaDecodeError, "INVALID_VARINT", 0);
    });

    it("reports the start offset of the varint, not of the bad byte", () => {
      // varint starts at offset 3, its bad 5th byte is at offset 7
      expectError(
        () => new Reader(bytes("00 00 00 ff ff ff ff 1f"), 3).uvarint(),
        KafkaDecodeError,
        "INVALID_VARINT",
        3,
      );
    });

    it("truncated 80 80 -> BUFFER_UNDERFLOW with offset at the varint's start", () => {
      expectError(() => new Reader(bytes("80 80")).uvarint(), KafkaDecodeError, "BUFFER_UNDERFLOW", 0);
      // same at offset 1
      expectError(() => new Reader(bytes("01 80 80"), 1).uvarint(), KafkaDecodeError, "BUFFER_UNDERFLOW", 1);
    });

    it("empty input -> BUFFER_UNDERFLOW", () => {
      expectError(() => new Reader(new Uint8Array(0)).uvarint(), KafkaDecodeError, "BUFFER_UNDERFLOW", 0);
    });

    it("respects the reader's end even when more bytes follow in the buffer", () => {
      // bytes: [0]=01 [1]=80 [2]=80 | [3]=01; with end = 3 the terminating 01 is out of reach
      const r = new Reader(bytes("01 80 80 01"), 1, 3);
      expectError(() => r.uvarint(), KafkaDecodeError, "BUFFER_UNDERFLOW", 1);
    });
  });
});

describe("unsigned varlong", () => {
  const CASES: Array<[string, bigint, string]> = [
    ["0", 0n, "00"],
    // 128 = 0b1_0000000 -> 80 01 (as for varint)
    ["128", 128n, "80 01"],
    // 2^32 = bit 32: four zero groups (bits 0..27), bit 32 is bit 4 of the 5th group -> 0x10
    ["2^32", 2n ** 32n, "80 80 80 80 10"],
    // 2^35-1 = five groups of seven 1-bits -> ff ff ff ff 7f
    ["2^35-1", 2n ** 35n - 1n, "ff ff ff ff 7f"],
    // 2^63 = 9 * 7: nine zero groups, then 1 -> 80 x9 01 (10 bytes)
    ["2^63", 2n ** 63n, "80 80 80 80 80 80 80 80 80 01"],
    // 2^64-1 = 64 one-bits: nine full groups (63 bits) ff x9, then the last bit 01 (10 bytes)
    ["2^64-1", 2n ** 64n - 1n, "ff ff ff ff ff ff ff ff ff 01"],
  ];

  describe.each(CASES)("%s", (_name, value, encoded) => {
    it(`writes ${encoded}`, () => {
      expect(hex(writeUvarlong(value))).toBe(encoded);
    });
    it("reads it back", () => {
      const input = bytes(`${encoded} 55`);
      const r = new Reader(input);
      expect(r.uvarlong()).toBe(value);
      expect(r.pos).toBe(input.length - 1);
    });
  });

  it("11 bytes (80 x10 01) -> INVALID_VARINT: the 10-byte limit", () => {
    // the 10th byte 0x80 still has the continuation bit
    expectError(
      () => new Reader(bytes("80 80 80 80 80 80 80 80 80 80 01")).uvarlong(),
      KafkaDecodeError,
      "INVALID_VARINT",
      0,
    );
  });

  it("ff x9 02 (10th byte > 0x01, so the value is above 2^64-1) -> INVALID_VARINT", () => {
    // the 10th byte carries bits 63..69; 0x02 sets bit 64
    expectError(
      () => new Reader(bytes("ff ff ff ff ff ff ff ff ff 02")).uvarlong(),
      KafkaDecodeError,
      "INVALID_VARINT",
      0,
    );
  });

  it("truncated ff ff -> BUFFER_UNDERFLOW at the start", () => {
    expectError(() => new Reader(bytes("00 ff ff"), 1).uvarlong(), KafkaDecodeError, "BUFFER_UNDERFLOW", 1);
  });

  it("rejects values outside 0..2^64-1 on write", () => {
    const w = new Writer(new Uint8Array(11), 0, []);
    expectError(() => w.uvarlong(-1n), KafkaEncodeError, "INT_OUT_OF_RANGE", 0);
    expectError(() => w.uvarlong(2n ** 64n), KafkaEncodeError, "INT_OUT_OF_RANGE", 0);
    expect(w.pos).toBe(0);
  });

  it("rejects a number (not a bigint) with INVALID_VALUE", () => {
    const w = new Writer(new Uint8Array(11), 0, []);
    expectError(() => w.uvarlong(5 as unknown as bigint), KafkaEncodeError, "INVALID_VALUE", 0);
  });
});
