/**
 * `decode --spans`: where every field of a body is, as a table (offset, length, path, value,
 * hex) or as JSON (`--json`), from the runtime's `decodeWithSpans`.
 */

import type { ByteSpan } from "../src/runtime/spans.js";
import { toHex } from "./text-io.js";

/** Bytes of a span shown in the table's hex column; longer spans end with `…`. */
const HEX_BYTES = 16;
/** Characters of a string value shown in the table; longer ones end with `…`. */
const VALUE_CHARS = 40;

/** A span's value as the table shows it: JSON-like, bytes by their count; a part holding parts shows its type. */
function shownValue(span: ByteSpan): string {
  if (!("value" in span)) return span.kind === "tagged-field" ? `tag ${span.tag}` : (span.type ?? "");
  const v = span.value;
  if (v instanceof Uint8Array) return `${v.length} byte${v.length === 1 ? "" : "s"}`;
  if (typeof v === "string") {
    const s = JSON.stringify(v);
    return s.length > VALUE_CHARS ? `${s.slice(0, VALUE_CHARS - 1)}…` : s;
  }
  return String(v);
}

function shownHex(bytes: Uint8Array, span: ByteSpan): string {
  const n = Math.min(span.length, HEX_BYTES);
  const hex = toHex(bytes.subarray(span.offset, span.offset + n));
  return span.length > HEX_BYTES ? `${hex}…` : hex;
}

/**
 * The spans as a text table: one line per span, the path indented by its depth, `(message)` for
 * the whole body; columns separated by two spaces, numbers right-aligned.
 */
export function spansTable(spans: readonly ByteSpan[], bytes: Uint8Array): string {
  const rows = spans.map((s) => [
    String(s.offset),
    String(s.length),
    `${"  ".repeat(Math.max(0, s.depth - 1))}${s.depth === 0 ? "(message)" : s.path}`,
    shownValue(s),
    shownHex(bytes, s),
  ]);
  const head = ["offset", "length", "path", "value", "hex"];
  const widths = head.map((h, c) => Math.max(h.length, ...rows.map((r) => [...r[c]!].length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, c) => {
        const pad = " ".repeat(widths[c]! - [...cell].length);
        return c < 2 ? pad + cell : c === cells.length - 1 ? cell : cell + pad;
      })
      .join("  ");
  return [line(head), ...rows.map(line)].map((l) => l.trimEnd()).join("\n") + "\n";
}

/** A value as JSON: int64 as a string of its digits, bytes as hex. */
function jsonValue(v: unknown): unknown {
  if (typeof v === "bigint") return v.toString();
  if (v instanceof Uint8Array) return toHex(v);
  return v;
}

/**
 * The spans as JSON (one array, one object per span and per line: `path`, `offset`, `length`, `kind`,
 * `depth`, and `type`, `tag`, `value` where the span has them, then `hex` of its bytes).
 */
export function spansJson(spans: readonly ByteSpan[], bytes: Uint8Array): string {
  const out = spans.map((s) => ({
    path: s.path,
    offset: s.offset,
    length: s.length,
    kind: s.kind,
    depth: s.depth,
    ...(s.type === undefined ? {} : { type: s.type }),
    ...(s.tag === undefined ? {} : { tag: s.tag }),
    ...("value" in s ? { value: jsonValue(s.value) } : {}),
    hex: toHex(bytes.subarray(s.offset, s.offset + s.length)),
  }));
  // One span a line: readable, and still one JSON document.
  return `[\n${out.map((o) => JSON.stringify(o)).join(",\n")}\n]\n`;
}
