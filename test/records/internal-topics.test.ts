/**
 * Internal-topic records against Apache Kafka's coordinator serdes and MetadataRecordSerde
 * (`../shared/golden/records/internal-records.json`, format in its README): every vector decodes
 * to Kafka's record type, schemas, version and JSON, and encodes back to Kafka's bytes (the
 * README: the oracle re-wrote each from its JSON and got the same bytes). The `__cluster_metadata`
 * batches of `records-cluster-metadata.json` decode record by record to Kafka's `metadataRecord`.
 * Codecs come from the corpus generated from Kafka's schemas at test time (corpus-setup.ts).
 */

import { readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { parse, stringify } from "lossless-json";
import { beforeAll, describe, expect, it } from "vitest";
import { codecs } from "../../compression/src/index.js";
import { decodeRecords, type RecordSet } from "../../src/records/index.js";
import type { InternalRecord, InternalTopics, MessageCodec } from "../../src/runtime/index.js";
import { KafkaDecodeError, KafkaEncodeError } from "../../src/runtime/index.js";
import { CORPUS_OUT } from "../support/corpus.js";
import { canonicalJson, fromHex, toHex } from "../support/golden.js";
import { describeShared } from "../support/shared.js";

interface InternalVector {
  id: string;
  topic: string;
  recordType: number;
  keySchema: string | null;
  keyVersion: number | null;
  keyHex: string | null;
  key: unknown;
  valueSchema: string | null;
  valueVersion: number | null;
  valueHex: string | null;
  value: unknown;
}

interface CorpusInternal {
  internalTopics: InternalTopics;
  controlDecoder: (type: string, typeId: number, value: Uint8Array | null) => unknown;
  controlSchemas: Record<string, MessageCodec<unknown>>;
}

let corpus: CorpusInternal;
beforeAll(async () => {
  if (CORPUS_OUT === "") return;
  corpus = (await import(pathToFileURL(path.join(CORPUS_OUT, "index.ts")).href)) as CorpusInternal;
});

/** The vectors, with the key and value JSON read losslessly (int64 values beyond 2^53 kept exact). */
function readInternalVectors(dir: string): InternalVector[] {
  const text = readFileSync(path.join(dir, "internal-records.json"), "utf8");
  const exact = parse(text) as { key: unknown; value: unknown }[];
  return (JSON.parse(text) as InternalVector[]).map((v, i) => ({ ...v, key: exact[i]!.key, value: exact[i]!.value }));
}

/** Kafka's description of a record as the JSON `internalTopics.toJson` writes. */
function expectedJson(v: InternalVector): string {
  return stringify({
    recordType: v.recordType,
    keySchema: v.keySchema,
    key: v.key,
    valueSchema: v.valueSchema,
    valueVersion: v.valueVersion,
    value: v.value,
  })!;
}

const bytesOrNull = (hex: string | null) => (hex === null ? null : fromHex(hex));

describeShared(
  "internal-topic records (Kafka's coordinator serdes and MetadataRecordSerde)",
  "golden/records",
  (dir) => {
    const vectors = readInternalVectors(dir);

    it("has all 142 vectors, over every record type of four topics", () => {
      expect(vectors.length).toBe(142);
      expect(new Set(vectors.map((v) => v.topic))).toEqual(
        new Set(["__consumer_offsets", "__share_group_state", "__transaction_state", "__cluster_metadata"]),
      );
      expect(vectors.filter((v) => v.valueHex === null).length).toBeGreaterThan(20);
    });

    it.each(vectors.map((v) => [v.id, v] as const))("%s decodes to Kafka's JSON", (_id, v) => {
      const record = corpus.internalTopics.decode(v.topic, bytesOrNull(v.keyHex), bytesOrNull(v.valueHex));
      expect(record.recordType).toBe(v.recordType);
      expect(record.keySchema).toBe(v.keySchema);
      expect(record.valueSchema).toBe(v.valueSchema);
      expect(record.valueVersion).toBe(v.valueVersion);
      if (v.valueHex === null) expect(record.value).toBeNull();
      expect(canonicalJson(corpus.internalTopics.toJson(v.topic, record))).toBe(canonicalJson(expectedJson(v)));
    });

    it.each(vectors.map((v) => [v.id, v] as const))("%s encodes to Kafka's bytes", (_id, v) => {
      const record = corpus.internalTopics.decode(v.topic, bytesOrNull(v.keyHex), bytesOrNull(v.valueHex));
      const { key, value } = corpus.internalTopics.encode(v.topic, record);
      expect(key === null ? null : toHex(key)).toBe(v.keyHex);
      expect(value === null ? null : toHex(value)).toBe(v.valueHex);
    });

    describe("records-cluster-metadata.json", () => {
      const text = readFileSync(path.join(dir, "records-cluster-metadata.json"), "utf8");
      const sets = parse(text) as {
        id: string;
        hex: string;
        batches: {
          records: { metadataRecord?: { recordType: number; name: string; version: number; value: unknown } }[];
        }[];
      }[];

      it.each(sets.map((s) => [String(s.id), s] as const))(
        "%s: every data record decodes to Kafka's metadataRecord",
        async (_id, s) => {
          const set = (await decodeRecords(fromHex(s.hex), {
            codecs,
            controlDecoder: corpus.controlDecoder,
          })) as RecordSet;
          let checked = 0;
          for (const [i, batch] of set.batches.entries()) {
            for (const [j, r] of batch.records.entries()) {
              const want = s.batches[i]!.records[j]!.metadataRecord;
              if (want === undefined) continue; // control records (e.g. a snapshot header)
              const record = corpus.internalTopics.decode("__cluster_metadata", r.key, r.value);
              expect(record.recordType).toBe(Number(want.recordType));
              expect(record.valueSchema).toBe(want.name);
              expect(record.valueVersion).toBe(Number(want.version));
              expect(canonicalJson(stringifyValue(corpus.internalTopics.toJson("__cluster_metadata", record)))).toBe(
                canonicalJson(stringify(want.value)!),
              );
              checked++;
            }
          }
          expect(checked).toBeGreaterThan(0);
        },
      );
    });
  },
);

/** The `value` member of `toJson`'s output, as text (numbers kept exact). */
function stringifyValue(json: string): string {
  return stringify((parse(json) as { value: unknown }).value)!;
}

describeShared("internalTopics: errors and tombstones", "kafka-schemas", () => {
  // OffsetCommitKey v0 worked out by hand: int16 record type 1, group "g" (int16 length 1 + 67),
  // topic "t" (0001 74), partition int32 0.
  const offsetCommitKey = fromHex("0001" + "000167" + "000174" + "00000000");

  it("a null value is a tombstone: the key decodes, value, valueSchema and valueVersion are null", () => {
    const record = corpus.internalTopics.decode("__consumer_offsets", offsetCommitKey, null);
    expect(record).toEqual({
      recordType: 1,
      keySchema: "OffsetCommitKey",
      valueSchema: null,
      valueVersion: null,
      key: { group: "g", topic: "t", partition: 0 },
      value: null,
    });
    // And a tombstone encodes back to the key alone.
    const { key, value } = corpus.internalTopics.encode("__consumer_offsets", record);
    expect(toHex(key!)).toBe(toHex(offsetCommitKey));
    expect(value).toBeNull();
  });

  it("an unknown coordinator record type is UNKNOWN_RECORD_TYPE naming the type and topic", () => {
    const key = fromHex("7fff000167000174");
    expect(() => corpus.internalTopics.decode("__consumer_offsets", key, null)).toThrow(
      expect.objectContaining({
        name: "KafkaDecodeError",
        code: "UNKNOWN_RECORD_TYPE",
        path: "key",
        message: expect.stringContaining("unknown record type 32767 in __consumer_offsets"),
      }),
    );
  });

  it("an unknown metadata api key is UNKNOWN_RECORD_TYPE naming it", () => {
    // frame version 1, api key 1000 (uvarint e8 07), version 0.
    let error: unknown;
    try {
      corpus.internalTopics.decode("__cluster_metadata", null, fromHex("01e80700"));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(KafkaDecodeError);
    expect((error as KafkaDecodeError).code).toBe("UNKNOWN_RECORD_TYPE");
    expect((error as Error).message).toContain("unknown record type 1000 in __cluster_metadata");
  });

  it("an unknown topic, frame version 0 and a short key are typed errors", () => {
    expect(() => corpus.internalTopics.decode("__nope" as string, null, null)).toThrow(
      expect.objectContaining({ code: "UNKNOWN_RECORD_TYPE", message: expect.stringContaining('"__nope"') }),
    );
    // MetadataRecordSerde rejects frame version 0 (KRaft preview of 2.8).
    expect(() => corpus.internalTopics.decode("__cluster_metadata", null, fromHex("001400"))).toThrow(
      expect.objectContaining({ code: "INVALID_VALUE", path: "value" }),
    );
    expect(() => corpus.internalTopics.decode("__consumer_offsets", fromHex("00"), null)).toThrow(
      expect.objectContaining({ code: "BUFFER_UNDERFLOW", path: "key" }),
    );
    // NoOpRecord (api key 20) v0 is an empty body plus no tagged fields (00); a byte after it is trailing.
    expect(() => corpus.internalTopics.decode("__cluster_metadata", null, fromHex("0114000000"))).toThrow(
      expect.objectContaining({ code: "TRAILING_BYTES", path: "value" }),
    );
    expect(() =>
      corpus.internalTopics.encode("__consumer_offsets", { recordType: 999, key: {}, valueVersion: 0, value: {} }),
    ).toThrow(KafkaEncodeError);
  });

  it("types: decode narrows by topic, keySchema discriminates the record type", () => {
    const record = corpus.internalTopics.decode("__consumer_offsets", offsetCommitKey, null) as InternalRecord;
    expect(record.keySchema).toBe("OffsetCommitKey");
  });

  it("the KRaft control schemas are the five of ControlRecordType", () => {
    expect(Object.keys(corpus.controlSchemas).sort()).toEqual(
      ["KRAFT_VERSION", "KRAFT_VOTERS", "LEADER_CHANGE", "SNAPSHOT_FOOTER", "SNAPSHOT_HEADER"].sort(),
    );
    expect(corpus.controlSchemas["LEADER_CHANGE"]!.name).toBe("LeaderChangeMessage");
  });
});
