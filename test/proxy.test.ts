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
import { startBroker, type Broker } from "../examples/broker/broker.js";
import { tenantTopics } from "../examples/proxy/tenant.js";
import { editFetchRecords, editProduceRecords, Filters, startProxy, type LogEntry, type MessageLogEntry, type Proxy, type TappedFrame } from "../proxy/src/index.js";
import { FrameSplitter, type Protocol } from "../src/runtime/index.js";
import { corpusIndex } from "./support/corpus.js";
import { findKcat, hex, KafkaTestClient, runKcat, startKcatMock } from "./support/kcat.js";
import { findLibrdkafka, librdkafkaMissing, peerMissing, startMockCluster } from "./support/librdkafka.js";
import { describeShared } from "./support/shared.js";
import { peersOf, watchPeers } from "./support/tcp-peers.js";

const CLIENT_TIMEOUT_MS = 30_000;
const METADATA = 3;
const FIND_COORDINATOR = 10;

/** Text of a Buffer or null. */
const text = (b: Buffer | null | undefined): string | null => (b === null || b === undefined ? null : b.toString("utf8"));

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
      messages: Array.from({ length: count }, (_, i) => ({ key: `k${i}`, value: `value ${i}`, headers: { n: String(i) } })),
    });
  } finally {
    await producer.disconnect();
  }
  const consumer = kafka.consumer({ groupId: group, maxWaitTimeInMs: 100, sessionTimeout: 10_000, heartbeatInterval: 500 });
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`kafkajs consumed ${run.consumed.length} of ${count}`)), CLIENT_TIMEOUT_MS);
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
  let protocol: Protocol;
  beforeAll(async () => {
    ({ protocol } = await corpusIndex());
  });

  describe("kafkajs and the example broker", () => {
    let broker: Broker;
    beforeAll(async () => {
      broker = await startBroker({
        protocol,
        topics: [
          { name: "plain", partitions: 3 },
          { name: "acme.orders", partitions: 2 },
          { name: "other.orders", partitions: 1 },
          { name: "edited", partitions: 1 },
        ],
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
        sorted(Array.from({ length: 12 }, (_, i) => ({ key: `k${i}`, value: `value ${i}`, headers: { n: String(i) } }))),
      );
      // kafkajs connected only to the proxy (the broker names itself in Metadata and FindCoordinator).
      expect(new Set(run.connectedTo)).toEqual(new Set([proxy.bootstrap]));
      expect(proxy.listeners()).toEqual([{ host: "127.0.0.1", port: proxy.port, upstream: { host: broker.host, port: broker.port } }]);

      // Per connection, the frames kafkajs received are the upstream's, byte for byte, except the
      // address-naming ones, whose only difference is the broker's host and port.
      const opened = new Map<number, number>(); // client port -> proxy connection
      for (const e of log) {
        if (e.direction === "connection" && e.event === "open") opened.set(Number(/:(\d+) ->/.exec(e.detail)![1]), e.connection);
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
            JSON.parse(JSON.stringify(b, (k, v) => (k === "host" || k === "port" ? "<address>" : typeof v === "bigint" ? String(v) : v)));
          expect(addressless(mine)).toEqual(addressless(theirs));
          expect(JSON.stringify(mine, (_, v) => (typeof v === "bigint" ? String(v) : v))).toContain(`"port":${proxy.port}`);
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
      const counted = produceBody.topicData[0].partitionData.flatMap((p: { records: { batches: { recordCount: number }[] } }) =>
        p.records.batches.map((b) => b.recordCount),
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
      expect(sorted(run.consumed.map((m) => m.value))).toEqual(sorted(Array.from({ length: 5 }, (_, i) => `value ${i}`)));
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
          ctx.forward(await editProduceRecords(req.body, (r) => ({ ...r, headers: [...r.headers, { key: "via", value: "proxy" }] }))),
        )
        .onResponse(1, async (res, ctx) =>
          ctx.forward(await editFetchRecords(res.body, (r) => (r.key !== null && text(Buffer.from(r.key))!.endsWith("3") ? null : undefined))),
        );
      const proxy = await startProxy({ upstream: broker.bootstrap, protocol, filters });
      const kafka = new Kafka({ clientId: "edit", brokers: [proxy.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 2 } });
      const producer = kafka.producer({ allowAutoTopicCreation: false });
      const consumer = kafka.consumer({ groupId: "edit-group", maxWaitTimeInMs: 100 });
      const consumed: { key: string | null; headers: Record<string, string> }[] = [];
      try {
        await producer.connect();
        await producer.send({ topic: "edited", messages: Array.from({ length: 6 }, (_, i) => ({ key: `k${i}`, value: "v" })) });
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
      const filters = new Filters()
        .onRequest(METADATA, (req, ctx) =>
          req.body.topics?.[0]?.name === "close-me"
            ? ctx.close("asked to")
            : ctx.respond({ throttleTimeMs: 0, brokers: [], clusterId: "answered by the proxy", controllerId: -1, topics: [] }),
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
        const versions = await good.call<{ errorCode: number }>(18, 3, { clientSoftwareName: "t", clientSoftwareVersion: "1" });
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

    it("kcat (librdkafka 2.0.2) through the tenant proxy to kcat's mock cluster: produces to 'events', the mock holds 'acme.events'", async () => {
      const mock = await startKcatMock({ kcat, topic: "acme.events", timeoutMs: 15_000 });
      const proxy = await startProxy({ upstream: `${mock.host}:${mock.port}`, protocol, filters: tenantTopics("acme.") });
      // The mock's own consumer (startKcatMock's kcat) is connected already; every later connection must be the proxy's.
      const before = peersOf(new Set([mock.port]));
      const peers = watchPeers(new Set([mock.port]));
      let seen = new Set<number>();
      try {
        const lines = ["one", "two", "three"];
        const produce = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
          const child = spawn(kcat, ["-b", proxy.bootstrap, "-P", "-t", "events", "-p", "0"]);
          let stderr = "";
          child.stderr!.on("data", (s: Buffer) => (stderr += s.toString()));
          child.on("close", (code) => resolve({ code, stderr }));
          child.stdin!.end(lines.join("\n") + "\n");
        });
        expect(produce.code, produce.stderr).toBe(0);
        const consumed = await runKcat(kcat, ["-b", proxy.bootstrap, "-C", "-t", "events", "-p", "0", "-o", "beginning", "-e", "-f", "%t %s\\n"], {
          timeoutMs: 20_000,
        });
        expect(consumed.code, consumed.stderr).toBe(0);
        expect(consumed.stdout.trim().split("\n")).toEqual(lines.map((l) => `events ${l}`));
        seen = peers.stop();
        const fromProxy = new Set(proxy.upstreamSockets().map((a) => a.port));
        expect(fromProxy.size).toBeGreaterThan(0);
        expect([...seen].filter((p) => !before.has(p) && !fromProxy.has(p))).toEqual([]);
        // And on the mock, under the tenant's prefix.
        const direct = await runKcat(kcat, ["-b", `${mock.host}:${mock.port}`, "-C", "-t", "acme.events", "-p", "0", "-o", "beginning", "-e", "-f", "%s\\n"], {
          timeoutMs: 20_000,
        });
        expect(direct.stdout.trim().split("\n")).toEqual(lines);
      } finally {
        peers.stop();
        await proxy.close();
        await mock.stop();
      }
    });
  });
});
