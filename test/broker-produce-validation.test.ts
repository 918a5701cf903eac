/**
 * Produce's validation from the decode pass's summary (recordsMaxTimestamp,
 * nullKeyRecords, 70722d3): compressed batches, a compacted topic, a maxTimestamp below a
 * record's timestamp, and LogAppendTime topics. Each answer from Kafka's LogValidator.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCluster, type RunningCluster } from "../broker/src/index.js";
// The broker's own import (the built package), as the broker decompresses with it.
import { codecs } from "kafka-wire-compression";
import { decodeRecords, encodeRecordBatch, type RecordBatch, type RecordBatchInit } from "../src/records/index.js";
import type { Protocol } from "../src/runtime/index.js";
import { corpusIndex } from "./support/corpus.js";
import { KafkaTestClient } from "./support/kcat.js";
import { describeShared } from "./support/shared.js";

const PRODUCE = 0;
// Errors.java.
const INVALID_RECORD = 87;

describeShared("Produce validation from the decode pass", "kafka-schemas", () => {
  let protocol: Protocol;
  let cluster: RunningCluster;
  let client: KafkaTestClient;

  beforeAll(async () => {
    ({ protocol } = await corpusIndex());
    cluster = await startCluster({
      protocol,
      brokers: 1,
      topics: {
        t: 1,
        c: { partitions: 1, configs: { "cleanup.policy": "compact" } },
        l: { partitions: 1, configs: { "message.timestamp.type": "LogAppendTime" } },
      },
      initialRebalanceDelayMs: 0,
    });
    const node = cluster.nodes[0]!;
    client = await KafkaTestClient.connect(node.host, node.port, protocol, { timeoutMs: 3000 });
  });

  afterAll(async () => {
    client?.close();
    await cluster?.close();
  });

  type Reply = { responses: { partitionResponses: { errorCode: number; baseOffset: bigint }[] }[] };
  async function produce(topic: string, init: RecordBatchInit): Promise<number> {
    const records = (await encodeRecordBatch(init, { codecs })) as Uint8Array;
    const reply = await client.call<Reply>(PRODUCE, 9, {
      acks: -1,
      timeoutMs: 5000,
      topicData: [{ name: topic, partitionData: [{ index: 0, records }] }],
    });
    return reply.body.responses[0]!.partitionResponses[0]!.errorCode;
  }
  async function last(topic: string): Promise<RecordBatch> {
    const stored = cluster.cluster.topics.get(topic)!.partitions[0]!.log.read(0n, 1 << 20);
    const set = await decodeRecords(stored.at(-1)!, { codecs });
    return set.batches.at(-1) as RecordBatch;
  }

  for (const compression of ["gzip", "snappy", "lz4", "zstd"] as const) {
    describe(compression, () => {
      it("a CreateTime batch with maxTimestamp -1 (sarama) is stored with its records' largest timestamp", async () => {
        const records = [
          { timestamp: 5000, key: "a", value: "1" },
          { timestamp: 2000, key: "b", value: "2" },
        ];
        expect(await produce("t", { compression, maxTimestamp: -1, records })).toBe(0);
        const got = await last("t");
        expect(got.compression).toBe(compression);
        expect(got.maxTimestamp).toBe(5000n);
        expect(got.records.map((r) => r.timestamp)).toEqual([5000n, 2000n]);
      });

      it("a maxTimestamp below a record's timestamp is raised to it", async () => {
        const records = [
          { timestamp: 100, key: "a", value: "1" },
          { timestamp: 9000, key: "b", value: "2" },
        ];
        expect(await produce("t", { compression, maxTimestamp: 200, records })).toBe(0);
        expect((await last("t")).maxTimestamp).toBe(9000n);
      });

      it("a compacted topic refuses a batch with one null key, and takes one without", async () => {
        const keyed = [{ key: "k", value: "v", timestamp: 1 }];
        expect(await produce("c", { compression, records: [...keyed, { key: null, value: "x", timestamp: 2 }] })).toBe(
          INVALID_RECORD,
        );
        expect(await produce("c", { compression, records: keyed })).toBe(0);
      });
    });
  }

  it("a LogAppendTime topic stamps the batch, whatever maxTimestamp the producer wrote", async () => {
    const before = BigInt(Date.now());
    const records = [
      { timestamp: 5000, key: "a", value: "1" },
      { timestamp: 7000, key: "b", value: "2" },
    ];
    expect(await produce("l", { compression: "zstd", maxTimestamp: -1, records })).toBe(0);
    const got = await last("l");
    expect(got.timestampType).toBe("LogAppendTime");
    expect(got.maxTimestamp).toBeGreaterThanOrEqual(before);
  });
});
