/**
 * Real clients against a one-node cluster of kafka-wire-broker (broker/): each
 * produces keyed messages with headers under every compression codec it supports and consumes
 * them back in a consumer group; what it consumed must equal what it produced.
 * - kafkajs 2.2.4 (in this process): none and gzip, the codecs it ships (snappy, lz4 and zstd
 *   need codec plugins kafkajs does not ship); an idempotent producer; a classic group.
 * - @platformatic/kafka 2.12.1 on Node.js 24 (a child process: it needs `Promise.withResolvers`
 *   and `zlib.zstdCompressSync`, which Node.js 20 lacks): all five codecs; classic and KIP-848
 *   consumer groups.
 * - Debian's kcat on librdkafka 2.0.2: all five codecs, a classic group (`-G`).
 * - Debian's kcat on librdkafka 2.15.1 (`LD_LIBRARY_PATH`): all five codecs, a classic group
 *   and `-X group.protocol=consumer` (KIP-848).
 * Every frame the broker received and sent is decoded and re-encoded by the test and must give
 * the same bytes; each client's request sequence (api key name and version) is printed.
 */

import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { CompressionTypes, Kafka, logLevel, type IHeaders } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { codecs } from "../compression/src/index.js";
import { startCluster, type Exchange, type RunningCluster } from "../broker/src/index.js";
import type { Protocol } from "../src/runtime/index.js";
import { corpusIndex } from "./support/corpus.js";
import { findKcat, hex, KafkaTestClient } from "./support/kcat.js";
import { findLibrdkafka, LIBRDKAFKA_VERSION, librdkafkaMissing, peerMissing } from "./support/librdkafka.js";
import { platformaticMissing } from "./support/platformatic.js";
import { describeShared, REPO_ROOT, sharedPath } from "./support/shared.js";

/** Bounds one client's whole run (produce and consume); each takes 1–3 s here (measured). */
const CLIENT_TIMEOUT_MS = 30_000;
const CODECS = ["none", "gzip", "snappy", "lz4", "zstd"] as const;
const API_VERSIONS = 18;

/** A message as every client can write and read it: text key and value, headers in order. */
interface Message {
  key: string | null;
  value: string | null;
  headers: [string, string][];
}

/** `count` messages tagged with `tag`; values of growing size (so that compression has work to do). */
function messages(tag: string, count: number, headers: [string, string][]): Message[] {
  return Array.from({ length: count }, (_, i) => ({
    key: `${tag}-key-${i}`,
    value: `${tag} value ${i} ${"abc".repeat(i * 5)}`,
    headers,
  }));
}

/** Order-free comparison: a consumer group reads partitions in any interleaving. */
const canonical = (ms: readonly Message[]) => ms.map((m) => JSON.stringify(m)).sort();

/** `Metadata v13 ×2`-style run-length list of the requests, in the order the broker answered them. */
function sequence(protocol: Protocol, exchanges: readonly Exchange[]): string {
  const out: [string, number][] = [];
  for (const e of exchanges) {
    const name = `${protocol.apis.get(e.apiKey)?.name ?? `api key ${e.apiKey}`} v${e.apiVersion}`;
    const last = out[out.length - 1];
    if (last !== undefined && last[0] === name) last[1]++;
    else out.push([name, 1]);
  }
  return out.map(([name, n]) => (n > 1 ? `${name} ×${n}` : name)).join(", ");
}

/**
 * Decodes both frames of an exchange and re-encodes them: each must give the original bytes.
 * Returns the problems (with the bytes) rather than throwing, so that one run reports them all.
 */
function roundTripProblems(protocol: Protocol, e: Exchange): string[] {
  const name = `${protocol.apis.get(e.apiKey)?.name ?? e.apiKey} v${e.apiVersion} (correlation id ${e.correlationId})`;
  if (e.error !== null) return [`${name}: the broker closed the connection: ${e.error.message}\n  ${hex(e.request)}`];
  const problems: string[] = [];
  // KIP-511: an ApiVersions version past the broker's is answered without being decoded.
  const fallback = e.apiKey === API_VERSIONS && e.apiVersion > protocol.api(API_VERSIONS).request.validVersions.highest;
  if (e.decoded === null) {
    if (!fallback) problems.push(`${name}: the request did not decode\n  ${hex(e.request)}`);
  } else {
    const h = e.decoded.header;
    const again = protocol.encodeRequestFrame(
      {
        apiKey: h.requestApiKey,
        apiVersion: h.requestApiVersion,
        correlationId: h.correlationId,
        clientId: h.clientId,
      },
      e.decoded.body,
    );
    if (hex(again) !== hex(e.request)) {
      problems.push(`${name}: the request re-encodes differently\n  got   ${hex(e.request)}\n  again ${hex(again)}`);
    }
  }
  if (e.response !== null) {
    const decoded = fallback
      ? protocol.decodeApiVersionsResponseFrame(e.response, e.apiVersion)
      : protocol.decodeResponseFrame(e.response, e.apiKey, e.apiVersion);
    const again = protocol.encodeResponseFrame(
      { apiKey: e.apiKey, apiVersion: decoded.apiVersion, correlationId: decoded.header.correlationId },
      decoded.body,
    );
    if (hex(again) !== hex(e.response)) {
      problems.push(`${name}: the response re-encodes differently\n  sent  ${hex(e.response)}\n  again ${hex(again)}`);
    }
  }
  return problems;
}

/** Spawns a program, feeds it `input` (or nothing), kills it after `timeoutMs`. */
function run(
  file: string,
  args: readonly string[],
  options: { input?: string; env?: Record<string, string>; timeoutMs: number },
): Promise<{ code: number | null; stdout: string; stderr: string; timedOut: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
      env: { ...process.env, ...options.env },
    });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    child.stdout!.setEncoding("utf8").on("data", (s: string) => {
      if (stdout.length < 1 << 20) stdout += s;
    });
    child.stderr!.setEncoding("utf8").on("data", (s: string) => {
      if (stderr.length < 65536) stderr += s;
    });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, options.timeoutMs);
    child.once("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, timedOut });
    });
    if (options.input !== undefined) child.stdin!.end(options.input);
  });
}

/** Node.js 24 from test/runtimes (installed by `npm ci --prefix test/runtimes`), or null. */
function node24(): string | null {
  const bin = path.join(
    REPO_ROOT,
    "test",
    "runtimes",
    "node_modules",
    `node24-${process.platform}-${process.arch}`,
    "bin",
    "node",
  );
  return existsSync(bin) ? bin : null;
}

describeShared("kafka-wire-broker with real clients", "kafka-schemas", () => {
  let protocol: Protocol;
  /** Every (api key, version) the broker answered, with the clients that sent it. */
  const exercised = new Map<string, Set<string>>();

  beforeAll(async () => {
    ({ protocol } = await corpusIndex());
  });

  afterAll(() => {
    if (exercised.size === 0) return;
    const pairs = [...exercised].sort(([a], [b]) => {
      const [ka, va] = a.split(":").map(Number) as [number, number];
      const [kb, vb] = b.split(":").map(Number) as [number, number];
      return ka - kb || va - vb;
    });
    console.log(
      `${pairs.length} distinct (api key, version) pairs answered live:\n` +
        pairs
          .map(([k, clients]) => {
            const [apiKey, version] = k.split(":").map(Number) as [number, number];
            return `  ${apiKey} ${protocol.apis.get(apiKey)?.name} v${version}: ${[...clients].join(", ")}`;
          })
          .join("\n"),
    );
  });

  /**
   * Runs `client` against a fresh broker with `topics`, then checks every frame's round trip,
   * prints the request sequence and records the (api key, version) pairs.
   */
  async function session(
    client: string,
    topics: Record<string, number>,
    body: (broker: RunningCluster) => Promise<void>,
  ): Promise<Exchange[]> {
    const exchanges: Exchange[] = [];
    const broker = await startCluster({
      protocol,
      topics,
      codecs,
      initialRebalanceDelayMs: 100,
      consumerHeartbeatIntervalMs: 300,
      onExchange: (e) => exchanges.push(e),
    });
    try {
      await body(broker);
    } finally {
      await broker.close();
      console.log(`${client}: ${exchanges.length} requests: ${sequence(protocol, exchanges)}`);
    }
    for (const e of exchanges) {
      const key = `${e.apiKey}:${e.apiVersion}`;
      exercised.set(key, (exercised.get(key) ?? new Set()).add(client));
    }
    expect(exchanges.flatMap((e) => roundTripProblems(protocol, e))).toEqual([]);
    return exchanges;
  }

  const names = (exchanges: readonly Exchange[]) => new Set(exchanges.map((e) => protocol.apis.get(e.apiKey)!.name));

  it("answers an ApiVersions version it cannot parse with KIP-511's v0 reply", async () => {
    const exchanges = await session("raw socket", {}, async (broker) => {
      // ApiVersions v5 (one past Kafka 4's 0–4), request header v2: size, api key 0012, version
      // 0005, correlation id 00000007, client id "t" (int16 length 0001, 74), no tagged fields
      // (00), then a body only a v5 broker knows: 01 02 03.
      const request = Buffer.from("0000000f" + "0012" + "0005" + "00000007" + "000174" + "00" + "010203", "hex");
      expect(request.readInt32BE(0)).toBe(request.length - 4);
      const response = await new Promise<Buffer>((resolve, reject) => {
        const socket = net.connect({ host: broker.nodes[0]!.host, port: broker.nodes[0]!.port });
        const timer = setTimeout(() => {
          socket.destroy();
          reject(new Error("no reply within 5000 ms"));
        }, 5000);
        let got = Buffer.alloc(0);
        socket.on("error", reject);
        socket.on("data", (chunk: Buffer) => {
          got = Buffer.concat([got, chunk]);
          if (got.length >= 4 && got.length >= 4 + got.readInt32BE(0)) {
            clearTimeout(timer);
            socket.destroy();
            resolve(got);
          }
        });
        socket.write(request);
      });
      // Response header v0: correlation id. Body v0: error code 0023 (UNSUPPORTED_VERSION, 35),
      // api keys as an int32 count (00000001) of one entry: api key 0012, min 0000, max 0004.
      // 4 + 2 + 4 + 6 = 16 (0x10) bytes after the size.
      expect(hex(response)).toBe("00000010" + "00000007" + "0023" + "00000001" + "0012" + "0000" + "0004");
      const decoded = protocol.decodeApiVersionsResponseFrame(response, 5);
      expect(decoded.apiVersion).toBe(0);
      expect(decoded.body).toMatchObject({ errorCode: 35, apiKeys: [{ apiKey: 18, minVersion: 0, maxVersion: 4 }] });
    });
    expect(exchanges).toHaveLength(1);
    expect(exchanges[0]).toMatchObject({ apiKey: API_VERSIONS, apiVersion: 5, decoded: null, error: null });
  });

  it("runs standalone (kafka-wire broker --schemas) and advertises Kafka 4's version table", async () => {
    const child = spawn(
      process.execPath,
      [
        // The workspaces' sources (kafka-wire-broker's `source` export), not their build.
        "--conditions=source",
        "--import",
        "tsx",
        path.join(REPO_ROOT, "cli/cli.ts"),
        "broker",
        "--schemas",
        sharedPath("kafka-schemas"),
        "--topic",
        "standalone:2",
      ],
      { cwd: REPO_ROOT, stdio: ["pipe", "pipe", "pipe"] },
    );
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (s: string) => (stderr += s));
    const kill = setTimeout(() => child.kill("SIGKILL"), CLIENT_TIMEOUT_MS);
    try {
      const bootstrap = await new Promise<string>((resolve, reject) => {
        let stdout = "";
        child.stdout.setEncoding("utf8").on("data", (s: string) => {
          stdout += s;
          const m = /^bootstrap=127\.0\.0\.1:(\d+)$/m.exec(stdout);
          if (m !== null) resolve(m[1]!);
        });
        void exited.then((code) => reject(new Error(`kafka-wire broker exited (code ${code}): ${stderr}`)));
      });
      const client = await KafkaTestClient.connect("127.0.0.1", Number(bootstrap), protocol, { timeoutMs: 5000 });
      try {
        const versions = await client.call<{ errorCode: number; apiKeys: Record<string, number>[] }>(API_VERSIONS, 4, {
          clientSoftwareName: "kafka-wire-test",
          clientSoftwareVersion: "0",
        });
        expect(versions.body.errorCode).toBe(0);
        // The validVersions of each request schema in ../shared/kafka-schemas/clients (Kafka 4).
        expect(versions.body.apiKeys.map((k) => [k["apiKey"], k["minVersion"], k["maxVersion"]])).toEqual([
          [0, 3, 12], // Produce
          [1, 4, 17], // Fetch
          [2, 1, 10], // ListOffsets
          [3, 4, 13], // Metadata
          [8, 2, 9], // OffsetCommit
          [9, 1, 9], // OffsetFetch
          [10, 0, 6], // FindCoordinator
          [11, 2, 9], // JoinGroup
          [12, 0, 4], // Heartbeat
          [13, 0, 5], // LeaveGroup
          [14, 0, 5], // SyncGroup
          [15, 0, 6], // DescribeGroups
          [16, 0, 5], // ListGroups
          [18, 0, 4], // ApiVersions
          [19, 2, 7], // CreateTopics
          [20, 1, 6], // DeleteTopics
          [21, 0, 2], // DeleteRecords
          [22, 0, 5], // InitProducerId
          [23, 2, 4], // OffsetForLeaderEpoch
          [24, 0, 5], // AddPartitionsToTxn
          [25, 0, 4], // AddOffsetsToTxn
          [26, 0, 5], // EndTxn
          [28, 0, 5], // TxnOffsetCommit
          [32, 1, 4], // DescribeConfigs
          [33, 0, 2], // AlterConfigs
          [37, 0, 3], // CreatePartitions
          [42, 0, 2], // DeleteGroups
          [44, 0, 1], // IncrementalAlterConfigs
          [47, 0, 0], // OffsetDelete
          [60, 0, 2], // DescribeCluster
          [61, 0, 0], // DescribeProducers
          [65, 0, 0], // DescribeTransactions
          [66, 0, 1], // ListTransactions
          [68, 0, 1], // ConsumerGroupHeartbeat
          [69, 0, 1], // ConsumerGroupDescribe
        ]);
        const metadata = await client.call<{ topics: { name: string; partitions: unknown[] }[] }>(3, 13, {
          topics: null,
        });
        expect(metadata.body.topics.map((t) => [t.name, t.partitions.length])).toEqual([["standalone", 2]]);
      } finally {
        client.close();
      }
      child.stdin.end();
      expect(await exited).toBe(0);
    } finally {
      clearTimeout(kill);
      child.kill("SIGKILL");
    }
  });

  it("kafka-wire broker --brokers 3 --topic orders:6 prints three addresses and stops on SIGTERM; --help works", async () => {
    const cli = (args: string[]) =>
      spawn(process.execPath, ["--conditions=source", "--import", "tsx", path.join(REPO_ROOT, "cli/cli.ts"), ...args], {
        cwd: REPO_ROOT,
        stdio: ["pipe", "pipe", "pipe"],
      });
    const help = await run(
      process.execPath,
      ["--conditions=source", "--import", "tsx", path.join(REPO_ROOT, "cli/cli.ts"), "broker", "--help"],
      {
        timeoutMs: CLIENT_TIMEOUT_MS,
      },
    );
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage: kafka-wire broker [options]");
    expect(help.stdout).toContain("--brokers <n>");
    const none = await run(
      process.execPath,
      ["--conditions=source", "--import", "tsx", path.join(REPO_ROOT, "cli/cli.ts"), "broker"],
      {
        timeoutMs: CLIENT_TIMEOUT_MS,
      },
    );
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/needs Kafka's codecs: give --kafka <version>/);
    const child = cli([
      "broker",
      "--brokers",
      "3",
      "--topic",
      "orders:6",
      "--schemas",
      sharedPath("kafka-schemas/clients"),
    ]);
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
      child.once("exit", (code, signal) => resolve({ code, signal })),
    );
    const kill = setTimeout(() => child.kill("SIGKILL"), CLIENT_TIMEOUT_MS);
    try {
      const ports = await new Promise<number[]>((resolve, reject) => {
        let stdout = "";
        child.stdout.setEncoding("utf8").on("data", (t: string) => {
          stdout += t;
          const m = /^bootstrap=127\.0\.0\.1:(\d+),127\.0\.0\.1:(\d+),127\.0\.0\.1:(\d+)$/m.exec(stdout);
          if (m !== null) resolve([Number(m[1]), Number(m[2]), Number(m[3])]);
        });
        void exited.then(() => reject(new Error("kafka-wire broker exited before printing its bootstrap")));
      });
      const client = await KafkaTestClient.connect("127.0.0.1", ports[1]!, protocol, { timeoutMs: 5000 });
      try {
        const metadata = await client.call<{
          brokers: { port: number }[];
          topics: { name: string; partitions: { leaderId: number }[] }[];
        }>(3, 12, { topics: null });
        expect(metadata.body.brokers.map((b) => b.port).sort()).toEqual([...ports].sort());
        expect(metadata.body.topics.map((t) => [t.name, t.partitions.length])).toEqual([["orders", 6]]);
        expect(new Set(metadata.body.topics[0]!.partitions.map((p) => p.leaderId)).size).toBe(3);
      } finally {
        client.close();
      }
      child.kill("SIGTERM");
      expect(await exited).toEqual({ code: 0, signal: null });
    } finally {
      clearTimeout(kill);
      child.kill("SIGKILL");
    }
  });

  it("kafkajs 2.2.4: an idempotent producer under none and gzip, a classic consumer group", async () => {
    const topic = "kafkajs-topic";
    const produced: Message[] = [];
    const consumed: Message[] = [];
    const exchanges = await session("kafkajs 2.2.4", { [topic]: 3 }, async (broker) => {
      const kafka = new Kafka({
        clientId: "kafkajs",
        brokers: [broker.bootstrap],
        logLevel: logLevel.NOTHING,
        connectionTimeout: 3000,
        requestTimeout: 10_000,
        retry: { retries: 2, initialRetryTime: 100 },
      });
      const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
      await producer.connect();
      try {
        for (const [name, compression] of [
          ["none", CompressionTypes.None],
          ["gzip", CompressionTypes.GZIP],
        ] as const) {
          const batch: Message[] = [
            ...messages(`kafkajs-${name}`, 20, [
              ["trace", "first"],
              ["trace", "second value of a repeated key"],
              ["empty", ""],
            ]),
            { key: null, value: `kafkajs-${name} without a key`, headers: [] },
            { key: `kafkajs-${name}-tombstone`, value: null, headers: [] },
          ];
          await producer.send({
            topic,
            compression,
            acks: -1,
            messages: batch.map((m) => {
              const headers: IHeaders = {};
              for (const [k, v] of m.headers) {
                const prev = headers[k];
                headers[k] = prev === undefined ? v : [...(Array.isArray(prev) ? prev : [prev]), v];
              }
              return { key: m.key, value: m.value, headers };
            }),
          });
          produced.push(...batch);
        }
      } finally {
        await producer.disconnect();
      }
      const consumer = kafka.consumer({
        groupId: "kafkajs-group",
        maxWaitTimeInMs: 100,
        sessionTimeout: 10_000,
        rebalanceTimeout: 10_000,
        heartbeatInterval: 500,
      });
      await consumer.connect();
      try {
        await consumer.subscribe({ topics: [topic], fromBeginning: true });
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(
            () => reject(new Error(`kafkajs consumed ${consumed.length} of ${produced.length} messages`)),
            CLIENT_TIMEOUT_MS,
          );
          const text = (b: Buffer | null | undefined) => (b === null || b === undefined ? null : b.toString("utf8"));
          consumer
            .run({
              eachMessage: async ({ message }) => {
                const headers: [string, string][] = [];
                for (const [k, v] of Object.entries(message.headers ?? {})) {
                  for (const one of Array.isArray(v) ? v : [v]) headers.push([k, text(one as Buffer)!]);
                }
                consumed.push({ key: text(message.key), value: text(message.value), headers });
                if (consumed.length === produced.length) {
                  clearTimeout(timer);
                  resolve();
                }
              },
            })
            .catch(reject);
        });
      } finally {
        await consumer.disconnect();
      }
    });
    expect(consumed).toHaveLength(produced.length);
    expect(canonical(consumed)).toEqual(canonical(produced));
    // Heartbeat too when the run outlasts a heartbeat interval.
    for (const api of ["InitProducerId", "Produce", "JoinGroup", "SyncGroup", "Fetch", "OffsetCommit", "LeaveGroup"]) {
      expect(names(exchanges)).toContain(api);
    }
  });

  describe("@platformatic/kafka 2.12.1 on Node.js 24", () => {
    const node = node24();
    if (node === null) {
      peerMissing("Node.js 24", "test/runtimes has no Node.js 24 (run: npm ci --prefix test/runtimes)");
      return;
    }
    const notInstalled = platformaticMissing();
    if (notInstalled !== null) {
      peerMissing("@platformatic/kafka", notInstalled);
      return;
    }
    for (const groupProtocol of ["classic", "consumer"] as const) {
      it(`produces under ${CODECS.join(", ")} and consumes with two members of a ${groupProtocol} group`, async () => {
        const topic = `platformatic-${groupProtocol}`;
        const sends = CODECS.map((compression) => ({
          compression,
          messages: messages(`platformatic-${groupProtocol}-${compression}`, 10, [
            ["trace", "abc"],
            ["empty", ""],
          ]),
        }));
        let result: { consumed: Message[]; perMember: number[] } | undefined;
        const exchanges = await session(
          `@platformatic/kafka 2.12.1 (${groupProtocol})`,
          { [topic]: 3 },
          async (broker) => {
            const args = {
              bootstrap: broker.bootstrap,
              topic,
              partitions: 3,
              groupId: `platformatic-${groupProtocol}-group`,
              groupProtocol,
              members: 2,
              sends,
              timeoutMs: CLIENT_TIMEOUT_MS - 5000,
            };
            const child = await run(
              node,
              [path.join(REPO_ROOT, "test/support/platformatic-client.mjs"), JSON.stringify(args)],
              { timeoutMs: CLIENT_TIMEOUT_MS },
            );
            expect(child, child.stderr).toMatchObject({ code: 0, timedOut: false });
            result = JSON.parse(child.stdout) as { consumed: Message[]; perMember: number[] };
          },
        );
        expect(canonical(result!.consumed)).toEqual(canonical(sends.flatMap((s) => s.messages)));
        // The group's partitions were shared: both members read some of the messages.
        expect(
          result!.perMember.every((n) => n > 0),
          `messages per member: ${result!.perMember}`,
        ).toBe(true);
        expect(names(exchanges)).toContain(groupProtocol === "classic" ? "JoinGroup" : "ConsumerGroupHeartbeat");
        expect(names(exchanges)).toContain("InitProducerId");
        expect(names(exchanges)).toContain("OffsetCommit");
      });
    }
  });

  const kcat = findKcat();
  const librdkafka = findLibrdkafka();

  /**
   * kcat produces `count` messages per codec (one run each, stdin `key:value` lines, the same
   * headers on every message, a repeated key included), then consumes them all in group
   * `group` (`-G`, from the earliest offset) and prints `key \t value \t headers`.
   */
  async function kcatRoundTrip(
    kcatPath: string,
    client: string,
    options: { env?: Record<string, string>; produceArgs?: string[]; groups: { id: string; args: string[] }[] },
  ): Promise<Exchange[]> {
    const topic = client.replace(/[^a-zA-Z0-9]+/g, "-");
    const produced: Message[] = [];
    const consumedByGroup: Message[][] = [];
    const exchanges = await session(client, { [topic]: 3 }, async (broker) => {
      for (const codec of CODECS) {
        const headers: [string, string][] = [
          ["codec", codec],
          ["trace", "1"],
          ["trace", "2"],
        ];
        const batch = messages(`kcat-${codec}`, 10, headers);
        const result = await run(
          kcatPath,
          [
            "-b",
            broker.bootstrap,
            "-P",
            "-t",
            topic,
            "-K:",
            "-z",
            codec,
            ...headers.flatMap(([k, v]) => ["-H", `${k}=${v}`]),
            ...(options.produceArgs ?? []),
          ],
          { input: batch.map((m) => `${m.key}:${m.value}\n`).join(""), env: options.env, timeoutMs: CLIENT_TIMEOUT_MS },
        );
        expect(result, result.stderr).toMatchObject({ code: 0, timedOut: false });
        produced.push(...batch);
      }
      for (const group of options.groups) {
        const result = await run(
          kcatPath,
          [
            "-b",
            broker.bootstrap,
            "-G",
            group.id,
            "-c",
            String(produced.length),
            "-X",
            "auto.offset.reset=earliest",
            "-X",
            "fetch.wait.max.ms=100",
            "-f",
            "%k\\t%s\\t%h\\n",
            ...group.args,
            topic,
          ],
          { env: options.env, timeoutMs: CLIENT_TIMEOUT_MS },
        );
        expect(result, result.stderr).toMatchObject({ code: 0, timedOut: false });
        consumedByGroup.push(
          result.stdout
            .split("\n")
            .filter((l) => l !== "")
            .map((line) => {
              const [key, value, headers] = line.split("\t") as [string, string, string];
              return {
                key,
                value,
                headers: headers.split(",").map((h) => h.split("=") as [string, string]),
              };
            }),
        );
      }
    });
    for (const consumed of consumedByGroup) expect(canonical(consumed)).toEqual(canonical(produced));
    return exchanges;
  }

  describe("Debian's kcat on librdkafka 2.0.2", () => {
    if (kcat === null) {
      peerMissing("kcat", "kcat is not on PATH (Debian: apt-get install kcat; .ci/run installs it)");
      return;
    }
    it(`produces under ${CODECS.join(", ")} (idempotent) and consumes in a classic group`, async () => {
      const exchanges = await kcatRoundTrip(kcat, "kcat librdkafka 2.0.2", {
        produceArgs: ["-X", "enable.idempotence=true"],
        groups: [{ id: "kcat-2-0-2-classic", args: [] }],
      });
      expect(names(exchanges)).toContain("JoinGroup");
    });
  });

  describe(`Debian's kcat on librdkafka ${LIBRDKAFKA_VERSION}`, () => {
    if (kcat === null) {
      peerMissing("kcat", "kcat is not on PATH (Debian: apt-get install kcat; .ci/run installs it)");
      return;
    }
    if (librdkafka === null) {
      peerMissing(`librdkafka ${LIBRDKAFKA_VERSION}`, librdkafkaMissing());
      return;
    }
    it(`produces under ${CODECS.join(", ")} (idempotent), consumes in a classic group and a KIP-848 consumer group`, async () => {
      const exchanges = await kcatRoundTrip(kcat, `kcat librdkafka ${LIBRDKAFKA_VERSION}`, {
        env: { LD_LIBRARY_PATH: librdkafka.libDir },
        produceArgs: ["-X", "enable.idempotence=true"],
        groups: [
          { id: "kcat-2-15-classic", args: [] },
          { id: "kcat-2-15-consumer", args: ["-X", "group.protocol=consumer"] },
        ],
      });
      expect(names(exchanges)).toContain("JoinGroup");
      expect(names(exchanges)).toContain("ConsumerGroupHeartbeat");
    });
  });
});
