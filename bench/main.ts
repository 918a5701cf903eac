/**
 * `npm run bench` — kafka-wire's generated codecs side by side with @platformatic/kafka and
 * kafkajs on the messages they share, plus the four KIP-1071 seed messages, against a memcpy of
 * the same bytes. See ops.ts for exactly what one operation is for each contender and harness.ts
 * for how it is timed.
 *
 *   npm run bench                      full run (~2 min on 2 cores), writes bench/results.md
 *   npm run bench -- --quick           smoke run (~20 s), prints only
 *   npm run bench -- --filter Metadata only ops whose name contains the text (case-insensitive)
 *
 * This is a program, not a test: nothing here asserts a timing. It fails (exit 1) only when a
 * contender does not produce or accept the same bytes, since the numbers would then mean nothing.
 */

import { writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { loadCorpusCodecs, REPO_ROOT, SCHEMAS_DIR } from "./corpus.js";
import { checksum, prewarm, runOp, type Op, type OpResult, type Settings } from "./harness.js";
import { seedMessageOps, sharedOps } from "./ops.js";
import { installedVersions } from "./peers.js";
import { recordOps } from "./records.js";
import { ratioTable, resultsTable } from "./report.js";

const FULL: Settings = { rounds: 25, roundMs: 40, warmupMs: 100 };
const QUICK: Settings = { rounds: 5, roundMs: 10, warmupMs: 25 };

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

async function main(): Promise<void> {
  const started = performance.now();
  const loadBefore = os.loadavg()[0]!;
  const { values } = parseArgs({
    options: {
      quick: { type: "boolean", default: false },
      filter: { type: "string" },
      help: { type: "boolean", default: false },
    },
  });
  if (values.help) {
    log("usage: npm run bench [-- --quick] [-- --filter TEXT]");
    return;
  }
  const settings = values.quick ? QUICK : FULL;

  const t0 = performance.now();
  const corpus = await loadCorpusCodecs();
  const notes: string[] = [];
  if (corpus === null) {
    notes.push(
      `${SCHEMAS_DIR} not found: only the seed messages were benchmarked, with no peers (they implement none of them).`,
    );
    log(`WARNING: ${notes[0]}`);
  } else {
    log(`generated the corpus codecs into bench/.generated/ in ${Math.round(performance.now() - t0)} ms`);
  }

  let ops: Op[] = [...(corpus === null ? [] : sharedOps(corpus)), ...seedMessageOps(), ...(await recordOps())];
  const filter = values.filter?.toLowerCase();
  if (filter !== undefined) ops = ops.filter((op) => op.name.toLowerCase().includes(filter));
  if (ops.length === 0) throw new Error(`no op matches --filter ${values.filter}`);

  // Verify everything first: a contender that writes or reads different bytes makes its numbers meaningless.
  for (const op of ops) for (const c of op.contenders) await c.verify();
  const contenders = ops.reduce((n, op) => n + op.contenders.length, 0);
  log(`verified ${contenders} contenders on ${ops.length} ops: identical bytes / values`);

  await prewarm(ops, settings.warmupMs / 4);

  const results: OpResult[] = [];
  for (const [i, op] of ops.entries()) {
    const result = await runOp(op, settings);
    results.push(result);
    const summary = result.results.map((r) => `${r.name} ${r.ns.toFixed(0)} ns`).join(", ");
    log(`[${i + 1}/${ops.length}] ${op.name}: ${summary}`);
  }

  const seconds = (performance.now() - started) / 1e3;
  const versions = installedVersions(REPO_ROOT);
  const cpu = os.cpus()[0]?.model.trim() ?? "unknown CPU";
  const environment = [
    `- Date: ${new Date().toISOString()}`,
    `- Machine: ${cpu}, ${os.cpus().length} logical cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.type()} ${os.release()} ${os.arch()}`,
    `- Node.js ${process.version} (V8 ${process.versions.v8}), TypeScript run through tsx`,
    `- Peers: @platformatic/kafka ${versions["@platformatic/kafka"]}, kafkajs ${versions["kafkajs"]}; harness: mitata ${versions["mitata"]} (warm-up/calibration) + interleaved rounds`,
    `- Settings: ${settings.rounds} interleaved rounds × ~${settings.roundMs} ms per contender, median of rounds${values.quick ? " (--quick)" : ""}${filter !== undefined ? `, --filter ${values.filter}` : ""}`,
    `- Total run time: ${seconds.toFixed(1)} s; process niceness ${os.getPriority()}; 1-minute load average ${loadBefore.toFixed(2)} at start, ${os.loadavg()[0]!.toFixed(2)} at end; checksum ${checksum()}`,
    ...notes.map((n) => `- Note: ${n}`),
  ].join("\n");
  const legend = [
    'ns/op and MB/s: median over rounds; MB/s is body bytes ÷ time. "vs fastest peer" and "vs memcpy" are time ratios',
    "(this row's ns ÷ the reference's ns; below 1× is faster). spread: ± half the interquartile range of the rounds.",
  ].join("\n");
  const ratios = ratioTable(results);
  const output = [
    "## Results",
    "",
    environment,
    "",
    legend,
    "",
    resultsTable(results),
    "",
    "## kafka-wire vs the peers",
    "",
    ...(ratios === null
      ? ["No op with a peer was run."]
      : ["How many times faster kafka-wire is (peer ns ÷ kafka-wire ns; below 1× means slower).", "", ratios]),
    "",
  ].join("\n");
  process.stdout.write(`\n${output}`);

  if (!values.quick && filter === undefined) {
    const file = path.join(REPO_ROOT, "bench", "results.md");
    await writeFile(file, `# kafka-wire benchmark results\n\nWritten by \`npm run bench\`.\n\n${output}`);
    log(`wrote ${path.relative(process.cwd(), file)}`);
  } else {
    log("not writing bench/results.md (only full, unfiltered runs do)");
  }
}

main().catch((error: unknown) => {
  log(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exitCode = 1;
});
