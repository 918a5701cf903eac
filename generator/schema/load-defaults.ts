/**
 * Field defaults as Kafka's `FieldSpec.fieldDefault` reads them: per type, the text of the
 * schema's `default` (a string, or a JSON number or boolean as written) parsed into a
 * {@link DefaultValue}.
 */

import type { DefaultValue, PrimitiveTypeName } from "./model.js";
import type { JsonNode } from "./parse.js";
import { describeNode, quote, unicodeSpaceIn, type SchemaReader } from "./schema-reader.js";
import type { Versions } from "./versions.js";
import { PRIMITIVES } from "./wire-types.js";

/** Parsed `type`, before struct names are resolved. */
export type PrimitiveRef = { readonly kind: "primitive"; readonly name: PrimitiveTypeName };
export type StructRef = { readonly kind: "struct"; readonly name: string };
export type TypeRef = PrimitiveRef | StructRef | { readonly kind: "array"; readonly element: PrimitiveRef | StructRef };

export const ZERO_UUID = "AAAAAAAAAAAAAAAAAAAAAA";

/** The default as Kafka's Jackson sees it: a string; JSON numbers and booleans as written. */
export function defaultText(reader: SchemaReader, node: JsonNode, fieldPath: string): string {
  if (node.type === "string") return String(node.value);
  if (node.type === "number" || node.type === "boolean") return reader.raw(node);
  reader.fail(node, fieldPath, `"default" must be a string, number or boolean, not ${describeNode(node)}`);
}

export function parseDefault(
  reader: SchemaReader,
  typeRef: TypeRef,
  text: string,
  node: JsonNode | undefined,
  fieldPath: string,
  versions: Versions,
  nullable: Versions,
): DefaultValue {
  const typeName =
    typeRef.kind === "primitive"
      ? typeRef.name
      : typeRef.kind === "struct"
        ? typeRef.name
        : `[]${typeRef.element.name}`;
  const invalid = (why: string): never =>
    reader.fail(node, fieldPath, `invalid default ${quote(text)} for ${typeName}: ${why}`);
  const nullDefault = (): DefaultValue => {
    // validateNullDefault: nullableVersions must contain all of the field's versions.
    if (!nullable.covers(versions)) {
      reader.fail(
        node,
        fieldPath,
        `default "null" needs the field to be nullable in all its versions (versions ${versions}, nullableVersions ${nullable})`,
      );
    }
    return { kind: "null" };
  };
  const emptyOrNull = (empty: DefaultValue, what: string): DefaultValue => {
    if (text === "") return empty;
    if (text === "null") return nullDefault();
    return invalid(`the only valid defaults for ${what} are empty and "null"`);
  };

  // Only a string default is free text; every other default is parsed without trimming
  // Unicode spaces (Kafka's number parsing trims ASCII whitespace at most).
  const space = typeRef.kind === "primitive" && typeRef.name === "string" ? undefined : unicodeSpaceIn(text);
  if (space !== undefined) {
    reader.fail(node, fieldPath, `${space} in a default: ${quote(text)} is not a valid default for ${typeName}`);
  }

  if (typeRef.kind === "array") return emptyOrNull({ kind: "empty" }, "an array");
  if (typeRef.kind === "struct") return emptyOrNull({ kind: "struct" }, "a struct");
  const primitive = typeRef.name;
  switch (primitive) {
    case "bool":
      if (text === "") return { kind: "bool", value: false };
      // Kafka compares case-insensitively.
      if (/^true$/i.test(text)) return { kind: "bool", value: true };
      if (/^false$/i.test(text)) return { kind: "bool", value: false };
      return invalid(`expected "true" or "false"`);
    case "int8":
    case "int16":
    case "uint16":
    case "int32":
    case "uint32":
    case "int64": {
      if (text === "") return { kind: "int", value: 0n };
      // Kafka: an optional "0x" prefix selects base 16, otherwise a signed decimal.
      const hex = /^0x([0-9a-fA-F]+)$/.exec(text);
      if (!hex && !/^[+-]?[0-9]+$/.test(text)) {
        return invalid(
          text === "null" ? `${primitive} fields cannot be null` : "expected a decimal or 0x-prefixed hex integer",
        );
      }
      const value = hex ? BigInt(`0x${hex[1]}`) : BigInt(text);
      const [min, max] = PRIMITIVES[primitive].intRange!;
      if (value < min || value > max) return invalid(`out of range ${min}..${max}`);
      return { kind: "int", value };
    }
    case "float64":
      if (text === "") return { kind: "float", value: 0 };
      if (!/^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$|^[+-]?Infinity$|^NaN$/.test(text)) {
        return invalid("expected a decimal floating-point number");
      }
      return { kind: "float", value: Number(text) };
    case "string":
      return text === "null" ? nullDefault() : { kind: "string", value: text };
    case "uuid": {
      if (text === "") return { kind: "uuid", value: ZERO_UUID };
      // Uuid.fromString: 16 bytes in URL-safe base64 (22 characters; Java's decoder also takes "==").
      const match = /^([A-Za-z0-9_-]{22})(?:==)?$/.exec(text);
      if (!match)
        return invalid(text === "null" ? "uuid fields cannot be null" : "expected a 22-character URL-safe base64 uuid");
      return { kind: "uuid", value: Buffer.from(match[1]!, "base64url").toString("base64url") };
    }
    case "bytes":
      return emptyOrNull({ kind: "empty" }, "bytes");
    case "records":
      // Kafka ignores a records default and always starts with null records; mirror that where
      // null is writable (nullable in every version), else start empty.
      if (text !== "" && text !== "null") return invalid(`the only valid defaults for records are empty and "null"`);
      if (text === "null") return nullDefault();
      return nullable.covers(versions) ? { kind: "null" } : { kind: "empty" };
  }
}
