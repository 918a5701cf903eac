/**
 * kafka-wire-broker as a cluster of three nodes, checked with kafkajs 2.2.4 (in this process) and
 * with raw requests where a client hides what Kafka answers:
 * - the admin client: createTopics (configs, validateOnly, explicit assignments), fetchTopicMetadata
 *   (leaders on every node, replicas and ISR), createPartitions, describeConfigs/alterConfigs,
 *   describeCluster, deleteTopicRecords, describeGroups/listGroups/deleteGroups, deleteTopics;
 * - a producer and a consumer group across partitions led by different nodes;
 * - NOT_LEADER_OR_FOLLOWER with KIP-951's leader hint, FindCoordinator by Kafka's key hash.
 */

import { Kafka, logLevel, type Admin } from "kafkajs";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startCluster, type Exchange, type RunningCluster } from "../broker/src/index.js";
import type { Protocol } from "../src/runtime/index.js";
import { corpusIndex } from "./support/corpus.js";
import { KafkaTestClient } from "./support/kcat.js";
import { describeShared } from "./support/shared.js";

const TIMEOUT_MS = 30_000;

describeShared("kafka-wire-broker: a three-node cluster", "kafka-schemas", () => {
  let protocol: Protocol;
  let cluster: RunningCluster;
  let kafka: Kafka;
  let admin: Admin;
  const exchanges: Exchange[] = [];

  beforeAll(async () => {
    ({ protocol } = await corpusIndex());
    cluster = await startCluster({
      protocol,
      brokers: 3,
      topics: { orders: 6 },
      initialRebalanceDelayMs: 100,
      onExchange: (e) => exchanges.push(e),
    });
    kafka = new Kafka({
      clientId: "cluster-test",
      brokers: cluster.bootstrap.split(","),
      logLevel: logLevel.NOTHING,
      retry: { retries: 3, initialRetryTime: 100 },
    });
    admin = kafka.admin();
    await admin.connect();
  });

  afterAll(async () => {
    await admin?.disconnect();
    await cluster?.close();
  });

  it("gives a bootstrap of three loopback listeners", () => {
    expect(cluster.bootstrap).toMatch(/^127\.0\.0\.1:\d+,127\.0\.0\.1:\d+,127\.0\.0\.1:\d+$/);
    expect(new Set(cluster.nodes.map((n) => n.port)).size).toBe(3);
  });

  it("kafkajs admin: createTopics with configs and explicit assignments, validateOnly creating nothing", async () => {
    expect(
      await admin.createTopics({
        topics: [
          {
            topic: "compacted",
            numPartitions: 3,
            replicationFactor: 2,
            configEntries: [{ name: "cleanup.policy", value: "compact" }],
          },
          {
            topic: "placed",
            replicaAssignment: [
              { partition: 0, replicas: [3, 1] },
              { partition: 1, replicas: [2, 3] },
            ],
          },
        ],
      }),
    ).toBe(true);
    await admin.createTopics({
      validateOnly: true,
      waitForLeaders: false,
      topics: [{ topic: "only-validated", numPartitions: 2 }],
    });
    const names = await admin.listTopics();
    expect(names).toEqual(expect.arrayContaining(["orders", "compacted", "placed"]));
    expect(names).not.toContain("only-validated");
    // Creating it again is Kafka's TOPIC_ALREADY_EXISTS, which kafkajs reports as false.
    expect(await admin.createTopics({ topics: [{ topic: "compacted" }] })).toBe(false);
    const { topics } = await admin.fetchTopicMetadata({ topics: ["placed", "compacted"] });
    const placed = topics.find((t) => t.name === "placed")!;
    expect(placed.partitions.map((p) => [p.partitionId, p.leader, p.replicas, p.isr])).toEqual([
      [0, 3, [3, 1], [3, 1]],
      [1, 2, [2, 3], [2, 3]],
    ]);
    const compacted = topics.find((t) => t.name === "compacted")!;
    expect(compacted.partitions.every((p) => p.replicas.length === 2 && p.isr.length === 2)).toBe(true);
  });

  it("kafkajs admin: a bad config is Kafka's INVALID_CONFIG", async () => {
    await expect(
      admin.createTopics({ topics: [{ topic: "bad", configEntries: [{ name: "cleanup.policy", value: "shred" }] }] }),
    ).rejects.toMatchObject({ errors: [expect.objectContaining({ type: "INVALID_CONFIG" })] });
    await expect(
      admin.createTopics({ topics: [{ topic: "bad", configEntries: [{ name: "no.such.config", value: "1" }] }] }),
    ).rejects.toMatchObject({ errors: [expect.objectContaining({ type: "INVALID_CONFIG" })] });
  });

  it("spreads the leaders of a topic over every node", async () => {
    const { topics } = await admin.fetchTopicMetadata({ topics: ["orders"] });
    const leaders = topics[0]!.partitions.map((p) => p.leader);
    expect(leaders).toHaveLength(6);
    expect(new Set(leaders)).toEqual(new Set([1, 2, 3]));
    for (const p of topics[0]!.partitions) {
      // Default replication factor min(3, brokers): every node holds a replica, the leader first.
      expect(p.replicas[0]).toBe(p.leader);
      expect([...p.replicas].sort()).toEqual([1, 2, 3]);
    }
  });

  it("kafkajs produces to and consumes from partitions led by different nodes", async () => {
    const before = exchanges.length;
    const producer = kafka.producer({ allowAutoTopicCreation: false });
    await producer.connect();
    const sent = Array.from({ length: 60 }, (_, i) => ({ key: `k${i}`, value: `v${i}`, partition: i % 6 }));
    await producer.send({ topic: "orders", acks: -1, messages: sent });
    await producer.disconnect();
    const consumer = kafka.consumer({ groupId: "orders-readers", maxWaitTimeInMs: 100 });
    await consumer.connect();
    const got: { key: string; value: string; partition: number }[] = [];
    try {
      await consumer.subscribe({ topics: ["orders"], fromBeginning: true });
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`consumed ${got.length} of ${sent.length}`)), TIMEOUT_MS);
        consumer
          .run({
            eachMessage: async ({ partition, message }) => {
              got.push({ key: message.key!.toString(), value: message.value!.toString(), partition });
              if (got.length === sent.length) {
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
    const sort = (xs: typeof got) => xs.map((x) => `${x.partition}/${x.key}/${x.value}`).sort();
    expect(sort(got)).toEqual(sort(sent));
    // Produce and Fetch went to each partition's leader: every node served some.
    const produceNodes = new Set(
      exchanges
        .slice(before)
        .filter((e) => e.apiKey === 0)
        .map((e) => e.nodeId),
    );
    const fetchNodes = new Set(
      exchanges
        .slice(before)
        .filter((e) => e.apiKey === 1)
        .map((e) => e.nodeId),
    );
    expect(produceNodes).toEqual(new Set([1, 2, 3]));
    expect(fetchNodes).toEqual(new Set([1, 2, 3]));
    // No request for a partition was answered by a non-leader (kafkajs routes by Metadata).
    const groups = await admin.describeGroups(["orders-readers"]);
    expect(groups.groups[0]).toMatchObject({ groupId: "orders-readers", errorCode: 0, protocolType: "consumer" });
    const offsets = await admin.fetchOffsets({ groupId: "orders-readers", topics: ["orders"] });
    expect(offsets[0]!.partitions.map((p) => [p.partition, p.offset]).sort()).toEqual(
      [0, 1, 2, 3, 4, 5].map((p) => [p, "10"]),
    );
  });

  it("kafkajs admin: listGroups, describeGroups of an empty group, deleteGroups", async () => {
    const { groups } = await admin.listGroups();
    expect(groups).toContainEqual({ groupId: "orders-readers", protocolType: "consumer" });
    const described = await admin.describeGroups(["orders-readers"]);
    expect(described.groups[0]!.state).toBe("Empty");
    expect(await admin.deleteGroups(["orders-readers"])).toEqual([{ groupId: "orders-readers", errorCode: 0 }]);
    expect((await admin.listGroups()).groups.map((g) => g.groupId)).not.toContain("orders-readers");
  });

  it("kafkajs admin: describeConfigs and alterConfigs of a topic and a broker, with Kafka's defaults", async () => {
    const { resources } = await admin.describeConfigs({
      includeSynonyms: false,
      resources: [{ type: 2, name: "compacted", configNames: ["cleanup.policy", "retention.ms", "max.message.bytes"] }],
    });
    const entries = Object.fromEntries(resources[0]!.configEntries.map((c) => [c.configName, c.configValue]));
    // cleanup.policy as created; the others Kafka 4's defaults (7 days; 1 MiB + the 12-byte log overhead).
    expect(entries).toEqual({
      "cleanup.policy": "compact",
      "retention.ms": "604800000",
      "max.message.bytes": "1048588",
    });
    await admin.alterConfigs({
      validateOnly: false,
      resources: [{ type: 2, name: "compacted", configEntries: [{ name: "retention.ms", value: "1000" }] }],
    });
    const after = await admin.describeConfigs({
      includeSynonyms: false,
      resources: [{ type: 2, name: "compacted", configNames: ["retention.ms", "cleanup.policy"] }],
    });
    // AlterConfigs replaces the whole set: cleanup.policy is back to its default.
    expect(Object.fromEntries(after.resources[0]!.configEntries.map((c) => [c.configName, c.configValue]))).toEqual({
      "retention.ms": "1000",
      "cleanup.policy": "delete",
    });
    const broker = await admin.describeConfigs({
      includeSynonyms: false,
      resources: [{ type: 4, name: "2", configNames: ["node.id", "num.partitions"] }],
    });
    expect(Object.fromEntries(broker.resources[0]!.configEntries.map((c) => [c.configName, c.configValue]))).toEqual({
      "node.id": "2",
      "num.partitions": "1",
    });
  });

  it("kafkajs admin: createPartitions adds partitions with leaders, then deleteTopicRecords moves the low watermark", async () => {
    await admin.createPartitions({ topicPartitions: [{ topic: "placed", count: 4 }] });
    const { topics } = await admin.fetchTopicMetadata({ topics: ["placed"] });
    expect(topics[0]!.partitions).toHaveLength(4);
    await expect(admin.createPartitions({ topicPartitions: [{ topic: "placed", count: 2 }] })).rejects.toMatchObject({
      type: "INVALID_PARTITIONS",
    });
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({
      topic: "placed",
      messages: Array.from({ length: 5 }, (_, i) => ({ value: `r${i}`, partition: 0 })),
    });
    await producer.send({ topic: "placed", messages: [{ value: "last", partition: 0 }] });
    await producer.disconnect();
    // kafkajs looks the leader up in its metadata cache before refreshing it: fill it first.
    expect((await admin.fetchTopicOffsets("placed")).find((o) => o.partition === 0)).toMatchObject({
      low: "0",
      high: "6",
    });
    await admin.deleteTopicRecords({ topic: "placed", partitions: [{ partition: 0, offset: "5" }] });
    const offsets = await admin.fetchTopicOffsets("placed");
    expect(offsets.find((o) => o.partition === 0)).toMatchObject({ low: "5", high: "6" });
  });

  it("kafkajs admin: describeCluster lists the three nodes; deleteTopics removes a topic", async () => {
    const described = await admin.describeCluster();
    expect(described.brokers.map((b) => b.nodeId).sort()).toEqual([1, 2, 3]);
    expect(described.controller).toBe(1);
    await admin.deleteTopics({ topics: ["placed"] });
    expect(await admin.listTopics()).not.toContain("placed");
  });

  it("answers a partition request off the leader with NOT_LEADER_OR_FOLLOWER and KIP-951's leader hint", async () => {
    const partition = cluster.cluster.partition("orders", 0)!;
    const other = cluster.nodes.find((n) => n.nodeId !== partition.leader)!;
    const leader = cluster.nodes.find((n) => n.nodeId === partition.leader)!;
    const client = await KafkaTestClient.connect(other.host, other.port, protocol, { timeoutMs: 5000 });
    try {
      // Produce v10+ carries KIP-951's currentLeader and nodeEndpoints.
      const reply = await client.call<{
        responses: {
          partitionResponses: { errorCode: number; currentLeader: { leaderId: number; leaderEpoch: number } }[];
        }[];
        nodeEndpoints: { nodeId: number; port: number }[];
      }>(0, 10, {
        acks: -1,
        timeoutMs: 1000,
        topicData: [{ name: "orders", partitionData: [{ index: 0, records: new Uint8Array(0) }] }],
      });
      const p = reply.body.responses[0]!.partitionResponses[0]!;
      expect(p.errorCode).toBe(6); // NOT_LEADER_OR_FOLLOWER
      expect(p.currentLeader).toEqual({ leaderId: leader.nodeId, leaderEpoch: 0 });
      expect(reply.body.nodeEndpoints).toContainEqual(
        expect.objectContaining({ nodeId: leader.nodeId, port: leader.port }),
      );
    } finally {
      client.close();
    }
  });

  it("finds coordinators as Kafka hashes keys: abs(hashCode) % 50 of __consumer_offsets, then its leader", async () => {
    const node = cluster.nodes[0]!;
    const client = await KafkaTestClient.connect(node.host, node.port, protocol, { timeoutMs: 5000 });
    try {
      // "a".hashCode() = 97, 97 % 50 = 47. "polygenelubricants".hashCode() = Integer.MIN_VALUE,
      // which Kafka's Utils.abs maps to 0 (Math.abs would leave it negative): partition 0.
      const reply = await client.call<{ coordinators: { key: string; nodeId: number; errorCode: number }[] }>(10, 4, {
        keyType: 0,
        coordinatorKeys: ["a", "polygenelubricants"],
      });
      const offsets = cluster.cluster.topics.get("__consumer_offsets")!;
      expect(offsets.partitions).toHaveLength(50);
      expect(offsets.internal).toBe(true);
      expect(reply.body.coordinators).toEqual([
        expect.objectContaining({ key: "a", nodeId: offsets.partitions[47]!.leader, errorCode: 0 }),
        expect.objectContaining({ key: "polygenelubricants", nodeId: offsets.partitions[0]!.leader, errorCode: 0 }),
      ]);
      // A group request at a node that does not coordinate the group: NOT_COORDINATOR (16).
      const wrong = cluster.nodes.find((n) => n.nodeId !== offsets.partitions[47]!.leader)!;
      const other = await KafkaTestClient.connect(wrong.host, wrong.port, protocol, { timeoutMs: 5000 });
      try {
        const hb = await other.call<{ errorCode: number }>(12, 4, { groupId: "a", generationId: 1, memberId: "m" });
        expect(hb.body.errorCode).toBe(16);
      } finally {
        other.close();
      }
    } finally {
      client.close();
    }
  });
});
