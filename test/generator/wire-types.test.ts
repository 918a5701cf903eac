/**
 * Wire facts per type, field and version, against values worked out by hand from the Kafka
 * protocol guide ("Protocol Primitive Types") and KIP-482 (compact types, tagged fields).
 */

import { describe, expect, it } from "vitest";
import { loadSchema } from "../../generator/schema/load.js";
import type { FieldSpec, StructSpec } from "../../generator/schema/model.js";
import { Versions } from "../../generator/schema/versions.js";
import {
  PRIMITIVES,
  PRIMITIVE_NAMES,
  encodingDependsOnFlexible,
  fieldWireAt,
  fixedSizeOf,
  minElementSize,
  minFieldSize,
  minStructSize,
  regularVersions,
  schemaTypeName,
  tsFieldType,
} from "../../generator/schema/wire-types.js";

// Versions 0-3, flexible from 2. Client overrides flexibleVersions to "none" (as RequestHeader's
// ClientId does); Later is an ordinary field in version 1 and a tagged one from version 2.
const spec = loadSchema(
  `{
  "apiKey": 1000, "type": "request", "name": "TestRequest", "validVersions": "0-3", "flexibleVersions": "2+",
  "fields": [
    { "name": "Id", "type": "int32", "versions": "0+" },
    { "name": "Name", "type": "string", "versions": "0+", "nullableVersions": "1+" },
    { "name": "Client", "type": "string", "versions": "0+", "flexibleVersions": "none" },
    { "name": "Items", "type": "[]Item", "versions": "1+", "fields": [
      { "name": "P", "type": "int16", "versions": "1+" },
      { "name": "Data", "type": "bytes", "versions": "1+" }
    ]},
    { "name": "Extra", "type": "Extra", "versions": "3+", "nullableVersions": "3+", "default": "null",
      "taggedVersions": "3+", "tag": 0, "fields": [{ "name": "X", "type": "int64", "versions": "3+" }] },
    { "name": "Later", "type": "uuid", "versions": "1+", "taggedVersions": "2+", "tag": 1 }
  ]
}`,
  "inline/TestRequest.json",
);
const flexible = spec.flexibleVersions;
const field = (name: string): FieldSpec => spec.struct.fields.find((f) => f.name === name)!;
const struct = (name: string): StructSpec => spec.structs.find((s) => s.name === name)!;

describe("primitives", () => {
  it("fixed sizes are the protocol guide's", () => {
    const sizes = Object.fromEntries(PRIMITIVE_NAMES.map((n) => [n, PRIMITIVES[n].fixedSize ?? "prefixed"]));
    expect(sizes).toEqual({
      bool: 1,
      int8: 1,
      int16: 2,
      uint16: 2,
      int32: 4,
      uint32: 4,
      int64: 8,
      float64: 8,
      string: "prefixed",
      bytes: "prefixed",
      records: "prefixed",
      uuid: 16,
    });
  });

  it("classic length prefixes: int16 for strings, int32 for bytes and records", () => {
    expect(PRIMITIVES.string.lengthPrefix?.classicBytes).toBe(2);
    expect(PRIMITIVES.bytes.lengthPrefix?.classicBytes).toBe(4);
    expect(PRIMITIVES.records.lengthPrefix?.classicBytes).toBe(4);
  });

  it("integer ranges", () => {
    expect(PRIMITIVES.int8.intRange).toEqual([-128n, 127n]);
    expect(PRIMITIVES.uint16.intRange).toEqual([0n, 65535n]);
    expect(PRIMITIVES.int32.intRange).toEqual([-2147483648n, 2147483647n]);
    expect(PRIMITIVES.uint32.intRange).toEqual([0n, 4294967295n]);
    expect(PRIMITIVES.int64.intRange).toEqual([-9223372036854775808n, 9223372036854775807n]);
    expect(PRIMITIVES.float64.intRange).toBeUndefined();
  });

  it("only strings, bytes and records may be nullable", () => {
    expect(PRIMITIVE_NAMES.filter((n) => PRIMITIVES[n].nullable)).toEqual(["string", "bytes", "records"]);
  });
});

describe("types", () => {
  it("encoding depends on flexibility for length-prefixed values and arrays only", () => {
    expect(encodingDependsOnFlexible(field("Id").type)).toBe(false);
    expect(encodingDependsOnFlexible(field("Name").type)).toBe(true);
    expect(encodingDependsOnFlexible(field("Items").type)).toBe(true);
    // A struct's own function decides for its fields; its presence byte never changes.
    expect(encodingDependsOnFlexible(field("Extra").type)).toBe(false);
    expect(encodingDependsOnFlexible(field("Later").type)).toBe(false);
  });

  it("labels", () => {
    expect(fixedSizeOf(field("Later").type)).toBe(16);
    expect(fixedSizeOf(field("Items").type)).toBeUndefined();
    expect(schemaTypeName(field("Items").type)).toBe("[]Item");
    expect(schemaTypeName(field("Extra").type)).toBe("Extra");
    expect(tsFieldType(field("Id"))).toBe("number");
    expect(tsFieldType(field("Name"))).toBe("string | null");
    expect(tsFieldType(field("Items"))).toBe("Item[]");
    expect(tsFieldType(field("Extra"))).toBe("Extra | null");
    expect(tsFieldType(struct("Extra").fields[0]!)).toBe("bigint");
  });
});

describe("fields by version", () => {
  it("regular versions end where tagged versions start", () => {
    expect(regularVersions(field("Id")).toString()).toBe("0-3");
    expect(regularVersions(field("Later")).toString()).toBe("1");
    expect(regularVersions(field("Extra")).isEmpty()).toBe(true);
  });

  it.each([
    // field, version, present, tagged, nullable, compact
    ["Name", 0, true, false, false, false],
    ["Name", 1, true, false, true, false],
    ["Name", 2, true, false, true, true],
    ["Client", 3, true, false, false, false], // its own flexibleVersions "none"
    ["Id", 3, true, false, false, false], // fixed-size: never compact
    ["Items", 0, false, false, false, false],
    ["Items", 1, true, false, false, false],
    ["Items", 2, true, false, false, true],
    ["Later", 1, true, false, false, false],
    ["Later", 2, true, true, false, false],
    ["Extra", 3, true, true, true, false],
  ] as const)("%s in version %i", (name, version, present, tagged, nullable, compact) => {
    expect(fieldWireAt(field(name), flexible, version)).toMatchObject({ present, tagged, nullable, compact });
  });

  it("minimum sizes", () => {
    // Item v1: P int16 (2) + Data with a classic int32 length (4).
    expect(minStructSize(struct("Item"), flexible, Versions.of(1))).toBe(6);
    // Item v2: a tagged-field count (1) + P (2) + Data with a compact length (1).
    expect(minStructSize(struct("Item"), flexible, Versions.of(2))).toBe(4);
    expect(minStructSize(struct("Item"), flexible, Versions.of(1, 3))).toBe(4);
    expect(minElementSize(field("Items").type, flexible, Versions.of(1, 3))).toBe(4);
    // v0: Id (4) + Name, int16 length (2) + Client, int16 length (2).
    expect(minStructSize(spec.struct, flexible, Versions.of(0))).toBe(8);
    // v1: + Items, int32 count (4) + Later, an ordinary uuid here (16).
    expect(minStructSize(spec.struct, flexible, Versions.of(1))).toBe(28);
    // v2: count (1) + Id (4) + Name compact (1) + Client still int16 (2) + Items compact (1).
    expect(minStructSize(spec.struct, flexible, Versions.of(2))).toBe(9);
    expect(minStructSize(spec.struct, flexible, Versions.of(0, 3))).toBe(8);
    expect(minFieldSize(field("Client"), flexible, 3)).toBe(2);
    expect(minFieldSize(field("Name"), flexible, 3)).toBe(1);
    // A nullable struct: its presence byte.
    expect(minFieldSize(field("Extra"), flexible, 3)).toBe(1);
  });
});
