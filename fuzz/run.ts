/**
 * The long-running fuzzer (`npm run fuzz`): the oracle of test/support/fuzz.ts over random bytes
 * and mutated golden vectors of the four seed messages and of every message × version of Apache
 * Kafka's schemas, with a random seed printed at the start.
 *
 *   npm run fuzz                               10^6 inputs, random seed, stop at the first failure
 *   npm run fuzz -- --inputs 5000000           more inputs
 *   npm run fuzz -- --keep-going               run them all, then report every failure class
 *   npm run fuzz -- --seed 42 --path 1234:5    replay one failure (fast-check's seed and path)
 *   npm run fuzz -- --messages '^Fetch'        only targets whose label matches the regex
 *   npm run fuzz -- --seconds 600              stop after that time even if inputs remain
 *   npm run fuzz -- --seed-share 0.3           share of inputs for the seed messages (default 0.3)
 *   npm run fuzz -- --reuse-corpus             do not regenerate the corpus codecs
 *   npm run fuzz -- --max-ms 5                 a tighter time bound per decode (default 50 ms + 1 µs/byte)
 *   npm run fuzz -- --records                  record sets (decodeRecords) instead of messages:
 *                                              random bytes and mutated golden record sets
 *
 * The corpus codecs are generated into `.corpus/fuzz/generated/` (ignored by git; the vitest
 * corpus setup uses `.corpus/generated/`, so both can run at once). Exit code 1 on any failure.
 */

import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import fc from "fast-check";
import { initZstd } from "../compression/src/index.js";
import { generate } from "../generator/generate.js";
import { messages } from "../generated/index.js";
import type { MessageCodec } from "../src/runtime/index.js";
import {
  caseArb,
  checkCase,
  DEFAULT_LIMITS,
  formatFailure,
  FuzzStats,
  messageTargets,
  type FuzzCase,
  type FuzzLimits,
  type FuzzTarget,
} from "../test/support/fuzz.js";
import {
  checkRecordsCase,
  mutatedRecordsCaseArb,
  randomRecordsCaseArb,
  recordSetSites,
  RecordsStats,
  type RecordsCase,
} from "../test/support/fuzz-records.js";
import { readGolden } from "../test/support/golden.js";

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const SHARED = path.resolve(REPO_ROOT, "../shared");
const CORPUS_OUT = path.join(REPO_ROOT, ".corpus", "fuzz", "generated");

const { values: args } = parseArgs({
  options: {
    inputs: { type: "string", default: "1000000" },
    seed: { type: "string" },
    path: { type: "string" },
    "keep-going": { type: "boolean", default: false },
    messages: { type: "string" },
    seconds: { type: "string" },
    "seed-share": { type: "string", default: "0.3" },
    "reuse-corpus": { type: "boolean", default: false },
    "max-ms": { type: "string" },
    records: { type: "boolean", default: false },
    help: { type: "boolean", default: false },
  },
});

if (args.help) {
  console.log(
    "usage: npm run fuzz -- [--inputs N] [--seed S [--path P]] [--keep-going] [--messages REGEX] [--seconds T] [--seed-share F] [--reuse-corpus]",
  );
  process.exit(0);
}

const inputs = Number(args.inputs);
const seed = args.seed !== undefined ? Number(args.seed) : (Math.random() * 2 ** 31) | 0;
const keepGoing = args["keep-going"];
const filter = args.messages !== undefined ? new RegExp(args.messages) : null;
const seedShare = Number(args["seed-share"]);
const limits: FuzzLimits =
  args["max-ms"] !== undefined ? { ...DEFAULT_LIMITS, msBase: Number(args["max-ms"]) } : DEFAULT_LIMITS;
if (
  !Number.isInteger(inputs) ||
  inputs <= 0 ||
  !Number.isInteger(seed) ||
  !(seedShare >= 0 && seedShare <= 1) ||
  !(limits.msBase >= 0)
) {
  console.error(
    "--inputs must be a positive integer, --seed an integer, --seed-share between 0 and 1, --max-ms a number",
  );
  process.exit(2);
}

console.log(
  `fuzz: seed ${seed}${args.path !== undefined ? ` path ${args.path}` : ""}, ${inputs} inputs${keepGoing ? ", keep going" : ""}`,
);

async function loadTargets(): Promise<{ seedTargets: FuzzTarget[]; corpusTargets: FuzzTarget[] }> {
  const seedTargets: FuzzTarget[] = [];
  for (const [name, codec] of Object.entries(messages) as [string, MessageCodec<unknown>][]) {
    const file = path.join(SHARED, "golden", "seed", `${name}.json`);
    seedTargets.push(...messageTargets(name, codec, existsSync(file) ? readGolden(file) : [], true));
  }
  const corpusTargets: FuzzTarget[] = [];
  const schemas = path.join(SHARED, "kafka-schemas");
  if (!existsSync(schemas)) {
    console.warn(`fuzz: ${schemas} not found: fuzzing the seed messages only`);
  } else {
    if (!args["reuse-corpus"] || !existsSync(CORPUS_OUT)) {
      const started = Date.now();
      const result = await generate({
        schemas: [schemas],
        out: CORPUS_OUT,
        runtimeImport: "../../../src/codegen/v1.js",
        cwd: REPO_ROOT,
      });
      console.log(`fuzz: generated ${result.messages.length} corpus codecs in ${Date.now() - started} ms`);
    }
    const goldenDir = path.join(SHARED, "golden", "kafka");
    for (const file of readdirSync(CORPUS_OUT)
      .filter((f) => f.endsWith(".ts") && f !== "index.ts")
      .sort()) {
      const name = file.slice(0, -3);
      const mod = (await import(pathToFileURL(path.join(CORPUS_OUT, file)).href)) as Record<
        string,
        MessageCodec<unknown>
      >;
      const codec = mod[name];
      if (codec === undefined) continue;
      const golden = path.join(goldenDir, `${name}.json`);
      corpusTargets.push(...messageTargets(name, codec, existsSync(golden) ? readGolden(golden) : [], false));
    }
  }
  const keep = (t: FuzzTarget) => filter === null || filter.test(t.label);
  return { seedTargets: seedTargets.filter(keep), corpusTargets: corpusTargets.filter(keep) };
}

if (args.records) {
  await fuzzRecords();
  process.exit(0);
}

/** `--records`: the record-set oracle of test/support/fuzz-records.ts; exits 1 on any failure. */
async function fuzzRecords(): Promise<void> {
  // zstd's WebAssembly loads asynchronously; once loaded every codec the oracle uses is synchronous.
  await initZstd();
  const dir = path.join(SHARED, "golden", "records");
  const vectors = existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => f.startsWith("records-") && f.endsWith(".json"))
        .flatMap((f) => JSON.parse(readFileSync(path.join(dir, f), "utf8")) as { id: string; hex: string }[])
        .map((v) => {
          const bytes = Uint8Array.from(Buffer.from(v.hex, "hex"));
          return { bytes, sites: recordSetSites(bytes), label: v.id };
        })
    : [];
  console.log(`fuzz: record sets, ${vectors.length} golden record sets`);
  const arb: fc.Arbitrary<RecordsCase> =
    vectors.length === 0
      ? randomRecordsCaseArb()
      : fc.oneof(
          randomRecordsCaseArb(),
          fc.constantFrom(...vectors).chain((v) => mutatedRecordsCaseArb(v)),
        );
  const stats = new RecordsStats();
  const deadline = args.seconds !== undefined ? Date.now() + Number(args.seconds) * 1000 : Infinity;
  const result = fc.check(
    fc.property(arb, (c) => {
      if (Date.now() > deadline) return true;
      checkRecordsCase(c, stats);
      return keepGoing || stats.failures.size === 0;
    }),
    { seed, numRuns: inputs, ...(args.path !== undefined ? { path: args.path } : {}), endOnFailure: true },
  );
  if (result.failed) console.log(`fuzz: replay with --seed ${seed} --path ${result.counterexamplePath}`);
  console.log(`fuzz: ${stats.inputs} record sets, ${stats.decoded} decoded, ${stats.rejected} rejected`);
  for (const f of stats.failures.values()) console.log(`FAIL ${f.kind}: ${f.detail} [${f.source}] ${f.hex}`);
  if (stats.failures.size > 0) process.exit(1);
}

const { seedTargets, corpusTargets } = await loadTargets();
const targets = [...seedTargets, ...corpusTargets];
if (targets.length === 0) {
  console.error("fuzz: no target matches");
  process.exit(2);
}
const vectorCount = targets.reduce((n, t) => n + t.vectors.length, 0);
console.log(
  `fuzz: ${seedTargets.length} seed and ${corpusTargets.length} corpus message versions, ${vectorCount} golden vectors`,
);

interface Pick {
  readonly t: number;
  readonly c: FuzzCase;
}

const cache = new Map<number, fc.Arbitrary<Pick>>();
function pickArb(offset: number, count: number): fc.Arbitrary<Pick> {
  return fc.nat({ max: count - 1 }).chain((i) => {
    const t = offset + i;
    let arb = cache.get(t);
    if (arb === undefined) {
      arb = caseArb(targets[t]!).map((c) => ({ t, c }));
      cache.set(t, arb);
    }
    return arb;
  });
}

const choices: { arbitrary: fc.Arbitrary<Pick>; weight: number }[] = [];
if (seedTargets.length > 0)
  choices.push({
    arbitrary: pickArb(0, seedTargets.length),
    weight: corpusTargets.length > 0 ? Math.round(seedShare * 1000) : 1,
  });
if (corpusTargets.length > 0)
  choices.push({
    arbitrary: pickArb(seedTargets.length, corpusTargets.length),
    weight: seedTargets.length > 0 ? 1000 - Math.round(seedShare * 1000) : 1,
  });
const arb = fc.oneof(...choices.filter((c) => c.weight > 0));

const stats = new FuzzStats();
const started = performance.now();
let lastReport = started;
let shrinking = false;

const property = fc.property(arb, ({ t, c }) => {
  const result = checkCase(targets[t]!, c, stats, limits);
  const now = performance.now();
  if (!shrinking && now - lastReport > 5000) {
    lastReport = now;
    const s = (now - started) / 1000;
    console.log(
      `fuzz: ${stats.inputs} inputs in ${s.toFixed(0)} s (${(stats.inputs / s).toFixed(0)}/s), ${stats.decoded} decoded, ${stats.failures.size} failure classes`,
    );
  }
  if (result.failure !== null && !keepGoing) {
    shrinking = true;
    throw new Error(formatFailure(result.failure));
  }
});

const details = fc.check(property, {
  seed,
  numRuns: inputs,
  ...(args.path !== undefined ? { path: args.path } : {}),
  ...(args.seconds !== undefined ? { interruptAfterTimeLimit: Number(args.seconds) * 1000 } : {}),
});
const seconds = (performance.now() - started) / 1000;

console.log(`fuzz: ${stats.summary()}`);
console.log(`fuzz: ${details.numRuns} runs in ${seconds.toFixed(1)} s, seed ${seed}`);

if (details.failed) {
  const ce = details.counterexample?.[0] as Pick | undefined;
  console.log(`\nfuzz: FAILED (seed ${details.seed}, path ${details.counterexamplePath})`);
  if (ce !== undefined) {
    // Re-run the shrunk input for its own failure text.
    const again = checkCase(targets[ce.t]!, ce.c, new FuzzStats(), limits);
    console.log(again.failure !== null ? formatFailure(again.failure) : String(details.errorInstance));
  } else {
    console.log(String(details.errorInstance));
  }
  const extra = [
    args.messages !== undefined ? ` --messages '${args.messages}'` : "",
    args["max-ms"] !== undefined ? ` --max-ms ${args["max-ms"]}` : "",
    ` --seed-share ${seedShare}`,
  ].join("");
  console.log(
    `\nreplay: npm run fuzz -- --seed ${details.seed} --path ${details.counterexamplePath}${extra} --reuse-corpus`,
  );
  process.exit(1);
}
if (stats.failures.size > 0) {
  console.log(
    `\nfuzz: FAILED, ${stats.failures.size} failure classes (seed ${seed}; each shows its shortest input):\n`,
  );
  console.log(stats.report());
  process.exit(1);
}
console.log("fuzz: no failure");
