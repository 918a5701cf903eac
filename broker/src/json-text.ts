/**
 * JSON text for what the broker serves over HTTP: int64 values (bigint) written as exact
 * integers, as Kafka's JsonConverter writes them (`JSON.stringify` refuses bigints, and a
 * Number would round past 2^53), and JSON text that is already written (a codec's `toJson`)
 * embedded as it is.
 */

/** JSON text to embed as it is (it must be valid JSON: a codec's `toJson` output). */
export class RawJson {
  constructor(readonly text: string) {}
}

/**
 * `value` as JSON text: bigint as an exact integer, {@link RawJson} as its text, undefined
 * properties left out (undefined elsewhere: null), non-finite numbers as null.
 */
export function jsonText(value: unknown): string {
  switch (typeof value) {
    case "bigint":
      return value.toString();
    case "number":
      return Number.isFinite(value) ? String(value) : "null";
    case "string":
      return JSON.stringify(value);
    case "boolean":
      return value ? "true" : "false";
    case "object":
      break;
    default:
      return "null";
  }
  if (value === null) return "null";
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(jsonText).join(",")}]`;
  const parts: string[] = [];
  for (const [k, v] of Object.entries(value)) if (v !== undefined) parts.push(`${JSON.stringify(k)}:${jsonText(v)}`);
  return `{${parts.join(",")}}`;
}
