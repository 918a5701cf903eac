/**
 * Records against a real peer, both ways, under every codec: Debian's kcat (librdkafka 2.0.2)
 * and librdkafka's mock cluster (started as test/support/kcat.ts does).
 * - kcat produces keyed messages with headers (a repeated header key included) under gzip,
 *   snappy, lz4 and zstd; we Fetch them and decode the batches: the codec in the attributes, and
 *   the keys, values and headers kcat was given.
 * - we Produce batches under each codec; a kcat consumer (with CRC checks on) prints the same keys,
 *   values and headers.
 */

import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { codecs } from "../../compression/src/index.js";
import { decodeRecords, encodeRecordBatch, type CompressionName, type RecordBatch } from "../../src/records/index.js";
import type { Protocol } from "../../src/runtime/index.js";
import { corpusIndex } from "../support/corpus.js";
import { findKcat, KafkaTestClient, startKcatMock, type KcatMock } from "../support/kcat.js";
import { describeShared, isCi } from "../support/shared.js";

const PRODUCE = 0;
const FETCH = 1;
/** Within what the mock and our corpus codecs both speak (see test/interop-kcat.test.ts). */
const PRODUCE_VERSION = 7;
const FETCH_VERSION = 11;
const CODECS: CompressionName[] = ["gzip", "snappy", "lz4", "zstd"];
const TIMEOUT_MS = 15_000;
const ZERO_UUID = "AAAAAAAAAAAAAAAAAAAAAA";
const utf8 = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array | null) => (b === null ? null : new TextDecoder().decode(b));

/** Messages kcat is given: `key:value` lines (`-K:`), every one with the headers below. */
const MESSAGES = Array.from({ length: 25 }, (_, i) => [`key-${i}`, `value ${i} ${"x".repeat(i * 7)}`] as const);
const HEADERS = [
  ["trace", "abc"],
  ["trace", "second value for a repeated key"],
  ["empty", ""],
] as const;

/** Runs kcat to its exit (bounded); resolves with stdout and stderr. */
function runKcat(kcat: string, args: string[], input: string | null, timeoutMs: number) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(kcat, args, { stdio: [input === null ? "ignore" : "pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout!.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr!.setEncoding("utf8").on("data", (d: string) => {
      if (stderr.length < 65536) stderr += d;
    });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`kcat ${args.join(" ")} did not finish within ${timeoutMs} ms; stderr:\n${stderr}`));
    }, timeoutMs);
    child.once("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    if (input !== null) child.stdin!.end(input);
  });
}

/** A kcat consumer of partition 0 that exits after `count` messages; `ready` once it reached the (empty) end, which also makes the mock create the topic. */
function startConsumer(kcat: string, broker: string, topic: string, count: number) {
  const args = [
    "-b",
    broker,
    "-C",
    "-t",
    topic,
    "-p",
    "0",
    "-o",
    "beginning",
    "-c",
    String(count),
    "-X",
    "check.crcs=true",
  ];
  args.push("-f", "%k\\t%s\\t%h\\n");
  const child = spawn(kcat, args, { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`kcat consumer of ${topic} not ready; stderr:\n${stderr}`)),
      TIMEOUT_MS,
    );
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      if (stderr.length < 65536) stderr += d;
      if (stderr.includes(`Reached end of topic ${topic} [0]`)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once("exit", () => reject(new Error(`kcat consumer of ${topic} exited early; stderr:\n${stderr}`)));
  });
  ready.catch(() => undefined);
  const done = async () => {
    const timer = setTimeout(() => child.kill("SIGKILL"), TIMEOUT_MS);
    const code = await exited;
    clearTimeout(timer);
    return { code, stdout, stderr };
  };
  return { ready, done, kill: () => child.kill("SIGKILL") };
}

describeShared("records with a real peer: kcat (librdkafka 2.0.2) and its mock cluster", "kafka-schemas", () => {
  const kcat = findKcat();
  if (kcat === null) {
    const reason = "kcat is not on PATH (Debian: apt-get install kcat; .ci/run installs it)";
    if (isCi()) {
      it("needs kcat", () => {
        throw new Error(`${reason} (CI is set, so this is a failure, not a skip)`);
      });
    } else {
      console.warn(`[skip] records interop with kcat: ${reason}`);
      it.skip("needs kcat on PATH", () => {});
    }
    return;
  }

  let protocol: Protocol;
  let mock: KcatMock | undefined;
  let client: KafkaTestClient | undefined;
  let broker = "";

  beforeAll(async () => {
    ({ protocol } = await corpusIndex());
    mock = await startKcatMock({ kcat, topic: "records-interop", timeoutMs: TIMEOUT_MS });
    broker = `${mock.host}:${mock.port}`;
    client = await KafkaTestClient.connect(mock.host, mock.port, protocol, { timeoutMs: TIMEOUT_MS });
  }, 2 * TIMEOUT_MS);

  afterAll(async () => {
    client?.close();
    await mock?.stop();
  }, 10_000);

  async function fetchRecords(topic: string): Promise<Uint8Array> {
    const { body } = await client!.call<{
      responses: { partitions: { errorCode: number; records: Uint8Array | null }[] }[];
    }>(FETCH, FETCH_VERSION, {
      maxWaitMs: 100,
      minBytes: 1,
      maxBytes: 1 << 22,
      isolationLevel: 0,
      sessionId: 0,
      sessionEpoch: -1,
      topics: [
        {
          topic,
          topicId: ZERO_UUID,
          partitions: [
            {
              partition: 0,
              currentLeaderEpoch: -1,
              fetchOffset: 0n,
              lastFetchedEpoch: -1,
              logStartOffset: -1n,
              partitionMaxBytes: 1 << 22,
              replicaDirectoryId: ZERO_UUID,
            },
          ],
        },
      ],
      forgottenTopicsData: [],
      rackId: "",
    });
    const partition = body.responses[0]!.partitions[0]!;
    expect(partition.errorCode).toBe(0);
    return partition.records ?? new Uint8Array(0);
  }

  describe("kcat produces, kafka-wire fetches and decodes", () => {
    it.each(CODECS)("%s", async (codec) => {
      const topic = `from-kcat-${codec}`;
      const headerArgs = HEADERS.flatMap(([k, v]) => ["-H", `${k}=${v}`]);
      const input = MESSAGES.map(([k, v]) => `${k}:${v}`).join("\n") + "\n";
      const produced = await runKcat(
        kcat,
        ["-b", broker, "-P", "-t", topic, "-p", "0", "-K:", "-z", codec, "-X", "linger.ms=50", ...headerArgs],
        input,
        TIMEOUT_MS,
      );
      expect(produced.code, produced.stderr).toBe(0);
      const set = await decodeRecords(await fetchRecords(topic), { codecs });
      expect(set.incompleteTail).toBe(0);
      const batches = set.batches as RecordBatch[];
      expect(batches.length).toBeGreaterThan(0);
      for (const b of batches) {
        expect(b.magic).toBe(2);
        expect(b.compression).toBe(codec);
      }
      const records = batches.flatMap((b) => [...b.records]);
      expect(records.map((r) => [text(r.key), text(r.value)])).toEqual(MESSAGES.map(([k, v]) => [k, v]));
      for (const r of records) {
        expect(r.headers.map((h) => [h.key, text(h.value)])).toEqual(HEADERS.map(([k, v]) => [k, v]));
      }
      expect(records.map((r) => r.offset)).toEqual(MESSAGES.map((_, i) => BigInt(i)));
    });
  });

  describe("kafka-wire produces, kcat consumes", () => {
    it.each(CODECS)("%s", async (codec) => {
      const topic = `from-kafka-wire-${codec}`;
      const consumer = startConsumer(kcat, broker, topic, MESSAGES.length);
      try {
        await consumer.ready;
        const batch = await encodeRecordBatch(
          {
            compression: codec,
            records: MESSAGES.map(([k, v], i) => ({
              key: k,
              value: v,
              timestamp: 1_700_000_000_000n + BigInt(i),
              headers: HEADERS.map(([hk, hv]) => ({ key: hk, value: hv })),
            })),
          },
          { codecs },
        );
        expect(
          (decodeRecords(batch, { codecs }) as unknown as { batches: RecordBatch[] }).batches[0]!.compression,
        ).toBe(codec);
        const { body } = await client!.call<{ responses: { partitionResponses: { errorCode: number }[] }[] }>(
          PRODUCE,
          PRODUCE_VERSION,
          {
            transactionalId: null,
            acks: -1,
            timeoutMs: 5000,
            topicData: [{ name: topic, partitionData: [{ index: 0, records: batch }] }],
          },
        );
        expect(body.responses[0]!.partitionResponses[0]!.errorCode).toBe(0);
        const { code, stdout, stderr } = await consumer.done();
        expect(code, stderr).toBe(0);
        const headerText = HEADERS.map(([k, v]) => `${k}=${v}`).join(",");
        expect(stdout).toBe(MESSAGES.map(([k, v]) => `${k}\t${v}\t${headerText}\n`).join(""));
      } finally {
        consumer.kill();
      }
    });
  });
});
