/**
 * Reading a schema's JSON syntax tree as Kafka's Jackson `ObjectMapper` does (a JSON number
 * where a string is expected, a numeric string for an integer, a single value where a list is
 * expected, Java's String.trim), with every error located at its node: the base of the loader.
 */

import { SchemaError } from "./errors.js";
import type { Diagnostic } from "./model.js";
import type { JsonNode, SchemaDocument } from "./parse.js";
import { editDistance } from "./edit-distance.js";
import { Versions, VersionsSyntaxError } from "./versions.js";

/**
 * Java's String.trim, which Kafka's Versions.parse and FieldType.parse and Jackson's
 * string-to-number coercion use: strips characters <= U+0020 only (JavaScript's trim also
 * strips U+00A0 and the other Unicode spaces, so Kafka would reject what it accepts).
 */
export function javaTrim(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && text.charCodeAt(start) <= 0x20) start++;
  while (end > start && text.charCodeAt(end - 1) <= 0x20) end--;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

/** Whitespace that JavaScript's trim and `\s` know but Java's trim does not, plus invisible look-alikes. */
const UNICODE_SPACE = /[\u0085\u00a0\u1680\u180e\u2000-\u200b\u2028\u2029\u202f\u205f\u3000\ufeff]/;

/** Names the first Unicode space in `text` ("no-break space (U+00A0)"), or undefined. */
export function unicodeSpaceIn(text: string): string | undefined {
  const match = UNICODE_SPACE.exec(text);
  if (!match) return undefined;
  const ch = match[0].charCodeAt(0);
  const code = `U+${ch.toString(16).toUpperCase().padStart(4, "0")}`;
  const names: Record<number, string> = {
    0x00a0: "no-break space",
    0x202f: "narrow no-break space",
    0x200b: "zero-width space",
    0xfeff: "zero-width no-break space",
    0x2028: "line separator",
    0x2029: "paragraph separator",
    0x3000: "ideographic space",
  };
  return `${names[ch] ?? "Unicode space"} (${code})`;
}

/** A value quoted for a one-line message: JSON escapes, plus Unicode spaces made visible. */
export function quote(text: string): string {
  return JSON.stringify(text).replace(
    new RegExp(UNICODE_SPACE.source, "g"),
    (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** " (it contains a no-break space (U+00A0) ...)" when `text` has a Unicode space, else "". */
export function spaceHint(text: string): string {
  const space = unicodeSpaceIn(text);
  return space ? ` (it contains a ${space}, which Kafka's parser does not treat as whitespace)` : "";
}

/** An object node with its properties by name (JSON `null` values count as absent, as in Jackson). */
export class JsonObject {
  private readonly props = new Map<string, { readonly key: JsonNode; readonly value: JsonNode }>();

  constructor(readonly node: JsonNode) {}

  set(name: string, key: JsonNode, value: JsonNode): boolean {
    const duplicate = this.props.has(name);
    this.props.set(name, { key, value });
    return duplicate;
  }

  /** The value node, or undefined when absent or JSON null. */
  get(name: string): JsonNode | undefined {
    const value = this.props.get(name)?.value;
    return value === undefined || value.type === "null" ? undefined : value;
  }

  /** The key node if present (even with a null value), for positions. */
  key(name: string): JsonNode | undefined {
    return this.props.get(name)?.key;
  }
}

/** A schema document with Jackson's coercions and located errors and warnings. */
export class SchemaReader {
  protected readonly file: string;
  protected readonly warnings: Diagnostic[];

  constructor(protected readonly doc: SchemaDocument) {
    this.file = doc.file;
    this.warnings = [...doc.warnings];
  }

  // -------------------------------------------------------------------------------------------
  // JSON access with Jackson's coercions

  /** Collects an object's properties, rejecting unknown keys (Jackson's FAIL_ON_UNKNOWN_PROPERTIES). */
  object(node: JsonNode, allowed: readonly string[], fieldPath: string | undefined, what: string): JsonObject {
    const obj = new JsonObject(node);
    for (const prop of node.children ?? []) {
      const [keyNode, valueNode] = prop.children ?? [];
      if (!keyNode || !valueNode) continue;
      const key = String(keyNode.value);
      if (!allowed.includes(key)) {
        const hint = suggest(key, allowed);
        this.fail(
          keyNode,
          fieldPath,
          `unknown key "${key}" in ${what}${hint ? ` (did you mean "${hint}"?)` : ""}; allowed keys: ${allowed.join(", ")}`,
        );
      }
      if (obj.set(key, keyNode, valueNode)) {
        this.warn(
          keyNode,
          `${fieldPath ? `${fieldPath}: ` : ""}duplicate key "${key}"; the last one wins (as in Kafka's JSON parser)`,
        );
      }
    }
    return obj;
  }

  required(obj: JsonObject, key: string, fieldPath: string | undefined): JsonNode {
    const value = obj.get(key);
    if (!value) this.fail(obj.key(key) ?? obj.node, fieldPath, `missing required key "${key}"`);
    return value;
  }

  /** Jackson's List deserialisation with ACCEPT_SINGLE_VALUE_AS_ARRAY. */
  items(node: JsonNode, fieldPath: string | undefined, key: string): JsonNode[] {
    if (node.type === "array") return node.children ?? [];
    this.warn(
      node,
      `${fieldPath ? `${fieldPath}: ` : ""}"${key}" should be an array; a single value is read as a one-element array`,
    );
    return [node];
  }

  /** A string; numbers and booleans are taken as written (Jackson coerces scalars to String). */
  string(node: JsonNode, fieldPath: string | undefined, key: string): string {
    if (node.type === "string") return String(node.value);
    if (node.type === "number" || node.type === "boolean") return this.raw(node);
    this.fail(node, fieldPath, `"${key}" must be a string, not ${describeNode(node)}`);
  }

  /** A boolean; absent or null is false; "true"/"false" strings are coerced as Jackson does. */
  boolean(node: JsonNode | undefined, fieldPath: string | undefined, key: string): boolean {
    if (!node) return false;
    if (node.type === "boolean") return node.value === true;
    if (node.type === "string" && /^(true|false)$/i.test(String(node.value))) return /^true$/i.test(String(node.value));
    this.fail(node, fieldPath, `"${key}" must be true or false, not ${describeNode(node)}`);
  }

  /** An integer (JSON integer or a numeric string, as Jackson coerces) within [min, max]. */
  integer(node: JsonNode, fieldPath: string | undefined, key: string, min: number, max: number): number {
    // Jackson trims a numeric string with Java's String.trim.
    const text =
      node.type === "number" ? this.raw(node) : node.type === "string" ? javaTrim(String(node.value)) : undefined;
    const space = text === undefined ? undefined : unicodeSpaceIn(text);
    if (space !== undefined) {
      this.fail(
        node,
        fieldPath,
        `${space} in "${key}": ${quote(String(node.value))} (Kafka's parser trims only ASCII whitespace)`,
      );
    }
    if (text === undefined || !/^[+-]?[0-9]+$/.test(text)) {
      this.fail(node, fieldPath, `"${key}" must be an integer, not ${describeNode(node)}`);
    }
    const value = Number(text);
    if (value < min || value > max) this.fail(node, fieldPath, `"${key}" ${text} is out of range ${min}..${max}`);
    return value;
  }

  /** A version range value: undefined when absent or empty (Kafka's Versions.parse default). */
  versions(node: JsonNode | undefined, fieldPath: string | undefined, key: string): Versions | undefined {
    if (!node) return undefined;
    const text = this.string(node, fieldPath, key);
    if (javaTrim(text) === "") return undefined;
    return this.parseVersionText(text, node, fieldPath, key);
  }

  optionalVersions(obj: JsonObject, key: string, fieldPath: string | undefined): void {
    this.versions(obj.get(key), fieldPath, key);
  }

  /**
   * Versions.parse (see versions.ts), with the error at `node`; a Unicode space is named rather
   * than reported as a syntax error (Java's String.trim strips ASCII blanks only).
   */
  parseVersionText(text: string, node: JsonNode | undefined, fieldPath: string | undefined, key: string): Versions {
    const space = unicodeSpaceIn(javaTrim(text));
    if (space !== undefined) {
      this.fail(node, fieldPath, `${space} in ${key}: ${quote(text)} (Kafka's parser trims only ASCII whitespace)`);
    }
    try {
      return Versions.parse(text);
    } catch (e) {
      if (!(e instanceof VersionsSyntaxError)) throw e;
      this.fail(node, fieldPath, `invalid ${key} ${quote(text)}${e.detail}`);
    }
  }

  /** The source text of a scalar node (keeps int64 digits and float spelling exact). */
  raw(node: JsonNode): string {
    return this.doc.text.slice(node.offset, node.offset + node.length);
  }

  // -------------------------------------------------------------------------------------------
  // Diagnostics

  where(node: JsonNode): string {
    const { line, column } = this.doc.position(node.offset);
    return `${line}:${column}`;
  }

  warn(node: JsonNode, message: string): void {
    const { line, column } = this.doc.position(node.offset);
    this.warnings.push({ file: this.file, line, column, message });
  }

  fail(node: JsonNode | undefined, fieldPath: string | undefined, reason: string): never {
    const { line, column } = this.doc.position((node ?? this.doc.root).offset);
    throw new SchemaError({ file: this.file, line, column, reason, ...(fieldPath ? { path: fieldPath } : {}) });
  }
}

// ---------------------------------------------------------------------------------------------
// Nodes and names

export function isNodeList(value: JsonNode | readonly JsonNode[]): value is readonly JsonNode[] {
  return Array.isArray(value);
}

export function findProperty(node: JsonNode, key: string): JsonNode | undefined {
  if (node.type !== "object") return undefined;
  let found: JsonNode | undefined;
  for (const prop of node.children ?? []) {
    if (prop.children?.[0]?.value === key) found = prop.children[1];
  }
  return found;
}

export function describeNode(node: JsonNode): string {
  switch (node.type) {
    case "object":
      return "an object";
    case "array":
      return "an array";
    case "string":
      return `the string ${JSON.stringify(node.value)}`;
    default:
      return `${node.type} ${String(node.value)}`;
  }
}

/** The allowed key closest to a misspelt one (case-insensitive match or edit distance <= 2). */
export function suggest(key: string, allowed: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of allowed) {
    const distance = candidate.toLowerCase() === key.toLowerCase() ? 0 : editDistance(key, candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}
