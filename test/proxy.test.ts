/**
 * kafka-wire-proxy (proxy/) with real clients and brokers:
 * - kafkajs 2.2.4 (in this process) through the proxy to the example broker (examples/broker);
 * - Debian's kcat on librdkafka 2.0.2 through the proxy to kcat's own mock cluster (2.0.2);
 * - kcat on librdkafka 2.15.1 through the proxy to the 2.15.1 mock cluster with three brokers.
 * Checked: what the clients produce they consume back; without filters every response reaches
 * the client as the broker's bytes, except those whose broker addresses the proxy replaced; the
 * clients connect only to the proxy and the brokers see connections only from it; the tenant
 * filter (examples/proxy/tenant.ts) puts the topics under a prefix on the broker and takes it
 * off for the clients; unknown api keys pass through byte for byte; a bad client is closed alone.
 */

import { spawn } from "node:child_process";
import net from "node:net";
import { Kafka, logLevel } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOneBroker, type OneBroker as Broker } from "./support/one-broker.js";
import { tenantTopics } from "../examples/proxy/tenant.js";
import {
  editFetchRecords,
  editProduceRecords,
  Filters,
  startProxy,
  type LogEntry,
  type MessageLogEntry,
  type Proxy,
  type TappedFrame,
} from "../proxy/src/index.js";
import { FrameSplitter, type Protocol } from "../src/runtime/index.js";
import { corpusIndex } from "./support/corpus.js";
import { findKcat, hex, KafkaTestClient, runKcat, startKcatMock } from "./support/kcat.js";
import { findLibrdkafka, librdkafkaMissing, peerMissing, startMockCluster } from "./support/librdkafka.js";
import { describeShared } from "./support/shared.js";
import { canSeePeers, remotePortsOf, watchPeers } from "./support/tcp-peers.js";

const CLIENT_TIMEOUT_MS = 30_000;
const METADATA = 3;
const FIND_COORDINATOR = 10;

/** Text of a Buffer or null. */
const text = (b: Buffer | null | undefined): string | null =>
  b === null || b === undefined ? null : b.toString("utf8");

/** Every frame in `chunks` (one connection's bytes, in order). */
function framesOf(chunks: readonly Uint8Array[]): Uint8Array[] {
  const splitter = new FrameSplitter();
  return chunks.flatMap((c) => splitter.push(c).map((f) => new Uint8Array(f)));
}

interface KafkajsRun {
  consumed: { key: string | null; value: string | null; headers: Record<string, string> }[];
  /** `host:port` of every connection kafkajs opened. */
  connectedTo: string[];
  /** Bytes kafkajs received, per connection, with its local port. */
  received: { localPort: number; chunks: Uint8Array[] }[];
}

/** kafkajs produces `count` messages to `topic` through `bootstrap`, then consumes them in a group. */
async function kafkajsRoundTrip(bootstrap: string, topic: string, count: number, group: string): Promise<KafkajsRun> {
  const run: KafkajsRun = { consumed: [], connectedTo: [], received: [] };
  const kafka = new Kafka({
    clientId: "kafkajs",
    brokers: [bootstrap],
    logLevel: logLevel.NOTHING,
    connectionTimeout: 3000,
    requestTimeout: 10_000,
    retry: { retries: 2, initialRetryTime: 100 },
    socketFactory: ({ host, port, onConnect }) => {
      run.connectedTo.push(`${host}:${port}`);
      const socket = net.connect({ host, port }, onConnect);
      const entry = { localPort: 0, chunks: [] as Uint8Array[] };
      run.received.push(entry);
      socket.on("connect", () => (entry.localPort = socket.localPort ?? 0));
      socket.on("data", (chunk: Buffer) => entry.chunks.push(new Uint8Array(chunk)));
      return socket;
    },
  });
  const producer = kafka.producer({ allowAutoTopicCreation: false });
  await producer.connect();
  try {
    await producer.send({
      topic,
      acks: -1,
      messages: Array.from({ length: count }, (_, i) => ({
        key: `k${i}`,
        value: `value ${i}`,
        headers: { n: String(i) },
      })),
    });
  } finally {
    await producer.disconnect();
  }
  const consumer = kafka.consumer({
    groupId: group,
    maxWaitTimeInMs: 100,
    sessionTimeout: 10_000,
    heartbeatInterval: 500,
  });
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`kafkajs consumed ${run.consumed.length} of ${count}`)),
        CLIENT_TIMEOUT_MS,
      );
      consumer
        .run({
          eachMessage: async ({ message }) => {
            const headers: Record<string, string> = {};
            for (const [k, v] of Object.entries(message.headers ?? {})) headers[k] = text(v as Buffer)!;
            run.consumed.push({ key: text(message.key), value: text(message.value), headers });
            if (run.consumed.length >= count) {
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
  return run;
}

const sorted = <T>(xs: readonly T[]): T[] => [...xs].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));

describeShared("kafka-wire-proxy", "kafka-schemas", () => {
  // Who is connected to whom is read from Linux's /proc (test/support/tcp-peers.ts).
  if (!canSeePeers()) {
    peerMissing("/proc/net/tcp", "this machine has no /proc/net/tcp (Linux) to see who connects to whom");
    return;
  }
  let protocol: Protocol;
  beforeAll(async () => {
    ({ protocol } = await corpusIndex());
  });

  describe("kafkajs and the example broker", () => {
    let broker: Broker;
    beforeAll(async () => {
      broker = await startOneBroker({
        protocol,
        topics: { plain: 3, "acme.orders": 2, "other.orders": 1, edited: 1 },
        initialRebalanceDelayMs: 100,
      });
    });
    afterAll(async () => {
      await broker?.close();
    });

    it("without filters: kafkajs consumes what it produced, every response is the broker's bytes but for replaced addresses, and nobody bypasses the proxy", async () => {
      const log: LogEntry[] = [];
      const upstreamFrames: TappedFrame[] = [];
      const proxy = await startProxy({
        upstream: broker.bootstrap,
        protocol,
        log: (e) => log.push(e),
        tap: (f) => f.direction === "response" && upstreamFrames.push({ ...f, frame: new Uint8Array(f.frame) }),
      });
      const peers = watchPeers(new Set([broker.port]));
      let run: KafkajsRun;
      try {
        run = await kafkajsRoundTrip(proxy.bootstrap, "plain", 12, "plain-group");
      } finally {
        const seen = peers.stop();
        await proxy.close();
        // The broker saw connections only from the proxy's upstream sockets.
        const fromProxy = new Set(proxy.upstreamSockets().map((a) => a.port));
        expect(seen.size).toBeGreaterThan(0);
        expect([...seen].filter((p) => !fromProxy.has(p))).toEqual([]);
      }
      expect(sorted(run.consumed)).toEqual(
        sorted(
          Array.from({ length: 12 }, (_, i) => ({ key: `k${i}`, value: `value ${i}`, headers: { n: String(i) } })),
        ),
      );
      // kafkajs connected only to the proxy (the broker names itself in Metadata and FindCoordinator).
      expect(new Set(run.connectedTo)).toEqual(new Set([proxy.bootstrap]));
      expect(proxy.listeners()).toEqual([
        { host: "127.0.0.1", port: proxy.port, upstream: { host: broker.host, port: broker.port } },
      ]);

      // Per connection, the frames kafkajs received are the upstream's, byte for byte, except the
      // address-naming ones, whose only difference is the broker's host and port.
      const opened = new Map<number, number>(); // client port -> proxy connection
      for (const e of log) {
        if (e.direction === "connection" && e.event === "open")
          opened.set(Number(/:(\d+) ->/.exec(e.detail)![1]), e.connection);
      }
      let compared = 0;
      let rewritten = 0;
      for (const r of run.received) {
        const connection = opened.get(r.localPort);
        expect(connection, `connection from port ${r.localPort}`).toBeDefined();
        const upstream = upstreamFrames.filter((f) => f.connection === connection);
        const got = framesOf(r.chunks);
        expect(got.length).toBe(upstream.length);
        got.forEach((frame, i) => {
          const u = upstream[i]!;
          compared++;
          if (hex(frame) === hex(u.frame)) return;
          expect([METADATA, FIND_COORDINATOR]).toContain(u.apiKey);
          rewritten++;
          const mine = protocol.decodeResponseFrame(frame, u.apiKey, u.apiVersion).body as Record<string, unknown>;
          const theirs = protocol.decodeResponseFrame(u.frame, u.apiKey, u.apiVersion).body as Record<string, unknown>;
          const addressless = (b: Record<string, unknown>) =>
            JSON.parse(
              JSON.stringify(b, (k, v) =>
                k === "host" || k === "port" ? "<address>" : typeof v === "bigint" ? String(v) : v,
              ),
            );
          expect(addressless(mine)).toEqual(addressless(theirs));
          expect(JSON.stringify(mine, (_, v) => (typeof v === "bigint" ? String(v) : v))).toContain(
            `"port":${proxy.port}`,
          );
        });
      }
      expect(compared).toBeGreaterThan(10);
      // The broker listens on its own port, so the proxy had to replace it (it does not, in a test
      // that proves nothing, happen to be the same).
      expect(broker.port).not.toBe(proxy.port);
      expect(rewritten).toBeGreaterThan(0);

      // The log: a line per request and per response, paired by correlation id, with latency.
      const messages = log.filter((e): e is MessageLogEntry => e.direction !== "connection");
      const requests = messages.filter((e) => e.direction === "request");
      const responses = messages.filter((e) => e.direction === "response");
      expect(responses.length).toBeGreaterThan(10);
      for (const res of responses) {
        const req = requests.find((q) => q.connection === res.connection && q.correlationId === res.correlationId);
        expect(req, `request of ${res.api} ${res.correlationId}`).toBeDefined();
        expect(res.api).toBe(req!.api);
        expect(res.latencyMs).toBeGreaterThanOrEqual(0);
        expect(res.body).toBeDefined();
      }
      const produce = requests.find((e) => e.api === "Produce")!;
      const produceBody = JSON.parse(produce.body!);
      // The record batch summarised: 12 records in partitions of "plain".
      const counted = produceBody.topicData[0].partitionData.flatMap(
        (p: { records: { batches: { recordCount: number }[] } }) => p.records.batches.map((b) => b.recordCount),
      );
      expect(counted.reduce((a: number, b: number) => a + b, 0)).toBe(12);
    });

    it("the tenant filter: kafkajs uses 'orders', the broker holds 'acme.orders', and other tenants' topics are hidden", async () => {
      const proxy = await startProxy({ upstream: broker.bootstrap, protocol, filters: tenantTopics("acme.") });
      let run: KafkajsRun;
      try {
        run = await kafkajsRoundTrip(proxy.bootstrap, "orders", 5, "tenant-group");
      } finally {
        await proxy.close();
      }
      expect(sorted(run.consumed.map((m) => m.value))).toEqual(
        sorted(Array.from({ length: 5 }, (_, i) => `value ${i}`)),
      );
      // Straight to the broker: the records are in acme.orders; the client's view lists "orders" only.
      const direct = await KafkaTestClient.connect(broker.host, broker.port, protocol, { timeoutMs: 5000 });
      const viaProxy = await startProxy({ upstream: broker.bootstrap, protocol, filters: tenantTopics("acme.") });
      const client = await KafkaTestClient.connect(viaProxy.host, viaProxy.port, protocol, { timeoutMs: 5000 });
      try {
        const offsets = async (c: KafkaTestClient, name: string) =>
          (
            await c.call<{ topics: { name: string; partitions: { offset: bigint }[] }[] }>(2, 7, {
              replicaId: -1,
              topics: [{ name, partitions: [0, 1].map((p) => ({ partitionIndex: p, timestamp: -1n })) }],
            })
          ).body.topics[0]!;
        const onBroker = await offsets(direct, "acme.orders");
        expect(onBroker.partitions.reduce((s, p) => s + Number(p.offset), 0)).toBe(5);
        const seen = await offsets(client, "orders");
        expect(seen.name).toBe("orders");
        expect(seen.partitions).toEqual(onBroker.partitions);
        const all = await client.call<{ topics: { name: string }[] }>(METADATA, 12, { topics: null });
        expect(all.body.topics.map((t) => t.name).sort()).toEqual(["orders"]);
      } finally {
        client.close();
        direct.close();
        await viaProxy.close();
      }
    });

    it("record editing: a header added to every produced record, records dropped by key on fetch", async () => {
      const filters = new Filters()
        .onRequest(0, async (req, ctx) =>
          ctx.forward(
            await editProduceRecords(req.body, (r) => ({
              ...r,
              headers: [...r.headers, { key: "via", value: "proxy" }],
            })),
          ),
        )
        .onResponse(1, async (res, ctx) =>
          ctx.forward(
            await editFetchRecords(res.body, (r) =>
              r.key !== null && text(Buffer.from(r.key))!.endsWith("3") ? null : undefined,
            ),
          ),
        );
      const proxy = await startProxy({ upstream: broker.bootstrap, protocol, filters });
      const kafka = new Kafka({
        clientId: "edit",
        brokers: [proxy.bootstrap],
        logLevel: logLevel.NOTHING,
        retry: { retries: 2 },
      });
      const producer = kafka.producer({ allowAutoTopicCreation: false });
      const consumer = kafka.consumer({ groupId: "edit-group", maxWaitTimeInMs: 100 });
      const consumed: { key: string | null; headers: Record<string, string> }[] = [];
      try {
        await producer.connect();
        await producer.send({
          topic: "edited",
          messages: Array.from({ length: 6 }, (_, i) => ({ key: `k${i}`, value: "v" })),
        });
        await producer.send({ topic: "edited", messages: [{ key: "last", value: "v" }] });
        await consumer.connect();
        await consumer.subscribe({ topics: ["edited"], fromBeginning: true });
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`consumed ${JSON.stringify(consumed)}`)), CLIENT_TIMEOUT_MS);
          consumer
            .run({
              eachMessage: async ({ message }) => {
                const headers: Record<string, string> = {};
                for (const [k, v] of Object.entries(message.headers ?? {})) headers[k] = text(v as Buffer)!;
                consumed.push({ key: text(message.key), headers });
                // "last" comes after the dropped k3: reaching it means the consumer moved past the gap.
                if (text(message.key) === "last") {
                  clearTimeout(timer);
                  resolve();
                }
              },
            })
            .catch(reject);
        });
      } finally {
        await producer.disconnect();
        await consumer.disconnect();
        await proxy.close();
      }
      expect(consumed.map((m) => m.key)).toEqual(["k0", "k1", "k2", "k4", "k5", "last"]);
      expect(consumed.every((m) => m.headers["via"] === "proxy")).toBe(true);
    });

    it("a filter answers a request itself or closes the connection; a client whose frame is too large is closed alone", async () => {
      const asked: number[] = [];
      const filters = new Filters().onRequest(METADATA, (req, ctx) =>
        req.body.topics?.[0]?.name === "close-me"
          ? ctx.close("asked to")
          : ctx.respond({
              throttleTimeMs: 0,
              brokers: [],
              clusterId: "answered by the proxy",
              controllerId: -1,
              topics: [],
            }),
      );
      const proxy = await startProxy({
        upstream: broker.bootstrap,
        protocol,
        filters,
        maxFrameSize: 4096,
        tap: (f) => f.direction === "response" && asked.push(f.apiKey),
      });
      const good = await KafkaTestClient.connect(proxy.host, proxy.port, protocol, { timeoutMs: 5000 });
      const closing = await KafkaTestClient.connect(proxy.host, proxy.port, protocol, { timeoutMs: 5000 });
      const bad = net.connect({ host: proxy.host, port: proxy.port });
      try {
        const answered = await good.call<{ clusterId: string }>(METADATA, 12, { topics: [{ name: "x" }] });
        expect(answered.body.clusterId).toBe("answered by the proxy");
        await expect(closing.call(METADATA, 12, { topics: [{ name: "close-me" }] }, 2000)).rejects.toThrow(/closed/);
        // A size prefix of 1 MiB: over maxFrameSize, closed before anything is buffered.
        const badClosed = new Promise<void>((resolve) => bad.once("close", () => resolve()));
        bad.on("error", () => {});
        bad.write(new Uint8Array([0x00, 0x10, 0x00, 0x00, 1, 2, 3]));
        await badClosed;
        // The good client goes on: an ApiVersions request reaches the broker and back.
        const versions = await good.call<{ errorCode: number }>(18, 3, {
          clientSoftwareName: "t",
          clientSoftwareVersion: "1",
        });
        expect(versions.body.errorCode).toBe(0);
        // The broker never saw a Metadata request: the filter answered or closed each.
        expect(asked).toEqual([18]);
      } finally {
        good.close();
        closing.close();
        bad.destroy();
        await proxy.close();
      }
    });
  });

  it("backpressure: with maxInFlight 5 the broker gets 5 pipelined requests until it answers one; another client is not held up", async () => {
    // A broker that holds its answers until told: it counts requests per connection and answers
    // the oldest one (an ApiVersions v0 reply, hand-made: size 10 | correlation id | errorCode 0 |
    // empty int32 array) when release() is called.
    const held: { socket: net.Socket; ids: Buffer[] }[] = [];
    const server = net.createServer((socket) => {
      const entry = { socket, ids: [] as Buffer[] };
      held.push(entry);
      const splitter = new FrameSplitter();
      socket.on("data", (chunk: Buffer) => {
        for (const frame of splitter.push(chunk)) entry.ids.push(Buffer.from(frame.subarray(8, 12)));
      });
    });
    const release = (entry: { socket: net.Socket; ids: Buffer[] }, index: number) => {
      const reply = Buffer.alloc(14);
      reply.writeInt32BE(10, 0);
      entry.ids[index]!.copy(reply, 4);
      entry.socket.write(reply);
    };
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    const port = (server.address() as net.AddressInfo).port;
    const proxy = await startProxy({ upstream: `127.0.0.1:${port}`, protocol, maxInFlight: 5 });
    const sockets: net.Socket[] = [];
    const settle = () => new Promise((r) => setTimeout(r, 300));
    try {
      const greedy = net.connect({ host: proxy.host, port: proxy.port });
      sockets.push(greedy);
      const frames = Array.from({ length: 50 }, (_, i) =>
        protocol.encodeRequestFrame({ apiKey: 18, apiVersion: 0, correlationId: i, clientId: "greedy" }, {}),
      );
      greedy.write(Buffer.concat(frames));
      await settle();
      expect(held).toHaveLength(1);
      expect(held[0]!.ids).toHaveLength(5);
      // One answer frees one slot: exactly one more request goes through.
      release(held[0]!, 0);
      await settle();
      expect(held[0]!.ids).toHaveLength(6);
      // A second client has its own connection and its own bound.
      const other = net.connect({ host: proxy.host, port: proxy.port });
      sockets.push(other);
      const answered = new Promise<Buffer>((resolve) => other.once("data", (c: Buffer) => resolve(c)));
      other.write(protocol.encodeRequestFrame({ apiKey: 18, apiVersion: 0, correlationId: 77, clientId: "other" }, {}));
      await settle();
      expect(held).toHaveLength(2);
      release(held[1]!, 0);
      expect((await answered).readInt32BE(4)).toBe(77);
    } finally {
      for (const s of sockets) s.destroy();
      await proxy.close();
      for (const h of held) h.socket.destroy();
      await new Promise((r) => server.close(r));
    }
  });

  it("ApiVersions: a version past the codecs' is lowered for the APIs the proxy must read, and only for those", async () => {
    const metadata = protocol.api(METADATA).response.validVersions.highest;
    // A broker from the future: Metadata, and api key 1000 (unknown to the codecs), up to v99.
    const server = net.createServer((socket) => {
      const splitter = new FrameSplitter();
      socket.on("data", (chunk: Buffer) => {
        for (const frame of splitter.push(chunk)) {
          const correlationId = new DataView(frame.buffer, frame.byteOffset, frame.byteLength).getInt32(8);
          const apiKeys = [
            { apiKey: METADATA, minVersion: 4, maxVersion: 99 },
            { apiKey: 18, minVersion: 0, maxVersion: 4 },
            { apiKey: 1000, minVersion: 0, maxVersion: 99 },
          ];
          socket.write(
            protocol.encodeResponseFrame({ apiKey: 18, apiVersion: 3, correlationId }, { errorCode: 0, apiKeys }),
          );
        }
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    const port = (server.address() as net.AddressInfo).port;
    const log: LogEntry[] = [];
    const proxy = await startProxy({ upstream: `127.0.0.1:${port}`, protocol, log: (e) => log.push(e) });
    const client = await KafkaTestClient.connect(proxy.host, proxy.port, protocol, { timeoutMs: 5000 });
    try {
      const { body } = await client.call<{ apiKeys: { apiKey: number; maxVersion: number }[] }>(18, 3, {
        clientSoftwareName: "t",
        clientSoftwareVersion: "1",
      });
      expect(body.apiKeys.map((k) => [k.apiKey, k.maxVersion])).toEqual([
        [METADATA, metadata],
        [18, 4],
        [1000, 99],
      ]);
      await new Promise((r) => setTimeout(r, 50));
      expect(log.find((e) => e.direction === "response")).toMatchObject({
        api: "ApiVersions",
        changed: "api versions",
      });
    } finally {
      client.close();
      await proxy.close();
      await new Promise((r) => server.close(r));
    }
  });

  it("a frame whose api key the codecs do not know passes through byte for byte, and so does its response", async () => {
    // A broker of a protocol extension: answers api key 1000 with a fixed frame (hand-made:
    // size 9 | correlation id from the request | 5 bytes "hello").
    const got: Uint8Array[] = [];
    const server = net.createServer((socket) => {
      const splitter = new FrameSplitter();
      socket.on("data", (chunk: Buffer) => {
        for (const frame of splitter.push(chunk)) {
          got.push(new Uint8Array(frame));
          const reply = Buffer.alloc(13);
          reply.writeInt32BE(9, 0);
          reply.set(frame.subarray(8, 12), 4);
          reply.write("hello", 8);
          socket.write(reply);
        }
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    const port = (server.address() as net.AddressInfo).port;
    const log: LogEntry[] = [];
    const proxy = await startProxy({ upstream: `127.0.0.1:${port}`, protocol, log: (e) => log.push(e) });
    const socket = net.connect({ host: proxy.host, port: proxy.port });
    try {
      // api key 1000 v7, correlation id 0x01020304, then 6 arbitrary body bytes.
      const request = Buffer.from("0000000e" + "03e8" + "0007" + "01020304" + "ffff00aa55bb", "hex");
      const reply = await new Promise<Buffer>((resolve) => {
        const chunks: Buffer[] = [];
        socket.on("data", (c: Buffer) => {
          chunks.push(c);
          const all = Buffer.concat(chunks);
          if (all.length >= 13) resolve(all);
        });
        socket.write(request);
      });
      expect(hex(got[0]!)).toBe(hex(request));
      expect(reply.toString("hex")).toBe("00000009" + "01020304" + Buffer.from("hello").toString("hex"));
      await new Promise((r) => setTimeout(r, 50));
      const lines = log.filter((e): e is MessageLogEntry => e.direction !== "connection");
      expect(lines.map((e) => [e.direction, e.apiKey, e.api, e.apiVersion, e.correlationId, e.opaque])).toEqual([
        ["request", 1000, null, 7, 0x01020304, true],
        ["response", 1000, null, 7, 0x01020304, true],
      ]);
    } finally {
      socket.destroy();
      await proxy.close();
      await new Promise((r) => server.close(r));
    }
  });

  describe("kcat and the librdkafka mock clusters", () => {
    const kcat = findKcat();
    if (kcat === null) {
      peerMissing("kcat", "kcat is not on PATH (Debian: apt-get install kcat; .ci/run installs it)");
      return;
    }

    /** Every proxy port a kcat run was seen connected to, over the runs of one test. */
    const clientPortsSeen = new Set<number>();

    /** kcat on the tenant proxy: produces `lines` to `events` partition 0, consumes them back; every connection of both runs goes to a proxy listener. */
    async function produceAndConsume(
      proxy: Proxy,
      lines: readonly string[],
      env: Record<string, string>,
    ): Promise<void> {
      const listeners = () => new Set(proxy.listeners().map((l) => l.port));
      const produce = await watchedKcat(
        kcat!,
        ["-b", proxy.bootstrap, "-P", "-t", "events", "-p", "0"],
        env,
        lines.join("\n") + "\n",
      );
      expect(produce.code, produce.stderr).toBe(0);
      const consume = await watchedKcat(
        kcat!,
        ["-b", proxy.bootstrap, "-C", "-t", "events", "-p", "0", "-o", "beginning", "-e", "-f", "%t %s\\n"],
        env,
      );
      expect(consume.code, consume.stderr).toBe(0);
      // The last lines: each run appends its own after what earlier runs produced.
      expect(consume.stdout.trim().split("\n").slice(-lines.length)).toEqual(lines.map((l) => `events ${l}`));
      for (const run of [produce, consume]) {
        // A short run can end between two samples of /proc; that some connection was seen is
        // checked over all runs of the test (clientPortsSeen), where a miss of every run would show.
        for (const p of run.remotePorts) clientPortsSeen.add(p);
        expect(
          [...run.remotePorts].filter((p) => !listeners().has(p)),
          `listeners ${[...listeners()]}, upstream ${JSON.stringify(proxy.listeners())} ${run.stderr}`,
        ).toEqual([]);
      }
    }

    it("kcat's 2.0.2 mock cluster speaks Metadata v0-v2, below Kafka 4's codecs: those frames pass through opaque and byte for byte, with a warning", async () => {
      const mock = await startKcatMock({ kcat, topic: "passthrough", timeoutMs: 15_000 });
      const log: LogEntry[] = [];
      const sent: TappedFrame[] = [];
      const proxy = await startProxy({
        upstream: `${mock.host}:${mock.port}`,
        protocol,
        log: (e) => log.push(e),
        tap: (f) => sent.push({ ...f, frame: new Uint8Array(f.frame) }),
      });
      try {
        const produce = await watchedKcat(
          kcat,
          ["-b", proxy.bootstrap, "-P", "-t", "passthrough", "-p", "0"],
          {},
          "x\ny\n",
        );
        expect(produce.code, produce.stderr).toBe(0);
        const consume = await runKcat(
          kcat,
          ["-b", proxy.bootstrap, "-C", "-t", "passthrough", "-p", "0", "-o", "beginning", "-e", "-f", "%s\\n"],
          {
            timeoutMs: 20_000,
          },
        );
        expect(consume.stdout.trim().split("\n")).toEqual(["x", "y"]);
        await new Promise((r) => setTimeout(r, 50));
        const metadata = log.filter((e): e is MessageLogEntry => e.direction !== "connection" && e.apiKey === METADATA);
        expect(metadata.length).toBeGreaterThan(0);
        expect(metadata.every((e) => e.opaque === true && e.api === null && e.apiVersion <= 2)).toBe(true);
        expect(
          log.some(
            (e) =>
              e.direction === "connection" && e.event === "warning" && /api key 3 v2 is not readable/.test(e.detail),
          ),
        ).toBe(true);
        // Opaque frames: the proxy forwarded exactly what it received (its tap) and the sizes logged match.
        const opaque = sent.filter((f) => f.apiKey === METADATA);
        expect(opaque.map((f) => f.frame.length).sort()).toEqual(metadata.map((e) => e.size).sort());
      } finally {
        await proxy.close();
        await mock.stop();
      }
    });

    const librdkafka = findLibrdkafka();
    if (librdkafka === null) {
      peerMissing("librdkafka 2.15.1", librdkafkaMissing());
      return;
    }

    it("kcat (librdkafka 2.0.2 and 2.15.1) through the proxy to a three-broker 2.15.1 mock: a listener per broker, clients and brokers see only the proxy, with and without the tenant filter", async () => {
      const env = { LD_LIBRARY_PATH: librdkafka.libDir };
      const mock = await startMockCluster({
        mockCluster: librdkafka.mockCluster,
        brokers: 3,
        topics: [
          { name: "events", partitions: 3 },
          { name: "acme.events", partitions: 3 },
        ],
        timeoutMs: 15_000,
      });
      const brokerPorts = new Set(mock.bootstrap.split(",").map((a) => Number(a.split(":")[1])));
      expect(brokerPorts.size).toBe(3);
      const peers = watchPeers(brokerPorts);
      const proxies: Proxy[] = [];
      try {
        for (const filters of [undefined, tenantTopics("acme.")]) {
          const proxy = await startProxy({
            upstream: `${mock.host}:${mock.port}`,
            protocol,
            ...(filters ? { filters } : {}),
          });
          proxies.push(proxy);
          // kcat on librdkafka 2.0.2 (Debian's) and on 2.15.1, each producing and consuming.
          await produceAndConsume(proxy, ["a", "b"], {});
          await produceAndConsume(proxy, ["c", "d"], env);
          // One listener per broker the mock named (the bootstrap broker's is the first).
          const upstreams = proxy.listeners().map((l) => l.upstream.port);
          expect(new Set(upstreams)).toEqual(brokerPorts);
          expect(upstreams).toHaveLength(3);
        }
        // kcat was seen connected (to proxy listeners only, checked per run above).
        expect(clientPortsSeen.size).toBeGreaterThan(0);
        const seen = peers.stop();
        const fromProxy = new Set(proxies.flatMap((p) => p.upstreamSockets().map((a) => a.port)));
        expect(fromProxy.size).toBeGreaterThan(0);
        // Every connection the brokers had during the proxied runs came from the proxy.
        expect([...seen].filter((p) => !fromProxy.has(p))).toEqual([]);
        // Through the tenant proxy the records went to acme.events: read straight from the mock.
        const direct = await runKcat(
          kcat,
          ["-b", mock.bootstrap, "-C", "-t", "acme.events", "-p", "0", "-o", "beginning", "-e", "-f", "%s\\n"],
          {
            timeoutMs: 20_000,
            env,
          },
        );
        expect(direct.stdout.trim().split("\n")).toEqual(["a", "b", "c", "d"]);
      } finally {
        peers.stop();
        for (const p of proxies) await p.close();
        await mock.stop();
      }
    });
  });
});

/** Runs kcat to its end (stdin: `input`, or closed), sampling the remote ports of its TCP connections. */
function watchedKcat(
  kcat: string,
  args: readonly string[],
  env: Record<string, string>,
  input?: string,
): Promise<{ code: number | null; stdout: string; stderr: string; remotePorts: Set<number> }> {
  return new Promise((resolve, reject) => {
    const child = spawn(kcat, args, { stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, ...env } });
    let stdout = "";
    let stderr = "";
    const remotePorts = new Set<number>();
    const sample = () => {
      if (child.pid !== undefined) for (const p of remotePortsOf(child.pid)) remotePorts.add(p);
    };
    const sampler = setInterval(sample, 1);
    const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
    child.stdout.setEncoding("utf8").on("data", (s: string) => (stdout += s));
    child.stderr.setEncoding("utf8").on("data", (s: string) => (stderr += s));
    child.once("error", reject);
    child.once("close", (code) => {
      clearInterval(sampler);
      clearTimeout(timer);
      resolve({ code, stdout, stderr, remotePorts });
    });
    child.stdin.on("error", () => {});
    child.stdin.end(input ?? "");
  });
}
