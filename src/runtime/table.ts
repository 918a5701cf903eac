/**
 * Field tables: a message's schema as data, emitted by the generator next to each codec
 * (`export const <Name>$fields` in the generated module), for interpreters that walk a message
 * field by field (decoding with byte spans, Kafka's JSON form) instead of running generated
 * functions. The rows say what the schema says, with Kafka's version syntax; {@link compileTable}
 * turns them into per-version plans once.
 *
 * The format only grows: new keys in {@link FieldOptions} or {@link MessageTable}, never a
 * changed position or meaning.
 */

import { ZERO_UUID } from "./base64.js";
import { KafkaDecodeError } from "./errors.js";
import type { PrimitiveTypeName } from "./wire.js";

/**
 * A primitive of the schema language. A field's type in a table is one of these, a struct (its
 * name, a key of {@link MessageTable.structs}), or an array of either (`[]int32`, `[]Topic`),
 * written exactly as the schema writes the type.
 */
export type PrimitiveName = PrimitiveTypeName;

/**
 * A field's default where it is not its type's zero value: null (the schema's `"null"`),
 * a boolean, an integer (a bigint for int64), a float64 (NaN and -0 included), a string or a
 * uuid (Kafka's 22-character base64). Zero values are left out of the table: 0, 0n, false, `""`,
 * the zero uuid, empty bytes, records and arrays, and a struct of its own defaults.
 */
export type TableDefault = null | boolean | number | bigint | string;

/** The rarer facts of a field; a key is present only when it differs from what is said here. */
export interface FieldOptions {
  /** Versions in which null is allowed (Kafka's syntax); absent: never nullable. */
  readonly nullable?: string;
  /** The tag of a tagged field (0..2^31-1); absent: not tagged in any version. */
  readonly tag?: number;
  /** Versions in which the field is tagged (open-ended, `"N+"`); present exactly when `tag` is. */
  readonly tagged?: string;
  /**
   * The field's own `flexibleVersions` (e.g. RequestHeader's ClientId: `"none"`, an int16
   * length in every version); absent: the message's.
   */
  readonly flexible?: string;
  /** The default when not the zero value (see {@link TableDefault}); test with `"default" in options`, it may be null. */
  readonly default?: TableDefault;
  /** Kafka's `ignorable`: a non-default value in a version without the field is dropped, not refused. */
  readonly ignorable?: true;
  /** Kafka's `entityType` (`topicName`, `groupId`, `brokerId`, ...). */
  readonly entityType?: string;
  /** Kafka's `mapKey`: the field is the key of its struct in a map-like array. */
  readonly mapKey?: true;
  /** Kafka's `zeroCopy` (bytes fields). */
  readonly zeroCopy?: true;
}

/**
 * One field, in schema order: `[property, type, versions, options?]`.
 * - `property`: the TypeScript property and Kafka's JSON key (the schema name with only its first
 *   letter lower-cased, as Kafka's JsonConverter has it: `throttleTimeMs`);
 * - `type`: exactly as the schema writes it: a primitive (`bool`, `int8`, `int16`, `uint16`,
 *   `int32`, `uint32`, `int64`, `float64`, `string`, `bytes`, `records`, `uuid`), a struct (a key
 *   of {@link MessageTable.structs}), or `[]` and either (`"[]string"`, `"Topology"`, `"[]TaskIds"`);
 * - `versions`: the versions in which the field exists, within the message's valid versions
 *   (`"0+"`, `"3-5"`, `"2"`, `"none"`);
 * - `options`: see {@link FieldOptions}, absent when every option is at its default.
 */
export type FieldRow = readonly [property: string, type: string, versions: string, options?: FieldOptions];

/** A message's field table (`<Name>$fields` in its generated module). */
export interface MessageTable {
  /** The schema's name; also the key of the top-level struct in {@link structs}. */
  readonly name: string;
  /** The schema's `validVersions`. */
  readonly validVersions: string;
  /** The schema's `flexibleVersions` (compact lengths and tagged-field sections, KIP-482). */
  readonly flexibleVersions: string;
  /** Every struct's fields by struct name: the message's own first, then in definition order. */
  readonly structs: Readonly<Record<string, readonly FieldRow[]>>;
}

/** An inclusive version range; `lowest > highest` for none. */
export interface TableVersions {
  readonly lowest: number;
  readonly highest: number;
}

const NO_VERSIONS: TableVersions = { lowest: 0, highest: -1 };

/**
 * Kafka's version syntax as the table writes it: `"none"`, `"N"`, `"N-M"`, `"N+"` (to 32767).
 * @throws KafkaDecodeError `INVALID_VALUE` for other text (a table not made by the generator).
 */
export function parseTableVersions(text: string): TableVersions {
  if (text === "none") return NO_VERSIONS;
  const m = /^(\d+)(?:(\+)|-(\d+))?$/.exec(text);
  if (m === null)
    throw new KafkaDecodeError("INVALID_VALUE", `invalid versions ${JSON.stringify(text)} in a field table`, -1);
  const lowest = Number(m[1]);
  return { lowest, highest: m[2] !== undefined ? 0x7fff : m[3] !== undefined ? Number(m[3]) : lowest };
}

function inVersions(range: TableVersions, version: number): boolean {
  return version >= range.lowest && version <= range.highest;
}

/** What one field is in one version (see {@link compileTable}). */
export interface PlannedField {
  /** The property name. */
  readonly name: string;
  /** The type as written in the table. */
  readonly type: string;
  /** For arrays: the element type; null otherwise. */
  readonly element: string | null;
  /** The primitive (of the field, or of an array's elements); null for structs. */
  readonly primitive: PrimitiveName | null;
  /** The struct (of the field, or of an array's elements); null for primitives. */
  readonly struct: PlannedStruct | null;
  readonly nullable: boolean;
  /** Compact (unsigned varint) lengths rather than int16/int32 ones. */
  readonly compact: boolean;
  /** The tag when the field is tagged in this version; null otherwise. */
  readonly tag: number | null;
  /** The table's row options (defaults, entity type, ...). */
  readonly options: FieldOptions;
}

/** One struct in one version: its fields that exist there, ordinary ones in wire order. */
export interface PlannedStruct {
  readonly name: string;
  /** Every field of the struct in schema order (present or not): the order of a decoded object's keys. */
  readonly fields: readonly PlannedField[];
  /** Fields written in order (neither absent nor tagged in this version). */
  readonly regular: readonly PlannedField[];
  /** Tagged fields of this version, by tag. */
  readonly tagged: ReadonlyMap<number, PlannedField>;
  /** Fields absent in this version, or tagged: they take their defaults unless a tag sets them. */
  readonly defaulted: readonly PlannedField[];
  /** Whether the struct ends with a tagged-field section in this version. */
  readonly flexible: boolean;
  /**
   * Every tag the struct's fields have in any version: a known tag in a version where its field is
   * not tagged is an error (as Kafka's reader), not an unknown tagged field.
   */
  readonly knownTags: ReadonlySet<number>;
}

const PRIMITIVES: ReadonlySet<string> = new Set<PrimitiveName>([
  "bool",
  "int8",
  "int16",
  "uint16",
  "int32",
  "uint32",
  "int64",
  "float64",
  "string",
  "bytes",
  "records",
  "uuid",
]);

/** Whether `type` (as written in a table) is a primitive. */
export function isPrimitiveName(type: string): type is PrimitiveName {
  return PRIMITIVES.has(type);
}

const plans = new WeakMap<MessageTable, Map<number, PlannedStruct>>();

/**
 * The top-level struct of `table` as it is in `version`, every struct it reaches planned too
 * (cached per table and version: the table is read once).
 * @throws KafkaDecodeError `UNSUPPORTED_VERSION` outside the table's valid versions;
 *   `INVALID_VALUE` for a table that names a struct it does not have.
 */
export function compileTable(table: MessageTable, version: number): PlannedStruct {
  const valid = parseTableVersions(table.validVersions);
  if (!Number.isInteger(version) || !inVersions(valid, version)) {
    throw new KafkaDecodeError(
      "UNSUPPORTED_VERSION",
      `${table.name} has no version ${String(version)} (valid versions ${table.validVersions})`,
      -1,
    );
  }
  let byVersion = plans.get(table);
  if (byVersion === undefined) plans.set(table, (byVersion = new Map()));
  const known = byVersion.get(version);
  if (known !== undefined) return known;
  const flexible = inVersions(parseTableVersions(table.flexibleVersions), version);
  const structs = new Map<string, PlannedStruct>();
  const plan = (name: string): PlannedStruct => {
    const done = structs.get(name);
    if (done !== undefined) return done;
    const rows = Object.hasOwn(table.structs, name) ? table.structs[name] : undefined;
    if (rows === undefined) {
      throw new KafkaDecodeError("INVALID_VALUE", `the field table of ${table.name} has no struct ${name}`, -1);
    }
    const fields: PlannedField[] = [];
    const regular: PlannedField[] = [];
    const tagged = new Map<number, PlannedField>();
    const defaulted: PlannedField[] = [];
    const knownTags = new Set<number>();
    const struct: PlannedStruct = { name, fields, regular, tagged, defaulted, flexible, knownTags };
    structs.set(name, struct); // before its fields: Kafka's structs never contain themselves, but a table could
    for (const [property, type, versions, options = {}] of rows) {
      const element = type.startsWith("[]") ? type.slice(2) : null;
      const base = element ?? type;
      const primitive = isPrimitiveName(base) ? base : null;
      const present = inVersions(parseTableVersions(versions), version);
      const isTagged =
        options.tag !== undefined &&
        options.tagged !== undefined &&
        inVersions(parseTableVersions(options.tagged), version);
      const fieldFlexible =
        options.flexible === undefined ? flexible : inVersions(parseTableVersions(options.flexible), version);
      const field: PlannedField = {
        name: property,
        type,
        element,
        primitive,
        // Planned only where the field is read: a struct type of an absent field is never walked.
        struct: primitive === null && present ? plan(base) : null,
        nullable: options.nullable !== undefined && inVersions(parseTableVersions(options.nullable), version),
        compact: fieldFlexible,
        tag: isTagged ? options.tag! : null,
        options,
      };
      fields.push(field);
      if (options.tag !== undefined) knownTags.add(options.tag);
      if (!present) defaulted.push(field);
      else if (isTagged) {
        tagged.set(options.tag!, field);
        defaulted.push(field);
      } else regular.push(field);
    }
    return struct;
  };
  const root = plan(table.name);
  byVersion.set(version, root);
  return root;
}

/**
 * The zero value of a primitive, a field's default when its schema gives none (Kafka's
 * generator: false, 0, 0n, "", the zero uuid, empty bytes). New bytes each time.
 */
export function zeroOf(primitive: PrimitiveName): unknown {
  switch (primitive) {
    case "bool":
      return false;
    case "int64":
      return 0n;
    case "string":
      return "";
    case "uuid":
      return ZERO_UUID;
    case "bytes":
    case "records":
      return new Uint8Array(0);
    default:
      return 0;
  }
}
