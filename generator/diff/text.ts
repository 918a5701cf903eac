/**
 * The words of `diff`: type labels as the schema writes them, which type changes leave the bytes
 * alone, and short texts for defaults and about changes.
 */

import type { DefaultValue, FieldType } from "../schema/model.js";
import { PRIMITIVES, schemaTypeName } from "../schema/wire-types.js";

/** The type as the schema writes it, with struct names: `int32`, `[]string`, `struct Topology`, `[]Subtopology`. */
export function typeLabel(type: FieldType): string {
  return type.kind === "struct" ? `struct ${schemaTypeName(type)}` : schemaTypeName(type);
}

/** Same wire shape, ignoring struct names and contents (those are compared separately). */
export function sameShape(a: FieldType, b: FieldType): boolean {
  return shapeKey(a) === shapeKey(b);
}

function shapeKey(type: FieldType): string {
  switch (type.kind) {
    case "primitive":
      return type.name;
    case "struct":
      return "struct";
    case "array":
      return `[]${type.element.kind === "primitive" ? type.element.name : "struct"}`;
  }
}

/** For two fixed-width primitives: what the change does to the byte count. */
export function fixedWidthNote(a: FieldType, b: FieldType): string | undefined {
  if (a.kind !== "primitive" || b.kind !== "primitive") return undefined;
  const wa = PRIMITIVES[a.name].fixedSize;
  const wb = PRIMITIVES[b.name].fixedSize;
  if (wa === undefined || wb === undefined) return undefined;
  if (wa === wb) return `both ${wa} bytes, but the values are read differently`;
  return `${wa} bytes become ${wb}, so every later field is misread`;
}

/**
 * Two types whose values are both a length prefix and that many bytes: `bytes` ↔ `records`
 * (encoded alike in every version), `string` ↔ `bytes`/`records` (alike only where both are
 * compact: otherwise a string's length is an int16, the others' an int32); also as array
 * elements. null for any other pair, or the same type.
 */
export function lengthPrefixedPair(a: FieldType, b: FieldType): "bytes-records" | "string-bytes" | null {
  const name = (t: FieldType): string | null =>
    t.kind === "primitive"
      ? t.name
      : t.kind === "array" && t.element.kind === "primitive"
        ? `[]${t.element.name}`
        : null;
  const x = name(a);
  const y = name(b);
  if (x === null || y === null || x === y || x.startsWith("[]") !== y.startsWith("[]")) return null;
  const names = new Set([x.replace("[]", ""), y.replace("[]", "")]);
  if (names.has("bytes") && names.has("records")) return "bytes-records";
  if (names.has("string") && (names.has("bytes") || names.has("records"))) return "string-bytes";
  return null;
}

/** For `string` ↔ `bytes`/`records` where the length prefixes differ: what each side writes. */
export function lengthPrefixNote(a: FieldType, aCompact: boolean, b: FieldType, bCompact: boolean): string {
  const prefix = (t: FieldType, compact: boolean): string => {
    const name =
      t.kind === "primitive" ? t.name : t.kind === "array" && t.element.kind === "primitive" ? t.element.name : "";
    // Array elements are never null.
    const [what, nullText] = t.kind === "array" ? [`each ${name} element`, ""] : [name, " for null"];
    if (compact) return `${what} has a compact unsigned varint length+1`;
    return name === "string"
      ? `${what} has an int16 length${nullText && ` (FF FF${nullText})`}`
      : `${what} has an int32 length${nullText && ` (FF FF FF FF${nullText})`}`;
  };
  return `${prefix(a, aCompact)} here and ${prefix(b, bCompact)}, so this field and every field after it are misread`;
}

/** Same default on the wire: an empty string and empty bytes/records are both "nothing". */
export function sameDefault(a: DefaultValue, b: DefaultValue): boolean {
  const key = (d: DefaultValue): string =>
    d.kind === "empty" || (d.kind === "string" && d.value === "") ? "empty" : `${d.kind}:${defaultLabel(d)}`;
  return key(a) === key(b);
}

export function defaultLabel(d: DefaultValue): string {
  switch (d.kind) {
    case "null":
      return "null";
    case "bool":
      return String(d.value);
    case "int":
      return d.value.toString();
    case "float":
      return Object.is(d.value, -0) ? "-0" : String(d.value);
    case "string":
      return JSON.stringify(d.value);
    case "uuid":
      return d.value;
    case "empty":
      return "empty";
    case "struct":
      return "struct defaults";
  }
}

/** `about` texts compare without their whitespace differences (incl. no-break spaces). */
export function normalizeAbout(text: string): string {
  return text.replace(/[\s\u00a0]+/g, " ").trim();
}

/**
 * The two texts reduced to where they differ, with a little context on each side:
 * `"…instance IdID for static…"` and `"…instance ID for static…"`.
 */
export function aboutExcerpts(a: string, b: string, context = 12, max = 70): [string, string] {
  const x = normalizeAbout(a);
  const y = normalizeAbout(b);
  let prefix = 0;
  while (prefix < x.length && prefix < y.length && x[prefix] === y[prefix]) prefix++;
  let suffix = 0;
  while (
    suffix < x.length - prefix &&
    suffix < y.length - prefix &&
    x[x.length - 1 - suffix] === y[y.length - 1 - suffix]
  )
    suffix++;
  const cut = (text: string): string => {
    const start = Math.max(0, prefix - context);
    const end = Math.min(text.length, text.length - suffix + context);
    let middle = text.slice(start, end);
    if (middle.length > max) middle = `${middle.slice(0, max - 1)}…`;
    return JSON.stringify(`${start > 0 ? "…" : ""}${middle}${end < text.length ? "…" : ""}`);
  };
  return [cut(x), cut(y)];
}
