/**
 * Golden vectors written by Apache Kafka's own generated Java classes (`../shared/golden/`,
 * format in its README): one JSON object per line with `version`, `kind`, `hex` and `json`.
 */

import { readFileSync } from "node:fs";
import { isLosslessNumber, parse, stringify } from "lossless-json";

export interface GoldenVector {
  readonly version: number;
  readonly kind: string;
  readonly hex: string;
  /** The canonical JSON text (numbers exactly as Kafka wrote them). */
  readonly jsonText: string;
  /** 1-based position in the file, for test names. */
  readonly index: number;
}

/** Reads a vector file; int64 values keep their exact digits (lossless parse). */
export function readGolden(file: string): GoldenVector[] {
  const out: GoldenVector[] = [];
  for (const line of readFileSync(file, "utf8").split("\n")) {
    const trimmed = line.trim().replace(/,$/, "");
    if (!trimmed.startsWith("{")) continue;
    const v = parse(trimmed) as { version: unknown; kind: string; hex: string; json: unknown };
    out.push({
      version: Number(isLosslessNumber(v.version) ? v.version.value : v.version),
      kind: v.kind,
      hex: v.hex,
      jsonText: stringify(v.json) ?? "null",
      index: out.length + 1,
    });
  }
  return out;
}

/**
 * A canonical form of JSON text for comparison: integers compared by their exact digits (int64
 * beyond 2^53 included), other numbers by value (Java and JavaScript may print the same double
 * differently, e.g. `1.0E300` and `1e300`), with -0.0 distinct from 0.0.
 */
export function canonicalJson(text: string): string {
  const norm = (x: unknown): unknown => {
    if (isLosslessNumber(x)) {
      if (/^-?\d+$/.test(x.value)) return `int:${BigInt(x.value)}`;
      const d = Number(x.value);
      return Object.is(d, -0) ? "double:-0" : `double:${d}`;
    }
    if (Array.isArray(x)) return x.map(norm);
    if (x !== null && typeof x === "object") {
      return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, norm(v)]));
    }
    return x;
  };
  return JSON.stringify(norm(parse(text)), null, 1);
}

export function toHex(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += b.toString(16).padStart(2, "0");
  return s;
}

export function fromHex(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}
