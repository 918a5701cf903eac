import { describe, it, expect } from "vitest";
import {
  KafkaDecodeError,
  KafkaEncodeError,
  defineMessage,
  jsonString,
  missingJsonField,
  readJsonInt,
  readJsonObject,
  readJsonString,
  reserveLen,
  sizeCompactString,
  withPath,
  type MessageCodec,
  type MessageDefinition,
  type Reader,
  type Writer,
} from "../support/runtime-internals.js";
import { bytes, expectError, hex } from "./helpers.js";

/** A tiny hand-written message: an int32 and a compact string, versions 0-1. */
interface Tiny {
  id: number;
  name: string;
}

// Written by hand in the style of the generated code: `f` tracks the field for withPath.
const tinyDefinition: MessageDefinition<Tiny> = {
  name: "Tiny",
  apiKey: 1000,
  type: "data",
  validVersions: { lowest: 0, highest: 1 },
  flexibleVersions: { lowest: 0, highest: 32767 },
  size(v, _version, lens) {
    let f = "";
    try {
      f = "id";
      let size = 4;
      f = "name";
      size += sizeCompactString(v.name, lens);
      return size;
    } catch (e) {
      throw withPath(e, f, -1, -1, false);
    }
  },
  write(w: Writer, v, _version) {
    let f = "";
    try {
      f = "id";
      w.int32(v.id);
      f = "name";
      w.compactString(v.name);
    } catch (e) {
      throw withPath(e, f, -1, w.pos, false);
    }
  },
  read(r: Reader, _version) {
    let f = "";
    try {
      f = "id";
      const id = r.int32();
      f = "name";
      const name = r.compactString();
      return { id, name };
    } catch (e) {
      throw withPath(e, f, -1, r.pos, true);
    }
  },
  // As generated: the init's fields over the defaults (undefined means omitted).
  create(init = {}) {
    return { id: init.id === undefined ? 0 : init.id, name: init.name === undefined ? "" : init.name };
  },
  toJson(v, _version) {
    let f = "";
    try {
      f = "id";
      let out = `{"id":${String(v.id)}`;
      f = "name";
      out += `,"name":${jsonString(v.name)}}`;
      return out;
    } catch (e) {
      throw withPath(e, f, -1, -1, false);
    }
  },
  fromJson(json, version) {
    let f = "";
    try {
      const o = readJsonObject(json);
      f = "id";
      const jid = o["id"];
      if (jid === undefined) throw missingJsonField(version);
      const id = readJsonInt(jid, "int32", -2147483648, 2147483647);
      f = "name";
      const jname = o["name"];
      if (jname === undefined) throw missingJsonField(version);
      const name = readJsonString(jname);
      return { id, name };
    } catch (e) {
      throw withPath(e, f, -1, -1, true);
    }
  },
};

const Tiny: MessageCodec<Tiny> = defineMessage(tinyDefinition);

// {id: 1, name: "abc"}: int32 1 = 00 00 00 01; "abc" compact = 3+1 = 04, 61 62 63 -> 8 bytes
const ONE_ABC = "00 00 00 01 04 61 62 63";

function deepFreeze<T>(o: T): T {
  if (typeof o === "object" && o !== null) {
    for (const v of Object.values(o)) deepFreeze(v);
    Object.freeze(o);
  }
  return o;
}

describe("defineMessage", () => {
  it("exposes the definition's metadata and is frozen", () => {
    expect(Tiny.name).toBe("Tiny");
    expect(Tiny.apiKey).toBe(1000);
    expect(Tiny.type).toBe("data");
    expect(Tiny.validVersions).toEqual({ lowest: 0, highest: 1 });
    expect(Tiny.flexibleVersions).toEqual({ lowest: 0, highest: 32767 });
    expect(Object.isFrozen(Tiny)).toBe(true);
  });

  describe("encode", () => {
    it("produces the hand-worked bytes in a buffer of exactly size() bytes", () => {
      const out = Tiny.encode({ id: 1, name: "abc" }, 0);
      expect(hex(out)).toBe(ONE_ABC);
      expect(Tiny.size({ id: 1, name: "abc" }, 0)).toBe(8);
      expect(out.length).toBe(8);
      expect(out.byteOffset).toBe(0);
      expect(out.buffer.byteLength).toBe(8);
    });

    it("negative id and a non-ASCII name: -2 = ff ff ff fe; 'é€' = c3 a9 e2 82 ac, 5+1 = 06", () => {
      expect(hex(Tiny.encode({ id: -2, name: "é€" }, 1))).toBe("ff ff ff fe 06 c3 a9 e2 82 ac");
    });

    it("does not mutate (and works on) a deeply frozen input", () => {
      const msg = deepFreeze({ id: 1, name: "abc" });
      expect(hex(Tiny.encode(msg, 0))).toBe(ONE_ABC);
      expect(Tiny.size(msg, 0)).toBe(8);
      expect(Tiny.toJson(msg, 0)).toBe('{"id":1,"name":"abc"}');
      const target = new Uint8Array(8);
      expect(Tiny.encodeInto(msg, 0, target)).toBe(8);
      expect(msg).toEqual({ id: 1, name: "abc" });
    });

    it("reports a bad field with its path and code", () => {
      // size pass passes (int32 is not checked there), write pass fails at offset 0
      const e1 = expectError(() => Tiny.encode({ id: 1.5, name: "a" }, 0), KafkaEncodeError, "INT_OUT_OF_RANGE", 0);
      expect(e1.path).toBe("id");
      expect(e1.message).toContain("at id (byte offset 0)");
      const e2 = expectError(() => Tiny.encode({ id: 1, name: "\ud800" }, 0), KafkaEncodeError, "INVALID_STRING");
      expect(e2.path).toBe("name");
      const e3 = expectError(
        () => Tiny.encode({ id: 1, name: null as unknown as string }, 0),
        KafkaEncodeError,
        "NULL_NOT_ALLOWED",
      );
      expect(e3.path).toBe("name");
      const e4 = expectError(
        () => Tiny.size({ id: 1, name: "x".repeat(32768) }, 0),
        KafkaEncodeError,
        "STRING_TOO_LONG",
      );
      expect(e4.path).toBe("name");
    });

    it("a bigint in an int32 field becomes KafkaEncodeError INVALID_VALUE (wrapped TypeError) at the field", () => {
      const e = expectError(
        () => Tiny.encode({ id: 5n as unknown as number, name: "a" }, 0),
        KafkaEncodeError,
        "INVALID_VALUE",
        0,
      );
      expect(e.path).toBe("id");
      expect(e.cause).toBeInstanceOf(TypeError);
    });
  });

  describe("the write pass consumes exactly the lengths the size pass recorded", () => {
    // One byte either way, so that only the lens count can tell the passes apart.
    const skewed = (write: (w: Writer) => void, record: boolean): MessageCodec<object> =>
      defineMessage<object>({
        ...(tinyDefinition as unknown as MessageDefinition<object>),
        name: "Skewed",
        size: (_v, _version, lens) => {
          if (record) reserveLen(lens);
          return 1;
        },
        write: (w) => write(w),
      });
    const consumesNone = skewed((w) => w.int8(0), true);
    const consumesOneMore = skewed((w) => {
      w.nextLen();
      w.int8(0);
    }, false);

    it.each([
      ["encode", (c: MessageCodec<object>) => c.encode({}, 0)],
      ["encodeInto", (c: MessageCodec<object>) => c.encodeInto({}, 0, new Uint8Array(1))],
      ["plan().writeTo", (c: MessageCodec<object>) => c.plan({}, 0).writeTo(new Uint8Array(1), 0)],
    ])("%s: a length left over or one too many -> KafkaEncodeError", (_name, run) => {
      const left = expectError(() => run(consumesNone), KafkaEncodeError, "INVALID_VALUE");
      expect(left.message).toContain("write pass used 0 of the 1 lengths its size pass recorded");
      const extra = expectError(() => run(consumesOneMore), KafkaEncodeError, "INVALID_VALUE");
      expect(extra.message).toContain("write pass used 1 of the 0 lengths its size pass recorded");
    });

    it("a real message consumes all of them (one per string, one per tagged field)", () => {
      expect(hex(Tiny.encode({ id: 1, name: "abc" }, 0))).toBe(ONE_ABC);
    });
  });

  describe("encodeInto", () => {
    it("writes at an offset and returns the end offset, leaving other bytes alone", () => {
      const target = new Uint8Array(12).fill(0xee);
      expect(Tiny.encodeInto({ id: 1, name: "abc" }, 0, target, 2)).toBe(10);
      expect(hex(target)).toBe(`ee ee ${ONE_ABC} ee ee`);
    });

    it("defaults the offset to 0 and fits exactly", () => {
      const target = new Uint8Array(8);
      expect(Tiny.encodeInto({ id: 1, name: "abc" }, 1, target)).toBe(8);
      expect(hex(target)).toBe(ONE_ABC);
    });

    it("into a subarray: offsets are relative to the subarray", () => {
      const whole = new Uint8Array(12).fill(0xee);
      expect(Tiny.encodeInto({ id: 1, name: "abc" }, 0, whole.subarray(3), 1)).toBe(9);
      expect(hex(whole)).toBe(`ee ee ee ee ${ONE_ABC}`);
    });

    it("one byte too small -> BUFFER_TOO_SMALL and nothing is written", () => {
      // needs 8 bytes from offset 2, target has 9 - 2 = 7
      const target = new Uint8Array(9).fill(0xee);
      const e = expectError(
        () => Tiny.encodeInto({ id: 1, name: "abc" }, 0, target, 2),
        KafkaEncodeError,
        "BUFFER_TOO_SMALL",
        2,
      );
      expect(e.message).toContain("8 bytes");
      expect(hex(target)).toBe("ee ee ee ee ee ee ee ee ee");
    });

    it("an offset outside the target -> BUFFER_TOO_SMALL", () => {
      const target = new Uint8Array(8);
      expectError(() => Tiny.encodeInto({ id: 1, name: "abc" }, 0, target, 9), KafkaEncodeError, "BUFFER_TOO_SMALL");
      expectError(() => Tiny.encodeInto({ id: 1, name: "abc" }, 0, target, -1), KafkaEncodeError, "BUFFER_TOO_SMALL");
      expectError(() => Tiny.encodeInto({ id: 1, name: "abc" }, 0, target, 0.5), KafkaEncodeError, "BUFFER_TOO_SMALL");
    });

    it("a non-Uint8Array target -> INVALID_VALUE", () => {
      expectError(
        () => Tiny.encodeInto({ id: 1, name: "abc" }, 0, [] as unknown as Uint8Array),
        KafkaEncodeError,
        "INVALID_VALUE",
      );
    });
  });

  describe("decode", () => {
    it("reads the hand-worked bytes", () => {
      expect(Tiny.decode(bytes(ONE_ABC), 0)).toEqual({ id: 1, name: "abc" });
    });

    it("trailing bytes -> TRAILING_BYTES at the first extra byte, unless allowTrailingBytes", () => {
      const input = bytes(`${ONE_ABC} 00`);
      const e = expectError(() => Tiny.decode(input, 0), KafkaDecodeError, "TRAILING_BYTES", 8);
      expect(e.message).toContain("1 bytes remain");
      expect(Tiny.decode(input, 0, { allowTrailingBytes: true })).toEqual({ id: 1, name: "abc" });
    });

    it("truncated input -> BUFFER_UNDERFLOW / INVALID_LENGTH with the field path", () => {
      // only 3 of the 4 id bytes
      const e1 = expectError(() => Tiny.decode(bytes("00 00 00"), 0), KafkaDecodeError, "BUFFER_UNDERFLOW", 0);
      expect(e1.path).toBe("id");
      // name announces 3 bytes, 2 follow; prefix at offset 4
      const e2 = expectError(
        () => Tiny.decode(bytes("00 00 00 01 04 61 62"), 0),
        KafkaDecodeError,
        "INVALID_LENGTH",
        4,
      );
      expect(e2.path).toBe("name");
      expect(e2.message).toContain("at name (byte offset 4)");
    });

    it("passes options through (strictUtf8)", () => {
      // name = c3 28 (invalid UTF-8), 2+1 = 03
      const input = bytes("00 00 00 01 03 c3 28");
      expect(Tiny.decode(input, 0).name).toBe("\ufffd(");
      const e = expectError(() => Tiny.decode(input, 0, { strictUtf8: true }), KafkaDecodeError, "INVALID_STRING", 5);
      expect(e.path).toBe("name");
    });

    it("a non-Uint8Array input -> INVALID_VALUE", () => {
      expectError(() => Tiny.decode([0, 0, 0, 1, 1] as unknown as Uint8Array, 0), KafkaDecodeError, "INVALID_VALUE");
    });
  });

  describe("decodeFrom", () => {
    it("decodes at an offset and returns the offset after the message", () => {
      // 2-byte header, the message, then 2 bytes of whatever follows
      const input = bytes(`aa bb ${ONE_ABC} cc dd`);
      const { message, offset } = Tiny.decodeFrom(input, 2, input.length, 0);
      expect(message).toEqual({ id: 1, name: "abc" });
      expect(offset).toBe(10);
    });

    it("respects end: the message may not read past it", () => {
      const input = bytes(`aa bb ${ONE_ABC}`);
      // end = 9 cuts off the last name byte; the name prefix is at 2 + 4 = 6
      expectError(() => Tiny.decodeFrom(input, 2, 9, 0), KafkaDecodeError, "INVALID_LENGTH", 6);
    });

    it("an invalid range -> INVALID_LENGTH", () => {
      const input = bytes(ONE_ABC);
      expectError(() => Tiny.decodeFrom(input, 0, 9, 0), KafkaDecodeError, "INVALID_LENGTH");
      expectError(() => Tiny.decodeFrom(input, 5, 4, 0), KafkaDecodeError, "INVALID_LENGTH");
      expectError(() => Tiny.decodeFrom(input, -1, 8, 0), KafkaDecodeError, "INVALID_LENGTH");
    });
  });

  describe("versions", () => {
    const msg = { id: 1, name: "abc" };
    const badVersions = [-1, 2, 0.5, NaN, 32767];

    it.each(badVersions)("version %d -> UNSUPPORTED_VERSION on every encode-side method (KafkaEncodeError)", (v) => {
      const e = expectError(() => Tiny.encode(msg, v), KafkaEncodeError, "UNSUPPORTED_VERSION");
      expect(e.message).toContain("Tiny");
      expectError(() => Tiny.encodeInto(msg, v, new Uint8Array(8)), KafkaEncodeError, "UNSUPPORTED_VERSION");
      expectError(() => Tiny.size(msg, v), KafkaEncodeError, "UNSUPPORTED_VERSION");
      expectError(() => Tiny.toJson(msg, v), KafkaEncodeError, "UNSUPPORTED_VERSION");
    });

    it.each(badVersions)("version %d -> UNSUPPORTED_VERSION on every decode-side method (KafkaDecodeError)", (v) => {
      expectError(() => Tiny.decode(bytes(ONE_ABC), v), KafkaDecodeError, "UNSUPPORTED_VERSION");
      expectError(() => Tiny.decodeFrom(bytes(ONE_ABC), 0, 8, v), KafkaDecodeError, "UNSUPPORTED_VERSION");
      expectError(() => Tiny.fromJson('{"id":1,"name":"abc"}', v), KafkaDecodeError, "UNSUPPORTED_VERSION");
    });

    it('a version given as a string ("0") says it must be a number, on both sides', () => {
      const e = expectError(() => Tiny.encode(msg, "0" as unknown as number), KafkaEncodeError, "UNSUPPORTED_VERSION");
      expect(e.message).toBe('the version must be a number, got string "0" (Tiny has versions 0-1)');
      const d = expectError(
        () => Tiny.decode(bytes(ONE_ABC), "1" as unknown as number),
        KafkaDecodeError,
        "UNSUPPORTED_VERSION",
      );
      expect(d.message).toBe('the version must be a number, got string "1" (Tiny has versions 0-1)');
      expectError(() => Tiny.toJson(msg, undefined as unknown as number), KafkaEncodeError, "UNSUPPORTED_VERSION");
    });

    it("both ends of the range work", () => {
      expect(hex(Tiny.encode(msg, 0))).toBe(ONE_ABC);
      expect(hex(Tiny.encode(msg, 1))).toBe(ONE_ABC);
      expect(Tiny.decode(bytes(ONE_ABC), 1)).toEqual(msg);
    });
  });

  describe("create", () => {
    it("returns the defaults", () => {
      expect(Tiny.create()).toEqual({ id: 0, name: "" });
    });

    it("hands the init to the definition's create (which fills the omitted fields)", () => {
      expect(Tiny.create({ name: "x" })).toEqual({ id: 0, name: "x" });
      expect(Tiny.create({ id: 7, name: "y" })).toEqual({ id: 7, name: "y" });
    });

    it("returns a fresh object every time and does not keep or mutate init", () => {
      const init = Object.freeze({ id: 3 });
      const a = Tiny.create(init);
      a.name = "changed";
      expect(Tiny.create()).toEqual({ id: 0, name: "" });
      expect(a).not.toBe(init);
      expect(init).toEqual({ id: 3 });
    });
  });

  describe("JSON", () => {
    it("toJson", () => {
      expect(Tiny.toJson({ id: -1, name: 'a"b' }, 0)).toBe(String.raw`{"id":-1,"name":"a\"b"}`);
    });

    it("fromJson from text and from an object", () => {
      expect(Tiny.fromJson('{"id":2147483647,"name":"é"}', 0)).toEqual({ id: 2147483647, name: "é" });
      expect(Tiny.fromJson({ id: 5, name: "x" }, 1)).toEqual({ id: 5, name: "x" });
    });

    it("fromJson errors carry the field path", () => {
      const e1 = expectError(() => Tiny.fromJson('{"id":2147483648,"name":"x"}', 0), KafkaDecodeError, "INVALID_JSON");
      expect(e1.path).toBe("id");
      const e2 = expectError(() => Tiny.fromJson('{"id":1}', 0), KafkaDecodeError, "INVALID_JSON");
      expect(e2.path).toBe("name");
      expectError(() => Tiny.fromJson("{", 0), KafkaDecodeError, "INVALID_JSON");
      expectError(() => Tiny.fromJson("[]", 0), KafkaDecodeError, "INVALID_JSON");
    });

    it("round-trips: decode(encode(fromJson(toJson(m)))) = m", () => {
      const m = { id: -123456, name: "héllo 😀" };
      expect(Tiny.decode(Tiny.encode(Tiny.fromJson(Tiny.toJson(m, 0), 0), 0), 0)).toEqual(m);
    });
  });
});
