/**
 * Fuzzing in CI, with a fixed seed: for every message × version of the four seed messages and of
 * Apache Kafka's schemas, (a) random byte strings and (b) every golden vector under random
 * mutations (bit flips, bytes set to 00/ff/7f/80, truncation, insertion, deletion, duplicated
 * slices, and length prefixes replaced by extremes such as `ff ff ff ff 0f`,
 * `80 80 80 80 80 01`, `7f ff ff ff`, `ff ff ff ff`) go through the oracle of support/fuzz.ts:
 * decode throws a KafkaDecodeError or returns a value that re-encodes and decodes back to itself,
 * within time and size bounds proportional to the input, without modifying the input.
 *
 * Every failure class is collected (with its shortest input, as hex) and reported at the end of
 * each test. KAFKA_WIRE_FUZZ_SEED changes the seed, KAFKA_WIRE_FUZZ_SCALE multiplies the number
 * of inputs; `npm run fuzz` runs far more with a random seed.
 */

import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { initZstd } from "../compression/src/index.js";
import { messages } from "../generated/index.js";
import type { MessageCodec } from "../src/runtime/index.js";
import { corpusCodec } from "./support/corpus.js";
import {
  checkCase,
  FuzzStats,
  messageTargets,
  mutationCaseArb,
  randomCaseArb,
  type FuzzCase,
  type FuzzTarget,
} from "./support/fuzz.js";
import {
  checkRecordsCase,
  mutatedRecordsCaseArb,
  randomRecordsCaseArb,
  recordSetSites,
  RecordsStats,
  type RecordsCase,
} from "./support/fuzz-records.js";
import { readGolden } from "./support/golden.js";
import { describeShared, sharedDir } from "./support/shared.js";

const SEED = Number(process.env["KAFKA_WIRE_FUZZ_SEED"] ?? 20261129);
const SCALE = Number(process.env["KAFKA_WIRE_FUZZ_SCALE"] ?? 1);

/** Inputs per seed message version: random byte strings, and mutations per golden vector. */
const SEED_RANDOM = Math.ceil(20000 * SCALE);
const SEED_PER_VECTOR = Math.ceil(300 * SCALE);
/** Inputs per corpus message version, and mutations per corpus golden vector (3 per version). */
const CORPUS_RANDOM = Math.ceil(500 * SCALE);
const CORPUS_PER_VECTOR = Math.ceil(80 * SCALE);

/** Record sets: random byte strings, and mutations per golden record set. */
const RECORDS_RANDOM = Math.ceil(20000 * SCALE);
const RECORDS_PER_VECTOR = Math.ceil(150 * SCALE);

const SEED_MESSAGES = [
  "StreamsGroupHeartbeatRequest",
  "StreamsGroupHeartbeatResponse",
  "StreamsGroupDescribeResponse",
  "StreamsGroupMemberMetadataValue",
] as const;

/** All inputs of this file, for the summary line. */
const total = new FuzzStats();
const started = performance.now();

/** A stable per-test seed, so one test's inputs do not depend on which tests ran before it. */
function seedFor(label: string): number {
  let h = SEED | 0;
  for (let i = 0; i < label.length; i++) h = (Math.imul(h, 31) + label.charCodeAt(i)) | 0;
  return h;
}

/**
 * Runs `numRuns` cases of `arb` through the oracle for `target`, recording into `stats` (and the
 * file's total). Failures do not stop the run: the caller asserts on `stats.failures`.
 */
function fuzz(target: FuzzTarget, arb: fc.Arbitrary<FuzzCase>, numRuns: number, label: string, stats: FuzzStats): void {
  fc.assert(
    fc.property(arb, (c) => {
      checkCase(target, c, stats);
      return true;
    }),
    { seed: seedFor(label), numRuns },
  );
}

function merge(into: FuzzStats, from: FuzzStats): void {
  into.inputs += from.inputs;
  into.decoded += from.decoded;
  into.rejected += from.rejected;
  into.inputBytes += from.inputBytes;
  for (const [code, n] of from.codes) into.codes.set(code, (into.codes.get(code) ?? 0) + n);
  if (from.maxDecodeMs > into.maxDecodeMs) {
    into.maxDecodeMs = from.maxDecodeMs;
    into.maxDecodeMsLabel = from.maxDecodeMsLabel;
  }
  into.maxUnitsPerByte = Math.max(into.maxUnitsPerByte, from.maxUnitsPerByte);
  into.maxHeapGrowth = Math.max(into.maxHeapGrowth, from.maxHeapGrowth);
  for (const [key, f] of from.failures) if (!into.failures.has(key)) into.failures.set(key, f);
}

/** Fuzzes every version of one message; fails with every failure class found. */
function fuzzMessage(targets: readonly FuzzTarget[], randomRuns: number, perVector: number): void {
  const stats = new FuzzStats();
  try {
    for (const target of targets) {
      fuzz(target, randomCaseArb(), randomRuns, `${target.label} random`, stats);
      for (const vector of target.vectors) {
        fuzz(target, mutationCaseArb(vector), perVector, `${target.label} ${vector.label}`, stats);
      }
    }
  } finally {
    merge(total, stats);
  }
  expect(stats.failures.size, `seed ${SEED}: ${stats.summary()}\n${stats.report()}`).toBe(0);
}

afterAll(() => {
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`fuzz (seed ${SEED}): ${total.summary()} in ${seconds} s`);
});

describeShared("fuzz: the seed messages", "golden/seed", (dir) => {
  for (const name of SEED_MESSAGES) {
    it(`${name}: ${SEED_RANDOM} random byte strings and ${SEED_PER_VECTOR} mutations of each golden vector`, () => {
      const codec = messages[name] as MessageCodec<unknown>;
      const targets = messageTargets(name, codec, readGolden(path.join(dir, `${name}.json`)), true);
      expect(targets.flatMap((t) => t.vectors)).toHaveLength(51);
      fuzzMessage(targets, SEED_RANDOM, SEED_PER_VECTOR);
    });
  }
});

describeShared("fuzz: every message and version of Apache Kafka's schemas", "golden/kafka", (dir) => {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort();
  it("has the golden vectors of all 280 schemas", () => {
    expect(files).toHaveLength(280);
    expect(sharedDir("kafka-schemas")).not.toBeNull();
  });
  for (const file of files) {
    const name = file.slice(0, -".json".length);
    describe(name, () => {
      let targets: FuzzTarget[];
      beforeAll(async () => {
        targets = messageTargets(name, await corpusCodec(name), readGolden(path.join(dir, file)), false);
      });
      it(`every version: ${CORPUS_RANDOM} random byte strings, ${CORPUS_PER_VECTOR} mutations of each golden vector`, () => {
        fuzzMessage(targets, CORPUS_RANDOM, CORPUS_PER_VECTOR);
      });
    });
  }
});

describeShared("fuzz: record sets (decodeRecords)", "golden/records", (dir) => {
  // zstd's WebAssembly loads asynchronously; once loaded every codec here is synchronous.
  beforeAll(() => initZstd());
  const files = readdirSync(dir)
    .filter((f) => f.startsWith("records-") && f.endsWith(".json"))
    .sort();

  const run = (arb: fc.Arbitrary<RecordsCase>, numRuns: number, label: string, stats: RecordsStats) =>
    fc.assert(
      fc.property(arb, (c) => {
        checkRecordsCase(c, stats);
        return true;
      }),
      { seed: seedFor(label), numRuns },
    );
  const report = (stats: RecordsStats) =>
    [...stats.failures.values()].map((f) => `${f.kind}: ${f.detail} [${f.source}] ${f.hex.slice(0, 400)}`).join("\n");

  it(`${RECORDS_RANDOM} random byte strings`, () => {
    const stats = new RecordsStats();
    run(randomRecordsCaseArb(), RECORDS_RANDOM, "records random", stats);
    expect(stats.failures.size, `seed ${SEED}:\n${report(stats)}`).toBe(0);
  });

  for (const file of files) {
    it(`${file}: ${RECORDS_PER_VECTOR} mutations of each vector, with and without the codecs`, () => {
      const vectors = (JSON.parse(readFileSync(path.join(dir, file), "utf8")) as { id: string; hex: string }[]).map(
        (v) => {
          const bytes = Uint8Array.from(Buffer.from(v.hex, "hex"));
          return { bytes, sites: recordSetSites(bytes), label: v.id };
        },
      );
      const stats = new RecordsStats();
      for (const vector of vectors)
        run(mutatedRecordsCaseArb(vector), RECORDS_PER_VECTOR, `records ${vector.label}`, stats);
      expect(stats.inputs).toBe(vectors.length * RECORDS_PER_VECTOR);
      expect(stats.failures.size, `seed ${SEED}:\n${report(stats)}`).toBe(0);
    });
  }
});
