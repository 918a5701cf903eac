/**
 * The long-running codec fuzzer (`npm run fuzz:codecs`): the target of test/support/fuzz-codecs.ts
 * (record sets under every codec, each decoded in a child process under a time limit and a
 * heap-growth limit), with a random seed printed at the start.
 *
 *   npm run fuzz:codecs                            20000 mutated inputs, random seed
 *   npm run fuzz:codecs -- --inputs 200000         more
 *   npm run fuzz:codecs -- --seeds-only            every seed as it is, strict and lenient
 *   npm run fuzz:codecs -- --keep-going            run them all, then report every failure kind
 *   npm run fuzz:codecs -- --seed 42 --path 17     replay one failure (fast-check's seed and path)
 *   npm run fuzz:codecs -- --hex 0000… [--lenient] [--no-crc]   run one input given as hex
 *   npm run fuzz:codecs -- --hang-ms 2000          another time limit per input (default 10000)
 *   npm run fuzz:codecs -- --seconds 600           stop after that time
 *
 * Exit code 1 on any failure.
 */

import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import fc from "fast-check";
import {
  CODEC_FUZZ_LIMITS,
  codecCaseArb,
  codecFuzzReport,
  codecFuzzSummary,
  CodecFuzzRunner,
  codecSeeds,
  newCodecFuzzStats,
} from "../test/support/fuzz-codecs.js";

const { values: args } = parseArgs({
  options: {
    inputs: { type: "string", default: "20000" },
    seed: { type: "string" },
    path: { type: "string" },
    hex: { type: "string" },
    lenient: { type: "boolean", default: false },
    "no-crc": { type: "boolean", default: false },
    "seeds-only": { type: "boolean", default: false },
    "keep-going": { type: "boolean", default: false },
    "hang-ms": { type: "string" },
    seconds: { type: "string" },
  },
});

const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../shared/golden/records");
const limits =
  args["hang-ms"] === undefined ? CODEC_FUZZ_LIMITS : { ...CODEC_FUZZ_LIMITS, hangMs: Number(args["hang-ms"]) };
const runner = new CodecFuzzRunner(limits);
const stats = newCodecFuzzStats();
const seed = args.seed !== undefined ? Number(args.seed) : (Math.random() * 2 ** 31) | 0;
let failed = false;

try {
  if (args.hex !== undefined) {
    const bytes = Uint8Array.from(Buffer.from(args.hex, "hex"));
    const options = { lenient: args.lenient, verifyCrc: !args["no-crc"], allCodecs: true };
    failed = (await runner.check({ bytes, options, source: "--hex" }, stats)).length > 0;
  } else {
    if (!existsSync(dir)) console.warn(`fuzz:codecs: ${dir} not found: hostile seeds only`);
    const seeds = await codecSeeds(existsSync(dir) ? dir : null);
    if (args["seeds-only"]) {
      for (const s of seeds)
        for (const lenient of [false, true])
          await runner.check(
            { bytes: s.bytes, options: { lenient, verifyCrc: true, allCodecs: true }, source: s.label },
            stats,
          );
    } else {
      console.log(`fuzz:codecs: seed ${seed}, ${args.inputs} inputs from ${seeds.length} seeds`);
      const deadline = args.seconds === undefined ? Infinity : Date.now() + Number(args.seconds) * 1000;
      const details = await fc.check(
        fc.asyncProperty(codecCaseArb(seeds), async (c) => {
          if (Date.now() > deadline) return true;
          const failures = await runner.check(c, stats);
          return args["keep-going"] || failures.length === 0;
        }),
        {
          seed,
          numRuns: Number(args.inputs),
          endOnFailure: true,
          ...(args.path !== undefined ? { path: args.path } : {}),
        },
      );
      if (details.failed)
        console.log(`replay: npm run fuzz:codecs -- --seed ${details.seed} --path ${details.counterexamplePath}`);
    }
    failed = stats.failures.size > 0;
  }
} finally {
  runner.close();
}
console.log(`fuzz:codecs: ${codecFuzzSummary(stats)}`);
if (failed) {
  console.log(codecFuzzReport(stats));
  process.exit(1);
}
