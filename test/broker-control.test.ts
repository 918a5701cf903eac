/**
 * kafka-wire-broker's control from the test (broker/src/control.ts and RunningCluster's fault
 * methods), each checked with raw requests (test/support/kcat.ts's KafkaTestClient) so that what
 * the broker answers is seen as sent: fail (partition-level and top-level, counting down), delay,
 * drop, intercept, moveLeader (leader epoch bumped, old leader and old epoch refused),
 * moveCoordinator, stopBroker/startBroker (same port) and reset.
 */

import net from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startCluster, type RunningCluster } from "../broker/src/index.js";
import type { Protocol } from "../src/runtime/index.js";
import { corpusIndex } from "./support/corpus.js";
import { KafkaTestClient, recordBatch } from "./support/kcat.js";
import { describeShared } from "./support/shared.js";

// Kafka's error codes (clients/src/main/java/org/apache/kafka/common/protocol/Errors.java).
const NOT_LEADER_OR_FOLLOWER = 6;
const COORDINATOR_NOT_AVAILABLE = 15;
const NOT_COORDINATOR = 16;
const FENCED_LEADER_EPOCH = 74;
const UNKNOWN_LEADER_EPOCH = 75;

interface ProduceReply {
  responses: { name: string; partitionResponses: { index: number; errorCode: number; baseOffset: bigint }[] }[];
}
interface FetchReply {
  responses: { topic: string; partitions: { partitionIndex: number; errorCode: number; highWatermark: bigint }[] }[];
}
interface MetadataReply {
  brokers: { nodeId: number; port: number }[];
  topics: {
    name: string;
    partitions: { partitionIndex: number; leaderId: number; leaderEpoch: number; isrNodes: number[] }[];
  }[];
}

describeShared("kafka-wire-broker: control from the test", "kafka-schemas", () => {
  let protocol: Protocol;
  let cluster: RunningCluster;
  const clients: KafkaTestClient[] = [];

  /** A raw client on node `nodeId`, closed after the test. */
  const connect = async (nodeId: number): Promise<KafkaTestClient> => {
    const node = cluster.nodes.find((n) => n.nodeId === nodeId)!;
    const client = await KafkaTestClient.connect(node.host, node.port, protocol, { timeoutMs: 5000 });
    clients.push(client);
    return client;
  };
  const value = (s: string) => recordBatch(null, new TextEncoder().encode(s), 1000n);
  const produce = (client: KafkaTestClient, partitions: number[]) =>
    client.call<ProduceReply>(0, 9, {
      acks: -1,
      timeoutMs: 1000,
      topicData: [{ name: "t", partitionData: partitions.map((index) => ({ index, records: value(`to ${index}`) })) }],
    });
  const fetch = (client: KafkaTestClient, partition: number, currentLeaderEpoch: number) =>
    client.call<FetchReply>(1, 12, {
      replicaId: -1,
      maxWaitMs: 0,
      minBytes: 1,
      maxBytes: 1 << 20,
      isolationLevel: 0,
      sessionId: 0,
      sessionEpoch: -1,
      topics: [
        {
          topic: "t",
          partitions: [
            {
              partition,
              currentLeaderEpoch,
              fetchOffset: 0n,
              lastFetchedEpoch: -1,
              logStartOffset: -1n,
              partitionMaxBytes: 1 << 20,
            },
          ],
        },
      ],
      forgottenTopicsData: [],
      rackId: "",
    });
  const metadata = (client: KafkaTestClient) =>
    client.call<MetadataReply>(3, 12, { topics: [{ name: "t" }], allowAutoTopicCreation: false });
  const logEnd = (partition: number) => cluster.cluster.partition("t", partition)!.log.logEndOffset;

  beforeAll(async () => {
    ({ protocol } = await corpusIndex());
    // Both partitions led by node 1, followed by nodes 2 and 3.
    cluster = await startCluster({
      protocol,
      brokers: 3,
      topics: {
        t: {
          assignments: [
            [1, 2],
            [1, 3],
          ],
        },
      },
    });
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    await cluster.reset();
  });
  afterAll(async () => {
    await cluster?.close();
  });

  describe("fail", () => {
    it("answers the matching partition with the error `times` times, nothing appended; the others as usual", async () => {
      cluster.fail({ apiKey: 0, errorCode: "NOT_LEADER_OR_FOLLOWER", times: 2, topic: "t", partition: 0 });
      const client = await connect(1);
      for (let attempt = 1; attempt <= 2; attempt++) {
        const reply = await produce(client, [0, 1]);
        const byIndex = new Map(reply.body.responses[0]!.partitionResponses.map((p) => [p.index, p]));
        expect(byIndex.get(0)!.errorCode).toBe(NOT_LEADER_OR_FOLLOWER);
        expect(byIndex.get(1)!.errorCode).toBe(0);
        // Partition 0 took nothing; partition 1 took one batch per attempt.
        expect(logEnd(0)).toBe(0n);
        expect(logEnd(1)).toBe(BigInt(attempt));
      }
      expect(cluster.cluster.control.pending()).toEqual([]);
      const third = await produce(client, [0]);
      expect(third.body.responses[0]!.partitionResponses[0]).toMatchObject({ index: 0, errorCode: 0, baseOffset: 0n });
      expect(logEnd(0)).toBe(1n);
    });

    it("a request touching only other partitions does not count down", async () => {
      cluster.fail({ apiKey: 0, errorCode: NOT_LEADER_OR_FOLLOWER, topic: "t", partition: 0 });
      const client = await connect(1);
      expect((await produce(client, [1])).body.responses[0]!.partitionResponses[0]!.errorCode).toBe(0);
      expect(cluster.cluster.control.pending()).toEqual([{ kind: "fail", apiKey: 0, left: 1 }]);
      expect((await produce(client, [0])).body.responses[0]!.partitionResponses[0]!.errorCode).toBe(
        NOT_LEADER_OR_FOLLOWER,
      );
    });

    it("only on the node named, and with the top-level error code where the response has no partitions", async () => {
      // FindCoordinator v3 has a top-level error code; v4+ one per key.
      cluster.fail({ apiKey: 10, errorCode: COORDINATOR_NOT_AVAILABLE, node: 2, times: 2 });
      const one = await connect(1);
      const two = await connect(2);
      const v3 = (c: KafkaTestClient) => c.call<{ errorCode: number; nodeId: number }>(10, 3, { key: "g", keyType: 0 });
      expect((await v3(one)).body.errorCode).toBe(0);
      expect((await v3(two)).body.errorCode).toBe(COORDINATOR_NOT_AVAILABLE);
      const v4 = await two.call<{ coordinators: { key: string; errorCode: number }[] }>(10, 4, {
        keyType: 0,
        coordinatorKeys: ["g", "h"],
      });
      expect(v4.body.coordinators.map((c) => [c.key, c.errorCode])).toEqual([
        ["g", COORDINATOR_NOT_AVAILABLE],
        ["h", COORDINATOR_NOT_AVAILABLE],
      ]);
      expect((await v3(two)).body.errorCode).toBe(0);
    });

    it("on a Fetch in a session: the failed partition gets the error, the session keeps both partitions", async () => {
      cluster.fail({ apiKey: 1, errorCode: NOT_LEADER_OR_FOLLOWER, partition: 0 });
      const client = await connect(1);
      const partition = (index: number) => ({
        partition: index,
        currentLeaderEpoch: -1,
        fetchOffset: 0n,
        lastFetchedEpoch: -1,
        logStartOffset: -1n,
        partitionMaxBytes: 1 << 20,
      });
      const request = (sessionId: number, sessionEpoch: number, partitions: number[]) =>
        client.call<FetchReply & { errorCode: number; sessionId: number }>(1, 12, {
          replicaId: -1,
          maxWaitMs: 0,
          minBytes: 0,
          maxBytes: 1 << 20,
          isolationLevel: 0,
          sessionId,
          sessionEpoch,
          topics: partitions.length === 0 ? [] : [{ topic: "t", partitions: partitions.map(partition) }],
          forgottenTopicsData: [],
          rackId: "",
        });
      const first = (await request(0, 0, [0, 1])).body;
      expect(first.sessionId).not.toBe(0);
      const codes = first.responses.flatMap((t) => t.partitions.map((p) => [p.partitionIndex, p.errorCode]));
      expect(codes.sort()).toEqual([
        [0, NOT_LEADER_OR_FOLLOWER],
        [1, 0],
      ]);
      // Both partitions are still in the session: a record appended to partition 0 shows in an incremental fetch.
      await produce(client, [0]);
      const next = (await request(first.sessionId, 1, [])).body;
      expect(next.errorCode).toBe(0);
      expect(
        next.responses.flatMap((t) => t.partitions.map((p) => [p.partitionIndex, p.errorCode, p.highWatermark])),
      ).toEqual([[0, 0, 1n]]);
    });

    it("refuses what it cannot do: an unknown error, a bad times, partitions on a top-level API, no error code", () => {
      expect(() => cluster.fail({ apiKey: 0, errorCode: "NO_SUCH_ERROR" })).toThrow(
        /no Kafka error code NO_SUCH_ERROR/,
      );
      expect(() => cluster.fail({ apiKey: 0, errorCode: 6, times: 0 })).toThrow(/times must be an integer/);
      expect(() => cluster.fail({ apiKey: 0, errorCode: 6, times: Infinity })).toThrow(/times must be an integer/);
      expect(() => cluster.fail({ apiKey: 10, errorCode: 15, topic: "t" })).toThrow(/no per-partition error codes/);
      // CreateTopics answers per topic only.
      expect(() => cluster.fail({ apiKey: 19, errorCode: 15 })).toThrow(/no top-level error code/);
      expect(() => cluster.fail({ apiKey: 0, errorCode: 6, node: 9 })).toThrow(/no node 9/);
      expect(cluster.cluster.control.active).toBe(false);
    });
  });

  it("delay: the next matching request is answered no sooner than `ms` later", async () => {
    cluster.delay({ apiKey: 3, ms: 200 });
    const client = await connect(2);
    const start = performance.now();
    await metadata(client);
    // setTimeout may fire up to a millisecond early on some platforms; never 200 ms early.
    expect(performance.now() - start).toBeGreaterThanOrEqual(199);
    expect(cluster.cluster.control.pending()).toEqual([]);
  });

  it("drop: the matching request closes its connection unanswered; a new connection is served", async () => {
    cluster.drop({ apiKey: 1, node: 1 });
    const client = await connect(1);
    await expect(fetch(client, 0, -1)).rejects.toThrow(/closed the connection/);
    const again = await connect(1);
    expect((await fetch(again, 0, -1)).body.responses[0]!.partitions[0]!.errorCode).toBe(0);
  });

  it("intercept: sees the typed request, answers it or passes it on; the disposer removes it", async () => {
    const seen: string[] = [];
    const dispose = cluster.intercept(3, async (request, ctx, next) => {
      seen.push(`${ctx.node.nodeId}:${request.topics?.map((t) => t.name).join(",")}`);
      const answer = await next();
      // Answer with the handler's response, minus the brokers.
      return answer === null ? null : { ...answer, brokers: [] };
    });
    const client = await connect(3);
    expect((await metadata(client)).body.brokers).toEqual([]);
    expect(seen).toEqual(["3:t"]);
    dispose();
    expect(cluster.cluster.control.active).toBe(false);
    expect((await metadata(client)).body.brokers.map((b) => b.nodeId)).toEqual([1, 2, 3]);
    expect(seen).toHaveLength(1);
  });

  it("moveLeader: the epoch is bumped; the old leader answers NOT_LEADER_OR_FOLLOWER, the old epoch is fenced", async () => {
    cluster.moveLeader("t", 0, 2);
    const meta = await metadata(await connect(3));
    expect(meta.body.topics[0]!.partitions[0]).toMatchObject({ partitionIndex: 0, leaderId: 2, leaderEpoch: 1 });
    const old = await connect(1);
    expect((await produce(old, [0])).body.responses[0]!.partitionResponses[0]!.errorCode).toBe(NOT_LEADER_OR_FOLLOWER);
    const leader = await connect(2);
    expect((await fetch(leader, 0, 0)).body.responses[0]!.partitions[0]!.errorCode).toBe(FENCED_LEADER_EPOCH);
    expect((await fetch(leader, 0, 2)).body.responses[0]!.partitions[0]!.errorCode).toBe(UNKNOWN_LEADER_EPOCH);
    expect((await fetch(leader, 0, 1)).body.responses[0]!.partitions[0]!.errorCode).toBe(0);
    expect((await produce(leader, [0])).body.responses[0]!.partitionResponses[0]!.errorCode).toBe(0);
    expect(() => cluster.moveLeader("t", 0, 3)).toThrow(/node 3 is not a replica of t-0/);
    expect(() => cluster.moveLeader("t", 5, 1)).toThrow(/no partition t-5/);
  });

  it("moveCoordinator: FindCoordinator names the node, the hashed coordinator answers NOT_COORDINATOR", async () => {
    const client = await connect(1);
    const find = async () =>
      (await client.call<{ nodeId: number }>(10, 3, { key: "moved-group", keyType: 0 })).body.nodeId;
    const hashed = await find();
    const target = hashed === 3 ? 2 : 3;
    cluster.moveCoordinator("moved-group", target);
    expect(await find()).toBe(target);
    const heartbeat = (await connect(hashed)).call<{ errorCode: number }>(12, 4, {
      groupId: "moved-group",
      generationId: 0,
      memberId: "m",
    });
    expect((await heartbeat).body.errorCode).toBe(NOT_COORDINATOR);
    await cluster.reset();
    expect(await find()).toBe(hashed);
  });

  it("stopBroker: its port refuses connections, Metadata lists it no more, its partitions move; startBroker: same port", async () => {
    const port = cluster.nodes[0]!.port;
    const before = await connect(1);
    await cluster.stopBroker(1);
    await expect(metadata(before)).rejects.toThrow(/closed/);
    await expect(
      new Promise<void>((resolve, reject) => {
        const s = net.connect({ host: "127.0.0.1", port }, () => {
          s.destroy();
          resolve();
        });
        s.once("error", reject);
      }),
    ).rejects.toThrow(/ECONNREFUSED/);
    const meta = (await metadata(await connect(2))).body;
    expect(meta.brokers.map((b) => b.nodeId)).toEqual([2, 3]);
    // Each partition's remaining in-sync replica leads, at epoch 1.
    expect(meta.topics[0]!.partitions.map((p) => [p.leaderId, p.leaderEpoch, p.isrNodes])).toEqual([
      [2, 1, [2]],
      [3, 1, [3]],
    ]);
    await cluster.startBroker(1);
    expect(cluster.nodes[0]!.port).toBe(port);
    const back = (await metadata(await connect(1))).body;
    expect(back.brokers.map((b) => b.nodeId)).toEqual([1, 2, 3]);
    // Back in the ISR; leadership stays where it moved (Kafka moves it back only on a preferred leader election).
    expect(back.topics[0]!.partitions.map((p) => [p.leaderId, p.isrNodes])).toEqual([
      [2, [1, 2]],
      [3, [1, 3]],
    ]);
    await expect(cluster.stopBroker(7)).rejects.toThrow(/no node 7/);
  });

  it("reset: topics recreated empty with new ids, faults and stopped nodes gone, listeners kept", async () => {
    const client = await connect(1);
    await produce(client, [0]);
    const topicId = cluster.cluster.topics.get("t")!.topicId;
    cluster.cluster.createTopic("extra");
    cluster.fail({ apiKey: 0, errorCode: 6, times: 5 });
    await cluster.stopBroker(3);
    await cluster.reset();
    expect([...cluster.cluster.topics.keys()]).toEqual(["t"]);
    expect(cluster.cluster.topics.get("t")!.topicId).not.toBe(topicId);
    expect(logEnd(0)).toBe(0n);
    expect(cluster.cluster.control.pending()).toEqual([]);
    expect(cluster.cluster.stopped.size).toBe(0);
    // The connection opened before the reset is still served.
    expect((await produce(client, [0])).body.responses[0]!.partitionResponses[0]!.errorCode).toBe(0);
    expect((await metadata(await connect(3))).body.brokers).toHaveLength(3);
  });
});
