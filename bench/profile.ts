/**
 * `npm run bench:profile` — where kafka-wire's time goes, per bench op: V8's sampling CPU profiler
 * (the one behind `node --cpu-prof`) around about a second of calls of one contender, then the
 * functions with the most self time. Each op's full profile is written to
 * `bench/.profiles/<op>.cpuprofile` (git-ignored; open it in Chrome DevTools or speedscope).
 *
 *   npm run bench:profile                         every op, kafka-wire
 *   npm run bench:profile -- --filter Metadata    ops whose name contains the text
 *   npm run bench:profile -- --baseline-rev REV   profile that older build instead (see baseline.ts)
 *   npm run bench:profile -- --ms 3000 --top 20   longer runs, more functions
 */

import { mkdir, writeFile } from "node:fs/promises";
import { Session } from "node:inspector/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import { loadBaseline, prepareBaseline } from "./baseline.js";
import { loadCorpusCodecs, REPO_ROOT } from "./corpus.js";
import { prewarm, type SyncContender } from "./harness.js";
import { BASELINE, CURRENT_SEEDS, OURS, seedMessageOps, sharedOps, type Builds } from "./ops.js";

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { functionName: string; url: string; lineNumber: number };
  readonly children?: readonly number[];
}
interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

/** Self time per function (name and file:line), as fractions of all samples, highest first. */
function selfTimes(profile: Profile): { name: string; share: number }[] {
  const byNode = new Map<number, ProfileNode>(profile.nodes.map((n) => [n.id, n]));
  const counts = new Map<string, number>();
  for (const id of profile.samples) {
    const { functionName, url, lineNumber } = byNode.get(id)!.callFrame;
    const file = url === "" ? "" : ` ${path.relative(REPO_ROOT, new URL(url).pathname)}:${lineNumber + 1}`;
    const key = `${functionName || "(anonymous)"}${file}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const total = profile.samples.length;
  return [...counts].map(([name, n]) => ({ name, share: n / total })).sort((a, b) => b.share - a.share);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      filter: { type: "string" },
      ms: { type: "string", default: "1000" },
      top: { type: "string", default: "12" },
      baseline: { type: "string" },
      "baseline-rev": { type: "string" },
    },
  });
  const ms = Number(values.ms);
  const top = Number(values.top);
  const corpus = await loadCorpusCodecs();
  const baselineDir =
    values["baseline-rev"] !== undefined ? await prepareBaseline(values["baseline-rev"], log) : values.baseline;
  const baseline = baselineDir === undefined ? null : (await loadBaseline(baselineDir)).codecs;
  const builds: Builds = { current: { seeds: CURRENT_SEEDS, corpus }, baseline };
  const who = baseline === null ? OURS : BASELINE;
  let ops = [...(corpus === null ? [] : sharedOps(builds)), ...seedMessageOps(builds)];
  const filter = values.filter?.toLowerCase();
  if (filter !== undefined) ops = ops.filter((op) => op.name.toLowerCase().includes(filter));
  // Only the profiled contender runs: the others would share (and warm) the same runtime code.
  const runs = ops.map((op) => ({ op, c: op.contenders.find((c) => c.name === who) as SyncContender }));
  for (const { c } of runs) await c.verify();
  await prewarm(
    runs.map(({ op, c }) => ({ ...op, contenders: [c] })),
    50,
  );

  const outDir = path.join(REPO_ROOT, "bench", ".profiles");
  await mkdir(outDir, { recursive: true });
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 50 }); // µs
  for (const { op, c } of runs) {
    // Warm this op's code first, so the profile shows steady state rather than compilation.
    for (const until = performance.now() + ms / 4; performance.now() < until;) c.run();
    await session.post("Profiler.start");
    let calls = 0;
    for (const until = performance.now() + ms; performance.now() < until; calls++) c.run();
    const { profile } = (await session.post("Profiler.stop")) as unknown as { profile: Profile };
    const file = path.join(outDir, `${op.name.replace(/[^A-Za-z0-9]+/g, "_")}.cpuprofile`);
    await writeFile(file, JSON.stringify(profile));
    const lines = selfTimes(profile)
      .slice(0, top)
      .map(({ name, share }) => `  ${(share * 100).toFixed(1).padStart(5)}%  ${name}`);
    process.stdout.write(
      `\n${op.name} — ${who}, ${((ms * 1e6) / calls).toFixed(0)} ns/call while profiling; self time:\n${lines.join("\n")}\n`,
    );
  }
  session.disconnect();
}

main().catch((error: unknown) => {
  log(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exitCode = 1;
});
