/**
 * Faults injected into kafka-wire-broker while kafkajs 2.2.4 (in this process) produces with an
 * idempotent producer and consumes in a group: NOT_LEADER_OR_FOLLOWER on Produce, dropped Fetch
 * connections, leader moves, a broker stopped and started. After each, every acknowledged record
 * is consumed, each at exactly one offset, and the logs hold each exactly once (their end offsets
 * add up to the records acknowledged).
 *
 * kafkajs's consumer is at-least-once: a Fetch that fails with NOT_LEADER_OR_FOLLOWER makes it
 * rejoin its group and resume from the committed offsets, so a record it had handed to
 * `eachMessage` but not committed yet is handed over again (at the same offset), as it would be
 * against Kafka. What the test asserts of the broker: nothing lost, nothing stored twice.
 */

import { Kafka, logLevel, type Consumer, type Producer } from "kafkajs";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { coordinatorFor, startCluster, type RunningCluster } from "../broker/src/index.js";
import { corpusIndex } from "./support/corpus.js";
import { describeShared } from "./support/shared.js";

const TOPIC = "orders";
const PARTITIONS = 3;
const WAIT_MS = 20_000;

describeShared("kafka-wire-broker: kafkajs recovers from injected faults", "kafka-schemas", () => {
  let cluster: RunningCluster;
  let kafka: Kafka;
  let producer: Producer | undefined;
  let consumer: Consumer | undefined;
  let run = 0;

  beforeAll(async () => {
    const { protocol } = await corpusIndex();
    cluster = await startCluster({
      protocol,
      brokers: 3,
      topics: { [TOPIC]: PARTITIONS },
      initialRebalanceDelayMs: 50,
    });
    kafka = new Kafka({
      clientId: "faults-test",
      brokers: cluster.bootstrap.split(","),
      logLevel: logLevel.NOTHING,
      retry: { retries: 8, initialRetryTime: 50, maxRetryTime: 1000 },
    });
  });
  afterEach(async () => {
    await consumer?.disconnect();
    await producer?.disconnect();
    consumer = producer = undefined;
    await cluster.reset();
  });
  afterAll(async () => {
    await cluster?.close();
  });

  /** An idempotent producer and a group consumer reading from the start; `consumed` counts each value. */
  const start = async () => {
    const group = `faults-${++run}`;
    producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    consumer = kafka.consumer({ groupId: group, heartbeatInterval: 500, sessionTimeout: 10_000 });
    await consumer.connect();
    await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
    /** By value, the partition:offset pairs it was consumed at. */
    const consumed = new Map<string, Set<string>>();
    await consumer.run({
      eachMessage: async ({ partition, message }) => {
        const v = message.value!.toString();
        const at = consumed.get(v) ?? new Set<string>();
        at.add(`${partition}:${message.offset}`);
        consumed.set(v, at);
      },
    });
    const acked: string[] = [];
    /** Sends `n` records (one send each, round-robin over the partitions) and records those acknowledged. */
    const send = async (prefix: string, n: number) => {
      for (let i = 0; i < n; i++) {
        const value = `${group}/${prefix}-${i}`;
        await producer!.send({ topic: TOPIC, messages: [{ value, partition: i % PARTITIONS }] });
        acked.push(value);
      }
    };
    /** Waits (bounded) until every acknowledged record is consumed, then checks exactly once, in the consumer and in the logs. */
    const verify = async () => {
      const deadline = Date.now() + WAIT_MS;
      while (acked.some((v) => !consumed.has(v)) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(acked.filter((v) => !consumed.has(v))).toEqual([]);
      // Each record at one offset only: a redelivery is the same offset again, never a second copy.
      expect([...consumed].filter(([, at]) => at.size !== 1)).toEqual([]);
      expect(consumed.size).toBe(acked.length);
      let stored = 0n;
      for (const p of cluster.cluster.topics.get(TOPIC)!.partitions) stored += p.log.logEndOffset;
      expect(stored).toBe(BigInt(acked.length));
    };
    return { group, send, verify };
  };

  it("NOT_LEADER_OR_FOLLOWER twice on Produce: the producer refreshes its metadata and retries", async () => {
    const { send, verify } = await start();
    await send("before", 6);
    cluster.fail({ apiKey: 0, errorCode: "NOT_LEADER_OR_FOLLOWER", times: 2, topic: TOPIC, partition: 1 });
    await send("during", 9);
    expect(cluster.cluster.control.pending()).toEqual([]);
    await verify();
  });

  it("a dropped Fetch connection: the consumer reconnects and carries on from where it was", async () => {
    const { send, verify } = await start();
    await send("before", 6);
    cluster.drop({ apiKey: 1, times: 2 });
    await send("during", 9);
    await verify();
    expect(cluster.cluster.control.pending()).toEqual([]);
  });

  it("a leader move: the old leader refuses, both clients follow the new leader", async () => {
    const { send, verify } = await start();
    await send("before", 6);
    for (let p = 0; p < PARTITIONS; p++) {
      const partition = cluster.cluster.partition(TOPIC, p)!;
      cluster.moveLeader(
        TOPIC,
        p,
        partition.replicas.find((r) => r !== partition.leader)!,
      );
    }
    await send("after", 9);
    await verify();
    expect(cluster.cluster.topics.get(TOPIC)!.partitions.map((p) => p.leaderEpoch)).toEqual([1, 1, 1]);
  });

  it("a broker stopped and started: its partitions move to the others and the clients follow", async () => {
    const { group, send, verify } = await start();
    await send("before", 6);
    // Not the group's coordinator: this test is about partition leaders.
    const coordinator = coordinatorFor(cluster.cluster, group, 0);
    const victim = cluster.nodes.find((n) => typeof coordinator === "number" || n.nodeId !== coordinator.nodeId)!;
    await cluster.stopBroker(victim.nodeId);
    await send("stopped", 9);
    await cluster.startBroker(victim.nodeId);
    await send("started", 6);
    await verify();
  });
});
