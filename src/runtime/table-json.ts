/**
 * Kafka's JSON form (its generated `JsonConverter`s) driven by a message's field table
 * (table.ts), as protobuf-es keeps JSON in its runtime: the cold path of a codec, so generated
 * modules carry a table instead of a `toJson`/`fromJson` function per struct. Keys are the
 * property names; int64 are JSON numbers written exactly; bytes are base64. Error paths and
 * messages are those the generated functions gave: each struct adds the field (and array index)
 * it was at to an error from inside it ({@link withPath}).
 */

import { fieldNotInVersion, withPath } from "./errors.js";
import {
  checkJsonKeys,
  jsonBytes,
  jsonField,
  jsonFloat64,
  jsonNullableString,
  jsonString,
  missingJsonField,
  readJsonArray,
  readJsonBool,
  readJsonBytes,
  readJsonFloat64,
  readJsonInt,
  readJsonInt64,
  readJsonObject,
  readJsonString,
  readJsonUuid,
} from "./json.js";
import {
  isPrimitiveName,
  parseTableVersions,
  type MessageTable,
  type PrimitiveName,
  type TableVersions,
  zeroOf,
} from "./table.js";
import { ownUnknownTaggedFields } from "./writer.js";

/** A field as the JSON interpreter needs it, independent of the version. */
export interface JsonField {
  readonly name: string;
  /** The primitive of the field or of its elements; null for structs. */
  readonly primitive: PrimitiveName | null;
  /** The struct of the field or of its elements; null for primitives. */
  readonly struct: string | null;
  readonly array: boolean;
  readonly versions: TableVersions;
  /** Versions in which the field is tagged; none when it never is. */
  readonly tagged: TableVersions;
  /** Nullable in some version: JSON null reads as null in every version (as Kafka's reader). */
  readonly nullableAnywhere: boolean;
  readonly ignorable: boolean;
  /** A new default value (the schema's, else the type's zero value; a struct of its defaults). */
  readonly fresh: () => unknown;
  /** Whether a value equals the default (Kafka's semantics; undefined, a missing field, never does). */
  readonly isDefault: (x: unknown) => boolean;
}

export interface JsonStruct {
  readonly name: string;
  readonly fields: readonly JsonField[];
  readonly keys: readonly string[];
  /** Whether the struct has a tagged-field section in a version its message reaches it in. */
  readonly taggedSection: boolean;
  /** Whether its values keep unknown tagged fields: it has a section, or it is reached in no version. */
  readonly keepsUnknown: boolean;
}

const NONE: TableVersions = { lowest: 0, highest: -1 };

const INT_RANGES: Partial<Record<PrimitiveName, readonly [number, number]>> = {
  int8: [-128, 127],
  int16: [-32768, 32767],
  uint16: [0, 65535],
  int32: [-2147483648, 2147483647],
  uint32: [0, 4294967295],
};

function within(range: TableVersions, version: number): boolean {
  return version >= range.lowest && version <= range.highest;
}

const compiled = new WeakMap<MessageTable, Map<string, JsonStruct>>();

/**
 * The versions each struct is reached in, merged as the generator merges them (the hull of the
 * ranges its fields are used in): a struct has a tagged-field section when that meets the
 * flexible versions, and keeps unknown tagged fields when it is reached in none.
 */
function reachedVersions(table: MessageTable): Map<string, TableVersions> {
  const reached = new Map<string, TableVersions>();
  const visit = (name: string, range: TableVersions): void => {
    const known = reached.get(name);
    const merged =
      known === undefined
        ? range
        : { lowest: Math.min(known.lowest, range.lowest), highest: Math.max(known.highest, range.highest) };
    if (known !== undefined && known.lowest === merged.lowest && known.highest === merged.highest) return;
    reached.set(name, merged);
    for (const [, type, versions] of table.structs[name] ?? []) {
      const base = type.startsWith("[]") ? type.slice(2) : type;
      if (isPrimitiveName(base)) continue;
      const v = parseTableVersions(versions);
      const lowest = Math.max(v.lowest, merged.lowest);
      const highest = Math.min(v.highest, merged.highest);
      if (lowest <= highest) visit(base, { lowest, highest });
    }
  };
  visit(table.name, parseTableVersions(table.validVersions));
  return reached;
}

/** The table's structs as the interpreters use them (compiled once per table). */
export function structsOf(table: MessageTable): Map<string, JsonStruct> {
  let structs = compiled.get(table);
  if (structs !== undefined) return structs;
  structs = new Map();
  const reached = reachedVersions(table);
  const flexible = parseTableVersions(table.flexibleVersions);
  const get = (name: string): JsonStruct => structs!.get(name)!;
  for (const [name, rows] of Object.entries(table.structs)) {
    const ctx = reached.get(name);
    const taggedSection =
      ctx !== undefined && Math.max(ctx.lowest, flexible.lowest) <= Math.min(ctx.highest, flexible.highest);
    const fields = rows.map(([property, type, versions, options = {}]): JsonField => {
      const array = type.startsWith("[]");
      const base = array ? type.slice(2) : type;
      const primitive = isPrimitiveName(base) ? base : null;
      const struct = primitive === null ? base : null;
      const nullableAnywhere = options.nullable !== undefined && options.nullable !== "none";
      const hasDefault = "default" in options;
      const d = options.default;
      let fresh: () => unknown;
      let isDefault: (x: unknown) => boolean;
      if (hasDefault && d === null) {
        fresh = () => null;
        isDefault = (x) => x === null;
      } else if (array || (!hasDefault && (primitive === "bytes" || primitive === "records"))) {
        fresh = array ? () => [] : () => new Uint8Array(0);
        isDefault = nullableAnywhere
          ? (x) => x != null && (x as { length: number }).length === 0
          : (x) => x !== undefined && (x as { length: number }).length === 0;
      } else if (struct !== null) {
        fresh = () => createDefault(get(struct));
        isDefault = nullableAnywhere
          ? (x) => x !== null && structIsDefault(get(struct), x)
          : (x) => structIsDefault(get(struct), x);
      } else {
        const value = hasDefault ? d : zeroOf(primitive!);
        fresh = () => value;
        isDefault = typeof value === "number" && Number.isNaN(value) ? (x) => Number.isNaN(x) : (x) => x === value;
      }
      return {
        name: property,
        primitive,
        struct,
        array,
        versions: parseTableVersions(versions),
        tagged: options.tagged === undefined ? NONE : parseTableVersions(options.tagged),
        nullableAnywhere,
        ignorable: options.ignorable === true,
        fresh,
        isDefault,
      };
    });
    const keepsUnknown = taggedSection || ctx === undefined;
    structs.set(name, { name, fields, keys: fields.map((f) => f.name), taggedSection, keepsUnknown });
  }
  compiled.set(table, structs);
  return structs;
}

/** A struct with every field at its default (a generated `createX()`). */
function createDefault(struct: JsonStruct): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (const f of struct.fields) o[f.name] = f.fresh();
  return o;
}

/** Kafka's `equals(new X())`: every field at its default, and no unknown tagged fields. */
function structIsDefault(struct: JsonStruct, v: unknown): boolean {
  if (v === undefined) return false;
  const o = v as Record<string, unknown>;
  for (const f of struct.fields) if (!f.isDefault(o[f.name])) return false;
  return !struct.taggedSection || (ownUnknownTaggedFields(o)?.length ?? 0) === 0;
}

function primitiveToJson(primitive: PrimitiveName, x: unknown, nullable: boolean): string {
  switch (primitive) {
    case "bool":
      return x ? "true" : "false";
    case "float64":
      return jsonFloat64(x as number);
    case "string":
    case "uuid":
      return nullable ? jsonNullableString(x as string | null) : jsonString(x as string);
    case "bytes":
    case "records":
      return jsonBytes(x as Uint8Array);
    default:
      return String(x);
  }
}

function primitiveFromJson(primitive: PrimitiveName, j: unknown): unknown {
  switch (primitive) {
    case "bool":
      return readJsonBool(j);
    case "int64":
      return readJsonInt64(j);
    case "float64":
      return readJsonFloat64(j);
    case "string":
      return readJsonString(j);
    case "bytes":
    case "records":
      return readJsonBytes(j);
    case "uuid":
      return readJsonUuid(j);
    default: {
      const [min, max] = INT_RANGES[primitive]!;
      return readJsonInt(j, primitive, min, max);
    }
  }
}

function structToJson(
  structs: Map<string, JsonStruct>,
  struct: JsonStruct,
  v: Record<string, unknown>,
  version: number,
): string {
  let f = "";
  let i = -1;
  try {
    let out = "";
    for (const field of struct.fields) {
      const x = v[field.name];
      f = field.name;
      if (!within(field.versions, version)) {
        // In versions without the field a non-default value is an error unless it is ignorable.
        if (!field.ignorable && (x === undefined || !field.isDefault(x)))
          throw fieldNotInVersion(field.name, version, x);
        continue;
      }
      // A tagged field equal to its default is left out, as on the wire.
      if (within(field.tagged, version) && field.isDefault(x)) continue;
      out += `,${JSON.stringify(field.name)}:`;
      const value = (e: unknown, nullable: boolean): string =>
        field.primitive !== null
          ? primitiveToJson(field.primitive, e, nullable)
          : nullable && e === null
            ? "null"
            : structToJson(structs, structs.get(field.struct!)!, e as Record<string, unknown>, version);
      if (!field.array) {
        out += value(x, field.nullableAnywhere);
      } else if (field.nullableAnywhere && x === null) {
        out += "null";
      } else {
        const a = x as readonly unknown[];
        out += "[";
        for (i = 0; i < a.length; i++) {
          if (i > 0) out += ",";
          out += value(a[i], false);
        }
        i = -1;
        out += "]";
      }
    }
    return out === "" ? "{}" : `{${out.slice(1)}}`;
  } catch (e) {
    throw withPath(e, f, i, -1, false);
  }
}

function structFromJson(
  structs: Map<string, JsonStruct>,
  struct: JsonStruct,
  json: unknown,
  version: number,
): Record<string, unknown> {
  let f = "";
  let i = -1;
  try {
    const o = readJsonObject(json);
    // A key that names no field is refused (with the closest field), not silently dropped.
    checkJsonKeys(o, struct.keys);
    const out: Record<string, unknown> = {};
    for (const field of struct.fields) {
      if (field.versions.lowest > field.versions.highest) {
        // In none of the message's versions: always its default.
        out[field.name] = field.fresh();
        continue;
      }
      f = field.name;
      // Own properties only: a field named like an Object.prototype member must not read it.
      const j = jsonField(o, field.name);
      if (j === undefined) {
        // Kafka's reader requires every non-tagged field of the version.
        if (within(field.versions, version) && !within(field.tagged, version)) throw missingJsonField(version);
        out[field.name] = field.fresh();
        continue;
      }
      if (field.nullableAnywhere && j === null) {
        out[field.name] = null;
        continue;
      }
      const value = (e: unknown): unknown =>
        field.primitive !== null
          ? primitiveFromJson(field.primitive, e)
          : structFromJson(structs, structs.get(field.struct!)!, e, version);
      if (!field.array) {
        out[field.name] = value(j);
      } else {
        const ja = readJsonArray(j);
        const a: unknown[] = [];
        for (i = 0; i < ja.length; i++) a.push(value(ja[i]));
        i = -1;
        out[field.name] = a;
      }
    }
    return out;
  } catch (e) {
    throw withPath(e, f, i, -1, true);
  }
}

/**
 * Kafka's JSON text of `message` in `version`, from the message's field table (what generated
 * `X$toJson` functions did). The codec has checked the message by encoding it first.
 * @throws KafkaEncodeError naming the field path, as the encoder would.
 */
export function tableToJson(table: MessageTable, message: unknown, version: number): string {
  const structs = structsOf(table);
  return structToJson(structs, structs.get(table.name)!, message as Record<string, unknown>, version);
}

/**
 * The message of `json` (parsed JSON, objects and arrays) in `version`, from the message's field
 * table (what generated `X$fromJson` functions did): keys in schema order, omitted fields at their
 * defaults where Kafka's reader allows them to be omitted.
 * @throws KafkaDecodeError `INVALID_JSON`/`INVALID_VALUE` naming the field path.
 */
export function tableFromJson(table: MessageTable, json: unknown, version: number): unknown {
  const structs = structsOf(table);
  return structFromJson(structs, structs.get(table.name)!, json, version);
}
