import { describe, it, expect } from "vitest";
import {
  KafkaDecodeError,
  jsonBytes,
  jsonFloat64,
  jsonNullableString,
  jsonString,
  jsonNullNotAllowed,
  missingJsonField,
  parseJson,
  readJsonArray,
  readJsonBool,
  readJsonBytes,
  readJsonFloat64,
  readJsonInt,
  readJsonInt64,
  readJsonNullableBytes,
  readJsonNullableString,
  readJsonObject,
  readJsonString,
  readJsonUuid,
} from "../support/runtime-internals.js";
import { bytes, expectError, hex } from "./helpers.js";

describe("jsonString escapes exactly as Jackson does", () => {
  // [name, input, expected JSON text] -- expected texts are String.raw, i.e. literally what is written
  const cases: Array<[string, string, string]> = [
    ["empty", "", String.raw`""`],
    ["plain ASCII", "abc", String.raw`"abc"`],
    ["double quote", 'a"b', String.raw`"a\"b"`],
    ["backslash", "a\\b", String.raw`"a\\b"`],
    ["newline", "\n", String.raw`"\n"`],
    ["carriage return", "\r", String.raw`"\r"`],
    ["tab", "\t", String.raw`"\t"`],
    ["backspace", "\b", String.raw`"\b"`],
    ["form feed", "\f", String.raw`"\f"`],
    ["NUL as \\u0000", "\u0000", String.raw`"\u0000"`],
    // 0x0b = vertical tab has no short escape; upper-case hex digit B
    ["U+000B as upper-case \\u000B", "\u000b", String.raw`"\u000B"`],
    // 0x1b = ESC
    ["U+001B", "\u001b", String.raw`"\u001B"`],
    // 0x1f, the last control character: upper-case F
    ["U+001F", "\u001f", String.raw`"\u001F"`],
    ["space (0x20) is not escaped", " ", String.raw`" "`],
    ["slash is not escaped", "a/b", String.raw`"a/b"`],
    ["DEL U+007F is raw", "\u007f", '"\u007f"'],
    ["U+2028 is raw", "\u2028", '"\u2028"'],
    ["U+2029 is raw", "\u2029", '"\u2029"'],
    ["non-ASCII is raw", "é€😀", '"é€😀"'],
    ["mixed", 'x\ty"z\u0001', String.raw`"x\ty\"z\u0001"`],
  ];
  it.each(cases)("%s", (_name, s, expected) => {
    expect(jsonString(s)).toBe(expected);
  });

  it("every ASCII character (and a few others) round-trips through JSON.parse", () => {
    let s = "";
    for (let c = 0; c < 0x80; c++) s += String.fromCharCode(c);
    s += "\u2028é\ud83d\ude00";
    expect(JSON.parse(jsonString(s))).toBe(s);
  });

  it("jsonNullableString: null -> null", () => {
    expect(jsonNullableString(null)).toBe("null");
    expect(jsonNullableString("a")).toBe('"a"');
  });

  it("jsonBytes: standard padded base64 in quotes, null -> null", () => {
    // "foo" = 66 6f 6f -> Zm9v (RFC 4648)
    expect(jsonBytes(bytes("66 6f 6f"))).toBe('"Zm9v"');
    expect(jsonBytes(new Uint8Array(0))).toBe('""');
    expect(jsonBytes(null)).toBe("null");
  });
});

describe("jsonFloat64 gives Java's Double.toString", () => {
  const cases: Array<[number, string]> = [
    [0, "0.0"],
    [-0, "-0.0"],
    [1, "1.0"],
    [-1, "-1.0"],
    [1.5, "1.5"],
    [0.1, "0.1"],
    [123456.789, "123456.789"],
    // 10^-3 <= |d| < 10^7: plain decimal
    [0.001, "0.001"],
    [9999999, "9999999.0"],
    [1234567.5, "1234567.5"],
    // outside: computerized scientific notation with at least one fractional digit
    [1e7, "1.0E7"],
    [-1e7, "-1.0E7"],
    [9.999e-4, "9.999E-4"],
    [1e-4, "1.0E-4"],
    [1e-7, "1.0E-7"],
    [-1.5e-5, "-1.5E-5"],
    [123456789012, "1.23456789012E11"],
    [1e21, "1.0E21"],
    [1e300, "1.0E300"],
    [Number.MAX_VALUE, "1.7976931348623157E308"],
    [Number.MIN_VALUE * 2 ** 52, "2.2250738585072014E-308"], // Double.MIN_NORMAL
  ];
  it.each(cases)("%d -> %s", (d, text) => {
    expect(jsonFloat64(d)).toBe(text);
  });

  it("5e-324 (Double.MIN_VALUE): Java prints 4.9E-324; ours must at least parse back to the same value", () => {
    const text = jsonFloat64(5e-324);
    // Java's Double.toString(Double.MIN_VALUE) is "4.9E-324" (it picks the closest 2-digit
    // decimal); JavaScript's shortest form is "5e-324". Kafka compares values, not text, so
    // either is acceptable as long as it is Java-shaped and round-trips exactly.
    expect(["4.9E-324", "5.0E-324"]).toContain(text);
    expect(Number(text)).toBe(5e-324);
  });

  it("NaN and the infinities are the strings Kafka writes", () => {
    expect(jsonFloat64(NaN)).toBe('"NaN"');
    expect(jsonFloat64(Infinity)).toBe('"Infinity"');
    expect(jsonFloat64(-Infinity)).toBe('"-Infinity"');
  });

  it("every finite output parses back to the same double", () => {
    for (const [d] of cases) expect(Object.is(Number(jsonFloat64(d)), d)).toBe(true);
  });
});

describe("parseJson", () => {
  it("keeps integers beyond 2^53 exact: 9007199254740993 = 2^53+1 is not a double", () => {
    const o = readJsonObject(parseJson('{"a":9007199254740993}'));
    expect(readJsonInt64(o["a"])).toBe(9007199254740993n);
  });

  it("invalid JSON text -> KafkaDecodeError INVALID_JSON", () => {
    expectError(() => parseJson("{"), KafkaDecodeError, "INVALID_JSON");
    expectError(() => parseJson("{'a':1}"), KafkaDecodeError, "INVALID_JSON");
    expectError(() => parseJson(""), KafkaDecodeError, "INVALID_JSON");
  });
});

describe("readJsonInt", () => {
  it("accepts integers in range, from text or from a number", () => {
    expect(readJsonInt(parseJson("127"), "int8", -128, 127)).toBe(127);
    expect(readJsonInt(parseJson("-128"), "int8", -128, 127)).toBe(-128);
    expect(readJsonInt(parseJson("4294967295"), "uint32", 0, 4294967295)).toBe(4294967295);
    expect(readJsonInt(-5, "int32", -2147483648, 2147483647)).toBe(-5);
  });

  const bad: Array<[string, unknown, string, number, number]> = [
    ["int8 128", parseJson("128"), "int8", -128, 127],
    ["int8 -129", parseJson("-129"), "int8", -128, 127],
    ["uint16 -1", parseJson("-1"), "uint16", 0, 65535],
    ["uint32 2^32", parseJson("4294967296"), "uint32", 0, 4294967295],
    ["int32 with 20 digits", parseJson("99999999999999999999"), "int32", -2147483648, 2147483647],
    ["a fraction 1.5", parseJson("1.5"), "int32", -2147483648, 2147483647],
    ["1.0 (not an integer literal)", parseJson("1.0"), "int32", -2147483648, 2147483647],
    ["an exponent 1e2", parseJson("1e2"), "int32", -2147483648, 2147483647],
    ["a string", "5", "int32", -2147483648, 2147483647],
    ["null", null, "int32", -2147483648, 2147483647],
    ["a boolean", true, "int8", -128, 127],
    ["a number 1.5", 1.5, "int32", -2147483648, 2147483647],
    ["NaN", NaN, "int32", -2147483648, 2147483647],
  ];
  it.each(bad)("%s -> INVALID_JSON", (_name, v, type, min, max) => {
    const e = expectError(() => readJsonInt(v, type, min, max), KafkaDecodeError, "INVALID_JSON", -1);
    expect(e.message).toContain(type);
  });
});

describe("readJsonInt64", () => {
  it("int64 min and max from text", () => {
    expect(readJsonInt64(parseJson("-9223372036854775808"))).toBe(-(2n ** 63n));
    expect(readJsonInt64(parseJson("9223372036854775807"))).toBe(2n ** 63n - 1n);
  });

  it("also accepts a bigint, a safe number and a decimal string", () => {
    expect(readJsonInt64(-7n)).toBe(-7n);
    expect(readJsonInt64(42)).toBe(42n);
    expect(readJsonInt64("-12345678901234567")).toBe(-12345678901234567n);
  });

  const bad: Array<[string, unknown]> = [
    ["2^63 from text", parseJson("9223372036854775808")],
    ["-2^63-1 from text", parseJson("-9223372036854775809")],
    ["2^63 as a bigint", 2n ** 63n],
    ["a fraction", parseJson("1.5")],
    ["a number beyond 2^53 (already imprecise)", 2 ** 53],
    ["a non-decimal string", "0x10"],
    ["a string with a fraction", "1.5"],
    ["null", null],
  ];
  it.each(bad)("%s -> INVALID_JSON", (_name, v) => {
    expectError(() => readJsonInt64(v), KafkaDecodeError, "INVALID_JSON");
  });
});

describe("other JSON readers", () => {
  it("readJsonFloat64: numbers and Kafka's special strings", () => {
    expect(readJsonFloat64(parseJson("1.5"))).toBe(1.5);
    expect(readJsonFloat64(parseJson("1.0E300"))).toBe(1e300);
    expect(readJsonFloat64(2.5)).toBe(2.5);
    expect(readJsonFloat64("NaN")).toBeNaN();
    expect(readJsonFloat64("Infinity")).toBe(Infinity);
    expect(readJsonFloat64("-Infinity")).toBe(-Infinity);
    expectError(() => readJsonFloat64("1.5"), KafkaDecodeError, "INVALID_JSON");
    expectError(() => readJsonFloat64(null), KafkaDecodeError, "INVALID_JSON");
  });

  it("readJsonBool, readJsonString, readJsonNullableString", () => {
    expect(readJsonBool(true)).toBe(true);
    expectError(() => readJsonBool(1), KafkaDecodeError, "INVALID_JSON");
    expectError(() => readJsonBool("true"), KafkaDecodeError, "INVALID_JSON");
    expect(readJsonString("x")).toBe("x");
    expectError(() => readJsonString(null), KafkaDecodeError, "INVALID_JSON");
    // A pair (U+1F600 as D83D DE00) is a character; either half alone has no UTF-8 form.
    expect(readJsonString("a\ud83d\ude00b")).toBe("a\u{1f600}b");
    for (const lone of ["\ud83d", "a\ud83db", "\ude00", "\ude00\ud83d", "x\ud83d\ud83d\ude00"]) {
      expectError(() => readJsonString(lone), KafkaDecodeError, "INVALID_JSON");
    }
    expect(readJsonString("x\ud83d\ude00\ud83d\ude00")).toBe("x\u{1f600}\u{1f600}");
    expect(readJsonNullableString(null)).toBeNull();
    expectError(() => readJsonNullableString(3), KafkaDecodeError, "INVALID_JSON");
  });

  it("readJsonBytes: standard padded base64, or a Uint8Array as is", () => {
    // "Zm9v" -> 66 6f 6f (RFC 4648 "foo")
    expect(hex(readJsonBytes("Zm9v"))).toBe("66 6f 6f");
    const b = bytes("01");
    expect(readJsonBytes(b)).toBe(b);
    expect(readJsonNullableBytes(null)).toBeNull();
    expectError(() => readJsonBytes("Zm9"), KafkaDecodeError, "INVALID_JSON");
    expectError(() => readJsonBytes("Zm9-"), KafkaDecodeError, "INVALID_JSON");
    expectError(() => readJsonBytes([1, 2]), KafkaDecodeError, "INVALID_JSON");
    expectError(() => readJsonBytes(null), KafkaDecodeError, "INVALID_JSON");
  });

  it("readJsonUuid: only the 22-character form", () => {
    expect(readJsonUuid("AAAAAAAAAAAAAAAAAAAAAA")).toBe("AAAAAAAAAAAAAAAAAAAAAA");
    expectError(() => readJsonUuid("_____________________x"), KafkaDecodeError, "INVALID_JSON");
    expectError(() => readJsonUuid("00000000-0000-0000-0000-000000000000"), KafkaDecodeError, "INVALID_JSON");
    expectError(() => readJsonUuid(1), KafkaDecodeError, "INVALID_JSON");
  });

  it("readJsonObject / readJsonArray reject other shapes", () => {
    expect(readJsonObject(parseJson('{"a":1}'))).toHaveProperty("a");
    expectError(() => readJsonObject(parseJson("[1]")), KafkaDecodeError, "INVALID_JSON");
    expectError(() => readJsonObject(null), KafkaDecodeError, "INVALID_JSON");
    // a lossless number is an object in JavaScript, but not a JSON object
    const e = expectError(() => readJsonObject(parseJson("5")), KafkaDecodeError, "INVALID_JSON");
    expect(e.message).toBe("expected an object, got number 5");
    expect(readJsonArray(parseJson("[1,2]"))).toHaveLength(2);
    expectError(() => readJsonArray(parseJson('{"a":1}')), KafkaDecodeError, "INVALID_JSON");
  });

  it("missingJsonField / jsonNullNotAllowed are INVALID_JSON decode errors", () => {
    const m = missingJsonField(3);
    expect(m).toBeInstanceOf(KafkaDecodeError);
    expect(m.code).toBe("INVALID_JSON");
    expect(m.message).toContain("version 3");
    expect(jsonNullNotAllowed().code).toBe("INVALID_JSON");
  });
});
