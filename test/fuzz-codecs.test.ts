/**
 * The codec fuzz target in CI (test/support/fuzz-codecs.ts): every seed record set (Kafka's
 * golden ones, their uncompressed batches re-compressed under each codec, the hostile sets of
 * issue 17) as it is, strict and lenient, then mutated ones from a fixed seed, each in a child
 * process under a time limit and a heap-growth limit. KAFKA_WIRE_FUZZ_SEED changes the seed,
 * KAFKA_WIRE_FUZZ_SCALE multiplies the number of mutated inputs; `npm run fuzz:codecs` runs more.
 * A failure prints its seed, path and input, with the command that replays it.
 */

import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  codecCaseArb,
  codecFuzzReport,
  codecFuzzSummary,
  CodecFuzzRunner,
  CODEC_FUZZ_LIMITS,
  codecSeeds,
  newCodecFuzzStats,
  type CodecSeed,
} from "./support/fuzz-codecs.js";
import {
  batchAround,
  CODEC_ID,
  fromHex,
  lz4StoredFrame,
  plainRecords,
  SNAPPY_LOOP_HEX,
} from "./support/hostile-records.js";
import { describeShared } from "./support/shared.js";

const SEED = Number(process.env["KAFKA_WIRE_FUZZ_SEED"] ?? 20261201);
const SCALE = Number(process.env["KAFKA_WIRE_FUZZ_SCALE"] ?? 1);
const MUTATED = Math.ceil(4000 * SCALE);

describeShared("fuzz: compressed record sets in a child process, time and heap limits", "golden/records", (dir) => {
  const runner = new CodecFuzzRunner();
  let seeds: CodecSeed[];
  beforeAll(async () => {
    seeds = await codecSeeds(dir);
  });
  afterAll(() => runner.close());

  it("every seed as it is, strict and lenient, CRC checked", { timeout: 600_000 }, async () => {
    // 321 golden sets, 17 uncompressed batches × 5 codec framings, the hostile sets.
    expect(seeds.length).toBeGreaterThan(321 + 85);
    const stats = newCodecFuzzStats();
    for (const s of seeds)
      for (const lenient of [false, true])
        await runner.check(
          { bytes: s.bytes, options: { lenient, verifyCrc: true, allCodecs: true }, source: s.label },
          stats,
        );
    console.log(`fuzz codecs, seeds: ${codecFuzzSummary(stats)}`);
    expect(stats.failures.size, codecFuzzReport(stats)).toBe(0);
  });

  it(`${MUTATED} mutated seeds (seed ${SEED})`, { timeout: 600_000 }, async () => {
    const stats = newCodecFuzzStats();
    const details = await fc.check(
      fc.asyncProperty(codecCaseArb(seeds), async (c) => (await runner.check(c, stats)).length === 0),
      { seed: SEED, numRuns: MUTATED, endOnFailure: true },
    );
    console.log(`fuzz codecs, mutated: ${codecFuzzSummary(stats)}`);
    const replay = details.failed
      ? `\nreplay: npm run fuzz:codecs -- --seed ${details.seed} --path ${details.counterexamplePath}\n`
      : "";
    expect(stats.failures.size, `seed ${SEED}${replay}${codecFuzzReport(stats)}`).toBe(0);
  });
});

describe("the codec fuzz target itself: what it reports", () => {
  // Codecs broken on purpose (support/fuzz-codecs-broken.ts), one per class of issue 17.
  const broken = fileURLToPath(new URL("./support/fuzz-codecs-broken.ts", import.meta.url));
  const runner = new CodecFuzzRunner({ ...CODEC_FUZZ_LIMITS, hangMs: 3000, childHeapMb: 128 }, broken);
  afterAll(() => runner.close());
  const options = { lenient: false, verifyCrc: true, allCodecs: true };

  it("a decode that never returns: a hang, and the next input still runs", { timeout: 60_000 }, async () => {
    const stats = newCodecFuzzStats();
    const hang = await runner.check({ bytes: fromHex(SNAPPY_LOOP_HEX), options, source: "67-byte snappy" }, stats);
    expect(hang.map((f) => f.kind)).toEqual(["hang"]);
    expect(hang[0]!.hex).toBe(SNAPPY_LOOP_HEX);
    // A fresh child: an uncompressed batch of 2 records passes.
    const plain = batchAround(CODEC_ID.none, plainRecords(2, new TextEncoder().encode("v")), 2);
    expect(await runner.check({ bytes: plain, options, source: "plain" }, stats)).toEqual([]);
    expect(stats.counts.get("hang")?.n).toBe(1);
  });

  it("memory held past the decode: heap growth (8 MiB for a 90-byte lz4 batch)", { timeout: 60_000 }, async () => {
    const stats = newCodecFuzzStats();
    const bytes = batchAround(CODEC_ID.lz4, lz4StoredFrame(plainRecords(1, new TextEncoder().encode("v"))));
    const failures = await runner.check({ bytes, options, source: "lz4" }, stats);
    expect(failures.map((f) => f.kind)).toContain("heap growth (decode)");
  });

  it("a decode that exhausts the child's heap: a crash", { timeout: 60_000 }, async () => {
    const stats = newCodecFuzzStats();
    const bytes = batchAround(CODEC_ID.zstd, fromHex("28b52ffd00000100 00"));
    const failures = await runner.check({ bytes, options, source: "zstd" }, stats);
    expect(failures.map((f) => f.kind)).toEqual(["crash"]);
  });
});
