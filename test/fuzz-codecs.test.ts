/**
 * The codec fuzz target in CI (test/support/fuzz-codecs.ts): every seed record set (Kafka's
 * golden ones, their uncompressed batches re-compressed under each codec, the hostile sets of
 * issue 17) as it is, strict and lenient, then mutated ones from a fixed seed, each in a child
 * process under a time limit and a heap-growth limit. KAFKA_WIRE_FUZZ_SEED changes the seed,
 * KAFKA_WIRE_FUZZ_SCALE multiplies the number of mutated inputs; `npm run fuzz:codecs` runs more.
 * A failure prints its seed, path and input, with the command that replays it.
 */

import fc from "fast-check";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  codecCaseArb,
  codecFuzzReport,
  codecFuzzSummary,
  CodecFuzzRunner,
  codecSeeds,
  newCodecFuzzStats,
  type CodecSeed,
} from "./support/fuzz-codecs.js";
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
