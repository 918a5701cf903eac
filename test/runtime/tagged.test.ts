import { describe, it, expect } from "vitest";
import {
  KafkaDecodeError,
  KafkaEncodeError,
  Reader,
  Writer,
  reserveLen,
  sizeUnknownTaggedFields,
  type UnknownTaggedField,
} from "../support/runtime-internals.js";
import { bytes, expectError, hex } from "./helpers.js";

describe("unknown tagged fields on write", () => {
  const fields: UnknownTaggedField[] = [
    { tag: 0, data: bytes("01 02") },
    { tag: 300, data: new Uint8Array(0) },
  ];

  it("size = per field uvarint(tag) + uvarint(size) + size", () => {
    // tag 0: 1 + 1 + 2 = 4; tag 300: 2 (ac 02) + 1 + 0 = 3 -> 7
    expect(sizeUnknownTaggedFields(fields, [1, 2])).toBe(7);
    expect(sizeUnknownTaggedFields([], [])).toBe(0);
  });

  it("writes tag, size, data for every field", () => {
    const w = new Writer(new Uint8Array(7), 0, []);
    expect(w.unknownTaggedFields(fields, 0, Infinity)).toBe(2);
    // 00 | 02 | 01 02 ; 300 = ac 02 | 00 | (no data)
    expect(hex(w.buf)).toBe("00 02 01 02 ac 02 00");
  });

  it("interleaves with known tags: writes only tags below beforeTag and returns where it stopped", () => {
    const mixed: UnknownTaggedField[] = [
      { tag: 0, data: bytes("aa") },
      { tag: 5, data: bytes("bb") },
    ];
    const w = new Writer(new Uint8Array(9), 0, []);
    // unknown tags below the known tag 3
    const next = w.unknownTaggedFields(mixed, 0, 3);
    expect(next).toBe(1);
    // the known tag 3 with a 1-byte payload 07, as generated code would write it
    w.uvarint(3);
    w.uvarint(1);
    w.int8(7);
    expect(w.unknownTaggedFields(mixed, next, Infinity)).toBe(2);
    expect(w.pos).toBe(9);
    // 00 01 aa | 03 01 07 | 05 01 bb
    expect(hex(w.buf)).toBe("00 01 aa 03 01 07 05 01 bb");
  });

  it("a payload of 128 bytes gets a two-byte size (128 = 80 01)", () => {
    const f: UnknownTaggedField[] = [{ tag: 1, data: new Uint8Array(128) }];
    // 1 + 2 + 128
    expect(sizeUnknownTaggedFields(f, [])).toBe(131);
    const w = new Writer(new Uint8Array(131), 0, []);
    w.unknownTaggedFields(f, 0, Infinity);
    expect(hex(w.buf.subarray(0, 4))).toBe("01 80 01 00");
  });

  describe("order and shape checks -> INVALID_TAGGED_FIELDS (the generated caller adds the path)", () => {
    const d = bytes("00");
    const cases: Array<[string, unknown[], number[]]> = [
      [
        "descending tags 5, 2",
        [
          { tag: 5, data: d },
          { tag: 2, data: d },
        ],
        [],
      ],
      [
        "a repeated tag 2, 2",
        [
          { tag: 2, data: d },
          { tag: 2, data: d },
        ],
        [],
      ],
      ["a tag colliding with a known tag", [{ tag: 3, data: d }], [0, 3]],
      ["a negative tag", [{ tag: -1, data: d }], []],
      ["a fractional tag", [{ tag: 1.5, data: d }], []],
      ["a tag of 2^31", [{ tag: 2 ** 31, data: d }], []],
      ["a string tag", [{ tag: "1", data: d }], []],
      ["data that is not a Uint8Array", [{ tag: 1, data: [0] }], []],
      ["a null entry", [null], []],
    ];
    it.each(cases)("%s", (_name, list, known) => {
      const e = expectError(
        () => sizeUnknownTaggedFields(list as UnknownTaggedField[], known),
        KafkaEncodeError,
        "INVALID_TAGGED_FIELDS",
      );
      expect(e.path).toBe("");
    });

    it("accepts the largest tag 2^31-1 (uvarint ff ff ff ff 07, 5 bytes)", () => {
      // 5 + 1 + 1
      expect(sizeUnknownTaggedFields([{ tag: 2 ** 31 - 1, data: d }], [])).toBe(7);
    });

    it("a non-array -> INVALID_VALUE", () => {
      expectError(
        () => sizeUnknownTaggedFields({} as unknown as UnknownTaggedField[], []),
        KafkaEncodeError,
        "INVALID_VALUE",
      );
    });
  });

  it("reserveLen reserves a slot in lens and returns its index", () => {
    const lens = [5];
    expect(reserveLen(lens)).toBe(1);
    expect(lens).toEqual([5, 0]);
  });
});

describe("tagged fields on read", () => {
  it("reads a section the way generated code does: known tag 0 (int32), unknown tag 300", () => {
    // count 2 | tag 00 size 04 payload 00 00 01 00 (= 256) | tag ac 02 (300) size 02 payload be ef
    const input = bytes("02 00 04 00 00 01 00 ac 02 02 be ef");
    const r = new Reader(input);
    expect(r.uvarint()).toBe(2);

    expect(r.uvarint()).toBe(0);
    const end0 = r.taggedFieldEnd();
    expect(end0).toBe(7); // payload starts at 3, 4 bytes
    expect(r.int32()).toBe(256);
    r.endTaggedField(0, end0);

    const tag = r.uvarint();
    expect(tag).toBe(300);
    const end1 = r.taggedFieldEnd();
    const unknown = r.unknownTaggedField(tag, end1);
    expect(unknown.tag).toBe(300);
    expect(hex(unknown.data)).toBe("be ef");
    // a view, not a copy
    expect(unknown.data.buffer).toBe(input.buffer);
    expect(unknown.data.byteOffset).toBe(10);
    expect(r.pos).toBe(12);
    expect(r.remaining()).toBe(0);
  });

  it("a declared size beyond the remaining bytes -> INVALID_LENGTH at the size", () => {
    // tag 01 at 0, size 05 at 1, only 2 payload bytes
    const r = new Reader(bytes("01 05 aa bb"));
    r.uvarint();
    expectError(() => r.taggedFieldEnd(), KafkaDecodeError, "INVALID_LENGTH", 1);
  });

  it("a known field that reads less than its declared size -> TAGGED_FIELD_SIZE", () => {
    // tag 00, size 05, but the field is an int32 (4 bytes) followed by one extra byte
    const r = new Reader(bytes("00 05 00 00 00 01 ff"));
    r.uvarint();
    const end = r.taggedFieldEnd();
    expect(end).toBe(7);
    expect(r.int32()).toBe(1);
    const e = expectError(() => r.endTaggedField(0, end), KafkaDecodeError, "TAGGED_FIELD_SIZE", 6);
    expect(e.message).toContain("tagged field 0");
  });

  it("a known field that reads more than its declared size -> TAGGED_FIELD_SIZE", () => {
    // tag 00, size 02, but an int32 reads 4 bytes
    const r = new Reader(bytes("00 02 00 00 00 01"));
    r.uvarint();
    const end = r.taggedFieldEnd();
    r.int32();
    expectError(() => r.endTaggedField(0, end), KafkaDecodeError, "TAGGED_FIELD_SIZE", 6);
  });
});

describe("tag order on read (checkTagOrder)", () => {
  it("ascending tags pass; a repeated or descending tag -> INVALID_TAGGED_FIELDS at the given offset", () => {
    const r = new Reader(new Uint8Array(0));
    expect(() => r.checkTagOrder(0, -1, 0)).not.toThrow();
    expect(() => r.checkTagOrder(5, 2, 0)).not.toThrow();
    expectError(() => r.checkTagOrder(2, 2, 7), KafkaDecodeError, "INVALID_TAGGED_FIELDS", 7);
    expectError(() => r.checkTagOrder(1, 2, 9), KafkaDecodeError, "INVALID_TAGGED_FIELDS", 9);
  });

  it("lenientTaggedFields accepts them, as Kafka's reader does", () => {
    const r = new Reader(new Uint8Array(0), 0, 0, { lenientTaggedFields: true });
    expect(() => r.checkTagOrder(2, 2, 0)).not.toThrow();
    expect(() => r.checkTagOrder(1, 2, 0)).not.toThrow();
  });
});

describe("unknown tagged fields through a generated codec", () => {
  it("names _unknownTaggedFields once in the error path", async () => {
    const { StreamsGroupHeartbeatResponse } = await import("../../generated/index.js");
    const message = StreamsGroupHeartbeatResponse.create({
      _unknownTaggedFields: [
        { tag: 5, data: bytes("00") },
        { tag: 2, data: bytes("00") },
      ],
    });
    const e = expectError(
      () => StreamsGroupHeartbeatResponse.encode(message, 0),
      KafkaEncodeError,
      "INVALID_TAGGED_FIELDS",
    );
    expect(e.path).toBe("_unknownTaggedFields");
  });

  it("rejects a decoded tag above 2^31-1 (80 80 80 80 08 = 2^31), which no Kafka writer can produce", async () => {
    const { StreamsGroupMemberMetadataValue } = await import("../../generated/index.js");
    // StreamsGroupMemberMetadataValue v0 minimal body (golden "minimal" vector) with its top-level
    // tagged-field count 00 replaced by: count 01 | tag 80 80 80 80 08 | size 00.
    // 00 instanceId null | 00 rackId null | 01 clientId "" | 01 clientHost "" | 00000000 rebalanceTimeoutMs
    // 01 topologyId "" | 01 processId "" | 01 00000000 00 userEndpoint {host "", port 0, no tags} | 01 clientTags []
    // = 17 bytes (offsets 0..16), so the count is at 17 and the tag starts at offset 18.
    const body = bytes("00 00 01 01 00000000 01 01 01 00000000 00 01" + " 01 8080808008 00");
    const e = expectError(
      () => StreamsGroupMemberMetadataValue.decode(body, 0),
      KafkaDecodeError,
      "INVALID_TAGGED_FIELDS",
      18,
    );
    expect(e.message).toContain("above 2^31-1");
  });
});
