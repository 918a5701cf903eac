/**
 * kafka-wire-broker's data path guarantees, on a three-node cluster:
 * - idempotent producers: raw Produce requests with hand-built batches get Kafka's answers to
 *   a retried batch (its original offset, nothing appended), a gap in the sequence
 *   (OUT_OF_ORDER_SEQUENCE_NUMBER), an old epoch (INVALID_PRODUCER_EPOCH) and a new epoch that
 *   does not start at sequence 0;
 * - transactions with kafkajs 2.2.4: commit and abort, a read_committed consumer seeing only
 *   committed records while a read_uncommitted one sees all, consume-transform-produce with the
 *   offsets sent to the transaction, and a transaction aborted by its timeout.
 */

import { Kafka, logLevel } from "kafkajs";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startCluster, type RunningCluster } from "../broker/src/index.js";
import { encodeRecordBatch } from "../src/records/index.js";
import type { Protocol } from "../src/runtime/index.js";
import { corpusIndex } from "./support/corpus.js";
import { KafkaTestClient } from "./support/kcat.js";
import { describeShared } from "./support/shared.js";

const TIMEOUT_MS = 30_000;

describeShared("kafka-wire-broker: idempotence and transactions", "kafka-schemas", () => {
  let protocol: Protocol;
  let cluster: RunningCluster;
  let kafka: Kafka;

  beforeAll(async () => {
    ({ protocol } = await corpusIndex());
    cluster = await startCluster({
      protocol,
      brokers: 3,
      topics: { idem: 1, input: 2, output: 2, txn: 3 },
      initialRebalanceDelayMs: 100,
    });
    kafka = new Kafka({
      clientId: "txn-test",
      brokers: cluster.bootstrap.split(","),
      logLevel: logLevel.NOTHING,
      retry: { retries: 3, initialRetryTime: 100 },
    });
  });

  afterAll(async () => {
    await cluster?.close();
  });

  /** Consumes `topic` from the beginning until `count` records, in a new group; returns the values. */
  async function consumeAll(topic: string, count: number, readUncommitted: boolean): Promise<string[]> {
    const consumer = kafka.consumer({
      groupId: `reader-${topic}-${readUncommitted}`,
      maxWaitTimeInMs: 100,
      readUncommitted,
    });
    const got: string[] = [];
    await consumer.connect();
    try {
      await consumer.subscribe({ topics: [topic], fromBeginning: true });
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`consumed ${got.length} of ${count}: ${got}`)), TIMEOUT_MS);
        consumer
          .run({
            eachMessage: async ({ message }) => {
              got.push(message.value!.toString());
              if (got.length === count) {
                clearTimeout(timer);
                resolve();
              }
            },
          })
          .catch(reject);
      });
      // Nothing beyond `count` arrives within a few more fetches.
      await new Promise((r) => setTimeout(r, 300));
    } finally {
      await consumer.disconnect();
    }
    return got;
  }

  it("checks an idempotent producer's sequences as Kafka does", async () => {
    const leader = cluster.nodes.find((n) => n.nodeId === cluster.cluster.partition("idem", 0)!.leader)!;
    const client = await KafkaTestClient.connect(leader.host, leader.port, protocol, { timeoutMs: 5000 });
    try {
      const produce = async (producerEpoch: number, baseSequence: number, records: number) => {
        const batch = encodeRecordBatch({
          producerId: 7000n,
          producerEpoch,
          baseSequence,
          records: Array.from({ length: records }, (_, i) => ({ value: `e${producerEpoch}s${baseSequence + i}` })),
        }) as Uint8Array;
        const reply = await client.call<{
          responses: { partitionResponses: { errorCode: number; baseOffset: bigint }[] }[];
        }>(0, 11, {
          acks: -1,
          timeoutMs: 1000,
          topicData: [{ name: "idem", partitionData: [{ index: 0, records: batch }] }],
        });
        const p = reply.body.responses[0]!.partitionResponses[0]!;
        return [p.errorCode, p.baseOffset];
      };
      expect(await produce(0, 0, 2)).toEqual([0, 0n]); // sequences 0-1 at offsets 0-1
      expect(await produce(0, 2, 3)).toEqual([0, 2n]); // 2-4 at 2-4
      // The same batch again (a retry): its original offset, error NONE, nothing appended.
      expect(await produce(0, 2, 3)).toEqual([0, 2n]);
      expect(cluster.cluster.partition("idem", 0)!.log.logEndOffset).toBe(5n);
      // A gap: 6 after 4 is OUT_OF_ORDER_SEQUENCE_NUMBER (45).
      expect(await produce(0, 6, 1)).toEqual([45, -1n]);
      // A new epoch starts at sequence 0: 3 is OUT_OF_ORDER_SEQUENCE_NUMBER, 0 is appended.
      expect(await produce(1, 3, 1)).toEqual([45, -1n]);
      expect(await produce(1, 0, 1)).toEqual([0, 5n]);
      // The old epoch is fenced: INVALID_PRODUCER_EPOCH (47).
      expect(await produce(0, 5, 1)).toEqual([47, -1n]);
      // A producer with no state must start at 0.
      const other = encodeRecordBatch({
        producerId: 7001n,
        producerEpoch: 0,
        baseSequence: 9,
        records: [{ value: "x" }],
      }) as Uint8Array;
      const reply = await client.call<{ responses: { partitionResponses: { errorCode: number }[] }[] }>(0, 11, {
        acks: -1,
        timeoutMs: 1000,
        topicData: [{ name: "idem", partitionData: [{ index: 0, records: other }] }],
      });
      expect(reply.body.responses[0]!.partitionResponses[0]!.errorCode).toBe(45);
    } finally {
      client.close();
    }
  });

  it("kafkajs: a committed and an aborted transaction; read_committed sees only the committed one", async () => {
    const producer = kafka.producer({ transactionalId: "txn-writer", maxInFlightRequests: 1, idempotent: true });
    await producer.connect();
    try {
      const committed = await producer.transaction();
      await committed.send({ topic: "txn", messages: [0, 1, 2, 3, 4, 5].map((i) => ({ value: `committed-${i}` })) });
      await committed.commit();
      const aborted = await producer.transaction();
      await aborted.send({ topic: "txn", messages: [0, 1, 2].map((i) => ({ value: `aborted-${i}` })) });
      await aborted.abort();
      const again = await producer.transaction();
      await again.send({ topic: "txn", messages: [{ value: "committed-after" }] });
      await again.commit();
    } finally {
      await producer.disconnect();
    }
    const committed = [0, 1, 2, 3, 4, 5].map((i) => `committed-${i}`).concat("committed-after");
    expect((await consumeAll("txn", committed.length, false)).sort()).toEqual(committed.sort());
    // read_uncommitted also gets the aborted records (never the markers).
    const everything = [...committed, "aborted-0", "aborted-1", "aborted-2"];
    expect((await consumeAll("txn", everything.length, true)).sort()).toEqual(everything.sort());
    // Each partition that took part got a marker per transaction: offsets beyond the records.
    const markers =
      cluster.cluster.topics.get("txn")!.partitions.reduce((n, p) => n + Number(p.log.logEndOffset), 0) -
      everything.length;
    expect(markers).toBeGreaterThanOrEqual(3);
  });

  it("kafkajs: consume-transform-produce with the consumed offsets sent to the transaction", async () => {
    const seed = kafka.producer();
    await seed.connect();
    await seed.send({ topic: "input", messages: [0, 1, 2, 3].map((i) => ({ value: `in-${i}`, partition: i % 2 })) });
    await seed.disconnect();
    const producer = kafka.producer({ transactionalId: "txn-transformer", maxInFlightRequests: 1, idempotent: true });
    await producer.connect();
    const consumer = kafka.consumer({ groupId: "transformers", maxWaitTimeInMs: 100 });
    await consumer.connect();
    try {
      await consumer.subscribe({ topics: ["input"], fromBeginning: true });
      let done = 0;
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`transformed ${done} of 4`)), TIMEOUT_MS);
        consumer
          .run({
            autoCommit: false,
            eachMessage: async ({ topic, partition, message }) => {
              const txn = await producer.transaction();
              await txn.send({
                topic: "output",
                messages: [{ value: message.value!.toString().replace("in", "out") }],
              });
              await txn.sendOffsets({
                consumerGroupId: "transformers",
                topics: [{ topic, partitions: [{ partition, offset: (BigInt(message.offset) + 1n).toString() }] }],
              });
              await txn.commit();
              if (++done === 4) {
                clearTimeout(timer);
                resolve();
              }
            },
          })
          .catch(reject);
      });
    } finally {
      await consumer.disconnect();
      await producer.disconnect();
    }
    expect((await consumeAll("output", 4, false)).sort()).toEqual(["out-0", "out-1", "out-2", "out-3"]);
    const admin = kafka.admin();
    await admin.connect();
    try {
      const offsets = await admin.fetchOffsets({ groupId: "transformers", topics: ["input"] });
      expect(offsets[0]!.partitions.map((p) => [p.partition, p.offset]).sort()).toEqual([
        [0, "2"],
        [1, "2"],
      ]);
    } finally {
      await admin.disconnect();
    }
  });

  it("aborts a transaction that outlives its timeout and fences its producer", async () => {
    const producer = kafka.producer({
      transactionalId: "txn-slow",
      transactionTimeout: 1000,
      maxInFlightRequests: 1,
      idempotent: true,
    });
    await producer.connect();
    try {
      const txn = await producer.transaction();
      await txn.send({ topic: "txn", messages: [{ value: "never-committed" }] });
      const state = cluster.cluster.transactions.transactions.get("txn-slow")!;
      expect(state.state).toBe("Ongoing");
      const epoch = state.producerEpoch;
      await new Promise((r) => setTimeout(r, 1500));
      expect(state.state).toBe("CompleteAbort");
      expect(state.producerEpoch).toBe(epoch + 1);
      // Kafka's answer to the fenced producer's EndTxn: PRODUCER_FENCED (EndTxn v2+), which kafkajs throws.
      await expect(txn.commit()).rejects.toThrow();
    } finally {
      await producer.disconnect();
    }
  });
});
