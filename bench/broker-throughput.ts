/**
 * `npm run bench:broker:throughput` — kafka-wire-broker's produce and consume throughput, side by
 * side in one run with librdkafka 2.15.1's mock cluster (C, built by `.ci/build-librdkafka.sh`):
 * three brokers each, driven by the same kcat binary on librdkafka 2.15.1 (Debian's kcat through
 * `LD_LIBRARY_PATH`) with the same flags and the same records.
 *
 * Each repetition, for each target in turn (the order alternates between repetitions): a fresh
 * cluster in a process of its own (ours: this file with `--serve`, startCluster on the codecs of
 * ../shared/kafka-schemas/clients), then, each timed from kcat's start to its exit:
 * - cold produce: `kcat -P` reads `--records` lines of 100 bytes from a file (record i starts with
 *   i in 10 digits) and produces them to topic `warmup` of the fresh cluster (librdkafka's
 *   defaults: acks=all, linger.ms=5, no compression; each record to a partition at random:
 *   `sticky.partitioning.linger.ms=0`). What a test suite's first big produce sees: our broker's
 *   code is not yet optimized by V8's JIT, nor its heap sized by V8's GC.
 * - warm-up, not timed: `--warmup-rounds` more such produces to `warmup`, and a consume of
 *   `--warmup-consume` records of it (`kcat -C -c`);
 * - produce: the same records to topic `bench`;
 * - consume: `kcat -C -o beginning -e` reads all of `bench` back; its output is counted (every
 *   record and byte must arrive, else the run fails).
 * Both topics have 32 partitions. The mock keeps only the last 5 MiB of each partition
 * (rdkafka_mock.c's `max_size`); ours keeps as much of `warmup` (`retention.bytes`) and all of
 * `bench` (1,000,000 records of 100 bytes are about 110 MB of batches, 3.4 MB a partition).
 * MB/s is record value bytes (10^6 per MB) over the wall time; the medians over repetitions are
 * reported, with the ratio ours ÷ mock (above 1: we are faster), and each cluster's CPU time in
 * the warmed produce and consume (its process's user + system time).
 *
 * On a 2-core machine kcat's producer uses most of the cores (its threads took 0.5-0.55 s of CPU
 * in the mock's 0.4 s produce), so the CPU a cluster uses is largely taken from kcat. `--pin`
 * (Linux, taskset) gives each side a core instead: kcat's threads and this program (which reads
 * kcat's output) on CPU 0, the cluster's process on CPU 1.
 *
 * The table is printed and written to bench/broker-results.md (`--pin`: broker-results-pinned.md).
 * A program, not a test: it asserts nothing about speed.
 *
 *   npm run bench:broker:throughput [-- --reps 5 --records 1000000 --warmup-rounds 3 --warmup-consume 300000 --pin]
 */

import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, open, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { startCluster } from "../broker/src/index.js";
import { loadSchemaSet } from "../cli/codecs.js";
import { findKcat } from "../test/support/kcat.js";
import {
  findLibrdkafka,
  LIBRDKAFKA_VERSION,
  librdkafkaMissing,
  startMockCluster,
} from "../test/support/librdkafka-peer.js";
import { REPO_ROOT, SCHEMAS_DIR } from "./corpus.js";

const VALUE_BYTES = 100;
const PARTITIONS = 32;
const BROKERS = 3;
/** What the mock keeps of each partition (rdkafka_mock.c's `max_size`). */
const MOCK_PARTITION_BYTES = 5 * 1024 * 1024;
/**
 * Each record to a partition at random (librdkafka's default sticks to one partition for 10 ms,
 * which fills some of the mock's partitions past what it keeps).
 */
const PRODUCER_FLAGS = ["-X", "sticky.partitioning.linger.ms=0"];
const TOPICS = [
  { name: "warmup", partitions: PARTITIONS },
  { name: "bench", partitions: PARTITIONS },
];

/** `--serve`: our cluster in this process until stdin closes; prints `bootstrap=` once listening. */
async function serve(): Promise<void> {
  const set = await loadSchemaSet({ cwd: REPO_ROOT, schemas: [path.join(SCHEMAS_DIR, "clients")] });
  const cluster = await startCluster({
    protocol: set.codecs.protocol!,
    brokers: BROKERS,
    // The warm-up topic's 160 MiB and the records' 110 MB: past the default 256 MiB.
    maxLogBytes: 1024 * 1024 * 1024,
    topics: {
      bench: PARTITIONS,
      // As the mock keeps the warm-up topic: the last 5 MiB of each partition.
      warmup: { partitions: PARTITIONS, configs: { "retention.bytes": String(MOCK_PARTITION_BYTES) } },
    },
  });
  process.stdout.write(`bootstrap=${cluster.bootstrap}\n`);
  process.stdin.resume();
  await once(process.stdin, "end");
  await cluster.close();
  process.stdin.destroy();
}

/** A cluster in a child process: its bootstrap list, its CPU time so far, and how to stop it. */
interface Target {
  readonly bootstrap: string;
  readonly pid: number;
  /** User + system CPU seconds of the cluster's process so far (from /proc). */
  cpu(): Promise<number>;
  stop(): Promise<void>;
}

async function cpuSeconds(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name (which may hold spaces, so split after its closing paren).
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ 100)
}

async function startOurs(): Promise<Target> {
  const child = spawn(process.execPath, ["--import", "tsx", fileURLToPath(import.meta.url), "--serve"], {
    cwd: REPO_ROOT,
    stdio: ["pipe", "pipe", "inherit"],
  });
  const exited = once(child, "exit");
  const bootstrap = await new Promise<string>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error("our cluster printed no bootstrap= within 120 s")), 120_000);
    child.stdout!.setEncoding("utf8").on("data", (s: string) => {
      out += s;
      const m = /bootstrap=(\S+)\n/.exec(out);
      if (m !== null) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once("exit", (code) => reject(new Error(`our cluster exited with ${code}`)));
  });
  return {
    bootstrap,
    pid: child.pid!,
    cpu: () => cpuSeconds(child.pid!),
    stop: async () => {
      child.stdin!.end();
      await exited;
    },
  };
}

/** The mock's librdkafka version string, as its first start reported it (an -O0 build says so). */
let mockVersion = "";

async function startMock(mockCluster: string): Promise<Target> {
  const mock = await startMockCluster({ mockCluster, brokers: BROKERS, topics: TOPICS, timeoutMs: 30_000 });
  mockVersion = mock.version;
  return { bootstrap: mock.bootstrap, pid: mock.pid, cpu: () => cpuSeconds(mock.pid), stop: () => mock.stop() };
}

/**
 * The most `--records`: the mock keeps the last 5 MiB of each partition, `bench`'s too, and
 * 1,000,000 records spread at random take about 3.4 MB of each of the 32.
 */
const MAX_RECORDS = 1_200_000;

/** `--pin`: the CPU kcat (and this program) run on; the clusters get CPU 1. */
const KCAT_CPU = "0";
const CLUSTER_CPU = "1";

/** Runs `taskset` to its exit (Linux's util-linux); throws when it fails. */
async function taskset(args: string[]): Promise<void> {
  const child = spawn("taskset", args, { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (s: string) => (stderr += s));
  const [code] = (await once(child, "close")) as [number | null];
  if (code !== 0) throw new Error(`taskset ${args.join(" ")} exited with ${code}: ${stderr}`);
}

/** How kcat is started: its binary, its environment (LD_LIBRARY_PATH), and whether it is pinned (`--pin`). */
interface Kcat {
  readonly path: string;
  readonly env: NodeJS.ProcessEnv;
  readonly pin: boolean;
}

/** Runs kcat to its exit within `timeoutMs`; stdin from `input` (a file) or nothing; resolves with the wall time in s. */
async function runKcat(
  kcat: Kcat,
  args: string[],
  options: { input?: string; onStdout?: (chunk: Buffer) => void; timeoutMs: number },
): Promise<number> {
  const input = options.input === undefined ? null : await open(options.input, "r");
  try {
    const [command, argv] = kcat.pin ? ["taskset", ["-c", KCAT_CPU, kcat.path, ...args]] : [kcat.path, args];
    const t0 = performance.now();
    const child: ChildProcess = spawn(command, argv, {
      env: kcat.env,
      stdio: [input === null ? "ignore" : input.fd, options.onStdout === undefined ? "ignore" : "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr!.setEncoding("utf8").on("data", (s: string) => {
      if (stderr.length < 16384) stderr += s;
    });
    if (options.onStdout !== undefined) child.stdout!.on("data", options.onStdout);
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs);
    const [code, signal] = (await once(child, "close")) as [number | null, NodeJS.Signals | null];
    const seconds = (performance.now() - t0) / 1000;
    clearTimeout(timer);
    if (code !== 0) throw new Error(`kcat ${args.join(" ")} exited with ${code ?? signal}; stderr:\n${stderr}`);
    return seconds;
  } finally {
    await input?.close();
  }
}

/** Produces the lines of `file` to `topic`; resolves with kcat's wall time (s). */
function produce(kcat: Kcat, bootstrap: string, topic: string, file: string): Promise<number> {
  return runKcat(kcat, ["-P", "-b", bootstrap, "-t", topic, "-q", ...PRODUCER_FLAGS], {
    input: file,
    timeoutMs: 600_000,
  });
}

/**
 * Consumes `topic` from the beginning: all of it (`-e`, checked to be exactly `records` records
 * of VALUE_BYTES), or only `records` of it (`-c`) when `count` is set; resolves with the wall time (s).
 */
async function consume(kcat: Kcat, bootstrap: string, topic: string, records: number, count = false): Promise<number> {
  let lines = 0;
  let bytes = 0;
  const until = count ? ["-c", String(records)] : ["-e"];
  const seconds = await runKcat(kcat, ["-C", "-b", bootstrap, "-t", topic, "-q", "-o", "beginning", ...until], {
    timeoutMs: 600_000,
    onStdout: (chunk) => {
      bytes += chunk.length;
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
    },
  });
  // kcat writes each value and a newline.
  if (lines !== records || bytes !== records * (VALUE_BYTES + 1)) {
    throw new Error(`consumed ${lines} records (${bytes} bytes) of ${topic} on ${bootstrap}, expected ${records}`);
  }
  return seconds;
}

/** `count` lines of VALUE_BYTES bytes: the index in 10 digits, then one letter repeated. */
async function writeRecords(file: string, count: number): Promise<void> {
  const line = VALUE_BYTES + 1;
  const buf = Buffer.alloc(count * line);
  for (let i = 0; i < count; i++) {
    const at = i * line;
    buf.write(String(i).padStart(10, "0"), at, "latin1");
    buf.fill(0x61 + (i % 26), at + 10, at + VALUE_BYTES);
    buf[at + VALUE_BYTES] = 10;
  }
  await writeFile(file, buf);
}

/** An option's value as a whole number (decimal digits) of at least `min`, else an error naming the option. */
function wholeNumber(option: string, value: string, min: number): number {
  const n = /^\d{1,15}$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < min)
    throw new Error(`${option} must be a whole number, ${min} or more; got ${value}`);
  return n;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      reps: { type: "string", default: "5" },
      records: { type: "string", default: "1000000" },
      "warmup-rounds": { type: "string", default: "3" },
      "warmup-consume": { type: "string", default: "300000" },
      pin: { type: "boolean", default: false },
    },
  });
  const pin = values.pin;
  const reps = wholeNumber("--reps", values.reps, 1);
  const records = wholeNumber("--records", values.records, 1);
  if (records > MAX_RECORDS) {
    throw new Error(`--records is at most ${MAX_RECORDS} (the mock keeps 5 MiB of each partition); got ${records}`);
  }
  const warmupRounds = wholeNumber("--warmup-rounds", values["warmup-rounds"], 0);
  const warmupConsume = wholeNumber("--warmup-consume", values["warmup-consume"], 0);
  if (warmupConsume > records)
    throw new Error(`--warmup-consume (${warmupConsume}) is more than --records (${records})`);
  const kcatPath = findKcat();
  const librdkafka = findLibrdkafka();
  if (kcatPath === null) {
    console.log("[skip] broker throughput: kcat is not on PATH (Debian: apt-get install kcat; .ci/run installs it)");
    return;
  }
  if (librdkafka === null) {
    console.log(`[skip] broker throughput: ${librdkafkaMissing()}`);
    return;
  }
  if (pin) {
    // The CPUs this process may run on (availableParallelism follows the affinity mask on Linux).
    if (os.platform() !== "linux" || os.availableParallelism() < 2) {
      throw new Error("--pin needs Linux and at least 2 CPUs");
    }
    // util-linux's taskset (Debian: apt-get install util-linux).
    if (spawnSync("taskset", ["-V"]).error !== undefined) throw new Error("--pin needs taskset (util-linux) on PATH");
    await taskset(["-a", "-p", "-c", KCAT_CPU, String(process.pid)]);
  }
  const kcat: Kcat = { path: kcatPath, env: { ...process.env, LD_LIBRARY_PATH: librdkafka.libDir }, pin };
  const dir = await mkdtemp(path.join(os.tmpdir(), "kafka-wire-bench-"));
  const loads: string[] = [os.loadavg()[0]!.toFixed(2)];
  try {
    const file = path.join(dir, "records.txt");
    await writeRecords(file, records);
    const targets: Record<string, () => Promise<Target>> = {
      "kafka-wire-broker": () => startOurs(),
      [`librdkafka ${LIBRDKAFKA_VERSION} mock`]: () => startMock(librdkafka.mockCluster),
    };
    const names = Object.keys(targets);
    const results = new Map<
      string,
      { cold: number[]; produce: number[]; consume: number[]; produceCpu: number[]; consumeCpu: number[] }
    >(names.map((n) => [n, { cold: [], produce: [], consume: [], produceCpu: [], consumeCpu: [] }]));
    for (let r = 0; r < reps; r++) {
      const order = r % 2 === 0 ? names : [...names].reverse();
      for (const name of order) {
        const target = await targets[name]!();
        try {
          // Every thread of the cluster's process (-a), those started later included.
          if (pin) await taskset(["-a", "-p", "-c", CLUSTER_CPU, String(target.pid)]);
          const cold = await produce(kcat, target.bootstrap, "warmup", file);
          for (let w = 0; w < warmupRounds; w++) await produce(kcat, target.bootstrap, "warmup", file);
          if (warmupConsume > 0) await consume(kcat, target.bootstrap, "warmup", warmupConsume, true);
          const cpu0 = await target.cpu();
          const p = await produce(kcat, target.bootstrap, "bench", file);
          const cpu1 = await target.cpu();
          const c = await consume(kcat, target.bootstrap, "bench", records);
          const cpu2 = await target.cpu();
          const res = results.get(name)!;
          res.cold.push(cold);
          res.produce.push(p);
          res.consume.push(c);
          res.produceCpu.push(cpu1 - cpu0);
          res.consumeCpu.push(cpu2 - cpu1);
          console.error(
            `rep ${r + 1}/${reps} ${name}: cold produce ${cold.toFixed(2)} s; warmed: produce ${p.toFixed(2)} s (cluster CPU ${(cpu1 - cpu0).toFixed(2)} s), consume ${c.toFixed(2)} s (cluster CPU ${(cpu2 - cpu1).toFixed(2)} s)`,
          );
        } finally {
          await target.stop();
        }
      }
    }
    loads.push(os.loadavg()[0]!.toFixed(2));
    const mb = (records * VALUE_BYTES) / 1e6;
    const row = (name: string) => {
      const res = results.get(name)!;
      const p = median(res.produce);
      const c = median(res.consume);
      return { name, cold: median(res.cold), p, c, pCpu: median(res.produceCpu), cCpu: median(res.consumeCpu) };
    };
    const ours = row(names[0]!);
    const mock = row(names[1]!);
    const fmt = (x: number, d = 1) => x.toFixed(d);
    // CPU times come in clock ticks (10 ms): no ratio to a time under one.
    const cpuRatio = (a: number, b: number) => (b > 0 ? `${fmt(a / b, 1)}×` : "n/a");
    const rate = (s: number) => `${fmt(mb / s)} MB/s, ${Math.round(records / s).toLocaleString("en-US")} records/s`;
    const lines = [
      "| cluster (3 brokers) | cold produce | produce | consume | cold produce (s) | produce (s) | consume (s) | cluster CPU: produce, consume (s) |",
      "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
      ...[ours, mock].map(
        (x) =>
          `| ${x.name} | ${rate(x.cold)} | ${rate(x.p)} | ${rate(x.c)} | ${fmt(x.cold, 2)} | ${fmt(x.p, 2)} | ${fmt(x.c, 2)} | ${fmt(x.pCpu, 2)}, ${fmt(x.cCpu, 2)} |`,
      ),
      `| ratio (ours ÷ mock throughput) | ${fmt(mock.cold / ours.cold, 2)}× | ${fmt(mock.p / ours.p, 2)}× | ${fmt(mock.c / ours.c, 2)}× | | | | ${cpuRatio(ours.pCpu, mock.pCpu)}, ${cpuRatio(ours.cCpu, mock.cCpu)} CPU |`,
    ];
    const header = [
      "# kafka-wire-broker vs librdkafka's mock cluster",
      "",
      "Written by `npm run bench:broker:throughput` (bench/broker-throughput.ts).",
      "",
      `- Date: ${new Date().toISOString()}; ${os.cpus()[0]?.model ?? "?"}, ${os.cpus().length} logical cores; Node.js ${process.version}`,
      `- 1-minute load average ${loads[0]} at start, ${loads[1]} at end`,
      `- kcat on librdkafka ${mockVersion} (as built by .ci/build-librdkafka.sh${mockVersion.endsWith("-O0") ? ", unoptimized" : ", optimized"}) for both; the mock is the same build`,
      pin
        ? `- pinned (--pin): kcat and this program on CPU ${KCAT_CPU}, the cluster's process on CPU ${CLUSTER_CPU}`
        : "- not pinned: kcat and the cluster share the machine's cores",
      `- ${records.toLocaleString("en-US")} records of ${VALUE_BYTES} bytes (${fmt(mb)} MB of values) to a topic of ${PARTITIONS} partitions;`,
      `  cold: the first produce to a fresh cluster; then ${warmupRounds} more produces of them and a consume of`,
      `  ${warmupConsume.toLocaleString("en-US")} records as a warm-up before the (warmed) produce and consume;`,
      `  median of ${reps} interleaved repetitions, each on a fresh cluster`,
      "",
    ];
    const markdown = [...header, ...lines, ""].join("\n");
    console.log(lines.join("\n"));
    const out = path.join(REPO_ROOT, "bench", pin ? "broker-results-pinned.md" : "broker-results.md");
    // Loaded here, not at the top: the --serve child (our cluster) does not carry prettier's code.
    const { format, resolveConfig } = await import("prettier");
    await writeFile(out, await format(markdown, { ...(await resolveConfig(out)), filepath: out }));
    console.log(`written to ${path.relative(REPO_ROOT, out)}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv.includes("--serve")) {
  await serve();
} else {
  try {
    await main();
  } catch (e) {
    console.error(`bench:broker:throughput: ${(e as Error).message}`);
    process.exitCode = 1;
  }
}
