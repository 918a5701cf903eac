/**
 * `records-invalid.json`: Kafka-written magic-2 batches, corrupted, with Kafka's reader's verdict.
 * - lenient (`lenient: true`, reading as Kafka's Java reader does): the same verdict for every
 *   vector, the same description when accepted, and an error code that fits the stage Kafka
 *   failed at;
 * - strict (the default): everything Kafka rejects is rejected too; what Kafka accepts is accepted
 *   with the same description, except the lenient spots listed below, which are rejected.
 */

import { describe, expect, it } from "vitest";
import { codecs } from "../../compression/src/index.js";
import { decodeRecords, KafkaRecordsError, type RecordSet } from "../../src/records/index.js";
import { describeShared } from "../support/shared.js";
import { describeBatch, expectedBatch, fromHex, readVectors } from "./support.js";

interface InvalidVector {
  readonly id: string;
  readonly class: string;
  readonly hex: string;
  readonly kafkaAccepts: boolean;
  readonly stage: null | "batches" | "ensureValid" | "iterate" | "decompress";
  readonly kafkaError: string | null;
  readonly batches: Record<string, unknown>[] | null;
}

/** Classes Kafka's reader accepts although no Kafka writer produces them: rejected unless lenient. */
const STRICT_REJECTS = new Set([
  "record-count-zero-lenient",
  "unused-attribute-bits",
  "transactional-bit-without-producer",
  "record-attributes-nonzero",
  "non-minimal-varint",
  "negative-length-as-null",
  "offset-deltas-not-increasing",
  "max-timestamp-mismatch",
  "header-key-invalid-utf8",
  "varint-5th-byte-high-bits",
]);

/** Error codes that fit the stage at which Kafka failed. */
const CODES_BY_STAGE: Record<string, string[]> = {
  batches: ["CORRUPT_RECORD"],
  ensureValid: ["CRC_MISMATCH", "CORRUPT_RECORD"],
  iterate: ["CORRUPT_RECORD", "INVALID_LENGTH", "INVALID_VARINT", "BUFFER_UNDERFLOW", "UNSUPPORTED_COMPRESSION"],
  decompress: ["COMPRESSION_FAILED", "CORRUPT_RECORD", "INVALID_LENGTH", "INVALID_VARINT", "BUFFER_UNDERFLOW"],
};

async function verdict(hex: string, lenient: boolean): Promise<RecordSet | KafkaRecordsError> {
  try {
    return await decodeRecords(fromHex(hex), { codecs, lenient });
  } catch (e) {
    if (e instanceof KafkaRecordsError) return e;
    throw e;
  }
}

describeShared("records-invalid.json (Kafka's verdicts on corrupted batches)", "golden/records", (dir) => {
  const vectors = readVectors<InvalidVector>(dir, "records-invalid.json");
  const cases = vectors.map((v) => [v.id, v] as const);

  it("has the README's 108 vectors", () => expect(vectors.length).toBe(108));

  describe("lenient: Kafka's verdict", () => {
    it.each(cases)("%s", async (_id, v) => {
      const got = await verdict(v.hex, true);
      if (v.kafkaAccepts) {
        expect(got).not.toBeInstanceOf(KafkaRecordsError);
        expect((got as RecordSet).batches.map(describeBatch)).toEqual(v.batches!.map(expectedBatch));
      } else {
        expect(got).toBeInstanceOf(KafkaRecordsError);
        const e = got as KafkaRecordsError;
        expect(CODES_BY_STAGE[v.stage!]).toContain(e.code);
        // The first (and only) batch failed: its base offset and position are reported.
        expect(e.batchOffset).toBe(0);
        if (e.baseOffset !== null) expect(e.baseOffset).toBe(BigInt.asIntN(64, BigInt("0x" + v.hex.slice(0, 16))));
        expect(e.offset).toBeGreaterThanOrEqual(0);
        expect(e.offset).toBeLessThanOrEqual(v.hex.length / 2);
      }
    });
  });

  describe("strict (default)", () => {
    it.each(cases)("%s", async (id, v) => {
      const got = await verdict(v.hex, false);
      if (!v.kafkaAccepts) {
        expect(got).toBeInstanceOf(KafkaRecordsError);
      } else if (STRICT_REJECTS.has(v.class)) {
        expect(got).toBeInstanceOf(KafkaRecordsError);
      } else if (got instanceof KafkaRecordsError) {
        // A random bit flip with a recomputed CRC may land on a lenient spot (e.g. a record's attributes).
        expect(id).toMatch(/^random-flip-crc-fixed\//);
        expect(["CORRUPT_RECORD", "INVALID_VARINT", "INVALID_LENGTH", "INVALID_STRING"]).toContain(got.code);
      } else {
        expect(got.batches.map(describeBatch)).toEqual(v.batches!.map(expectedBatch));
      }
    });
  });
});
