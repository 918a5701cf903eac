/**
 * `npm run bench:broker` — how long a three-broker kafka-wire-broker cluster takes to start with
 * cached codecs (the goal: under 50 ms), in two ways:
 * - in a fresh Node process, as a test file would: import the codec cache's modules for
 *   ../shared/kafka-schemas/clients (already compiled by a first run), start the cluster with
 *   one topic of six partitions, until every node listens; the median of `--runs` processes;
 * - in this process, the cluster alone (the codecs loaded once): the median of 50 starts;
 * - memory: kafkajs produces 10 MB of 100-byte records (batches of 500); the growth of the
 *   process's heap and array buffers (after a forced GC) over the record batch bytes stored.
 *
 * A program, not a test: it prints the numbers and asserts nothing.
 */

import { execFileSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Kafka, logLevel } from "kafkajs";
import { startCluster } from "../broker/src/index.js";
import { loadSchemaSet } from "../cli/codecs.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const schemas = path.resolve(here, "../../shared/kafka-schemas/clients");
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

if (process.argv.includes("--child")) {
  // One fresh process: codecs from the cache, then the cluster.
  const t0 = performance.now();
  const set = await loadSchemaSet({ cwd: process.cwd(), schemas: [schemas] });
  const t1 = performance.now();
  const cluster = await startCluster({ protocol: set.codecs.protocol!, brokers: 3, topics: { orders: 6 } });
  const t2 = performance.now();
  await cluster.close();
  console.log(JSON.stringify({ codecs: t1 - t0, cluster: t2 - t1, fromCache: set.fromCache }));
} else {
  const { values } = parseArgs({ options: { runs: { type: "string", default: "7" } } });
  const first = await loadSchemaSet({ cwd: process.cwd(), schemas: [schemas], onStatus: console.error });
  const protocol = first.codecs.protocol!;
  const children: { codecs: number; cluster: number; fromCache: boolean }[] = [];
  for (let i = 0; i < Number(values.runs); i++) {
    const out = execFileSync(process.execPath, ["--import", "tsx", fileURLToPath(import.meta.url), "--child"], {
      encoding: "utf8",
    });
    children.push(JSON.parse(out.trim().split("\n").pop()!));
  }
  const inProcess: number[] = [];
  for (let i = 0; i < 50; i++) {
    const t0 = performance.now();
    const cluster = await startCluster({ protocol, brokers: 3, topics: { orders: 6 } });
    inProcess.push(performance.now() - t0);
    await cluster.close();
  }
  const memory = await measureMemory(protocol);
  const ms = (x: number) => `${x.toFixed(1)} ms`;
  console.log(`three-broker cluster, cached codecs (node ${process.version}, ${children.length} fresh processes):`);
  console.log(`  codecs imported from the cache: median ${ms(median(children.map((c) => c.codecs)))}`);
  console.log(`  cluster started (3 listeners, 6 partitions): median ${ms(median(children.map((c) => c.cluster)))}`);
  console.log(
    `  both (a test's startup): median ${ms(median(children.map((c) => c.codecs + c.cluster)))}` +
      `${children.every((c) => c.fromCache) ? "" : " (some runs compiled the codecs)"}`,
  );
  console.log(`  in a warm process, the cluster alone: median ${ms(median(inProcess))} of ${inProcess.length}`);
  console.log(
    `  memory: ${(memory.stored / 1e6).toFixed(1)} MB of stored batches held in ${(memory.grown / 1e6).toFixed(1)} MB ` +
      `(${(memory.grown / memory.stored).toFixed(2)}x)${memory.gc ? "" : " (run with node --expose-gc for a forced GC)"}`,
  );
}

/** Heap and array buffer growth while kafkajs stores 10 MB of records, over the batch bytes stored. */
async function measureMemory(protocol: NonNullable<Awaited<ReturnType<typeof loadSchemaSet>>["codecs"]["protocol"]>) {
  const gc = (globalThis as { gc?: () => void }).gc;
  const used = () => {
    gc?.();
    const m = process.memoryUsage();
    return m.heapUsed + m.arrayBuffers;
  };
  const cluster = await startCluster({ protocol, brokers: 3, topics: { orders: 6 } });
  const kafka = new Kafka({ brokers: cluster.bootstrap.split(","), logLevel: logLevel.NOTHING });
  const producer = kafka.producer();
  await producer.connect();
  const value = "x".repeat(100);
  // Warm up (connections, metadata), then measure from here.
  await producer.send({ topic: "orders", messages: [{ value }] });
  const before = used();
  const storedBefore = cluster.cluster.storedBytes;
  for (let i = 0; i < 200; i++) {
    await producer.send({ topic: "orders", messages: Array.from({ length: 500 }, () => ({ value })) });
  }
  const grown = used() - before;
  const stored = cluster.cluster.storedBytes - storedBefore;
  await producer.disconnect();
  await cluster.close();
  return { grown, stored, gc: gc !== undefined };
}
