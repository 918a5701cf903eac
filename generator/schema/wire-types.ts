/**
 * What each schema type is on the wire, and which runtime operations read and write it: the one
 * place the loader, the emitters and `diff` take these facts from (Kafka protocol guide,
 * "Protocol Primitive Types"; KIP-482 for compact types and tagged fields).
 *
 * Adding a primitive type means adding a row to {@link PRIMITIVES} (and its runtime functions).
 */

import type { FieldSpec, FieldType, PrimitiveTypeName, StructSpec } from "./model.js";
import { Versions } from "./versions.js";

/** One primitive type: its encoding and the runtime operations for it. */
export interface PrimitiveWire {
  /** Encoded size in bytes; undefined for the length-prefixed types. */
  readonly fixedSize?: number;
  /**
   * Length-prefixed types: the runtime's name part (`sizeCompactNullableString`,
   * `w.compactBytes`, `r.nullableString`...) and the classic (non-flexible) prefix size: int16
   * for strings, int32 for bytes. In flexible versions the prefix is an unsigned varint length+1.
   */
  readonly lengthPrefix?: { readonly runtime: "String" | "Bytes"; readonly classicBytes: 2 | 4 };
  /** Whether the schema may make a field of this type nullable. */
  readonly nullable: boolean;
  /** The TypeScript type of a value. */
  readonly tsType: "boolean" | "number" | "bigint" | "string" | "Uint8Array";
  /** Integer types: the inclusive range. */
  readonly intRange?: readonly [bigint, bigint];
  /**
   * Integers of up to 32 bits: the value as a JavaScript expression over the big-endian bytes
   * `byte(0)`, `byte(1)`, …, which generated code reads inline in a run of fixed-size fields whose
   * bounds are already checked (a call per field there cost more than the read: V8 stops inlining
   * small methods once a large read function has used its inlining budget). The runtime's Reader
   * reads the same layout (`int32Unchecked` and so on).
   */
  readonly inlineRead?: (byte: (k: number) => string) => string;
  /**
   * Writer and Reader methods for a whole array of this type (one length check, one loop); arrays
   * of types with {@link inlineRead} are read by an inline loop instead (generated code of earlier
   * versions calls the Reader's `int16Array`/`int32Array`, which stay in codegen/v1).
   */
  readonly bulkWrite?: string;
  readonly bulkRead?: string;
  /** Kafka's JSON form: how a value is written (`String(x)`, a ternary, or a runtime function). */
  readonly toJson: "String" | "bool" | "jsonFloat64" | "jsonString" | "jsonBytes";
  /** Kafka's JSON form: the runtime function that reads a value. */
  readonly fromJson:
    | "readJsonBool"
    | "readJsonInt"
    | "readJsonInt64"
    | "readJsonFloat64"
    | "readJsonString"
    | "readJsonUuid"
    | "readJsonBytes";
}

const int = (bits: bigint, signed: boolean): readonly [bigint, bigint] =>
  signed ? [-(2n ** (bits - 1n)), 2n ** (bits - 1n) - 1n] : [0n, 2n ** bits - 1n];

/** Integers other than int64 go to and from JSON as numbers (int64: a bigint, see its row). */
const intJson = { toJson: "String", fromJson: "readJsonInt" } as const;

/** Every primitive of the schema language, in the order Kafka's documentation lists them. */
export const PRIMITIVES: Readonly<Record<PrimitiveTypeName, PrimitiveWire>> = {
  bool: { fixedSize: 1, nullable: false, tsType: "boolean", toJson: "bool", fromJson: "readJsonBool" },
  int8: {
    fixedSize: 1,
    nullable: false,
    tsType: "number",
    intRange: int(8n, true),
    inlineRead: (b) => `(${b(0)} << 24) >> 24`,
    ...intJson,
  },
  int16: {
    fixedSize: 2,
    nullable: false,
    tsType: "number",
    intRange: int(16n, true),
    inlineRead: (b) => `((${b(0)} << 24) >> 16) | ${b(1)}`,
    bulkWrite: "int16Array",
    ...intJson,
  },
  uint16: {
    fixedSize: 2,
    nullable: false,
    tsType: "number",
    intRange: int(16n, false),
    inlineRead: (b) => `(${b(0)} << 8) | ${b(1)}`,
    ...intJson,
  },
  int32: {
    fixedSize: 4,
    nullable: false,
    tsType: "number",
    intRange: int(32n, true),
    inlineRead: (b) => `(${b(0)} << 24) | (${b(1)} << 16) | (${b(2)} << 8) | ${b(3)}`,
    bulkWrite: "int32Array",
    ...intJson,
  },
  uint32: {
    fixedSize: 4,
    nullable: false,
    tsType: "number",
    intRange: int(32n, false),
    inlineRead: (b) => `((${b(0)} << 24) | (${b(1)} << 16) | (${b(2)} << 8) | ${b(3)}) >>> 0`,
    ...intJson,
  },
  int64: {
    fixedSize: 8,
    nullable: false,
    tsType: "bigint",
    intRange: int(64n, true),
    // Written one by one: each value is a bigint to check.
    bulkRead: "int64Array",
    toJson: "String",
    fromJson: "readJsonInt64",
  },
  float64: { fixedSize: 8, nullable: false, tsType: "number", toJson: "jsonFloat64", fromJson: "readJsonFloat64" },
  string: {
    lengthPrefix: { runtime: "String", classicBytes: 2 },
    nullable: true,
    tsType: "string",
    toJson: "jsonString",
    fromJson: "readJsonString",
  },
  bytes: {
    lengthPrefix: { runtime: "Bytes", classicBytes: 4 },
    nullable: true,
    tsType: "Uint8Array",
    toJson: "jsonBytes",
    fromJson: "readJsonBytes",
  },
  records: {
    lengthPrefix: { runtime: "Bytes", classicBytes: 4 },
    nullable: true,
    tsType: "Uint8Array",
    toJson: "jsonBytes",
    fromJson: "readJsonBytes",
  },
  uuid: { fixedSize: 16, nullable: false, tsType: "string", toJson: "jsonString", fromJson: "readJsonUuid" },
};

/** The primitive type names, in table order. */
export const PRIMITIVE_NAMES = Object.keys(PRIMITIVES) as readonly PrimitiveTypeName[];

// ---------------------------------------------------------------------------------------------
// Types

/** The encoded size of a value of `type` when it is the same in every version; undefined otherwise. */
export function fixedSizeOf(type: FieldType): number | undefined {
  return type.kind === "primitive" ? PRIMITIVES[type.name].fixedSize : undefined;
}

/**
 * Whether a value's bytes differ between flexible and non-flexible versions at this level
 * (compact lengths: strings, bytes, records, arrays); a struct's own function makes that choice
 * for its fields.
 */
export function encodingDependsOnFlexible(type: FieldType): boolean {
  return type.kind === "array" || (type.kind === "primitive" && PRIMITIVES[type.name].lengthPrefix !== undefined);
}

/** The struct a field holds, directly or as array elements; null for primitives. */
export function structOf(type: FieldType): StructSpec | null {
  if (type.kind === "struct") return type.struct;
  if (type.kind === "array" && type.element.kind === "struct") return type.element.struct;
  return null;
}

/** The type as the schema writes it: `int32`, `[]string`, `Topology`, `[]Subtopology`. */
export function schemaTypeName(type: FieldType): string {
  if (type.kind === "primitive") return type.name;
  if (type.kind === "struct") return type.struct.name;
  return `[]${schemaTypeName(type.element)}`;
}

/** The TypeScript type of a value of `type` (`number`, `Topology`, `string[]`). */
export function tsTypeOf(type: FieldType): string {
  if (type.kind === "primitive") return PRIMITIVES[type.name].tsType;
  if (type.kind === "struct") return type.struct.name;
  return `${tsTypeOf(type.element)}[]`;
}

/** The TypeScript type of a field's property: `| null` when some version allows null. */
export function tsFieldType(field: FieldSpec): string {
  const base = tsTypeOf(field.type);
  // A null default counts too: a field outside every valid version keeps its "null" default.
  return !field.nullableVersions.isEmpty() || field.default.kind === "null" ? `${base} | null` : base;
}

// ---------------------------------------------------------------------------------------------
// Fields, by version

/** The versions in which a field's length prefixes are compact: its own override, or the message's. */
export function flexibleVersionsOf(field: FieldSpec, messageFlexible: Versions): Versions {
  return field.flexibleVersions ?? messageFlexible;
}

/** Versions in which a field is written as an ordinary (not tagged) field. */
export function regularVersions(field: FieldSpec): Versions {
  // taggedVersions is open-ended (Kafka requires "N+"), so the ordinary versions precede it.
  return field.versions.subtract(field.taggedVersions)[0] ?? Versions.NONE;
}

/** Whether the field is written as a tagged field in `version`. */
export function isTaggedIn(field: FieldSpec, version: number): boolean {
  return field.tag !== null && field.taggedVersions.contains(version);
}

/** Whether the field's length prefix is a compact unsigned varint in `version`. */
export function isCompactIn(field: FieldSpec, messageFlexible: Versions, version: number): boolean {
  return encodingDependsOnFlexible(field.type) && flexibleVersionsOf(field, messageFlexible).contains(version);
}

/** What one field is on the wire in one version. */
export interface FieldWire {
  /** The field exists in this version. */
  readonly present: boolean;
  /** Written in the tagged-field section (so only when it differs from its default). */
  readonly tagged: boolean;
  readonly nullable: boolean;
  /** Compact (unsigned varint) length prefix rather than the classic int16/int32 one. */
  readonly compact: boolean;
  /** Encoded size when it does not depend on the value. */
  readonly fixedSize: number | undefined;
}

/** A field's wire facts in `version` of a message whose flexible versions are `messageFlexible`. */
export function fieldWireAt(field: FieldSpec, messageFlexible: Versions, version: number): FieldWire {
  return {
    present: field.versions.contains(version),
    tagged: isTaggedIn(field, version),
    nullable: field.nullableVersions.contains(version),
    compact: isCompactIn(field, messageFlexible, version),
    fixedSize: fixedSizeOf(field.type),
  };
}

/**
 * Fewest bytes an ordinary field can take in `version`: its fixed size, the shortest length
 * prefix, or a nullable struct's presence byte. Used to bound element counts before allocating.
 */
export function minFieldSize(field: FieldSpec, messageFlexible: Versions, version: number): number {
  const t = field.type;
  const compact = isCompactIn(field, messageFlexible, version);
  if (t.kind === "primitive")
    return PRIMITIVES[t.name].fixedSize ?? (compact ? 1 : PRIMITIVES[t.name].lengthPrefix!.classicBytes);
  if (t.kind === "array") return compact ? 1 : 4;
  return field.nullableVersions.contains(version) ? 1 : minStructSize(t.struct, messageFlexible, Versions.of(version));
}

/** Fewest bytes one `struct` can take in any version of `ctx` (0 for an empty context). */
export function minStructSize(struct: StructSpec, messageFlexible: Versions, ctx: Versions): number {
  let min = Infinity;
  for (let v = ctx.lowest; v <= ctx.highest; v++) {
    // The tagged-field section's count: at least one byte.
    let size = messageFlexible.contains(v) ? 1 : 0;
    for (const f of struct.fields) {
      if (regularVersions(f).contains(v)) size += minFieldSize(f, messageFlexible, v);
    }
    min = Math.min(min, size);
  }
  return min === Infinity ? 0 : min;
}

/** Fewest bytes one element of an array of `type` can take in `ctx` (1 for non-arrays). */
export function minElementSize(type: FieldType, messageFlexible: Versions, ctx: Versions): number {
  if (type.kind !== "array") return 1;
  const e = type.element;
  if (e.kind === "primitive") return PRIMITIVES[e.name].fixedSize ?? 1;
  // An element that can take 0 bytes would let a huge count through; 1 is always a safe bound
  // for the structs Kafka defines, which all have at least one field.
  return Math.max(1, minStructSize(e.struct, messageFlexible, ctx));
}

// ---------------------------------------------------------------------------------------------
// Runtime operations

/** What the runtime calls to measure, write and read one primitive value in one encoding. */
export interface PrimitiveOps {
  /**
   * A constant size, or the runtime function that measures a value; a string's also records
   * its UTF-8 length in `lens` for the write pass.
   */
  readonly size: number | { readonly fn: string; readonly lens: boolean };
  /** The Writer method (`w.<write>(x)`). */
  readonly write: string;
  /** The Reader method (`r.<read>()`). */
  readonly read: string;
  /** Fixed-size types: the Reader method without a bounds check, for runs already checked as a whole. */
  readonly readUnchecked?: string;
}

/** The runtime operations for a primitive, compact or classic, nullable or not. */
export function primitiveOps(name: PrimitiveTypeName, compact: boolean, nullable: boolean): PrimitiveOps {
  const row = PRIMITIVES[name];
  if (row.lengthPrefix === undefined) {
    return { size: row.fixedSize!, write: name, read: name, readUnchecked: `${name}Unchecked` };
  }
  // The runtime's naming: sizeCompactNullableString / w.compactNullableString / r.compactNullableString.
  const variant = `${compact ? "Compact" : ""}${nullable ? "Nullable" : ""}${row.lengthPrefix.runtime}`;
  const method = variant[0]!.toLowerCase() + variant.slice(1);
  return { size: { fn: `size${variant}`, lens: row.lengthPrefix.runtime === "String" }, write: method, read: method };
}
