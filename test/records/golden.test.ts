/**
 * Record sets against Apache Kafka's own record classes (`../shared/golden/records/`, format in
 * its README): every vector of every `records-<kind>.json` file decodes to Kafka's description;
 * uncompressed magic-2 batches re-encode to Kafka's exact bytes; compressed ones re-encode under
 * the same codec and decode back to the same description (minus crc and batchLength, which
 * depend on the compressor's bytes). `records-invalid.json`: see invalid.test.ts.
 */

import { describe, expect, it } from "vitest";
import { codecs } from "../../compression/src/index.js";
import {
  decodeRecords,
  KafkaRecordsError,
  type ControlRecordTypeName,
  type RecordBatch,
  type RecordSet,
} from "../../src/records/index.js";
import type { MessageCodec } from "../../src/runtime/index.js";
import { corpusIndex } from "../support/corpus.js";
import { describeShared } from "../support/shared.js";
import {
  describeBatch,
  expectedBatch,
  fromHex,
  initFromDescription,
  readVectors,
  RECORD_SET_FILES,
  type RecordSetVector,
} from "./support.js";
import { encodeRecordBatch } from "../../src/records/index.js";

/**
 * The generated corpus index's `controlDecoder` (KRaft control records through the codecs of
 * their schemas, version 0: no version prefix), with the decoded message written as Kafka's JSON
 * for comparison with the vectors' `control`.
 */
async function kraftDecoder(): Promise<(type: ControlRecordTypeName, id: number, value: Uint8Array | null) => unknown> {
  const { controlDecoder, controlSchemas } = (await corpusIndex()) as unknown as {
    controlDecoder: (type: string, id: number, value: Uint8Array | null) => unknown;
    controlSchemas: Record<string, MessageCodec<unknown>>;
  };
  return (type, id, value) => {
    const decoded = controlDecoder(type, id, value);
    return decoded === undefined ? undefined : JSON.parse(controlSchemas[type]!.toJson(decoded, 0));
  };
}

describeShared("golden record sets (Kafka's MemoryRecords)", "golden/records", (dir) => {
  for (const file of RECORD_SET_FILES) {
    describe(`records-${file}.json`, () => {
      const vectors = readVectors<RecordSetVector>(dir, `records-${file}.json`);

      it("has vectors", () => expect(vectors.length).toBeGreaterThan(0));

      it.each(vectors.map((v) => [v.id, v] as const))("%s decodes to Kafka's description", async (_id, v) => {
        const bytes = fromHex(v.hex);
        const set = await decodeRecords(bytes, { codecs, controlDecoder: await kraftDecoder() });
        expect(set.batches.length).toBe(v.expectedBatches);
        expect(set.validBytes).toBe(v.validBytes);
        expect(set.incompleteTail).toBe(bytes.length - v.validBytes);
        if (v.truncatedBy !== undefined) expect(set.incompleteTail).toBeGreaterThan(0);
        expect(set.batches.map(describeBatch)).toEqual(v.batches.map(expectedBatch));
        // Each batch's raw bytes are its slice of the input (what pass-through writes back).
        for (const b of set.batches) {
          expect(b.raw.buffer).toBe(bytes.buffer);
          expect(b.raw.byteOffset).toBe(b.byteOffset);
        }
      });

      it.each(vectors.map((v) => [v.id, v] as const))(
        "%s: the decode pass's summary is what Kafka's records give",
        async (_id, v) => {
          const set = await decodeRecords(fromHex(v.hex), { codecs, controlDecoder: await kraftDecoder() });
          for (const [i, b] of set.batches.entries()) {
            if (b.magic !== 2) continue;
            const records = v.batches[i]!["records"] as { timestampDelta: string; key: string | null }[];
            // LogValidator's maxTimestamp: from NO_TIMESTAMP (-1), over baseTimestamp + timestampDelta.
            let max = -1n;
            for (const r of records) {
              const t = BigInt(v.batches[i]!["baseTimestamp"] as string) + BigInt(r.timestampDelta);
              if (t > max) max = t;
            }
            expect(b.recordsMaxTimestamp).toBe(max);
            expect(b.nullKeyRecords).toBe(records.filter((r) => r.key === null).length);
          }
        },
      );

      it.each(vectors.map((v) => [v.id, v] as const))(
        "%s re-encodes (byte-exact when uncompressed)",
        async (_id, v) => {
          const bytes = fromHex(v.hex);
          const set = (await decodeRecords(bytes, { codecs })) as RecordSet;
          let checked = 0;
          for (const [i, b] of set.batches.entries()) {
            if (b.magic !== 2) continue; // legacy formats are decode-only
            const description = v.batches[i]!;
            const init = initFromDescription(description);
            const encoded = await encodeRecordBatch(init, { codecs, validation: "log" });
            if (b.compression === "none") {
              expect(Buffer.from(encoded).toString("hex")).toBe(Buffer.from(b.raw).toString("hex"));
            } else {
              const again = (await decodeRecords(encoded, { codecs })) as RecordSet;
              expect(again.batches.length).toBe(1);
              const { crc: _c, batchLength: _l, ...want } = expectedBatch(description);
              const { crc: _c2, batchLength: _l2, ...got } = describeBatch(again.batches[0]!);
              expect(got).toEqual({
                ...want,
                records: (want["records"] as object[]).map((r) => ({ ...r, control: undefined })).map(stripUndefined),
              });
            }
            checked++;
          }
          expect(checked).toBe(v.batches.filter((b) => b["magic"] === 2).length);
        },
      );
    });
  }

  describe("without the companion package", () => {
    it("gzip decodes with the platform's DecompressionStream (asynchronous)", async () => {
      for (const v of readVectors<RecordSetVector>(dir, "records-gzip.json")) {
        const result = decodeRecords(fromHex(v.hex));
        expect(result).toBeInstanceOf(Promise);
        expect((await result).batches.map(describeBatch)).toEqual(v.batches.map(expectedBatch));
      }
    });

    it.each(["snappy", "lz4", "zstd"])("%s: the header decodes, records name the codec and the package", (kind) => {
      for (const v of readVectors<RecordSetVector>(dir, `records-${kind}.json`)) {
        const bytes = fromHex(v.hex);
        const set = decodeRecords(bytes) as RecordSet;
        expect(set.batches.length).toBe(v.expectedBatches);
        const b = set.batches[0] as RecordBatch;
        expect(b.recordsAvailable).toBe(false);
        expect(String(b.baseOffset)).toBe(v.batches[0]!["baseOffset"]);
        expect(b.recordCount).toBe(v.batches[0]!["recordCount"]);
        expect(b.raw).toEqual(bytes.subarray(0, b.raw.length));
        let error: unknown;
        try {
          void b.records;
        } catch (e) {
          error = e;
        }
        expect(error).toBeInstanceOf(KafkaRecordsError);
        expect((error as KafkaRecordsError).code).toBe("UNSUPPORTED_COMPRESSION");
        expect((error as KafkaRecordsError).message).toContain(kind);
        expect((error as KafkaRecordsError).message).toContain("kafka-wire-compression");
        expect((error as KafkaRecordsError).baseOffset).toBe(b.baseOffset);
        // Passed on unchanged: the same bytes, compressed payload and CRC included.
        expect(encodeRecordBatch(b)).toBe(b.raw);
      }
    });
  });
});

function stripUndefined(o: object): object {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}
