/**
 * `npm run bench` — kafka-wire's generated codecs side by side with @platformatic/kafka and
 * kafkajs on the messages they share, plus the four KIP-1071 seed messages, against a memcpy of
 * the same bytes. See ops.ts for exactly what one operation is for each contender and harness.ts
 * for how it is timed.
 *
 *   npm run bench                      full run (~2 min on 2 cores), writes bench/results.md
 *   npm run bench -- --quick           smoke run (~20 s), prints only
 *   npm run bench -- --filter Metadata only ops whose name contains the text (case-insensitive)
 *   npm run bench -- --baseline-rev a02f9cf   adds that revision's kafka-wire as a contender on
 *                                      every kafka-wire op ("kafka-wire (baseline)", see baseline.ts)
 *   npm run bench -- --baseline DIR    the same with a folder --baseline-rev prepared
 *   npm run bench -- --processes 3     each op in 3 fresh processes, the median of their medians
 *   npm run bench -- --one-process     every op in this process (default: each op in a fresh one)
 *   npm run bench -- --baseline-rev HEAD   an A/A run: identical code on both sides shows the noise
 *
 * Each op runs in a fresh Node process of its own (`--child-op`), its contenders interleaved in
 * rounds there: what ran before (other ops warm and specialise the same runtime functions with
 * their own inputs) otherwise moved results by up to ±20% from run to run, and by more for one
 * build than for another, since the builds share no code but the peers.
 *
 * This is a program, not a test: nothing here asserts a timing. It fails (exit 1) only when a
 * contender does not produce or accept the same bytes, since the numbers would then mean nothing.
 */

import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { format, resolveConfig } from "prettier";
import { parseArgs, promisify } from "node:util";
import { loadCorpusCodecs, REPO_ROOT, SCHEMAS_DIR } from "./corpus.js";
import { loadBaseline, prepareBaseline } from "./baseline.js";
import {
  addToChecksum,
  checksum,
  measureAllocation,
  prewarm,
  quantile,
  runOp,
  type ContenderResult,
  type Op,
  type OpResult,
  type Settings,
} from "./harness.js";
import { CURRENT_SEEDS, seedMessageOps, sharedOps, spanOps, type Builds } from "./ops.js";
import { installedVersions } from "./peers.js";
import { recordOps } from "./records.js";
import { ratioTable, resultsTable } from "./report.js";

const FULL: Settings = { rounds: 25, roundMs: 40, warmupMs: 100 };
const QUICK: Settings = { rounds: 5, roundMs: 10, warmupMs: 25 };
/** Time per contender of the allocation pass (see measureAllocation). */
const ALLOCATION_MS = { full: 200, quick: 30 };

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
      rounds: { type: "string" },
      baseline: { type: "string" },
      "baseline-rev": { type: "string" },
      "one-process": { type: "boolean", default: false },
      processes: { type: "string", default: "1" },
      "child-op": { type: "string" },
      help: { type: "boolean", default: false },
    },
  });
  if (values.help) {
    log(
      "usage: npm run bench [-- --quick] [--filter TEXT] [--rounds N] [--baseline-rev REV | --baseline DIR] [--processes N | --one-process]",
    );
    return;
  }
  let settings = values.quick ? QUICK : FULL;
  if (values.rounds !== undefined) settings = { ...settings, rounds: Number(values.rounds) };
  if (values.baseline !== undefined && values["baseline-rev"] !== undefined) {
    throw new Error("give --baseline or --baseline-rev, not both");
  }

  const child = values["child-op"];
  const t0 = performance.now();
  const corpus = await loadCorpusCodecs();
  const notes: string[] = [];
  if (corpus === null) {
    notes.push(
      `${SCHEMAS_DIR} not found: only the seed messages were benchmarked, with no peers (they implement none of them).`,
    );
    log(`WARNING: ${notes[0]}`);
  } else if (child === undefined) {
    log(`generated the corpus codecs into bench/.generated/ in ${Math.round(performance.now() - t0)} ms`);
  }

  let baseline: Builds["baseline"] = null;
  let baselineLabel: string | undefined;
  const baselineDir =
    values["baseline-rev"] !== undefined ? await prepareBaseline(values["baseline-rev"], log) : values.baseline;
  if (baselineDir !== undefined) {
    const loaded = await loadBaseline(baselineDir);
    baselineLabel = loaded.label;
    baseline = loaded.codecs;
    if (child === undefined) {
      log(`baseline: kafka-wire at ${baselineLabel} (${path.relative(process.cwd(), baselineDir)})`);
    }
  }

  const builds: Builds = { current: { seeds: CURRENT_SEEDS, corpus }, baseline };
  let ops: Op[] = [
    ...(corpus === null ? [] : sharedOps(builds)),
    ...seedMessageOps(builds),
    ...spanOps(builds),
    ...(await recordOps(corpus)),
  ];
  if (child !== undefined) {
    await runChild(ops, child, settings, values.quick ? ALLOCATION_MS.quick : ALLOCATION_MS.full);
    return;
  }
  const filter = values.filter?.toLowerCase();
  if (filter !== undefined) ops = ops.filter((op) => op.name.toLowerCase().includes(filter));
  if (ops.length === 0) throw new Error(`no op matches --filter ${values.filter}`);
  if (new Set(ops.map((op) => op.name)).size !== ops.length) throw new Error("two ops share a name");

  // Verify everything first: a contender that writes or reads different bytes makes its numbers meaningless.
  for (const op of ops) for (const c of op.contenders) await c.verify();
  const contenders = ops.reduce((n, op) => n + op.contenders.length, 0);
  log(`verified ${contenders} contenders on ${ops.length} ops: identical bytes / values`);

  const isolate = !values["one-process"];
  const processes = Number(values.processes);
  if (!Number.isInteger(processes) || processes < 1 || processes > 15) {
    throw new Error(`--processes must be an integer from 1 to 15, got ${values.processes}`);
  }
  const results: OpResult[] = [];
  if (!isolate) await prewarm(ops, settings.warmupMs / 4);
  for (const [i, op] of ops.entries()) {
    const result = isolate
      ? { op, results: await runInChildren(op, processes, values, baselineDir) }
      : await runOp(op, settings);
    results.push(result);
    const summary = result.results.map((r) => `${r.name} ${r.ns.toFixed(0)} ns`).join(", ");
    log(`[${i + 1}/${ops.length}] ${op.name}: ${summary}`);
  }

  if (!isolate) {
    await measureAllocation(results, values.quick ? ALLOCATION_MS.quick : ALLOCATION_MS.full);
    log("measured heap allocation per call");
  }

  const seconds = (performance.now() - started) / 1e3;
  const versions = installedVersions(REPO_ROOT);
  const cpu = os.cpus()[0]?.model.trim() ?? "unknown CPU";
  const environment = [
    `- Date: ${new Date().toISOString()}`,
    `- Machine: ${cpu}, ${os.cpus().length} logical cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.type()} ${os.release()} ${os.arch()}`,
    `- Node.js ${process.version} (V8 ${process.versions.v8}), TypeScript run through tsx`,
    `- Peers: @platformatic/kafka ${versions["@platformatic/kafka"]}, kafkajs ${versions["kafkajs"]}; harness: mitata ${versions["mitata"]} (warm-up/calibration) + interleaved rounds`,
    `- Settings: ${settings.rounds} interleaved rounds × ~${settings.roundMs} ms per contender, median of rounds${values.quick ? " (--quick)" : ""}${filter !== undefined ? `, --filter ${values.filter}` : ""}; ${isolate ? (processes === 1 ? "each op in a fresh process" : `each op in ${processes} fresh processes, median of their medians`) : "every op in one process (--one-process)"}`,
    ...(baselineLabel === undefined
      ? []
      : [
          `- Baseline: "kafka-wire (baseline)" is this project at commit ${baselineLabel} (\`--baseline-rev\`), timed in the same rounds`,
        ]),
    `- Total run time: ${seconds.toFixed(1)} s; process niceness ${os.getPriority()}; 1-minute load average ${loadBefore.toFixed(2)} at start, ${os.loadavg()[0]!.toFixed(2)} at end; checksum ${checksum()}`,
    ...notes.map((n) => `- Note: ${n}`),
  ].join("\n");
  const legend = [
    'ns/op and MB/s: median over rounds; MB/s is body bytes ÷ time. "vs fastest peer" and "vs memcpy" are time ratios',
    `(this row's ns ÷ the reference's ns; below 1× is faster). spread: ± half the ${isolate && processes > 1 ? "range of the processes' medians" : "interquartile range of the rounds"}.`,
    "heap B/op: V8 heap bytes allocated per call (heap growth plus what GCs freed, over up to 10^5 calls after the timing).",
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
    "## kafka-wire vs the peers and the baseline",
    "",
    ...(ratios === null
      ? ["No op with a peer or a baseline was run."]
      : ["How many times faster kafka-wire is (the other's ns ÷ kafka-wire's ns; below 1× means slower).", "", ratios]),
    "",
  ].join("\n");
  process.stdout.write(`\n${output}`);

  if (!values.quick && filter === undefined && values.rounds === undefined) {
    const file = path.join(REPO_ROOT, "bench", "results.md");
    // Formatted as `npm run lint:format` expects every Markdown file of the repository to be.
    const markdown = `# kafka-wire benchmark results\n\nWritten by \`npm run bench\`.\n\n${output}`;
    await writeFile(file, await format(markdown, { ...(await resolveConfig(file)), filepath: file }));
    log(`wrote ${path.relative(process.cwd(), file)}`);
  } else {
    log("not writing bench/results.md (only full, unfiltered runs do)");
  }
}

/** What a `--child-op` process prints on its last stdout line. */
interface ChildReport {
  readonly results: readonly ContenderResult[];
  readonly checksum: number;
}

/** `--child-op NAME`: warms and times that one op (exact name) and its allocation, then reports on stdout. */
async function runChild(ops: readonly Op[], name: string, settings: Settings, allocationMs: number): Promise<void> {
  const op = ops.find((o) => o.name === name);
  if (op === undefined) throw new Error(`no op is named ${JSON.stringify(name)}`);
  for (const c of op.contenders) await c.verify();
  await prewarm([op], settings.warmupMs / 4);
  const result = await runOp(op, settings);
  await measureAllocation([result], allocationMs);
  const report: ChildReport = { results: result.results, checksum: checksum() };
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

const execFileAsync = promisify(execFile);

/**
 * Runs one op in `n` fresh processes, one after another. Per contender: the median of their
 * medians, and as spread half the range of those medians (or the one process's spread).
 */
async function runInChildren(
  op: Op,
  n: number,
  values: { quick?: boolean; rounds?: string },
  baselineDir: string | undefined,
): Promise<readonly ContenderResult[]> {
  const runs: (readonly ContenderResult[])[] = [];
  for (let i = 0; i < n; i++) runs.push(await runInChild(op, values, baselineDir));
  if (n === 1) return runs[0]!;
  const median = (xs: number[]): number =>
    quantile(
      [...xs].sort((a, b) => a - b),
      0.5,
    );
  return runs[0]!.map((first, k) => {
    const ns = runs.map((r) => r[k]!.ns);
    const m = median(ns);
    const bytes = runs.map((r) => r[k]!.bytesPerCall).filter((b): b is number => b !== undefined);
    return {
      ...first,
      ns: m,
      spread: (Math.max(...ns) - Math.min(...ns)) / 2 / m,
      ...(bytes.length === 0 ? {} : { bytesPerCall: median(bytes) }),
    };
  });
}

/** Runs one op in a fresh Node process with the same settings (see the module comment). */
async function runInChild(
  op: Op,
  values: { quick?: boolean; rounds?: string },
  baselineDir: string | undefined,
): Promise<readonly ContenderResult[]> {
  const args = [
    ...process.execArgv,
    fileURLToPath(import.meta.url),
    "--child-op",
    op.name,
    ...(values.quick === true ? ["--quick"] : []),
    ...(values.rounds !== undefined ? ["--rounds", values.rounds] : []),
    ...(baselineDir !== undefined ? ["--baseline", baselineDir] : []),
  ];
  const { stdout } = await execFileAsync(process.execPath, args, { maxBuffer: 1 << 24 });
  const lines = stdout.trimEnd().split("\n");
  const report = JSON.parse(lines[lines.length - 1]!) as ChildReport;
  addToChecksum(report.checksum);
  return report.results;
}

main().catch((error: unknown) => {
  log(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exitCode = 1;
});
