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
import { coordinatorFor, startCluster, type Exchange, type RunningCluster } from "../broker/src/index.js";
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

  it("compacts a cleanup.policy=compact topic: the latest record of each key stays, at its offset", async () => {
    await admin.createTopics({
      topics: [{ topic: "latest", numPartitions: 1, configEntries: [{ name: "cleanup.policy", value: "compact" }] }],
    });
    const producer = kafka.producer();
    await producer.connect();
    // Four batches (one send each): k1, k2 and k1 again, then the active batch (never cleaned).
    for (const [key, value] of [
      ["k1", "one"],
      ["k2", "two"],
      ["k1", "three"],
      ["k3", "active"],
    ] as const) {
      await producer.send({ topic: "latest", messages: [{ key, value }] });
    }
    await expect(producer.send({ topic: "latest", messages: [{ key: null, value: "no key" }] })).rejects.toThrow();
    await producer.disconnect();
    await cluster.cluster.compact();
    const consumer = kafka.consumer({ groupId: "latest-readers", maxWaitTimeInMs: 100 });
    const got: string[] = [];
    await consumer.connect();
    try {
      await consumer.subscribe({ topics: ["latest"], fromBeginning: true });
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`consumed ${got}`)), TIMEOUT_MS);
        consumer
          .run({
            eachMessage: async ({ message }) => {
              got.push(`${message.offset}:${message.key}=${message.value}`);
              if (got.length === 3) {
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
    // k1=one (offset 0) is gone; the others keep their offsets.
    expect(got).toEqual(["1:k2=two", "2:k1=three", "3:k3=active"]);
  });

  it("classic groups: a static member (KIP-345) restarts without a rebalance and fences its old member id", async () => {
    const found = coordinatorFor(cluster.cluster, "static-group", 0);
    if (typeof found === "number") throw new Error(`no coordinator: ${found}`);
    const client = await KafkaTestClient.connect(found.host, found.port, protocol, { timeoutMs: 5000 });
    try {
      const join = (memberId: string) =>
        client.call<{
          errorCode: number;
          generationId: number;
          memberId: string;
          leader: string;
          skipAssignment: boolean;
        }>(11, 9, {
          groupId: "static-group",
          sessionTimeoutMs: 10_000,
          rebalanceTimeoutMs: 5000,
          memberId,
          groupInstanceId: "instance-1",
          protocolType: "consumer",
          protocols: [{ name: "range", metadata: new Uint8Array([0, 0, 0, 0, 0, 0]) }],
          reason: null,
        });
      // No MEMBER_ID_REQUIRED round trip for a static member: it joins at once (after the initial delay).
      const first = await join("");
      expect(first.body).toMatchObject({ errorCode: 0, generationId: 1, skipAssignment: false });
      expect(first.body.memberId).toMatch(/^instance-1-/);
      expect(first.body.leader).toBe(first.body.memberId);
      const assignment = new Uint8Array([0, 3, 1, 2, 3]);
      const sync = await client.call<{ errorCode: number; assignment: Uint8Array }>(14, 5, {
        groupId: "static-group",
        generationId: 1,
        memberId: first.body.memberId,
        groupInstanceId: "instance-1",
        protocolType: "consumer",
        protocolName: "range",
        assignments: [{ memberId: first.body.memberId, assignment }],
      });
      expect(sync.body.errorCode).toBe(0);
      // The restart: a new member id in the same generation, no rebalance; the leader may skip assigning.
      const again = await join("");
      expect(again.body).toMatchObject({ errorCode: 0, generationId: 1, skipAssignment: true });
      expect(again.body.memberId).not.toBe(first.body.memberId);
      const heartbeat = (memberId: string) =>
        client.call<{ errorCode: number }>(12, 4, {
          groupId: "static-group",
          generationId: 1,
          memberId,
          groupInstanceId: "instance-1",
        });
      expect((await heartbeat(first.body.memberId)).body.errorCode).toBe(82); // FENCED_INSTANCE_ID
      expect((await heartbeat(again.body.memberId)).body.errorCode).toBe(0);
      const resync = await client.call<{ errorCode: number; assignment: Uint8Array }>(14, 5, {
        groupId: "static-group",
        generationId: 1,
        memberId: again.body.memberId,
        groupInstanceId: "instance-1",
        protocolType: "consumer",
        protocolName: "range",
        assignments: [],
      });
      expect(resync.body).toEqual(expect.objectContaining({ errorCode: 0, assignment }));
      // LeaveGroup v3+ by instance id alone.
      const leave = await client.call<{ errorCode: number; members: { errorCode: number }[] }>(13, 5, {
        groupId: "static-group",
        members: [{ memberId: "", groupInstanceId: "instance-1", reason: null }],
      });
      expect(leave.body.members).toEqual([expect.objectContaining({ errorCode: 0 })]);
      expect((await admin.describeGroups(["static-group"])).groups[0]!.state).toBe("Empty");
    } finally {
      client.close();
    }
  });

  it("ListOffsets by timestamp and max timestamp find the record, not only its batch", async () => {
    await admin.createTopics({ topics: [{ topic: "timed", numPartitions: 1 }] });
    const producer = kafka.producer();
    await producer.connect();
    // One batch, offsets 0..2, timestamps 1000, 3000, 2000 (ms).
    await producer.send({
      topic: "timed",
      messages: [
        { value: "a", timestamp: "1000" },
        { value: "b", timestamp: "3000" },
        { value: "c", timestamp: "2000" },
      ],
    });
    await producer.disconnect();
    // The first record at or after 1500 ms is offset 1 (its batch starts at 0).
    expect(await admin.fetchTopicOffsetsByTimestamp("timed", 1500)).toEqual([{ partition: 0, offset: "1" }]);
    // None after 3000 ms: Kafka answers -1, which kafkajs replaces with the high watermark (3).
    expect(await admin.fetchTopicOffsetsByTimestamp("timed", 3001)).toEqual([{ partition: 0, offset: "3" }]);
    const leader = cluster.nodes.find((n) => n.nodeId === cluster.cluster.partition("timed", 0)!.leader)!;
    const client = await KafkaTestClient.connect(leader.host, leader.port, protocol, { timeoutMs: 5000 });
    try {
      // MAX_TIMESTAMP (-3, KIP-734): the record with the largest timestamp, offset 1 at 3000 ms.
      const reply = await client.call<{ topics: { partitions: { offset: bigint; timestamp: bigint }[] }[] }>(2, 7, {
        replicaId: -1,
        isolationLevel: 0,
        topics: [{ name: "timed", partitions: [{ partitionIndex: 0, timestamp: -3n, currentLeaderEpoch: -1 }] }],
      });
      expect(reply.body.topics[0]!.partitions[0]).toMatchObject({ offset: 1n, timestamp: 3000n });
    } finally {
      client.close();
    }
  });

  it("KIP-848: the range assignor gives each member a contiguous range; an unknown assignor is refused", async () => {
    await admin.createTopics({ topics: [{ topic: "ranged", numPartitions: 5 }] });
    const found = coordinatorFor(cluster.cluster, "range-group", 0);
    if (typeof found === "number") throw new Error(`no coordinator: ${found}`);
    const client = await KafkaTestClient.connect(found.host, found.port, protocol, { timeoutMs: 5000 });
    try {
      const heartbeat = (memberId: string, serverAssignor: string) =>
        client.call<{ errorCode: number }>(68, 1, {
          groupId: "range-group",
          memberId,
          memberEpoch: 0,
          rebalanceTimeoutMs: 5000,
          subscribedTopicNames: ["ranged"],
          serverAssignor,
          topicPartitions: [],
        });
      expect((await heartbeat("member-a", "range")).body.errorCode).toBe(0);
      expect((await heartbeat("member-b", "range")).body.errorCode).toBe(0);
      expect((await heartbeat("member-c", "sticky-please")).body.errorCode).toBe(112); // UNSUPPORTED_ASSIGNOR
      const described = await client.call<{
        groups: {
          assignorName: string;
          members: { memberId: string; targetAssignment: { topicPartitions: { partitions: number[] }[] } }[];
        }[];
      }>(69, 0, { groupIds: ["range-group"], includeAuthorizedOperations: false });
      const group = described.body.groups[0]!;
      expect(group.assignorName).toBe("range");
      // 5 partitions over 2 members in member id order: 0-2 and 3-4.
      const targets = Object.fromEntries(
        group.members.map((m) => [m.memberId, m.targetAssignment.topicPartitions.flatMap((t) => t.partitions)]),
      );
      expect(targets).toEqual({ "member-a": [0, 1, 2], "member-b": [3, 4] });
    } finally {
      client.close();
    }
  });

  it("message.timestamp.type=LogAppendTime: records carry the broker's time", async () => {
    await admin.createTopics({
      topics: [
        {
          topic: "appended",
          numPartitions: 1,
          configEntries: [{ name: "message.timestamp.type", value: "LogAppendTime" }],
        },
      ],
    });
    const producer = kafka.producer();
    await producer.connect();
    const before = Date.now();
    await producer.send({ topic: "appended", messages: [{ value: "x", timestamp: "1000" }] });
    const after = Date.now();
    await producer.disconnect();
    const consumer = kafka.consumer({ groupId: "appended-readers", maxWaitTimeInMs: 100 });
    await consumer.connect();
    let timestamp = "";
    try {
      await consumer.subscribe({ topics: ["appended"], fromBeginning: true });
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("nothing consumed")), TIMEOUT_MS);
        consumer
          .run({
            eachMessage: async ({ message }) => {
              timestamp = message.timestamp;
              clearTimeout(timer);
              resolve();
            },
          })
          .catch(reject);
      });
    } finally {
      await consumer.disconnect();
    }
    // Not the producer's 1000 ms: the append time (kafkajs reads it from the batch's max timestamp).
    expect(Number(timestamp)).toBeGreaterThanOrEqual(before);
    expect(Number(timestamp)).toBeLessThanOrEqual(after);
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
