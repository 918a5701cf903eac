/**
 * `npm run bench:proxy` — kafka-wire-proxy's cost: the same load straight to a broker and through
 * the proxy, in one run, reported as ratios.
 *
 * The broker is librdkafka 2.15.1's mock cluster (C, built by `.ci/build-librdkafka.sh`), else the
 * example broker (examples/broker); the proxy runs in a process of its own (bench/proxy-server.ts)
 * in three setups: plain (address rewriting only), with the tenant filter (examples/proxy/tenant.ts:
 * every Produce and Metadata decoded, changed and re-encoded) and with the JSON-lines log (every
 * message decoded and formatted, written nowhere). The load is a raw frame loop on one connection:
 * - latency: one request at a time, Produce of one 100-byte record (acks=1) and Metadata v12 of one
 *   topic (the response's broker address is rewritten by the proxy): median and p99 round trip;
 * - throughput: Produce of one 64 KiB record per request (acks=1), 16 requests in flight.
 * Targets are measured in turns (direct, plain, tenant, log, then again), each turn's numbers kept,
 * the median over turns reported. Nothing here asserts a timing.
 *
 *   npm run bench:proxy [-- --quick]
 */

import { spawn, type ChildProcess } from "node:child_process";
import { accessSync, constants } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { loadSchemaSet } from "../cli/codecs.js";
import { encodeRecordBatch } from "../src/records/index.js";
import { FrameSplitter, type Protocol } from "../src/runtime/index.js";
import { REPO_ROOT, SCHEMAS_DIR } from "./corpus.js";
import { quantile } from "./harness.js";

const { values: flags } = parseArgs({ options: { quick: { type: "boolean" } } });
const QUICK = flags.quick === true;
const LATENCY_ROUNDS = QUICK ? 300 : 2000;
const THROUGHPUT_REQUESTS = QUICK ? 200 : 1500;
const TURNS = QUICK ? 1 : 3;
const IN_FLIGHT = 16;
const PRODUCE = 0;
const METADATA = 3;

/** A child process that prints `bootstrap=host:port` and stops when its stdin closes. */
interface Child {
  readonly bootstrap: string;
  /** The child's CPU time so far in µs (bench/proxy-server.ts answers it; others give NaN). */
  cpu(): Promise<number>;
  stop(): Promise<void>;
}

async function startChild(command: string, args: string[]): Promise<Child> {
  const child: ChildProcess = spawn(command, args, { cwd: REPO_ROOT, stdio: ["pipe", "pipe", "inherit"] });
  const bootstrap = await new Promise<string>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`${args.join(" ")} printed no bootstrap= within 300 s`)), 300_000);
    child.stdout!.setEncoding("utf8").on("data", (s: string) => {
      out += s;
      const m = /bootstrap=([^\s,]+)/.exec(out);
      if (m !== null) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once("exit", (code) => reject(new Error(`${args.join(" ")} exited with ${code}`)));
  });
  let out = "";
  const waiting: ((us: number) => void)[] = [];
  child.stdout!.on("data", (s: string) => {
    out += s;
    for (let m = /cpu=(\d+)\n/.exec(out); m !== null; m = /cpu=(\d+)\n/.exec(out)) {
      out = out.slice(m.index + m[0].length);
      waiting.shift()?.(Number(m[1]));
    }
  });
  return {
    bootstrap,
    cpu: () =>
      new Promise<number>((resolve) => {
        waiting.push(resolve);
        child.stdin!.write("\n");
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.stdin!.end();
        setTimeout(() => child.kill("SIGKILL"), 5000).unref();
      }),
  };
}

/** librdkafka 2.15.1's mock cluster when built (the folder test/support/librdkafka.ts names), else null. */
function mockClusterPath(): string | null {
  const root =
    process.env["KAFKA_WIRE_CACHE"] ||
    path.join(process.env["XDG_CACHE_HOME"] || path.join(os.homedir(), ".cache"), "kafka-wire");
  const file = path.join(root, "librdkafka-2.15.1", "bin", "mock-cluster");
  try {
    accessSync(file, constants.X_OK);
    return file;
  } catch {
    return null;
  }
}

/** One pipelined connection speaking raw frames. */
class Client {
  private next = 1;
  private readonly waiting = new Map<number, () => void>();
  private constructor(private readonly socket: net.Socket) {
    const splitter = new FrameSplitter();
    socket.on("data", (chunk: Buffer) => {
      for (const f of splitter.push(chunk)) {
        const id = new DataView(f.buffer, f.byteOffset, f.byteLength).getInt32(4);
        const done = this.waiting.get(id);
        this.waiting.delete(id);
        done?.();
      }
    });
  }
  static connect(address: string): Promise<Client> {
    const [host, port] = address.split(":") as [string, string];
    return new Promise((resolve, reject) => {
      const s = net.connect({ host, port: Number(port), noDelay: true }, () => resolve(new Client(s)));
      s.once("error", reject);
    });
  }
  /** Sends a frame built for a fresh correlation id; resolves when its response is in. */
  send(build: (correlationId: number) => Uint8Array): Promise<void> {
    const id = this.next++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.socket.write(build(id));
    });
  }
  close(): void {
    this.socket.destroy();
  }
}

interface Numbers {
  /** The proxy's CPU time per request of the latency phases (µs), and per MB of the throughput phase (ms). */
  cpuPerRequestUs: number;
  cpuPerMBms: number;
  produceMedianUs: number;
  produceP99Us: number;
  metadataMedianUs: number;
  metadataP99Us: number;
  throughputMBps: number;
}

async function measure(
  protocol: Protocol,
  address: string,
  topic: string,
  cpu: () => Promise<number>,
): Promise<Numbers> {
  const client = await Client.connect(address);
  const small = encodeRecordBatch({ records: [{ value: "x".repeat(100) }] }) as Uint8Array;
  const big = encodeRecordBatch({ records: [{ value: new Uint8Array(64 * 1024).fill(7) }] }) as Uint8Array;
  const produce = (records: Uint8Array) => (correlationId: number) =>
    protocol.encodeRequestFrame(
      { apiKey: PRODUCE, apiVersion: 9, correlationId, clientId: "bench" },
      { acks: 1, timeoutMs: 5000, topicData: [{ name: topic, partitionData: [{ index: 0, records }] }] },
    );
  const metadata = (correlationId: number) =>
    protocol.encodeRequestFrame(
      { apiKey: METADATA, apiVersion: 12, correlationId, clientId: "bench" },
      { topics: [{ name: topic }] },
    );
  const latency = async (build: (id: number) => Uint8Array): Promise<[number, number]> => {
    for (let i = 0; i < 100; i++) await client.send(build); // warm-up
    const times: number[] = [];
    for (let i = 0; i < LATENCY_ROUNDS; i++) {
      const t = process.hrtime.bigint();
      await client.send(build);
      times.push(Number(process.hrtime.bigint() - t) / 1000);
    }
    times.sort((a, b) => a - b);
    return [quantile(times, 0.5), quantile(times, 0.99)];
  };
  try {
    const cpu0 = await cpu();
    const [produceMedianUs, produceP99Us] = await latency(produce(small));
    const [metadataMedianUs, metadataP99Us] = await latency(metadata);
    const cpu1 = await cpu();
    const bigFrame = produce(big);
    const started = process.hrtime.bigint();
    let sent = 0;
    const lane = async (): Promise<void> => {
      while (sent < THROUGHPUT_REQUESTS) {
        sent++;
        await client.send(bigFrame);
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const cpu2 = await cpu();
    const megabytes = (THROUGHPUT_REQUESTS * big.length) / 1e6;
    return {
      cpuPerRequestUs: (cpu1 - cpu0) / (2 * (LATENCY_ROUNDS + 100)),
      cpuPerMBms: (cpu2 - cpu1) / 1000 / megabytes,
      produceMedianUs,
      produceP99Us,
      metadataMedianUs,
      metadataP99Us,
      throughputMBps: (THROUGHPUT_REQUESTS * big.length) / 1e6 / seconds,
    };
  } finally {
    client.close();
  }
}

const median = (xs: number[]): number =>
  quantile(
    [...xs].sort((a, b) => a - b),
    0.5,
  );

async function main(): Promise<void> {
  const { codecs } = await loadSchemaSet({ cwd: REPO_ROOT, schemas: [path.join(SCHEMAS_DIR, "clients")] });
  const protocol = codecs.protocol!;
  const mock = mockClusterPath();
  const topics = ["bench", "acme.bench"];
  const broker =
    mock !== null
      ? await startChild(
          mock,
          topics.flatMap((t) => ["--topic", `${t}:1`]),
        )
      : await startChild(process.execPath, [
          "--import",
          "tsx",
          "examples/broker/main.ts",
          "--schemas",
          path.join(SCHEMAS_DIR, "clients"),
          ...topics.flatMap((t) => ["--topic", `${t}:1`]),
        ]);
  const server = (extra: string[]) =>
    startChild(process.execPath, [
      "--import",
      "tsx",
      "bench/proxy-server.ts",
      "--upstream",
      broker.bootstrap,
      ...extra,
    ]);
  const proxies = {
    plain: await server([]),
    tenant: await server(["--tenant", "acme."]),
    log: await server(["--log"]),
  };
  const targets: [string, Child][] = [
    ["direct", broker],
    ["proxy", proxies.plain],
    ["proxy + tenant filter", proxies.tenant],
    ["proxy + JSON-lines log", proxies.log],
  ];
  const results = new Map<string, Numbers[]>(targets.map(([name]) => [name, []]));
  try {
    for (let turn = 0; turn < TURNS; turn++) {
      for (const [name, child] of targets) {
        const cpu = name === "direct" ? async () => NaN : () => child.cpu();
        results.get(name)!.push(await measure(protocol, child.bootstrap, "bench", cpu));
      }
    }
  } finally {
    for (const p of Object.values(proxies)) await p.stop();
    await broker.stop();
  }
  const of = (name: string, k: keyof Numbers) => median(results.get(name)!.map((n) => n[k]));
  const f = (x: number, digits = 0) => x.toFixed(digits);
  const lines = [
    `kafka-wire-proxy vs direct, upstream ${mock !== null ? "librdkafka 2.15.1 mock cluster" : "example broker"}, node ${process.version}, ${os.cpus().length} cores, median of ${TURNS} turn(s)`,
    "",
    "| target | Produce 100 B p50 / p99 (µs) | Metadata p50 / p99 (µs) | Produce 64 KiB ×16 in flight (MB/s) | added p50 Produce / Metadata (µs) | throughput vs direct | proxy CPU per request (µs) / per MB (ms) |",
    "| --- | --- | --- | --- | --- | --- | --- |",
  ];
  for (const [name] of targets) {
    lines.push(
      `| ${name} | ${f(of(name, "produceMedianUs"))} / ${f(of(name, "produceP99Us"))} | ${f(of(name, "metadataMedianUs"))} / ${f(of(name, "metadataP99Us"))} | ${f(of(name, "throughputMBps"), 1)} | ${name === "direct" ? "" : `${f(of(name, "produceMedianUs") - of("direct", "produceMedianUs"))} / ${f(of(name, "metadataMedianUs") - of("direct", "metadataMedianUs"))}`} | ${f(of(name, "throughputMBps") / of("direct", "throughputMBps"), 2)}x | ${name === "direct" ? "" : `${f(of(name, "cpuPerRequestUs"))} / ${f(of(name, "cpuPerMBms"), 2)}`} |`,
    );
  }
  process.stdout.write(`${lines.join("\n")}\n`);
}

await main();
