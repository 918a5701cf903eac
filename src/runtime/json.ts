/**
 * Kafka's JSON form of messages (the generated `XDataJsonConverter` classes), used by the
 * generated `toJson`/`fromJson`:
 * - int64 and uint32 are exact JSON integers (int64 may exceed 2^53: text is parsed losslessly);
 * - float64 is written as Java's `Double.toString` does (`1.0`, `1.0E300`, `-0.0`);
 * - bytes and records are standard padded base64; uuid is Kafka's 22-character URL-safe base64;
 * - strings are escaped as Jackson does (control characters as upper-case `\u00XX`).
 */

import { isLosslessNumber, parse } from "lossless-json";
import { KafkaDecodeError, type KafkaEncodeError } from "./errors.js";
import { base64ToBytes, bytesToBase64, uuidFromString } from "./base64.js";
import { utf8Length } from "./utf8.js";
import { describe, describeNumber } from "./writer.js";

const HEX = "0123456789ABCDEF";

/** A JSON string literal, escaped as Jackson escapes it. */
export function jsonString(s: string): string {
  let out = '"';
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c !== 0x22 && c !== 0x5c) continue;
    out += s.slice(start, i);
    start = i + 1;
    switch (c) {
      case 0x22:
        out += '\\"';
        break;
      case 0x5c:
        out += "\\\\";
        break;
      case 0x0a:
        out += "\\n";
        break;
      case 0x0d:
        out += "\\r";
        break;
      case 0x09:
        out += "\\t";
        break;
      case 0x08:
        out += "\\b";
        break;
      case 0x0c:
        out += "\\f";
        break;
      default:
        out += "\\u00" + HEX[c >> 4]! + HEX[c & 15]!;
    }
  }
  return out + s.slice(start) + '"';
}

/** A nullable string as JSON. */
export function jsonNullableString(s: string | null): string {
  return s === null ? "null" : jsonString(s);
}

/** Bytes as a JSON string of standard padded base64. */
export function jsonBytes(b: Uint8Array | null): string {
  return b === null ? "null" : `"${bytesToBase64(b)}"`;
}

/**
 * A double as Java's `Double.toString` writes it: decimal notation for 10^-3 <= |d| < 10^7
 * (always with a fractional part), computerized scientific notation otherwise (`1.0E300`).
 */
export function jsonFloat64(d: number): string {
  if (Number.isNaN(d)) return '"NaN"';
  if (d === Infinity) return '"Infinity"';
  if (d === -Infinity) return '"-Infinity"';
  if (d === 0) return Object.is(d, -0) ? "-0.0" : "0.0";
  const abs = Math.abs(d);
  if (abs >= 1e-3 && abs < 1e7) {
    const s = String(d);
    return s.includes(".") ? s : `${s}.0`;
  }
  // toExponential() with no argument gives the shortest digits that round-trip.
  const [mantissa, exponent] = d.toExponential().split("e") as [string, string];
  const m = mantissa.includes(".") ? mantissa : `${mantissa}.0`;
  return `${m}E${exponent.startsWith("+") ? exponent.slice(1) : exponent}`;
}

// ---- reading ----

/** Parses JSON text keeping every number's exact digits (int64 beyond 2^53 stays exact). */
export function parseJson(text: string): unknown {
  try {
    return parse(text);
  } catch (e) {
    throw new KafkaDecodeError("INVALID_JSON", `not valid JSON: ${e instanceof Error ? e.message : String(e)}`, -1);
  }
}

function invalid(expected: string, v: unknown): KafkaDecodeError {
  return new KafkaDecodeError(
    "INVALID_JSON",
    `expected ${expected}, got ${isLosslessNumber(v) ? describeNumber(v.value) : describe(v)}`,
    -1,
  );
}

/** A JSON object (a struct). */
export function readJsonObject(v: unknown): Record<string, unknown> {
  if (typeof v !== "object" || v === null || Array.isArray(v) || isLosslessNumber(v)) throw invalid("an object", v);
  return v as Record<string, unknown>;
}

/** The value of an object's own property `key` (never one inherited from Object.prototype). */
export function jsonField(o: Record<string, unknown>, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(o, key) ? o[key] : undefined;
}

/**
 * Refuses a key of `o` that names none of `known` (Kafka's reader would ignore it, but a typo
 * there silently drops a value): `INVALID_JSON` naming the key and, when one is close, the
 * field it probably meant.
 */
export function checkJsonKeys(o: Record<string, unknown>, known: readonly string[]): void {
  const keys = Object.keys(o);
  for (let k = 0; k < keys.length; k++) {
    const key = keys[k]!;
    if (known.includes(key)) continue;
    const guess = closest(key, known);
    const hint = guess === undefined ? "" : ` (did you mean "${guess}"?)`;
    throw new KafkaDecodeError("INVALID_JSON", `unknown field "${key}"${hint}`, -1);
  }
}

/**
 * The candidate nearest to `word` by edit distance (case ignored), when near enough to be a
 * typo: a quarter of the longer word's length in edits, at least 1 and at most 3.
 */
function closest(word: string, candidates: readonly string[]): string | undefined {
  const w = word.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const limit = Math.min(3, Math.max(1, Math.floor(Math.max(w.length, c.length) / 4)));
    const bound = Math.min(limit, bestDistance - 1);
    const d = editDistance(w, c.toLowerCase(), bound);
    if (d <= bound) {
      best = c;
      bestDistance = d;
    }
  }
  return best;
}

/**
 * Levenshtein distance of `a` and `b`, or `limit + 1` as soon as it must exceed `limit` (so a
 * long key costs at most `limit` rows beyond the length check).
 */
function editDistance(a: string, b: string, limit: number): number {
  if (limit < 0 || Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous = new Array<number>(b.length + 1);
  let current = new Array<number>(b.length + 1);
  for (let j = 0; j <= b.length; j++) previous[j] = j;
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      const d = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      current[j] = d;
      if (d < rowMin) rowMin = d;
    }
    if (rowMin > limit) return limit + 1;
    [previous, current] = [current, previous];
  }
  return previous[b.length]! <= limit ? previous[b.length]! : limit + 1;
}

/** A JSON array. */
export function readJsonArray(v: unknown): unknown[] {
  if (!Array.isArray(v)) throw invalid("an array", v);
  return v;
}

/** The error for a non-tagged field that the JSON lacks (Kafka's reader requires all of them). */
export function missingJsonField(version: number): KafkaDecodeError {
  return new KafkaDecodeError("INVALID_JSON", `field is mandatory in version ${version} but missing`, -1);
}

/** The exact decimal text of a JSON integer, or null when `v` is not one. */
function integerText(v: unknown): string | null {
  if (isLosslessNumber(v)) return /^-?\d+$/.test(v.value) ? v.value : null;
  if (typeof v === "number") return Number.isSafeInteger(v) ? String(v) : null;
  if (typeof v === "bigint") return v.toString();
  return null;
}

/** An integer field (int8..int32, uint16, uint32) within [min, max]. */
export function readJsonInt(v: unknown, type: string, min: number, max: number): number {
  const text = integerText(v);
  const n = text === null ? NaN : Number(text);
  if (!(n >= min && n <= max)) throw invalid(`an integer in ${type} range ${min}..${max}`, v);
  return n;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** An int64: a JSON integer (exact), a bigint, or a decimal string. */
export function readJsonInt64(v: unknown): bigint {
  const text = typeof v === "string" && /^-?\d+$/.test(v) ? v : integerText(v);
  if (text === null) throw invalid("an int64 integer (a JavaScript number only up to 2^53)", v);
  const n = BigInt(text);
  if (n < INT64_MIN || n > INT64_MAX) throw invalid("an integer in int64 range", v);
  return n;
}

/** A float64: any JSON number; Kafka's special values as the strings "NaN", "Infinity", "-Infinity". */
export function readJsonFloat64(v: unknown): number {
  if (isLosslessNumber(v)) return Number(v.value);
  if (typeof v === "number") return v;
  if (v === "NaN") return NaN;
  if (v === "Infinity") return Infinity;
  if (v === "-Infinity") return -Infinity;
  throw invalid("a number", v);
}

/** A JSON boolean. @throws KafkaDecodeError `INVALID_JSON` for anything else. */
export function readJsonBool(v: unknown): boolean {
  if (typeof v !== "boolean") throw invalid("true or false", v);
  return v;
}

/** A JSON string. @throws KafkaDecodeError `INVALID_JSON` for anything else. */
export function readJsonString(v: unknown): string {
  if (typeof v !== "string") throw invalid("a string", v);
  // A lone surrogate has no UTF-8 form: encode would refuse it, so it is refused here already,
  // where the path shows which field holds it (utf8Length is where lone surrogates are found).
  try {
    utf8Length(v);
  } catch (error) {
    throw new KafkaDecodeError(
      "INVALID_JSON",
      `expected a string with a UTF-8 form: ${(error as KafkaEncodeError).reason}`,
      -1,
    );
  }
  return v;
}

/** A JSON string or null. @throws KafkaDecodeError `INVALID_JSON` for anything else. */
export function readJsonNullableString(v: unknown): string | null {
  return v === null ? null : readJsonString(v);
}

/** Bytes or records: standard padded base64 (a Uint8Array is accepted as is). */
export function readJsonBytes(v: unknown): Uint8Array {
  if (v instanceof Uint8Array) return v;
  if (typeof v !== "string") throw invalid("a base64 string", v);
  const bytes = base64ToBytes(v);
  if (bytes === null) throw invalid("standard padded base64", v);
  return bytes;
}

/** Bytes or records as standard padded base64, or null. @throws KafkaDecodeError `INVALID_JSON` for anything else. */
export function readJsonNullableBytes(v: unknown): Uint8Array | null {
  return v === null ? null : readJsonBytes(v);
}

/** A uuid in Kafka's 22-character URL-safe base64 form. */
export function readJsonUuid(v: unknown): string {
  if (typeof v !== "string" || uuidFromString(v) === null)
    throw invalid("a uuid in Kafka's 22-character base64 form", v);
  return v;
}

/** A null where the field is not nullable. */
export function jsonNullNotAllowed(): KafkaDecodeError {
  return new KafkaDecodeError("INVALID_JSON", "null is not allowed in this field in this version", -1);
}
