/**
 * recordSpans against Apache Kafka's record sets (`../shared/golden/records/`): the spans tile the
 * set, there is one batch span per entry Kafka's `MemoryRecords.batches()` yields (and one for a
 * cut tail), one record span per record of an uncompressed batch, and the values the spans read
 * are Kafka's (header fields, keys, values, header counts).
 */

import { describe, expect, it } from "vitest";
import { decodeRecords } from "../../src/records/index.js";
import { recordSpans } from "../../src/records/spans.js";
import type { ByteSpan } from "../../src/runtime/spans.js";
import { describeShared } from "../support/shared.js";
import { spanProblems } from "../support/spans.js";
import { b64, fromHex, readVectors, RECORD_SET_FILES, type RecordSetVector } from "./support.js";

/** The spans under a root span for the whole set (depth 0), as decodeWithSpans nests them. */
function withRoot(spans: readonly ByteSpan[], length: number): ByteSpan[] {
  return [{ path: "", offset: 0, length, kind: "field", depth: 0 }, ...spans];
}

describeShared("recordSpans on Kafka's record sets", "golden/records", (dir) => {
  for (const file of RECORD_SET_FILES) {
    describe(`records-${file}.json`, () => {
      const vectors = readVectors<RecordSetVector>(dir, `records-${file}.json`);
      it.each(vectors.map((v) => [v.id, v] as const))("%s", (_id, v) => {
        const bytes = fromHex(v.hex);
        const spans = recordSpans(bytes, 0, bytes.length, "records", 1);
        expect(spanProblems(withRoot(spans, bytes.length), bytes.length)).toBe("");
        const at = (path: string): ByteSpan | undefined => spans.find((s) => s.path === path);
        const batches = spans.filter((s) => s.kind === "batch" && s.path !== "records.$incomplete");
        expect(batches.length).toBe(v.expectedBatches);
        const tail = at("records.$incomplete");
        expect(tail?.length ?? 0).toBe(bytes.length - v.validBytes);
        v.batches.forEach((batch, i) => {
          const b = batch as Record<string, unknown> & { records: Record<string, unknown>[] };
          const p = `records[${i}]`;
          if (b["magic"] !== 2) {
            expect(at(`${p}.offset`)!.value).toBe(BigInt(b["offset"] as string));
            expect(b64(at(`${p}.key`)!.value as Uint8Array | null)).toBe(b["key"]);
            expect(b64(at(`${p}.value`)!.value as Uint8Array | null)).toBe(b["value"]);
            return;
          }
          expect(at(`${p}.baseOffset`)!.value).toBe(BigInt(b["baseOffset"] as string));
          expect(at(`${p}.crc`)!.value).toBe(b["crc"]);
          expect(at(`${p}.recordCount`)!.value).toBe(b["recordCount"]);
          if (b["compression"] !== "none") return;
          const records = spans.filter((s) => s.kind === "record" && s.path.startsWith(`${p}.records[`));
          expect(records.length).toBe(b.records.length);
          b.records.forEach((r, k) => {
            const rp = `${p}.records[${k}]`;
            expect(at(rp)!.length).toBe(r["sizeInBytes"]);
            expect(at(`${rp}.offsetDelta`)!.value).toBe(r["offsetDelta"]);
            expect(b64(at(`${rp}.key`)!.value as Uint8Array | null)).toBe(r["key"]);
            expect(b64(at(`${rp}.value`)!.value as Uint8Array | null)).toBe(r["value"]);
            expect(at(`${rp}.headers.$count`)!.value).toBe((r["headers"] as unknown[]).length);
          });
        });
      });
    });
  }

  it("gives offsets of the whole input for a set inside it, and no spans for bytes that are no record set", () => {
    const [v] = readVectors<RecordSetVector>(dir, "records-none.json");
    const set = fromHex(v!.hex);
    const input = new Uint8Array(set.length + 7);
    input.set(set, 5);
    const alone = recordSpans(set, 0, set.length, "r", 1);
    const inside = recordSpans(input, 5, 5 + set.length, "r", 1);
    expect(inside).toEqual(alone.map((s) => ({ ...s, offset: s.offset + 5 })));
    // Three bytes of a batch length that claims more than there is: a partial batch, nothing else.
    expect(recordSpans(new Uint8Array([0, 0, 0]), 0, 3, "r", 1).map((s) => s.path)).toEqual(["r.$incomplete"]);
  });

  it("never throws on Kafka's corrupted batches, and finds no spans where decodeRecords refuses them", () => {
    const vectors = readVectors<{ id: string; hex: string }>(dir, "records-invalid.json");
    let refused = 0;
    for (const v of vectors) {
      const bytes = fromHex(v.hex);
      let throws = false;
      try {
        const r = decodeRecords(bytes);
        if (r instanceof Promise) r.catch(() => undefined);
      } catch {
        throws = true;
      }
      const spans = recordSpans(bytes, 0, bytes.length, "r", 1);
      if (throws) {
        refused++;
        expect(spans, v.id).toEqual([]);
      }
    }
    expect(refused).toBeGreaterThan(50);
  });
});
