import { describe, it, expect } from "vitest";
import {
  KafkaDecodeError,
  KafkaEncodeError,
  MAX_STRING_BYTES,
  Reader,
  Writer,
  readUtf8,
  sizeCompactNullableString,
  sizeCompactString,
  sizeNullableString,
  sizeString,
  utf8Length,
  writeUtf8,
} from "../support/runtime-internals.js";
import { bytes, expectError, hex, repeatHex } from "./helpers.js";

/** Runs the size pass on `strings` (null = nullable null) and then the write pass. */
function encodeStrings(
  kind: "compact" | "classic",
  strings: Array<string | null>,
): { size: number; lens: number[]; out: string } {
  const lens: number[] = [];
  let size = 0;
  for (const s of strings)
    size += kind === "compact" ? sizeCompactNullableString(s, lens) : sizeNullableString(s, lens);
  const recorded = [...lens];
  const w = new Writer(new Uint8Array(size), 0, lens);
  for (const s of strings) {
    if (kind === "compact") w.compactNullableString(s);
    else w.nullableString(s);
  }
  expect(w.pos).toBe(size);
  expect(w.li).toBe(lens.length);
  return { size, lens: recorded, out: hex(w.buf) };
}

describe("compact strings (unsigned varint length+1, then UTF-8)", () => {
  it("null -> 00, one byte, records nothing in lens", () => {
    expect(encodeStrings("compact", [null])).toEqual({ size: 1, lens: [], out: "00" });
  });

  it('"" -> 01 (length 0, +1)', () => {
    expect(encodeStrings("compact", [""])).toEqual({ size: 1, lens: [0], out: "01" });
  });

  it('"abc" -> 04 61 62 63 (length 3+1 = 4; a=0x61 b=0x62 c=0x63)', () => {
    expect(encodeStrings("compact", ["abc"])).toEqual({ size: 4, lens: [3], out: "04 61 62 63" });
  });

  it("a 127-byte string: 127+1 = 128 -> prefix 80 01 (two bytes), size 129", () => {
    const s = "x".repeat(127); // x = 0x78
    const { size, lens, out } = encodeStrings("compact", [s]);
    expect(size).toBe(2 + 127);
    expect(lens).toEqual([127]);
    expect(out).toBe(`80 01 ${repeatHex("78", 127)}`);
  });

  it("a 126-byte string: 126+1 = 127 -> prefix 7f (still one byte), size 127", () => {
    const { size, out } = encodeStrings("compact", ["x".repeat(126)]);
    expect(size).toBe(1 + 126);
    expect(out).toBe(`7f ${repeatHex("78", 126)}`);
  });

  it("a 128-byte string: 128+1 = 129 = 0b1_0000001 -> 0x01|0x80 = 81, then 1 -> prefix 81 01", () => {
    const { size, out } = encodeStrings("compact", ["x".repeat(128)]);
    expect(size).toBe(2 + 128);
    expect(out).toBe(`81 01 ${repeatHex("78", 128)}`);
  });

  it("reads them back", () => {
    const r = new Reader(bytes(`00 01 04 61 62 63 80 01 ${repeatHex("78", 127)}`));
    expect(r.compactNullableString()).toBeNull();
    expect(r.compactString()).toBe("");
    expect(r.compactString()).toBe("abc");
    expect(r.compactString()).toBe("x".repeat(127));
    expect(r.remaining()).toBe(0);
  });

  it("null (00) where not nullable -> NULL_NOT_ALLOWED at the prefix", () => {
    expectError(() => new Reader(bytes("01 00"), 1).compactString(), KafkaDecodeError, "NULL_NOT_ALLOWED", 1);
  });

  it("a length beyond the remaining bytes -> INVALID_LENGTH at the prefix", () => {
    // 04 announces 3 bytes, only 2 follow
    expectError(() => new Reader(bytes("04 61 62")).compactString(), KafkaDecodeError, "INVALID_LENGTH", 0);
  });

  it("null on the size pass of a non-nullable compact string -> NULL_NOT_ALLOWED", () => {
    expectError(() => sizeCompactString(null as unknown as string, []), KafkaEncodeError, "NULL_NOT_ALLOWED");
    // undefined is a missing field, not null.
    expectError(() => sizeCompactString(undefined as unknown as string, []), KafkaEncodeError, "MISSING_FIELD");
  });

  it("a non-string on the size pass -> INVALID_VALUE", () => {
    expectError(() => sizeCompactString(42 as unknown as string, []), KafkaEncodeError, "INVALID_VALUE");
  });
});

describe("classic strings (int16 length, then UTF-8)", () => {
  it("null -> ff ff (-1)", () => {
    expect(encodeStrings("classic", [null])).toEqual({ size: 2, lens: [], out: "ff ff" });
  });

  it('"" -> 00 00', () => {
    expect(encodeStrings("classic", [""])).toEqual({ size: 2, lens: [0], out: "00 00" });
  });

  it('"abc" -> 00 03 61 62 63', () => {
    expect(encodeStrings("classic", ["abc"])).toEqual({ size: 5, lens: [3], out: "00 03 61 62 63" });
  });

  it("a 300-byte string: 300 = 0x012c -> 01 2c", () => {
    const { size, out } = encodeStrings("classic", ["x".repeat(300)]);
    expect(size).toBe(302);
    expect(out).toBe(`01 2c ${repeatHex("78", 300)}`);
  });

  it("reads them back", () => {
    const r = new Reader(bytes("ff ff 00 00 00 03 61 62 63"));
    expect(r.nullableString()).toBeNull();
    expect(r.string()).toBe("");
    expect(r.string()).toBe("abc");
  });

  it("ff ff where not nullable -> NULL_NOT_ALLOWED", () => {
    expectError(() => new Reader(bytes("ff ff")).string(), KafkaDecodeError, "NULL_NOT_ALLOWED", 0);
  });

  it("ff fe (-2) -> INVALID_LENGTH, nullable or not", () => {
    expectError(() => new Reader(bytes("ff fe")).string(), KafkaDecodeError, "INVALID_LENGTH", 0);
    expectError(() => new Reader(bytes("ff fe")).nullableString(), KafkaDecodeError, "INVALID_LENGTH", 0);
    // 0x8000 = -32768
    expectError(() => new Reader(bytes("80 00")).nullableString(), KafkaDecodeError, "INVALID_LENGTH", 0);
  });

  it("length 5 with 1 byte left -> INVALID_LENGTH at the prefix", () => {
    expectError(() => new Reader(bytes("aa 00 05 61"), 1).string(), KafkaDecodeError, "INVALID_LENGTH", 1);
  });

  it("sizeString(null) on a non-nullable field -> NULL_NOT_ALLOWED", () => {
    expectError(() => sizeString(null as unknown as string, []), KafkaEncodeError, "NULL_NOT_ALLOWED");
  });
});

describe("the lens queue", () => {
  it("records UTF-8 lengths in size-pass order; the writer consumes them in the same order", () => {
    const lens: number[] = [];
    // "é" = c3 a9: 2 bytes, compact prefix 2+1 = 03
    const s1 = sizeCompactString("é", lens);
    // "abc" classic: 00 03 61 62 63
    const s2 = sizeString("abc", lens);
    // null compact: 00, records nothing
    const s3 = sizeCompactNullableString(null, lens);
    // "" compact: 01
    const s4 = sizeCompactString("", lens);
    // "€" classic: e2 82 ac, prefix 00 03
    const s5 = sizeNullableString("€", lens);
    expect([s1, s2, s3, s4, s5]).toEqual([3, 5, 1, 1, 5]);
    expect(lens).toEqual([2, 3, 0, 3]);

    const w = new Writer(new Uint8Array(15), 0, lens);
    w.compactString("é");
    w.string("abc");
    w.compactNullableString(null);
    w.compactString("");
    w.nullableString("€");
    expect(hex(w.buf)).toBe("03 c3 a9 00 03 61 62 63 00 01 00 03 e2 82 ac");
    expect(w.li).toBe(4);
  });

  it("nextLen returns the recorded lengths in order", () => {
    const w = new Writer(new Uint8Array(0), 0, [7, 9]);
    expect(w.nextLen()).toBe(7);
    expect(w.nextLen()).toBe(9);
  });
});

// [name, string, UTF-16 units, hand-worked UTF-8 bytes]
const CODE_POINTS: Array<[string, string, number, string]> = [
  // U+0061 < 0x80: one byte, itself
  ["a U+0061", "a", 1, "61"],
  // U+0080 = 00010_000000 -> 110_00010 10_000000 = c2 80 (smallest 2-byte)
  ["U+0080", "\u0080", 1, "c2 80"],
  // U+00E9 = 00011_101001 -> 110_00011 10_101001 = c3 a9
  ["é U+00E9", "é", 1, "c3 a9"],
  // U+07FF = 11111_111111 -> df bf (largest 2-byte)
  ["U+07FF", "\u07ff", 1, "df bf"],
  // U+0800 = 0000_100000_000000 -> 1110_0000 10_100000 10_000000 = e0 a0 80 (smallest 3-byte)
  ["U+0800", "\u0800", 1, "e0 a0 80"],
  // U+20AC = 0010_000010_101100 -> 1110_0010 10_000010 10_101100 = e2 82 ac
  ["€ U+20AC", "€", 1, "e2 82 ac"],
  // U+E000 (first code point after the surrogates) = 1110_000000_000000 -> ee 80 80
  ["U+E000", "\ue000", 1, "ee 80 80"],
  // U+FFFF = 1111_111111_111111 -> ef bf bf
  ["U+FFFF", "\uffff", 1, "ef bf bf"],
  // U+10000 = d800 dc00 = 000_010000_000000_000000 -> 11110_000 10_010000 10_000000 10_000000 = f0 90 80 80
  ["U+10000", "\ud800\udc00", 2, "f0 90 80 80"],
  // U+1F600 = d83d de00 = 000_011111_011000_000000 -> f0 9f 98 80
  ["😀 U+1F600", "😀", 2, "f0 9f 98 80"],
  // U+10FFFF = dbff dfff = 100_001111_111111_111111 -> f4 8f bf bf
  ["U+10FFFF", "\udbff\udfff", 2, "f4 8f bf bf"],
];

describe("UTF-8", () => {
  describe.each(CODE_POINTS)("%s", (_name, s, units, utf8) => {
    const n = bytes(utf8).length;

    it(`is ${units} UTF-16 unit(s) and ${n} UTF-8 byte(s)`, () => {
      expect(s.length).toBe(units);
      expect(utf8Length(s)).toBe(n);
    });

    it("short path (< 32 units): writes the hand-worked bytes and reads them back", () => {
      const s2 = `x${s}y`; // x = 78, y = 79
      const len = utf8Length(s2);
      expect(len).toBe(n + 2);
      const buf = new Uint8Array(len + 2).fill(0xee);
      expect(writeUtf8(buf, 1, s2, len)).toBe(1 + len);
      expect(hex(buf)).toBe(`ee 78 ${utf8} 79 ee`);
      expect(readUtf8(buf, 1, len, false)).toBe(s2);
      expect(readUtf8(buf, 1, len, true)).toBe(s2);
    });

    it("long path (>= 32 units, TextEncoder): writes the hand-worked bytes and reads them back", () => {
      const s2 = "x".repeat(32) + s; // 32 + units >= 32 units
      const len = utf8Length(s2);
      expect(len).toBe(32 + n);
      const buf = new Uint8Array(len + 2).fill(0xee);
      expect(writeUtf8(buf, 1, s2, len)).toBe(1 + len);
      expect(hex(buf)).toBe(`ee ${repeatHex("78", 32)} ${utf8} ee`);
      expect(readUtf8(buf, 1, len, false)).toBe(s2);
      expect(readUtf8(buf, 1, len, true)).toBe(s2);
    });
  });

  it('"aé€😀" (5 units) -> 10 bytes: 61 | c3 a9 | e2 82 ac | f0 9f 98 80; compact prefix 10+1 = 0b', () => {
    const lens: number[] = [];
    expect(sizeCompactString("aé€😀", lens)).toBe(11);
    const w = new Writer(new Uint8Array(11), 0, lens);
    w.compactString("aé€😀");
    expect(hex(w.buf)).toBe("0b 61 c3 a9 e2 82 ac f0 9f 98 80");
    expect(new Reader(w.buf).compactString()).toBe("aé€😀");
  });

  it("boundary: 31 units (30 x + é, short path) and 32 units (31 x + €, encoder path)", () => {
    // 30 + 2 = 32 bytes, compact prefix 33 = 0x21
    const a = "x".repeat(30) + "é";
    // 31 + 3 = 34 bytes, compact prefix 35 = 0x23
    const b = "x".repeat(31) + "€";
    expect([a.length, b.length]).toEqual([31, 32]);
    const lens: number[] = [];
    const size = sizeCompactString(a, lens) + sizeCompactString(b, lens);
    expect(lens).toEqual([32, 34]);
    expect(size).toBe(33 + 35);
    const w = new Writer(new Uint8Array(size), 0, lens);
    w.compactString(a);
    w.compactString(b);
    expect(hex(w.buf)).toBe(`21 ${repeatHex("78", 30)} c3 a9 23 ${repeatHex("78", 31)} e2 82 ac`);
    const r = new Reader(w.buf);
    expect(r.compactString()).toBe(a);
    expect(r.compactString()).toBe(b);
  });

  it("long non-ASCII strings: é x40 = 80 bytes, € x32 = 96 bytes, 😀 x16 = 64 bytes", () => {
    expect(utf8Length("é".repeat(40))).toBe(40 * 2);
    expect(utf8Length("€".repeat(32))).toBe(32 * 3);
    expect(utf8Length("😀".repeat(16))).toBe(16 * 4);
    const buf = new Uint8Array(64);
    writeUtf8(buf, 0, "😀".repeat(16), 64);
    expect(hex(buf)).toBe(repeatHex("f0 9f 98 80", 16));
  });

  it("a byte-order mark at the start is kept on decode, not stripped", () => {
    // U+FEFF = 1111_111011_111111 -> ef bb bf, then 61
    expect(readUtf8(bytes("ef bb bf 61"), 0, 4, false)).toBe("\ufeffa");
    expect(readUtf8(bytes("ef bb bf 61"), 0, 4, true)).toBe("\ufeffa");
  });

  describe("lone surrogates -> KafkaEncodeError INVALID_STRING", () => {
    const cases: Array<[string, string]> = [
      ["a lone high surrogate", "\ud800"],
      ["a lone low surrogate inside text", "a\udc00b"],
      ["a high surrogate followed by a non-surrogate", "\ud800a"],
      ["a reversed pair (low, high)", "\udc00\ud800"],
      ["a high surrogate at the end of a long string", "x".repeat(40) + "\ud83d"],
    ];
    it.each(cases)("%s", (_name, s) => {
      expectError(() => utf8Length(s), KafkaEncodeError, "INVALID_STRING");
      expectError(() => sizeCompactString(s, []), KafkaEncodeError, "INVALID_STRING");
      expectError(() => sizeString(s, []), KafkaEncodeError, "INVALID_STRING");
    });
  });

  describe("invalid UTF-8 on decode", () => {
    // [name, bytes, lenient result]
    const cases: Array<[string, string, string]> = [
      // c3 starts a 2-byte sequence, 28 '(' is not a continuation byte -> U+FFFD then '('
      ["c3 28", "c3 28", "\ufffd("],
      // ff is never valid in UTF-8
      ["ff", "ff", "\ufffd"],
      // c0 af is an overlong '/': c0 is never a valid lead byte, af a stray continuation -> two U+FFFD
      ["overlong c0 af", "c0 af", "\ufffd\ufffd"],
      // ed a0 80 would be U+D800, a surrogate: not allowed in UTF-8 -> three U+FFFD
      ["encoded surrogate ed a0 80", "ed a0 80", "\ufffd\ufffd\ufffd"],
    ];
    it.each(cases)("%s -> U+FFFD by default, INVALID_STRING with strictUtf8", (_name, h, lenient) => {
      const n = bytes(h).length;
      // compact string: prefix n+1 (< 0x80, one byte), preceded by one unrelated byte
      const input = bytes(`aa 0${n + 1} ${h}`);
      const lenientReader = new Reader(input, 1);
      expect(lenientReader.compactString()).toBe(lenient);
      expect(lenientReader.pos).toBe(input.length);
      // strict: the offset is where the string's bytes start (after the prefix): 2
      expectError(
        () => new Reader(input, 1, input.length, { strictUtf8: true }).compactString(),
        KafkaDecodeError,
        "INVALID_STRING",
        2,
      );
    });

    it("the same in a long string (>= 32 bytes): 40 x then ff", () => {
      // 41 bytes -> compact prefix 42 = 0x2a
      const input = bytes(`2a ${repeatHex("78", 40)} ff`);
      expect(new Reader(input).compactString()).toBe("x".repeat(40) + "\ufffd");
      expectError(
        () => new Reader(input, 0, input.length, { strictUtf8: true }).compactString(),
        KafkaDecodeError,
        "INVALID_STRING",
        1,
      );
    });

    it("classic strings too: 00 02 c3 28", () => {
      expect(new Reader(bytes("00 02 c3 28")).string()).toBe("\ufffd(");
      expectError(
        () => new Reader(bytes("00 02 c3 28"), 0, 4, { strictUtf8: true }).string(),
        KafkaDecodeError,
        "INVALID_STRING",
        2,
      );
    });
  });
});

describe("Kafka's 32767-byte string limit", () => {
  it("MAX_STRING_BYTES is 0x7fff = 32767", () => {
    expect(MAX_STRING_BYTES).toBe(32767);
  });

  it("32767 bytes are fine: compact size = 3 (32768 = 2^15 needs 3 varint bytes) + 32767", () => {
    const lens: number[] = [];
    expect(sizeCompactString("x".repeat(32767), lens)).toBe(3 + 32767);
    expect(sizeString("x".repeat(32767), [])).toBe(2 + 32767);
    expect(lens).toEqual([32767]);
  });

  it("32768 ASCII bytes -> STRING_TOO_LONG on the size pass (compact and classic)", () => {
    const s = "x".repeat(32768);
    expectError(() => sizeCompactString(s, []), KafkaEncodeError, "STRING_TOO_LONG");
    expectError(() => sizeString(s, []), KafkaEncodeError, "STRING_TOO_LONG");
    expectError(() => sizeNullableString(s, []), KafkaEncodeError, "STRING_TOO_LONG");
  });

  it("the limit counts UTF-8 bytes, not UTF-16 units: é x16384 = 32768 bytes is too long", () => {
    const s = "é".repeat(16384);
    expect(s.length).toBe(16384);
    expectError(() => sizeCompactString(s, []), KafkaEncodeError, "STRING_TOO_LONG");
    // and é x16383 + "x" = 32767 bytes is fine
    expect(sizeCompactString("é".repeat(16383) + "x", [])).toBe(3 + 32767);
  });

  it("decoding a compact string of 32767 bytes: prefix 32768 = 2^15 -> groups 0, 0, 2 -> 80 80 02", () => {
    const input = bytes(`80 80 02 ${repeatHex("78", 32767)}`);
    const r = new Reader(input);
    expect(r.compactString()).toBe("x".repeat(32767));
    expect(r.remaining()).toBe(0);
  });

  it("decoding a compact string of 32768 bytes: prefix 32769 = 0b10_0000000_0000001 -> 81 80 02 -> STRING_TOO_LONG", () => {
    // even with all 32768 bytes present, the length alone is the error
    const input = bytes(`81 80 02 ${repeatHex("78", 32768)}`);
    const e = expectError(() => new Reader(input).compactString(), KafkaDecodeError, "STRING_TOO_LONG", 0);
    expect(e.message).toContain("32767");
    expectError(() => new Reader(input).compactNullableString(), KafkaDecodeError, "STRING_TOO_LONG", 0);
  });

  it("invalid bytes that expand to U+FFFD (3 bytes each) past the limit -> STRING_TOO_LONG", () => {
    // 10922 x ff -> 10922 U+FFFD = 32766 UTF-8 bytes: fine. Prefix 10923 = 85*128 + 43 -> 0x2b|0x80 = ab, 85 = 0x55
    expect(new Reader(bytes(`ab 55 ${repeatHex("ff", 10922)}`)).compactString()).toBe("\ufffd".repeat(10922));
    // 10923 x ff -> 32769 bytes once decoded: too long. Prefix 10924 = 85*128 + 44 -> ac 55
    expectError(
      () => new Reader(bytes(`ac 55 ${repeatHex("ff", 10923)}`)).compactString(),
      KafkaDecodeError,
      "STRING_TOO_LONG",
      0,
    );
  });

  it("prefix 32770 (a 32769-byte string) = 0b10_0000000_0000010 -> 82 80 02 -> STRING_TOO_LONG, even when truncated", () => {
    // no string bytes follow: the length check comes first, so this is not an INVALID_LENGTH
    expectError(() => new Reader(bytes("aa 82 80 02"), 1).compactString(), KafkaDecodeError, "STRING_TOO_LONG", 1);
  });
});

describe("the short-string decode paths", () => {
  it("return exactly what TextDecoder returns, for every length up to 70, in any order", () => {
    const reference = new TextDecoder();
    let seed = 7;
    const next = (): number => (seed = (seed * 1103515245 + 12345) >>> 0) >>> 16;
    const samples: Uint8Array[] = [];
    for (let k = 0; k < 3000; k++) {
      const n = 1 + (next() % 70); // fixed-arity (1..8), built in JavaScript (9..63), TextDecoder (64+)
      samples.push(Uint8Array.from({ length: n }, () => 0x20 + (next() % 95)));
    }
    // Same length, one byte apart.
    for (let k = 0; k < 200; k++) {
      const copy = Uint8Array.from(samples[k]!);
      copy[copy.length - 1] = copy[copy.length - 1] === 0x41 ? 0x42 : 0x41;
      samples.push(copy);
    }
    // A non-ASCII byte last: decoded as UTF-8 (here a lone continuation byte, U+FFFD).
    samples.push(Uint8Array.from([...Array(20).fill(0x61), 0x80]));
    // Non-ASCII among the lengths built in JavaScript (which must not take them): é (C3 A9) last, first.
    samples.push(
      Uint8Array.from([...Array(40).fill(0x61), 0xc3, 0xa9]),
      Uint8Array.from([0xc3, 0xa9, ...Array(30).fill(0x62)]),
    );
    for (const order of [samples, [...samples].reverse(), samples]) {
      for (const b of order) {
        const padded = new Uint8Array(b.length + 3);
        padded.set(b, 3);
        expect(readUtf8(padded, 3, b.length, false)).toBe(reference.decode(b));
      }
    }
  });
});
