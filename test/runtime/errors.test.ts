import { describe, it, expect } from "vitest";
import {
  KafkaDecodeError,
  KafkaRecordsError,
  KafkaEncodeError,
  KafkaWireError,
  fieldNotInVersion,
  withPath,
} from "../support/runtime-internals.js";

describe("error hierarchy", () => {
  it("KafkaDecodeError and KafkaEncodeError are KafkaWireErrors and Errors, and distinct", () => {
    const d = new KafkaDecodeError("BUFFER_UNDERFLOW", "needed 4 bytes, 1 remain", 7);
    const e = new KafkaEncodeError("INT_OUT_OF_RANGE", "128 is not a valid int8", 3);
    expect(d).toBeInstanceOf(Error);
    expect(d).toBeInstanceOf(KafkaWireError);
    expect(d).toBeInstanceOf(KafkaDecodeError);
    expect(d).not.toBeInstanceOf(KafkaEncodeError);
    expect(e).toBeInstanceOf(KafkaWireError);
    expect(e).toBeInstanceOf(KafkaEncodeError);
    expect(e).not.toBeInstanceOf(KafkaDecodeError);
  });

  it("has code, reason, offset, path and a name per class", () => {
    const d = new KafkaDecodeError("BUFFER_UNDERFLOW", "needed 4 bytes, 1 remain", 7, "a.b");
    expect(d.code).toBe("BUFFER_UNDERFLOW");
    expect(d.reason).toBe("needed 4 bytes, 1 remain");
    expect(d.offset).toBe(7);
    expect(d.path).toBe("a.b");
    expect(d.name).toBe("KafkaDecodeError");
    expect(new KafkaEncodeError("INVALID_VALUE", "x", -1).name).toBe("KafkaEncodeError");
    expect(new KafkaWireError("INVALID_VALUE", "x", -1).name).toBe("KafkaWireError");
  });

  it("the message is reason + ' at path' + ' (byte offset N)'", () => {
    expect(new KafkaDecodeError("BUFFER_UNDERFLOW", "needed 4 bytes, 1 remain", 7, "a.b").message).toBe(
      "needed 4 bytes, 1 remain at a.b (byte offset 7)",
    );
    // no path, no offset: just the reason
    expect(new KafkaEncodeError("INVALID_VALUE", "bad", -1).message).toBe("bad");
    // offset 0 is an offset
    expect(new KafkaEncodeError("INVALID_VALUE", "bad", 0).message).toBe("bad (byte offset 0)");
  });

  it("String(error) starts with the class name", () => {
    expect(String(new KafkaDecodeError("TRAILING_BYTES", "1 bytes remain after the message", 9))).toBe(
      "KafkaDecodeError: 1 bytes remain after the message (byte offset 9)",
    );
  });
});

describe("withPath", () => {
  it("builds topology.subtopologies[2].sourceTopics[0] from the innermost call outwards", () => {
    const original = new KafkaDecodeError("INVALID_LENGTH", "length 9 exceeds the 2 bytes that remain", 41);
    // innermost: element 0 of the sourceTopics array
    let e = withPath(original, "sourceTopics", 0, 99, true);
    expect(e.path).toBe("sourceTopics[0]");
    // its struct is element 2 of subtopologies
    e = withPath(e, "subtopologies", 2, 99, true);
    expect(e.path).toBe("subtopologies[2].sourceTopics[0]");
    // which is in the topology struct (not an array element: index -1)
    e = withPath(e, "topology", -1, 99, true);
    expect(e.path).toBe("topology.subtopologies[2].sourceTopics[0]");

    // the same object travels up, keeps its class, code and original offset (not the 99s)
    expect(e).toBe(original);
    expect(e).toBeInstanceOf(KafkaDecodeError);
    expect(e.code).toBe("INVALID_LENGTH");
    expect(e.offset).toBe(41);
    expect(e.message).toBe(
      "length 9 exceeds the 2 bytes that remain at topology.subtopologies[2].sourceTopics[0] (byte offset 41)",
    );
    expect(e.message).toContain("byte offset 41");
  });

  it("nested arrays give a[1][0]; an empty field name adds only the index", () => {
    const e = new KafkaEncodeError("NULL_NOT_ALLOWED", "null", -1);
    withPath(e, "", 0, -1, false);
    expect(e.path).toBe("[0]");
    withPath(e, "a", 1, -1, false);
    expect(e.path).toBe("a[1][0]");
    withPath(e, "", -1, -1, false);
    expect(e.path).toBe("a[1][0]");
  });

  it("wraps a non-Kafka error on encode into KafkaEncodeError INVALID_VALUE with cause and offset", () => {
    const cause = new TypeError("Cannot read properties of undefined (reading 'length')");
    const e = withPath(cause, "sourceTopics", 3, 17, false);
    expect(e).toBeInstanceOf(KafkaEncodeError);
    expect(e.code).toBe("INVALID_VALUE");
    expect(e.cause).toBe(cause);
    expect(e.offset).toBe(17);
    expect(e.path).toBe("sourceTopics[3]");
    expect(e.message).toContain("Cannot read properties of undefined");
    expect(e.message).toContain("sourceTopics[3]");
    expect(e.message).toContain("byte offset 17");
  });

  it("wraps a non-Kafka error on decode into KafkaDecodeError INVALID_VALUE", () => {
    const e = withPath(new RangeError("boom"), "f", -1, 5, true);
    expect(e).toBeInstanceOf(KafkaDecodeError);
    expect(e.code).toBe("INVALID_VALUE");
    expect(e.cause).toBeInstanceOf(RangeError);
    expect(e.message).toBe("unexpected failure: boom at f (byte offset 5)");
  });

  it("wraps a thrown non-Error value too", () => {
    const e = withPath("just a string", "f", -1, -1, false);
    expect(e).toBeInstanceOf(KafkaEncodeError);
    expect(e.cause).toBe("just a string");
    expect(e.message).toContain("just a string");
  });
});

describe("fieldNotInVersion", () => {
  it("is an encode error FIELD_NOT_IN_VERSION naming the field and version", () => {
    const e = fieldNotInVersion("rackId", 2);
    expect(e).toBeInstanceOf(KafkaEncodeError);
    expect(e.code).toBe("FIELD_NOT_IN_VERSION");
    expect(e.offset).toBe(-1);
    expect(e.message).toContain("rackId");
    expect(e.message).toContain("version 2");
  });
});

describe("instanceof across copies of the library (ESM and CJS builds, two versions)", () => {
  /** What an error thrown by another copy looks like from here: other classes, the same registry-wide brand. */
  function fromAnotherCopy(...chain: string[]): Error {
    const e = new Error("from another copy");
    Object.defineProperty(e, Symbol.for("kafka-wire.error"), { value: chain });
    return e;
  }

  it("recognises another copy's errors by their brand, each class only its own kind", () => {
    const decode = fromAnotherCopy("KafkaDecodeError", "KafkaWireError");
    expect(decode instanceof KafkaDecodeError).toBe(true);
    expect(decode instanceof KafkaWireError).toBe(true);
    expect(decode instanceof KafkaEncodeError).toBe(false);
    const encode = fromAnotherCopy("KafkaEncodeError", "KafkaWireError");
    expect(encode instanceof KafkaEncodeError).toBe(true);
    expect(encode instanceof KafkaDecodeError).toBe(false);
    expect(fromAnotherCopy("SomethingElse") instanceof KafkaWireError).toBe(false);
    const records = fromAnotherCopy("KafkaRecordsError", "KafkaDecodeError", "KafkaWireError");
    expect(records instanceof KafkaRecordsError && records instanceof KafkaDecodeError).toBe(true);
    expect(decode instanceof KafkaRecordsError).toBe(false);
  });

  it("falls back to the prototype check for a subclass without a name of its own", () => {
    class Mine extends KafkaDecodeError {}
    expect(new Mine("BUFFER_UNDERFLOW", "x", 0) instanceof Mine).toBe(true);
    expect(new KafkaDecodeError("BUFFER_UNDERFLOW", "x", 0) instanceof Mine).toBe(false);
    expect(new Mine("BUFFER_UNDERFLOW", "x", 0) instanceof KafkaDecodeError).toBe(true);
  });

  it("does not take plain errors or non-objects for ours", () => {
    expect(new Error("x") instanceof KafkaWireError).toBe(false);
    expect((null as unknown) instanceof KafkaWireError).toBe(false);
    expect(("KafkaDecodeError" as unknown) instanceof KafkaDecodeError).toBe(false);
  });

  it("brands this copy's errors without making the brand enumerable", () => {
    const e = new KafkaDecodeError("BUFFER_UNDERFLOW", "short", 3);
    expect(e instanceof KafkaDecodeError && e instanceof KafkaWireError && !(e instanceof KafkaEncodeError)).toBe(true);
    expect(Object.keys(e)).not.toContain(Symbol.for("kafka-wire.error").toString());
    expect(Object.getOwnPropertySymbols(e).map((s) => s.description)).toEqual(["kafka-wire.error"]);
    expect((e as unknown as Record<symbol, unknown>)[Symbol.for("kafka-wire.error")]).toEqual([
      "KafkaDecodeError",
      "KafkaWireError",
    ]);
    expect(JSON.stringify({ ...e })).not.toContain("KafkaDecodeError");
  });
});
