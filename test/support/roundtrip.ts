/**
 * The round-trip properties every generated codec must satisfy, for every version of its message,
 * with arbitraries derived from the schema model (see arbitraries.ts).
 */

import fc from "fast-check";
import { expect, it } from "vitest";
import type { MessageSpec } from "../../generator/schema/model.js";
import type { MessageCodec } from "../../src/runtime/index.js";
import { allFieldPaths, collectNonDefaultPaths, ModelArbitraries } from "./arbitraries.js";

/** Fixed by default so CI is reproducible; set KAFKA_WIRE_SEED to explore. */
export const SEED = Number(process.env["KAFKA_WIRE_SEED"] ?? 20261129);

function withoutUnknownTaggedFields(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutUnknownTaggedFields);
  if (value instanceof Uint8Array || value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (k !== "_unknownTaggedFields") out[k] = withoutUnknownTaggedFields(v);
  return out;
}

/**
 * Declares, inside the current describe block, the round-trip tests of every version of `spec`
 * and a final test that every field path was generated with a non-default value.
 * `codec` is resolved lazily (the corpus codecs are imported in a beforeAll).
 */
export function roundTripTests(spec: MessageSpec, codec: () => MessageCodec<unknown>, runs: number): void {
  const seen = new Set<string>();
  for (let version = spec.validVersions.lowest; version <= spec.validVersions.highest; version++) {
    const arb = new ModelArbitraries(spec, version).message();

    it(`v${version}: decode(encode(x)) = x, size(x) = encoded length, fromJson(toJson(x)) = x`, () => {
      const c = codec();
      fc.assert(
        fc.property(arb, (x) => {
          const bytes = c.encode(x, version);
          expect(c.size(x, version)).toBe(bytes.length);
          expect(c.decode(bytes, version)).toEqual(x);
          // Kafka's JSON form has no unknown tagged fields.
          expect(c.fromJson(c.toJson(x, version), version)).toEqual(withoutUnknownTaggedFields(x));
          collectNonDefaultPaths(spec.struct, x, spec.name, seen);
        }),
        { seed: SEED + version, numRuns: runs },
      );
    });

    it(`v${version}: encodeInto at an offset writes the same bytes and nothing else`, () => {
      const c = codec();
      fc.assert(
        fc.property(arb, fc.integer({ min: 0, max: 7 }), (x, offset) => {
          const expected = c.encode(x, version);
          const target = new Uint8Array(offset + expected.length + 3).fill(0xaa);
          const end = c.encodeInto(x, version, target, offset);
          expect(end).toBe(offset + expected.length);
          expect(target.subarray(offset, end)).toEqual(expected);
          expect([...target.subarray(0, offset), ...target.subarray(end)].every((b) => b === 0xaa)).toBe(true);
        }),
        { seed: SEED + version, numRuns: Math.max(5, Math.ceil(runs / 4)) },
      );
    });
  }

  // Tests of a file run in order: this one sees what the round-trip properties above generated.
  it("generated every field path with a non-default value at least once", () => {
    const all = allFieldPaths(spec);
    const missing = [...all].filter((p) => !seen.has(p));
    expect(seen.size > 0 || all.size === 0, "no non-default value was recorded at all").toBe(true);
    expect(missing, `field paths never generated with a non-default value in ${spec.name}`).toEqual([]);
  });
}
