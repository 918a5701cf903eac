/**
 * OffsetForLeaderEpoch after leader moves (found by test/broker-soak.test.ts: the broker answered
 * every epoch older than the current one with -1/-1, which librdkafka takes for log truncation
 * and answers by resetting to auto.offset.reset, reading the partition again from the start).
 * Kafka's `LeaderEpochFileCache.endOffsetFor`: the largest known epoch at most the one asked for,
 * and the start offset of the next known epoch (the log end offset for the current epoch);
 * -1/-1 for epoch -1 or a future epoch. An epoch in which nothing was appended is not known (Kafka
 * drops it from the cache when the next epoch starts at the same offset).
 */

import { afterAll, beforeAll, expect, it } from "vitest";
import { PartitionLog, startCluster, type RunningCluster } from "../broker/src/index.js";
import type { Protocol } from "../src/runtime/index.js";
import { corpusIndex } from "./support/corpus.js";
import { KafkaTestClient, recordBatch } from "./support/kcat.js";
import { describeShared } from "./support/shared.js";

interface EpochReply {
  topics: {
    topic: string;
    partitions: { errorCode: number; partition: number; leaderEpoch: number; endOffset: bigint }[];
  }[];
}

describeShared("kafka-wire-broker: OffsetForLeaderEpoch across leader moves", "kafka-schemas", () => {
  let protocol: Protocol;
  let cluster: RunningCluster;
  const clients: KafkaTestClient[] = [];
  const connect = async (nodeId: number) => {
    const node = cluster.nodes.find((n) => n.nodeId === nodeId)!;
    const client = await KafkaTestClient.connect(node.host, node.port, protocol, { timeoutMs: 5000 });
    clients.push(client);
    return client;
  };
  /** One record (one batch) to t-0 at its leader `nodeId`. */
  const produce = async (nodeId: number) => {
    const reply = await (
      await connect(nodeId)
    ).call<{ responses: { partitionResponses: { errorCode: number; baseOffset: bigint }[] }[] }>(0, 9, {
      acks: -1,
      timeoutMs: 1000,
      topicData: [{ name: "t", partitionData: [{ index: 0, records: recordBatch(null, new Uint8Array([1]), 1000n) }] }],
    });
    return reply.body.responses[0]!.partitionResponses[0]!;
  };

  beforeAll(async () => {
    ({ protocol } = await corpusIndex());
    cluster = await startCluster({ protocol, brokers: 3, topics: { t: { assignments: [[1, 2, 3]] } } });
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    await cluster?.close();
  });

  it("an older epoch ends where the next known one starts; the current one at the log end", async () => {
    // Epoch 0 (leader 1): offsets 0 and 1. Epoch 1 (leader 2): offset 2. Epoch 2 (leader 3):
    // nothing. Epoch 3 (leader 1): offset 3. The log end offset is 4.
    expect(await produce(1)).toMatchObject({ errorCode: 0, baseOffset: 0n });
    expect(await produce(1)).toMatchObject({ errorCode: 0, baseOffset: 1n });
    cluster.moveLeader("t", 0, 2);
    expect(await produce(2)).toMatchObject({ errorCode: 0, baseOffset: 2n });
    cluster.moveLeader("t", 0, 3);
    cluster.moveLeader("t", 0, 1);
    expect(await produce(1)).toMatchObject({ errorCode: 0, baseOffset: 3n });
    const leader = await connect(1);
    const ask = async (leaderEpoch: number) =>
      (
        await leader.call<EpochReply>(23, 4, {
          replicaId: -1,
          topics: [{ topic: "t", partitions: [{ partition: 0, currentLeaderEpoch: 3, leaderEpoch }] }],
        })
      ).body.topics[0]!.partitions[0]!;
    // By hand: [asked] → [largest known epoch ≤ asked, start offset of the next known epoch].
    const expected: [number, number, bigint][] = [
      [0, 0, 2n], // epoch 1 starts at 2
      [1, 1, 3n], // epoch 2 is not known (nothing appended): epoch 3 starts at 3
      [2, 1, 3n], // the largest known epoch at most 2 is 1
      [3, 3, 4n], // the current epoch: the log end offset
      [4, -1, -1n], // a future epoch
      [-1, -1, -1n], // undefined
    ];
    for (const [asked, leaderEpoch, endOffset] of expected) {
      expect(await ask(asked), `epoch ${asked}`).toMatchObject({ errorCode: 0, leaderEpoch, endOffset });
    }
  });
});

it("after DeleteRecords, an epoch that began before the log start ends at the log start offset", () => {
  // Epoch 0 holds offsets 0..9, epoch 1 (the current one) 10..19; DeleteRecords to 15 drops the
  // first batch and keeps the second, which holds offset 15. Kafka's
  // LeaderEpochFileCache.truncateFromStart(15) turns the entries (0,0),(1,10) into (1,15), so
  // endOffsetFor(0) finds no entry at or below epoch 0 and answers (0, 15), the start of the next.
  const batch = (): Uint8Array => {
    const b = new Uint8Array(61); // a record batch header, no records: enough for the log's index
    b[16] = 2; // magic
    return b;
  };
  const log = new PartitionLog();
  log.appendRaw(batch(), 9, 0n, 0);
  log.appendRaw(batch(), 9, 0n, 1);
  log.deleteBefore(15n);
  expect(log.logStartOffset).toBe(15n);
  expect(log.endOffsetForEpoch(0, 1)).toEqual([0, 15n]);
});
