import { describe, it, expect } from "vitest";
import {
  KafkaDecodeError,
  KafkaEncodeError,
  Reader,
  Writer,
  arrayLength,
  checkStruct,
  sizeBytes,
  sizeCompactArrayLength,
  sizeCompactBytes,
  sizeCompactNullableBytes,
  sizeNullableBytes,
} from "../support/runtime-internals.js";
import { bytes, expectError, hex, repeatHex } from "./helpers.js";

function writeWith(size: number, write: (w: Writer) => void): string {
  const w = new Writer(new Uint8Array(size), 0, []);
  write(w);
  expect(w.pos).toBe(size);
  return hex(w.buf);
}

describe("compact bytes (unsigned varint length+1)", () => {
  it("null -> 00, empty -> 01, [01 02 03] -> 04 01 02 03", () => {
    expect(sizeCompactNullableBytes(null)).toBe(1);
    expect(sizeCompactBytes(new Uint8Array(0))).toBe(1);
    expect(sizeCompactBytes(bytes("01 02 03"))).toBe(4);
    const out = writeWith(6, (w) => {
      w.compactNullableBytes(null);
      w.compactBytes(new Uint8Array(0));
      w.compactNullableBytes(bytes("01 02 03"));
    });
    expect(out).toBe("00 01 04 01 02 03");
  });

  it("127 bytes: 127+1 = 128 -> prefix 80 01, size 129", () => {
    const data = new Uint8Array(127).fill(0x5a);
    expect(sizeCompactBytes(data)).toBe(129);
    expect(writeWith(129, (w) => w.compactBytes(data))).toBe(`80 01 ${repeatHex("5a", 127)}`);
  });

  it("reads null, empty and data back", () => {
    const r = new Reader(bytes("00 01 04 01 02 03"));
    expect(r.compactNullableBytes()).toBeNull();
    expect(hex(r.compactBytes())).toBe("");
    expect(hex(r.compactBytes())).toBe("01 02 03");
    expect(r.remaining()).toBe(0);
  });

  it("00 where not nullable -> NULL_NOT_ALLOWED", () => {
    expectError(() => new Reader(bytes("00")).compactBytes(), KafkaDecodeError, "NULL_NOT_ALLOWED", 0);
  });

  it("a length beyond the remaining bytes -> INVALID_LENGTH at the prefix", () => {
    // 06 announces 5 bytes, 2 follow; the prefix is at offset 1
    expectError(() => new Reader(bytes("ee 06 01 02"), 1).compactBytes(), KafkaDecodeError, "INVALID_LENGTH", 1);
    expectError(
      () => new Reader(bytes("ee 06 01 02"), 1).compactNullableBytes(),
      KafkaDecodeError,
      "INVALID_LENGTH",
      1,
    );
  });

  it("a 4 GiB claim (ff ff ff ff 0f = 2^32-1, length 2^32-2) -> INVALID_LENGTH, no allocation", () => {
    const e = expectError(
      () => new Reader(bytes("ff ff ff ff 0f 00")).compactBytes(),
      KafkaDecodeError,
      "INVALID_LENGTH",
      0,
    );
    expect(e.message).toContain("4294967294");
  });
});

describe("classic bytes (int32 length)", () => {
  it("null -> ff ff ff ff, empty -> 00 00 00 00, [aa] -> 00 00 00 01 aa", () => {
    expect(sizeNullableBytes(null)).toBe(4);
    expect(sizeBytes(new Uint8Array(0))).toBe(4);
    expect(sizeBytes(bytes("aa"))).toBe(5);
    const out = writeWith(13, (w) => {
      w.nullableBytes(null);
      w.bytes(new Uint8Array(0));
      w.nullableBytes(bytes("aa"));
    });
    expect(out).toBe("ff ff ff ff 00 00 00 00 00 00 00 01 aa");
  });

  it("300 bytes: 300 = 0x0000012c -> 00 00 01 2c", () => {
    const data = new Uint8Array(300).fill(0x11);
    expect(writeWith(304, (w) => w.bytes(data))).toBe(`00 00 01 2c ${repeatHex("11", 300)}`);
  });

  it("reads null, empty and data back", () => {
    const r = new Reader(bytes("ff ff ff ff 00 00 00 00 00 00 00 01 aa"));
    expect(r.nullableBytes()).toBeNull();
    expect(r.bytes().length).toBe(0);
    expect(hex(r.bytes())).toBe("aa");
  });

  it("ff ff ff ff where not nullable -> NULL_NOT_ALLOWED", () => {
    expectError(() => new Reader(bytes("ff ff ff ff")).bytes(), KafkaDecodeError, "NULL_NOT_ALLOWED", 0);
  });

  it("ff ff ff fe (-2) and 80 00 00 00 (-2^31) -> INVALID_LENGTH", () => {
    expectError(() => new Reader(bytes("ff ff ff fe")).bytes(), KafkaDecodeError, "INVALID_LENGTH", 0);
    expectError(() => new Reader(bytes("ff ff ff fe")).nullableBytes(), KafkaDecodeError, "INVALID_LENGTH", 0);
    expectError(() => new Reader(bytes("80 00 00 00")).nullableBytes(), KafkaDecodeError, "INVALID_LENGTH", 0);
  });

  it("a length beyond the remaining bytes -> INVALID_LENGTH at the prefix", () => {
    // length 5, 2 bytes follow; prefix at offset 2
    expectError(() => new Reader(bytes("ee ee 00 00 00 05 01 02"), 2).bytes(), KafkaDecodeError, "INVALID_LENGTH", 2);
  });

  it("a 2 GiB claim (7f ff ff ff = 2^31-1) -> INVALID_LENGTH, no allocation", () => {
    expectError(() => new Reader(bytes("7f ff ff ff 00")).nullableBytes(), KafkaDecodeError, "INVALID_LENGTH", 0);
  });
});

describe("decoded bytes are views into the input (zero-copy)", () => {
  it("compact bytes share the input's buffer and see later changes to it", () => {
    const input = bytes("ee 04 01 02 03 ee");
    const r = new Reader(input, 1);
    const view = r.compactBytes();
    expect(view.buffer).toBe(input.buffer);
    expect(view.byteOffset).toBe(2);
    expect(hex(view)).toBe("01 02 03");
    input[3] = 0x99; // the middle data byte
    expect(hex(view)).toBe("01 99 03");
  });

  it("classic bytes too, also when the input is itself a subarray", () => {
    const whole = bytes("ee ee 00 00 00 02 aa bb ee");
    const input = whole.subarray(2);
    const view = new Reader(input).bytes();
    expect(view.buffer).toBe(whole.buffer);
    expect(view.byteOffset).toBe(6);
    whole[7] = 0x00;
    expect(hex(view)).toBe("aa 00");
  });

  it("a decoded view cannot reach past its own length", () => {
    const input = bytes("03 01 02 ff ff");
    const view = new Reader(input).compactBytes();
    expect(view.length).toBe(2);
    expect(view[2]).toBeUndefined();
  });
});

describe("bytes on the size pass", () => {
  it("null where not nullable -> NULL_NOT_ALLOWED; undefined -> MISSING_FIELD; a non-Uint8Array -> INVALID_VALUE", () => {
    expectError(() => sizeCompactBytes(null as unknown as Uint8Array), KafkaEncodeError, "NULL_NOT_ALLOWED");
    // undefined is a missing field, not null.
    expectError(() => sizeBytes(undefined as unknown as Uint8Array), KafkaEncodeError, "MISSING_FIELD");
    expectError(() => sizeCompactBytes([1, 2] as unknown as Uint8Array), KafkaEncodeError, "INVALID_VALUE");
    expectError(() => sizeBytes("aa" as unknown as Uint8Array), KafkaEncodeError, "INVALID_VALUE");
  });

  it("raw() writes the bytes with no length", () => {
    expect(writeWith(2, (w) => w.raw(bytes("de ad")))).toBe("de ad");
  });
});

describe("array lengths", () => {
  it("compact: ff ff ff ff 0f (2^32-1, so n = 2^32-2) then nothing -> INVALID_LENGTH at offset 0", () => {
    expectError(() => new Reader(bytes("ff ff ff ff 0f")).compactArrayLength(1), KafkaDecodeError, "INVALID_LENGTH", 0);
    expectError(
      () => new Reader(bytes("ff ff ff ff 0f")).compactNullableArrayLength(1),
      KafkaDecodeError,
      "INVALID_LENGTH",
      0,
    );
  });

  it("compact: 00 where not nullable -> NULL_NOT_ALLOWED; nullable -> -1", () => {
    expectError(() => new Reader(bytes("00")).compactArrayLength(1), KafkaDecodeError, "NULL_NOT_ALLOWED", 0);
    const r = new Reader(bytes("00"));
    expect(r.compactNullableArrayLength(1)).toBe(-1);
    expect(r.pos).toBe(1);
  });

  it("compact: 01 is an empty array", () => {
    expect(new Reader(bytes("01")).compactArrayLength(8)).toBe(0);
  });

  it("compact: 04 (3 elements) with min element size 4 needs 3*4 = 12 bytes", () => {
    const twelve = bytes(`04 ${repeatHex("00", 12)}`);
    const r = new Reader(twelve);
    expect(r.compactArrayLength(4)).toBe(3);
    expect(r.pos).toBe(1);
    // 11 bytes are one too few
    const eleven = bytes(`04 ${repeatHex("00", 11)}`);
    expectError(() => new Reader(eleven).compactArrayLength(4), KafkaDecodeError, "INVALID_LENGTH", 0);
    expectError(() => new Reader(eleven).compactNullableArrayLength(4), KafkaDecodeError, "INVALID_LENGTH", 0);
  });

  it("classic: ff ff ff ff is null (-1), ff ff ff fe (-2) is invalid", () => {
    expectError(() => new Reader(bytes("ff ff ff ff")).arrayLength(1), KafkaDecodeError, "NULL_NOT_ALLOWED", 0);
    expect(new Reader(bytes("ff ff ff ff")).nullableArrayLength(1)).toBe(-1);
    expectError(() => new Reader(bytes("ff ff ff fe")).arrayLength(1), KafkaDecodeError, "INVALID_LENGTH", 0);
    expectError(() => new Reader(bytes("ff ff ff fe")).nullableArrayLength(1), KafkaDecodeError, "INVALID_LENGTH", 0);
  });

  it("classic: 00 00 00 02 with min element size 4 needs 8 bytes; with min 5 (10 bytes) fails", () => {
    const input = bytes(`00 00 00 02 ${repeatHex("00", 8)}`);
    expect(new Reader(input).arrayLength(4)).toBe(2);
    expect(new Reader(input).nullableArrayLength(4)).toBe(2);
    expectError(() => new Reader(input).arrayLength(5), KafkaDecodeError, "INVALID_LENGTH", 0);
  });

  it("classic: 7f ff ff ff (2^31-1 elements) -> INVALID_LENGTH at the prefix offset", () => {
    expectError(() => new Reader(bytes("00 7f ff ff ff 00"), 1).arrayLength(1), KafkaDecodeError, "INVALID_LENGTH", 1);
  });

  it("size side: sizeCompactArrayLength(n) = uvarintSize(n+1): 126 -> 1 byte, 127 -> 2 bytes (128 = 80 01)", () => {
    expect(sizeCompactArrayLength(0)).toBe(1);
    expect(sizeCompactArrayLength(126)).toBe(1);
    expect(sizeCompactArrayLength(127)).toBe(2);
  });

  it("arrayLength checks the value: array -> its length, null -> NULL_NOT_ALLOWED, other -> INVALID_VALUE", () => {
    expect(arrayLength([1, 2, 3])).toBe(3);
    expectError(() => arrayLength(null as unknown as unknown[]), KafkaEncodeError, "NULL_NOT_ALLOWED");
    expectError(() => arrayLength("abc" as unknown as unknown[]), KafkaEncodeError, "INVALID_VALUE");
    expectError(() => arrayLength(new Uint8Array(2) as unknown as unknown[]), KafkaEncodeError, "INVALID_VALUE");
  });

  it("checkStruct accepts objects only", () => {
    expect(() => checkStruct({})).not.toThrow();
    expectError(() => checkStruct(null), KafkaEncodeError, "NULL_NOT_ALLOWED");
    expectError(() => checkStruct(undefined), KafkaEncodeError, "MISSING_FIELD");
    expectError(() => checkStruct([]), KafkaEncodeError, "INVALID_VALUE");
    expectError(() => checkStruct(new Uint8Array(1)), KafkaEncodeError, "INVALID_VALUE");
    expectError(() => checkStruct("s"), KafkaEncodeError, "INVALID_VALUE");
  });
});
