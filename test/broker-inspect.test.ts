/**
 * Inspection (broker/src/inspect.ts) and the request log (request-log.ts), in code and over
 * HTTP (GET endpoints of http-control.ts): what kafkajs and raw requests put into the cluster is
 * what the inspector reports, page by page, with bytes as UTF-8 or base64.
 */

import { Kafka, logLevel } from "kafkajs";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import {
  coordinatorFor,
  startCluster,
  startControlServer,
  type ControlServer,
  type RunningCluster,
} from "../broker/src/index.js";
import { StreamsGroupMember } from "../broker/src/streams/member.js";
import { StreamsGroups } from "../broker/src/streams/plugin.js";
import { CONFIG, TOPOLOGY } from "../examples/streams-group.js";
import type { InternalTopics, Protocol } from "../src/runtime/index.js";
import { corpusIndex } from "./support/corpus.js";
import { KafkaTestClient } from "./support/kcat.js";
import { describeShared } from "./support/shared.js";

describeShared("kafka-wire-broker: inspection and the request log", "kafka-schemas", () => {
  let protocol: Protocol;
  let cluster: RunningCluster;
  let control: ControlServer;
  let kafka: Kafka;

  beforeAll(async () => {
    ({ protocol } = await corpusIndex());
    cluster = await startCluster({
      protocol,
      brokers: 2,
      topics: { t: 2, other: 1 },
      initialRebalanceDelayMs: 0,
      requestLog: { size: 5 },
    });
    control = await startControlServer(cluster);
    kafka = new Kafka({ brokers: cluster.bootstrap.split(","), logLevel: logLevel.NOTHING, clientId: "inspect-test" });
  });
  afterEach(() => cluster.reset());
  afterAll(async () => {
    await control?.close();
    await cluster?.close();
  });

  const getText = async (path: string) => {
    const res = await fetch(`${control.url}${path}`);
    return { status: res.status, text: await res.text() };
  };
  const getJson = async (path: string) => {
    const { status, text } = await getText(path);
    return { status, body: JSON.parse(text) as Record<string, unknown> };
  };

  it("topics: partitions with leader, replicas, offsets; the same over GET /topics", async () => {
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({
      topic: "t",
      messages: [
        { partition: 1, value: "x" },
        { partition: 1, value: "y" },
      ],
    });
    await producer.disconnect();
    const t = cluster.inspect.topic("t")!;
    expect(t.internal).toBe(false);
    expect(t.partitions.map((p) => [p.partition, p.logStartOffset, p.highWatermark])).toEqual([
      [0, 0n, 0n],
      [1, 0n, 2n], // two records sent to partition 1
    ]);
    const p0 = cluster.cluster.partition("t", 0)!;
    expect(t.partitions[0]).toMatchObject({ leader: p0.leader, replicas: p0.replicas, isr: p0.isr, batches: 0 });
    const { status, body } = await getJson("/topics");
    expect(status).toBe(200);
    const topics = body["topics"] as { name: string; partitions: { highWatermark: number }[] }[];
    expect(topics.map((x) => x.name)).toEqual(["other", "t"]);
    expect(topics[1]!.partitions.map((p) => p.highWatermark)).toEqual([0, 2]);
    expect((await getJson("/topics/t")).body).toMatchObject({ name: "t", topicId: t.topicId });
    expect(await getJson("/topics/nope")).toEqual({ status: 404, body: { error: "no topic nope" } });
  });

  it("records: decoded keys, values and headers (UTF-8 or base64), paged by limit and maxBytes", async () => {
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    const binary = Buffer.from([0xff, 0xfe, 0x00]); // 0xff never occurs in UTF-8
    await producer.send({
      topic: "other",
      messages: [
        { key: "k1", value: "héllo", headers: { h: "v", b: binary }, timestamp: "1700000000000" },
        { key: binary, value: null, timestamp: "1700000000001" },
      ],
    });
    await producer.send({ topic: "other", messages: [{ value: "x".repeat(100), timestamp: "1700000000002" }] });
    await producer.disconnect();
    const page = await cluster.inspect.records("other", 0);
    expect(page).toMatchObject({ topic: "other", partition: 0, logStartOffset: 0n, highWatermark: 3n, nextOffset: 3n });
    const [a, b, c] = page.records;
    expect(a).toMatchObject({
      offset: 0n,
      timestamp: 1700000000000n,
      timestampType: "CreateTime",
      key: { encoding: "utf8", data: "k1" },
      value: { encoding: "utf8", data: "héllo" },
      headers: [
        { key: "h", value: { encoding: "utf8", data: "v" } },
        { key: "b", value: { encoding: "base64", data: "//4A" } }, // ff fe 00 in base64
      ],
      sequence: 0,
      transactional: false,
      control: null,
    });
    expect(a!.producerId).toBeGreaterThanOrEqual(0n);
    expect(b).toMatchObject({ offset: 1n, key: { encoding: "base64", data: "//4A" }, value: null, sequence: 1 });
    expect(c).toMatchObject({ offset: 2n, value: { encoding: "utf8", data: "x".repeat(100) } });
    // Paging: two records, then the rest from nextOffset; a page inside a batch starts mid-batch.
    const first = await cluster.inspect.records("other", 0, { limit: 2 });
    expect(first.records.map((r) => r.offset)).toEqual([0n, 1n]);
    expect(first.nextOffset).toBe(2n);
    const mid = await cluster.inspect.records("other", 0, { offset: 1, limit: 1 });
    expect(mid.records.map((r) => r.offset)).toEqual([1n]);
    // maxBytes 10: record 0 alone (k1 + héllo + headers are 2 + 6 + 1 + 1 + 1 + 3 = 14 bytes, at least one record).
    const small = await cluster.inspect.records("other", 0, { maxBytes: 10 });
    expect(small.records.map((r) => r.offset)).toEqual([0n]);
    expect(small.nextOffset).toBe(1n);
    await expect(cluster.inspect.records("other", 0, { limit: 1001 })).rejects.toThrow(
      "limit must be an integer 1..1000",
    );
    await expect(cluster.inspect.records("other", 5)).rejects.toThrow("no partition other-5");

    const http = await getJson("/topics/other/partitions/0/records?offset=1&limit=1");
    expect(http.status).toBe(200);
    expect(http.body).toMatchObject({ highWatermark: 3, nextOffset: 2, records: [{ offset: 1, value: null }] });
    expect((await getJson("/topics/other/partitions/0/records?limit=0")).status).toBe(400);
    expect((await getJson("/topics/other/partitions/0/records?offset=x")).status).toBe(400);
    expect((await getJson("/topics/other/partitions/9/records")).status).toBe(404);
  });

  it("groups: a kafkajs (classic) group's members, decoded assignment and committed offsets with lag", async () => {
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({
      topic: "t",
      messages: [
        { partition: 0, value: "a" },
        { partition: 0, value: "b" },
      ],
    });
    await producer.disconnect();
    const consumer = kafka.consumer({ groupId: "g", sessionTimeout: 10_000, heartbeatInterval: 500 });
    await consumer.connect();
    await consumer.subscribe({ topic: "t", fromBeginning: true });
    let seen = 0;
    const done = new Promise<void>((resolve) => {
      void consumer.run({
        autoCommit: false,
        eachMessage: async () => {
          if (++seen === 2) resolve();
        },
      });
    });
    await done;
    await consumer.commitOffsets([{ topic: "t", partition: 0, offset: "1" }]);
    try {
      const g = cluster.inspect.group("g")!;
      expect(g).toMatchObject({ groupId: "g", type: "classic", state: "Stable", protocolType: "consumer" });
      expect(g.epoch).toBeGreaterThan(0);
      expect(g.members).toHaveLength(1);
      expect(g.members[0]!.clientId).toBe("inspect-test");
      expect(g.leader).toBe(g.members[0]!.memberId);
      // The only member holds both partitions of t (kafkajs's assignors hand it every partition).
      expect(g.members[0]!.assignment).toEqual([{ topic: "t", partitions: [0, 1] }]);
      // Committed 1 of 2 records: lag 1.
      expect(g.offsets).toEqual([{ topic: "t", partition: 0, offset: 1n, leaderEpoch: -1, metadata: null, lag: 1n }]);
      const http = await getJson("/groups/g");
      expect(http.body).toMatchObject({ state: "Stable", offsets: [{ topic: "t", offset: 1, lag: 1 }] });
      expect(((await getJson("/groups")).body["groups"] as { groupId: string }[]).map((x) => x.groupId)).toEqual(["g"]);
      expect((await getJson("/groups/none")).status).toBe(404);
    } finally {
      await consumer.disconnect();
    }
  });

  it("groups: a KIP-848 consumer group's members with assignment and target", async () => {
    const found = coordinatorFor(cluster.cluster, "c848", 0);
    if (typeof found === "number") throw new Error(`no coordinator: ${found}`);
    const client = await KafkaTestClient.connect(found.host, found.port, protocol, { timeoutMs: 5000 });
    try {
      const hb = await client.call<{ errorCode: number; memberEpoch: number }>(68, 0, {
        groupId: "c848",
        memberId: "m1",
        memberEpoch: 0,
        rebalanceTimeoutMs: 5000,
        subscribedTopicNames: ["t"],
        topicPartitions: [],
      });
      expect(hb.body.errorCode).toBe(0);
      const g = cluster.inspect.group("c848")!;
      expect(g).toMatchObject({ type: "consumer", protocolType: "consumer", epoch: hb.body.memberEpoch });
      expect(g.members).toEqual([
        expect.objectContaining({
          memberId: "m1",
          memberEpoch: hb.body.memberEpoch,
          subscribedTopicNames: ["t"],
          assignment: [{ topic: "t", partitions: [0, 1] }], // the only member: both partitions
          targetAssignment: [{ topic: "t", partitions: [0, 1] }],
        }),
      ]);
    } finally {
      client.close();
    }
  });

  it("producers and transactions: producer id, epoch, last sequence per partition; the transaction's state and partitions", async () => {
    // Past 2^53: GET /producers must write it exactly.
    cluster.cluster.nextProducerId = 2n ** 60n + 1n;
    const producer = kafka.producer({ transactionalId: "tx-1", idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    const txn = await producer.transaction();
    await txn.send({
      topic: "t",
      messages: [
        { partition: 0, value: "a" },
        { partition: 0, value: "b" },
      ],
    });
    await txn.send({ topic: "t", messages: [{ partition: 1, value: "c" }] });
    const [open] = cluster.inspect.transactions();
    // kafkajs may ask InitProducerId more than once: the id is one handed out past 2^60.
    const id = open!.producerId;
    expect(id).toBeGreaterThan(2n ** 60n);
    expect(open).toMatchObject({ transactionalId: "tx-1", producerEpoch: 0, state: "Ongoing" });
    expect(open!.partitions).toEqual(
      expect.arrayContaining([
        { topic: "t", partition: 0 },
        { topic: "t", partition: 1 },
      ]),
    );
    await txn.commit();
    await producer.disconnect();
    expect(cluster.inspect.transactions()[0]).toMatchObject({ state: "CompleteCommit", partitions: [] });
    const [p] = cluster.inspect.producers();
    expect(p).toMatchObject({ producerId: id, transactionalId: "tx-1" });
    // Sequences 0, 1 on partition 0 (one batch of two) and 0 on partition 1.
    const byPartition = Object.fromEntries(p!.partitions.map((x) => [x.partition, x]));
    expect(byPartition[0]).toMatchObject({ topic: "t", lastSequence: 1, lastOffset: 1n, transactionFirstOffset: null });
    expect(byPartition[1]).toMatchObject({ topic: "t", lastSequence: 0, transactionFirstOffset: null });
    // The COMMIT markers are records too: partition 0 holds a, b, then the marker.
    const records = (await cluster.inspect.records("t", 0)).records;
    expect(records.map((r) => [r.offset, r.control, r.transactional])).toEqual([
      [0n, null, true],
      [1n, null, true],
      [2n, "COMMIT", true],
    ]);
    expect((await getText("/producers")).text).toContain(`"producerId":${id}`);
    expect((await getText("/transactions")).text).toContain(`"transactionalId":"tx-1","producerId":${id}`);
  });

  it("the request log: the newest `size` exchanges as Kafka's JSON; reset clears it; GET /log pages it", async () => {
    cluster.cluster.requestLog.enable({ size: 5 });
    const client = await KafkaTestClient.connect(cluster.nodes[0]!.host, cluster.nodes[0]!.port, protocol, {
      timeoutMs: 5000,
    });
    try {
      for (let i = 0; i < 7; i++) await client.call(3, 12, { topics: [{ name: "t" }] });
    } finally {
      client.close();
    }
    const entries = cluster.requestLog();
    expect(entries).toHaveLength(5); // the ring keeps the newest 5 of 7
    const last = entries.at(-1)!;
    expect(last).toMatchObject({
      apiKey: 3,
      apiName: "Metadata",
      apiVersion: 12,
      node: 1,
      error: null,
      truncated: false,
    });
    expect(entries.map((e) => e.seq)).toEqual([2, 3, 4, 5, 6].map((n) => n + entries[0]!.seq - 2));
    expect(last.latencyMs).toBeGreaterThanOrEqual(0);
    expect(JSON.parse(last.request!)).toMatchObject({ topics: [{ name: "t" }] });
    const response = JSON.parse(last.response!) as { topics: { name: string; partitions: unknown[] }[] };
    expect(response.topics.map((t) => [t.name, t.partitions.length])).toEqual([["t", 2]]);

    const page = await getJson(`/log?since=${last.seq - 1}&limit=1`);
    expect(page.body["enabled"]).toBe(true);
    const got = page.body["entries"] as { seq: number; request: { topics: { name: string }[] } }[];
    expect(got.map((e) => e.seq)).toEqual([last.seq - 1]);
    expect(got[0]!.request.topics[0]!.name).toBe("t"); // embedded as JSON, not a string
    expect((await getJson("/log?limit=1001")).status).toBe(400);

    await cluster.reset();
    expect(cluster.requestLog()).toEqual([]);
    expect(cluster.cluster.requestLog.enabled).toBe(true);
    // Off: nothing more is recorded. POST /log turns it on and off.
    expect((await fetch(`${control.url}/log`, { method: "POST", body: '{"enabled":false}' })).status).toBe(200);
    const admin = kafka.admin();
    await admin.connect();
    await admin.listTopics();
    await admin.disconnect();
    expect(cluster.requestLog()).toEqual([]);
    const on = await fetch(`${control.url}/log`, { method: "POST", body: '{"enabled":true,"size":0}' });
    expect(on.status).toBe(400);
    expect(await on.json()).toEqual({ error: "size must be an integer 1..100000, not 0" });
  });

  it("the request log leaves out a JSON longer than maxJsonChars and says so", async () => {
    cluster.cluster.requestLog.enable({ size: 5, maxJsonChars: 10 });
    try {
      const client = await KafkaTestClient.connect(cluster.nodes[0]!.host, cluster.nodes[0]!.port, protocol, {
        timeoutMs: 5000,
      });
      try {
        await client.call(3, 12, { topics: [{ name: "t" }] });
      } finally {
        client.close();
      }
      expect(cluster.requestLog().at(-1)).toMatchObject({
        apiName: "Metadata",
        request: null,
        response: null,
        truncated: true,
      });
    } finally {
      cluster.cluster.requestLog.enable({ size: 5, maxJsonChars: 1024 * 1024 });
    }
  });
});

describeShared("kafka-wire-broker: inspection of streams groups (KIP-1071)", "kafka-schemas", () => {
  it("a streams group is listed with its state and type, by cluster.inspect and ListGroups", async () => {
    const { protocol, internalTopics } = (await corpusIndex()) as unknown as {
      protocol: Protocol;
      internalTopics: InternalTopics;
    };
    const streams = new StreamsGroups({ internalTopics, config: CONFIG, tickMs: 100 });
    const cluster = await startCluster({ protocol, topics: { orders: 6 }, plugins: [streams.plugin] });
    const node = cluster.nodes[0]!;
    const member = new StreamsGroupMember({
      host: node.host,
      port: node.port,
      groupId: "shop",
      memberId: "member-a",
      processId: "process-a",
      topology: TOPOLOGY,
    });
    try {
      await member.start();
      // Its first heartbeat creates the group (at most 10 s here).
      for (let i = 0; i < 200 && streams.coordinator.group("shop") === undefined; i++) {
        await new Promise((r) => setTimeout(r, 50));
      }
      const g = cluster.inspect.group("shop")!;
      expect(g).toMatchObject({ groupId: "shop", type: "streams", protocolType: "streams", members: [] });
      expect(g.state).toBe(streams.coordinator.groupState(streams.coordinator.group("shop")!));
      const client = await KafkaTestClient.connect(node.host, node.port, cluster.cluster.protocol.untyped, {
        timeoutMs: 5000,
      });
      try {
        const listed = await client.call<{ groups: { groupId: string; groupType: string; protocolType: string }[] }>(
          16,
          5,
          { statesFilter: [], typesFilter: ["streams"] },
        );
        expect(listed.body.groups.map((x) => [x.groupId, x.groupType, x.protocolType])).toEqual([
          ["shop", "streams", "streams"],
        ]);
      } finally {
        client.close();
      }
    } finally {
      await member.close().catch(() => {});
      await cluster.close();
    }
  });
});
