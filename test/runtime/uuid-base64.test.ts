import { describe, it, expect } from "vitest";
import {
  KafkaDecodeError,
  KafkaEncodeError,
  Reader,
  Writer,
  ZERO_UUID,
  base64ToBytes,
  bytesToBase64,
  uuidFromString,
  uuidToString,
  writeUuid,
} from "../support/runtime-internals.js";
import { bytes, expectError, hex, repeatHex } from "./helpers.js";

// URL-safe alphabet: A-Z = 0..25, a-z = 26..51, 0-9 = 52..61, '-' = 62, '_' = 63.

// [name, Kafka string form, hand-worked 16 bytes]
const UUIDS: Array<[string, string, string]> = [
  // 128 zero bits -> 21 'A' (126 bits) + 2 zero bits padded with four zero bits -> 'A'
  ["zero", "AAAAAAAAAAAAAAAAAAAAAA", repeatHex("00", 16)],
  // 128 one-bits: 21 chars of 63 '_' (126 bits), then '11' padded with 0000 -> 0b110000 = 48 -> 'w'
  ["all ones", "_____________________w", repeatHex("ff", 16)],
  // 00 01 02 | 03 04 05 | 06 07 08 | 09 0a 0b | 0c 0d 0e | 0f:
  //   000102 -> 000000 000000 000100 000010 -> 0 0 4 2    -> AAEC
  //   030405 -> 000000 110000 010000 000101 -> 0 48 16 5  -> AwQF
  //   060708 -> 000001 100000 011100 001000 -> 1 32 28 8  -> BgcI
  //   090a0b -> 000010 010000 101000 001011 -> 2 16 40 11 -> CQoL
  //   0c0d0e -> 000011 000000 110100 001110 -> 3 0 52 14  -> DA0O
  //   0f     -> 000011 11(0000)             -> 3 48       -> Dw
  ["00..0f", "AAECAwQFBgcICQoLDA0ODw", "00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f"],
  // fb ef be = 111110 111110 111110 111110 -> 62 x4 -> "----" (standard base64 would be "++++");
  // five groups -> 20 '-', then fb = 111110 11(0000) -> 62, 48 -> "-w"
  ["URL-safe 62s", "---------------------w", `${repeatHex("fb ef be", 5)} fb`],
];

describe("uuid: Kafka's 22-character URL-safe base64 <-> 16 bytes", () => {
  describe.each(UUIDS)("%s", (_name, text, h) => {
    it(`Writer.uuid(${text}) writes ${h}`, () => {
      const w = new Writer(new Uint8Array(18).fill(0xee), 1, []);
      w.uuid(text);
      expect(w.pos).toBe(17);
      expect(hex(w.buf)).toBe(`ee ${h} ee`);
    });
    it("Reader.uuid reads it back at an offset", () => {
      const r = new Reader(bytes(`ee ${h} ee`), 1);
      expect(r.uuid()).toBe(text);
      expect(r.pos).toBe(17);
    });
    it("uuidFromString / uuidToString agree", () => {
      expect(hex(uuidFromString(text)!)).toBe(h);
      expect(uuidToString(bytes(`aa bb ${h}`), 2)).toBe(text);
    });
  });

  it("ZERO_UUID is 22 'A's", () => {
    expect(ZERO_UUID).toBe("AAAAAAAAAAAAAAAAAAAAAA");
  });

  it("null -> NULL_NOT_ALLOWED (uuid fields are never nullable), nothing written", () => {
    const w = new Writer(new Uint8Array(20).fill(0xee), 2, []);
    expectError(() => w.uuid(null as unknown as string), KafkaEncodeError, "NULL_NOT_ALLOWED", 2);
    expect(hex(w.buf)).toBe(repeatHex("ee", 20));
  });

  describe("invalid uuid strings -> INVALID_UUID on write, nothing written", () => {
    const cases: Array<[string, unknown]> = [
      ["21 characters", "AAAAAAAAAAAAAAAAAAAAA"],
      ["23 characters", "AAAAAAAAAAAAAAAAAAAAAAA"],
      ["empty", ""],
      ["padded to 24 characters", "AAAAAAAAAAAAAAAAAAAAAA=="],
      ["standard alphabet '+'", "+++++++++++++++++++++w"],
      ["standard alphabet '/'", "/////////////////////w"],
      // 'x' = 49 = 0b110001: its low four bits must be zero padding, 0001 is not
      ["non-canonical last character", "_____________________x"],
      // 'B' = 1 = 0b000001: same
      ["non-canonical last character B", "AAAAAAAAAAAAAAAAAAAAAB"],
      ["a space", "AAAAAAAAAA AAAAAAAAAAA"],
      ["a non-ASCII character", "AAAAAAAAAAAAAAAAAAAAAé"],
      ["the dashed hex form", "00000000-0000-0000-0000-000000000000"],
      ["a number", 123],
    ];
    it.each(cases)("%s", (_name, text) => {
      const w = new Writer(new Uint8Array(20).fill(0xee), 2, []);
      const e = expectError(() => w.uuid(text as string), KafkaEncodeError, "INVALID_UUID", 2);
      expect(w.pos).toBe(2);
      expect(hex(w.buf)).toBe(repeatHex("ee", 20));
      if (typeof text === "string") {
        expect(uuidFromString(text)).toBeNull();
        expect(e.message).toContain(JSON.stringify(text));
      }
    });
  });

  it("Reader.uuid with 15 bytes left -> BUFFER_UNDERFLOW", () => {
    expectError(() => new Reader(new Uint8Array(16), 1).uuid(), KafkaDecodeError, "BUFFER_UNDERFLOW", 1);
  });
});

describe("standard base64 (bytes in JSON)", () => {
  // RFC 4648 section 10 test vectors. Worked example: "f" = 0x66 = 011001 10(0000) -> 25 'Z',
  // 0b100000 = 32 'g', then "==" for the two missing bytes.
  const RFC4648: Array<[string, string]> = [
    ["", ""],
    ["f", "Zg=="],
    ["fo", "Zm8="],
    ["foo", "Zm9v"],
    ["foob", "Zm9vYg=="],
    ["fooba", "Zm9vYmE="],
    ["foobar", "Zm9vYmFy"],
  ];
  const ascii = (s: string): Uint8Array => Uint8Array.from(s, (c) => c.charCodeAt(0));

  it.each(RFC4648)("%j <-> %j", (plain, encoded) => {
    expect(bytesToBase64(ascii(plain))).toBe(encoded);
    const decoded = base64ToBytes(encoded);
    expect(decoded).not.toBeNull();
    expect(hex(decoded!)).toBe(hex(ascii(plain)));
  });

  it("uses '+' and '/' (not '-' and '_'): ff fe fd -> 111111 111111 111011 111101 = 63 63 59 61 -> //79", () => {
    expect(bytesToBase64(bytes("ff fe fd"))).toBe("//79");
    // fb ef be -> 62 x4 -> ++++
    expect(bytesToBase64(bytes("fb ef be"))).toBe("++++");
    expect(hex(base64ToBytes("//79")!)).toBe("ff fe fd");
  });

  it("encodes a subarray's own bytes only", () => {
    const whole = bytes("00 66 6f 6f 00");
    expect(bytesToBase64(whole.subarray(1, 4))).toBe("Zm9v");
  });

  const BAD: Array<[string, string]> = [
    ["missing padding", "Zg"],
    ["missing padding (3 chars)", "Zm8"],
    ["one '=' where two are needed", "Zg="],
    ["too much padding", "Zg==="],
    ["padding only", "===="],
    ["a single char and padding", "Z==="],
    ["padding in the middle", "Zg==Zm9v"],
    ["padding at the start", "=Zg="],
    ["an extra '=' after a full group", "Zm9v="],
    ["URL-safe '-'", "Zm9-"],
    ["URL-safe '_'", "Zm9_"],
    ["a space", "Zm 9"],
    ["a newline", "Zm9v\n"],
    ["a non-ASCII character", "Zm9é"],
    // 'h' = 33 = 0b100001: after 8 bits, the low four bits 0001 must be zero
    ["non-zero trailing bits Zh==", "Zh=="],
    // '9' = 61 = 0b111101: after 16 bits, the low two bits 01 must be zero
    ["non-zero trailing bits Zm9=", "Zm9="],
  ];
  it.each(BAD)("rejects %s (%j) with null", (_name, text) => {
    expect(base64ToBytes(text)).toBeNull();
  });
});

describe("the uuid memo", () => {
  it("keeps no trace of a rejected uuid", () => {
    const zero = new Uint8Array(16);
    const out = new Uint8Array(16).fill(0xee);
    // 'B' = 1 = 0b000001 as the last character: its low four bits are not zero padding, so this
    // is rejected — after decoding to the zero uuid's bytes.
    expect(writeUuid(out, 0, "AAAAAAAAAAAAAAAAAAAAAB")).toBe(false);
    expect(writeUuid(out, 0, "")).toBe(false);
    expect(out.every((b) => b === 0xee)).toBe(true);
    expect(uuidToString(zero, 0)).toBe("AAAAAAAAAAAAAAAAAAAAAA");
    expect(writeUuid(out, 0, "AAAAAAAAAAAAAAAAAAAAA+")).toBe(false);
    expect(uuidToString(zero, 0)).toBe("AAAAAAAAAAAAAAAAAAAAAA");
  });

  it("converts a different uuid after a repeated one", () => {
    const a = Uint8Array.from({ length: 16 }, (_, i) => i);
    const b = Uint8Array.from({ length: 16 }, (_, i) => 255 - i);
    const ta = uuidToString(a, 0);
    expect(uuidToString(a, 0)).toBe(ta);
    const tb = uuidToString(b, 0);
    expect(tb).not.toBe(ta);
    const out = new Uint8Array(16);
    expect(writeUuid(out, 0, ta)).toBe(true);
    expect([...out]).toEqual([...a]);
    expect(writeUuid(out, 0, tb)).toBe(true);
    expect([...out]).toEqual([...b]);
  });
});

describe("the uuid memo under collisions", () => {
  it("returns exactly what converting returns, for many uuids sharing its 1024 slots, in any order", () => {
    // Node's base64url of the 16 bytes is Kafka's form (no padding): an independent reference.
    const reference = (b: Uint8Array): string => Buffer.from(b).toString("base64url");
    let seed = 12345;
    const next = (): number => (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24;
    const uuids = Array.from({ length: 2000 }, () => Uint8Array.from({ length: 16 }, next));
    // Some share the bytes that pick a slot (0 and 9) and differ elsewhere.
    for (let k = 0; k < 50; k++) uuids.push(Uint8Array.from(uuids[k]!).fill(k, 1, 9));
    const out = new Uint8Array(16);
    for (const order of [uuids, [...uuids].reverse(), uuids]) {
      for (const u of order) {
        const text = uuidToString(u, 0);
        expect(text).toBe(reference(u));
        out.fill(0);
        expect(writeUuid(out, 0, text)).toBe(true);
        expect(out).toEqual(u);
      }
    }
  });
});
