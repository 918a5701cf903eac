/**
 * KIP-227's incremental fetch sessions on kafka-wire-broker, with raw Fetch v12 requests: a
 * session opened with epoch 0, incremental fetches listing only the partitions that changed,
 * forgotten partitions, a stale epoch (INVALID_FETCH_SESSION_EPOCH), an unknown or closed
 * session (FETCH_SESSION_ID_NOT_FOUND). @platformatic/kafka uses sessions against it in
 * test/broker.test.ts.
 */

import { afterAll, beforeAll, expect, it } from "vitest";
import { startCluster, type RunningCluster } from "../broker/src/index.js";
import { encodeRecordBatch } from "../src/records/index.js";
import type { Protocol } from "../src/runtime/index.js";
import { corpusIndex } from "./support/corpus.js";
import { KafkaTestClient } from "./support/kcat.js";
import { describeShared } from "./support/shared.js";

interface FetchReply {
  errorCode: number;
  sessionId: number;
  responses: {
    topic: string;
    partitions: { partitionIndex: number; highWatermark: bigint; records: Uint8Array | null }[];
  }[];
}

describeShared("kafka-wire-broker: incremental fetch sessions (KIP-227)", "kafka-schemas", () => {
  let protocol: Protocol;
  let cluster: RunningCluster;
  let client: KafkaTestClient;

  beforeAll(async () => {
    ({ protocol } = await corpusIndex());
    cluster = await startCluster({ protocol, topics: { sessions: 2 } });
    const node = cluster.nodes[0]!;
    client = await KafkaTestClient.connect(node.host, node.port, protocol, { timeoutMs: 5000 });
  });

  afterAll(async () => {
    client?.close();
    await cluster?.close();
  });

  const fetch = async (
    sessionId: number,
    sessionEpoch: number,
    partitions: { partition: number; fetchOffset: bigint }[],
    forgotten: number[] = [],
  ) => {
    const reply = await client.call<FetchReply>(1, 12, {
      replicaId: -1,
      maxWaitMs: 0,
      minBytes: 0,
      maxBytes: 1 << 20,
      isolationLevel: 0,
      sessionId,
      sessionEpoch,
      topics:
        partitions.length === 0
          ? []
          : [
              {
                topic: "sessions",
                partitions: partitions.map((p) => ({ ...p, partitionMaxBytes: 1 << 20, currentLeaderEpoch: -1 })),
              },
            ],
      forgottenTopicsData: forgotten.length === 0 ? [] : [{ topic: "sessions", partitions: forgotten }],
      rackId: "",
    });
    return reply.body;
  };
  const listed = (r: FetchReply) =>
    r.responses.flatMap((t) => t.partitions.map((p) => [p.partitionIndex, p.highWatermark, p.records?.length ?? 0]));
  const produce = async (partition: number) => {
    const records = encodeRecordBatch({ records: [{ value: "v" }] }) as Uint8Array;
    await client.call(0, 9, {
      acks: -1,
      timeoutMs: 1000,
      topicData: [{ name: "sessions", partitionData: [{ index: partition, records }] }],
    });
  };

  it("opens a session, then answers only what changed", async () => {
    const opened = await fetch(0, 0, [
      { partition: 0, fetchOffset: 0n },
      { partition: 1, fetchOffset: 0n },
    ]);
    expect(opened.errorCode).toBe(0);
    expect(opened.sessionId).toBeGreaterThan(0);
    expect(listed(opened)).toEqual([
      [0, 0n, 0],
      [1, 0n, 0],
    ]);
    const id = opened.sessionId;
    // Nothing changed: an empty incremental response (epoch 1 is the session's first
    // incremental fetch: accepted, not INVALID_FETCH_SESSION_EPOCH).
    const unchanged = await fetch(id, 1, []);
    expect([unchanged.errorCode, unchanged.sessionId]).toEqual([0, id]);
    expect(listed(unchanged)).toEqual([]);
    // A record on partition 1: only partition 1, with it.
    await produce(1);
    const one = await fetch(id, 2, []);
    expect(one.sessionId).toBe(id);
    expect(listed(one)).toEqual([[1, 1n, one.responses[0]!.partitions[0]!.records!.length]]);
    expect(one.responses[0]!.partitions[0]!.records!.length).toBeGreaterThan(0);
    // The client moves partition 1's fetch offset past it: nothing new.
    expect(listed(await fetch(id, 3, [{ partition: 1, fetchOffset: 1n }]))).toEqual([]);
    // A stale epoch.
    expect((await fetch(id, 3, [])).errorCode).toBe(71); // INVALID_FETCH_SESSION_EPOCH
    // Partition 0 forgotten: a record there is not reported.
    expect(listed(await fetch(id, 4, [], [0]))).toEqual([]);
    await produce(0);
    expect(listed(await fetch(id, 5, []))).toEqual([]);
    // Epoch -1 closes the session (and is a full fetch of what it names).
    const closed = await fetch(id, -1, [{ partition: 0, fetchOffset: 0n }]);
    expect(closed.sessionId).toBe(0);
    expect(listed(closed)).toEqual([[0, 1n, closed.responses[0]!.partitions[0]!.records!.length]]);
    expect((await fetch(id, 6, [])).errorCode).toBe(70); // FETCH_SESSION_ID_NOT_FOUND
    expect((await fetch(12345, 1, [])).errorCode).toBe(70);
  });
});
