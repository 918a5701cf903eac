/**
 * kafka-wire-broker where real clients found it stricter than Kafka (each answer worked out from
 * Kafka's code named in the test):
 * - InitProducerId with a producer id and epoch for a new transactional id (@platformatic/kafka
 *   sends 0/0): accepted, as `TransactionCoordinator.isValidProducerId` does;
 * - OffsetCommit from a current member while the group is PreparingRebalance (kcat commits on
 *   revocation): accepted; REBALANCE_IN_PROGRESS only in CompletingRebalance
 *   (`ClassicGroup.validateOffsetCommit`);
 * - bytes left after a request body (librdkafka 2.15's Metadata v13): ignored, as Kafka's request
 *   parsing does; a body that is short still closes the connection;
 * - a CreateTime batch whose maxTimestamp is not its records' largest (sarama 1.22 writes -1):
 *   stored with the corrected maxTimestamp and CRC, as Kafka's LogValidator does;
 * - and where it was laxer: an ApiVersions v3+ client software name or version outside
 *   `ApiVersionsRequest.SOFTWARE_NAME_VERSION_PATTERN` gets INVALID_REQUEST (`isValid()`).
 */

import net from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startCluster, type RunningCluster } from "../broker/src/index.js";
import { decodeRecords, encodeRecordBatch, type RecordBatch } from "../src/records/index.js";
import type { Protocol } from "../src/runtime/index.js";
import { corpusIndex } from "./support/corpus.js";
import { KafkaTestClient } from "./support/kcat.js";
import { describeShared } from "./support/shared.js";

const INIT_PRODUCER_ID = 22;
const OFFSET_COMMIT = 8;
const JOIN_GROUP = 11;
const SYNC_GROUP = 14;
const METADATA = 3;
const PRODUCE = 0;
// Kafka's error codes (Errors.java).
const PRODUCER_FENCED = 90;
const REBALANCE_IN_PROGRESS = 27;
const INVALID_REQUEST = 42;
const API_VERSIONS = 18;

describeShared("kafka-wire-broker: where clients found it stricter than Kafka", "kafka-schemas", () => {
  let protocol: Protocol;
  let cluster: RunningCluster;
  const clients: KafkaTestClient[] = [];

  beforeAll(async () => {
    ({ protocol } = await corpusIndex());
    cluster = await startCluster({ protocol, brokers: 1, topics: { t: 1 }, initialRebalanceDelayMs: 0 });
  });

  afterAll(async () => {
    for (const c of clients) c.close();
    await cluster?.close();
  });

  async function connect(): Promise<KafkaTestClient> {
    const node = cluster.nodes[0]!;
    const c = await KafkaTestClient.connect(node.host, node.port, protocol, { timeoutMs: 3000 });
    clients.push(c);
    return c;
  }

  it("ApiVersions v3: a client software name or version Kafka's pattern refuses is INVALID_REQUEST, with no api keys", async () => {
    const c = await connect();
    type Reply = { errorCode: number; apiKeys: unknown[] };
    const ask = async (clientSoftwareName: string, clientSoftwareVersion: string) =>
      (await c.call<Reply>(API_VERSIONS, 3, { clientSoftwareName, clientSoftwareVersion })).body;
    // [a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?: letters, digits, '-' and '.', not at either end.
    for (const [name, version] of [
      ["bad name!!", "1.0"],
      ["", "1.0"],
      ["librdkafka", ""],
      ["-librdkafka", "2.15.1"],
      ["librdkafka", "2.15.1-"],
      ["@platformatic/kafka", "2.12.1"],
    ]) {
      const reply = await ask(name!, version!);
      expect([name, version, reply.errorCode, reply.apiKeys.length]).toEqual([name, version, INVALID_REQUEST, 0]);
    }
    // What librdkafka sends (and a one-character name) is served.
    for (const [name, version] of [
      ["librdkafka", "2.15.1"],
      ["k", "1"],
      ["confluent-kafka-python", "1.7.0-rdkafka-2.0.2"],
    ]) {
      const reply = await ask(name!, version!);
      expect(reply.errorCode).toBe(0);
      expect(reply.apiKeys.length).toBeGreaterThan(10);
    }
  });

  it("InitProducerId: a producer id and epoch for a new transactional id are accepted; another id is fenced", async () => {
    const c = await connect();
    type Reply = { errorCode: number; producerId: bigint; producerEpoch: number };
    const init = (producerId: bigint, producerEpoch: number) =>
      c.call<Reply>(INIT_PRODUCER_ID, 4, {
        transactionalId: "parity-txn",
        transactionTimeoutMs: 60_000,
        producerId,
        producerEpoch,
      });
    // As @platformatic/kafka 2.12.1 sends it: 0/0 for an id the coordinator has never seen. Kafka
    // creates the metadata with epoch -1, which isValidProducerId accepts; the bump makes it 0.
    const first = (await init(0n, 0)).body;
    expect(first.errorCode).toBe(0);
    expect(first.producerEpoch).toBe(0);
    // The current id and epoch (KIP-360): the epoch is bumped.
    const again = (await init(first.producerId, 0)).body;
    expect(again).toMatchObject({ errorCode: 0, producerId: first.producerId, producerEpoch: 1 });
    // Neither the current nor the previous id: fenced.
    expect((await init(first.producerId + 1000n, 0)).body.errorCode).toBe(PRODUCER_FENCED);
  });

  it("OffsetCommit: a current member commits while PreparingRebalance, not while CompletingRebalance", async () => {
    const one = await connect();
    const two = await connect();
    const groupId = "parity-group";
    const protocols = [{ name: "range", metadata: new Uint8Array(0) }];
    type Join = { errorCode: number; generationId: number; memberId: string; leader: string };
    const join = (c: KafkaTestClient, memberId: string) =>
      c.call<Join>(
        JOIN_GROUP,
        3,
        {
          groupId,
          sessionTimeoutMs: 10_000,
          rebalanceTimeoutMs: 10_000,
          memberId,
          protocolType: "consumer",
          protocols,
        },
        15_000,
      );
    const commit = async (memberId: string, generationId: number) => {
      const reply = await one.call<{ topics: { partitions: { errorCode: number }[] }[] }>(OFFSET_COMMIT, 2, {
        groupId,
        generationIdOrMemberEpoch: generationId,
        memberId,
        retentionTimeMs: -1n,
        topics: [{ name: "t", partitions: [{ partitionIndex: 0, committedOffset: 1n, committedMetadata: null }] }],
      });
      return reply.body.topics[0]!.partitions[0]!.errorCode;
    };
    const m1 = (await join(one, "")).body;
    expect(m1.errorCode).toBe(0);
    const sync = await one.call<{ errorCode: number }>(SYNC_GROUP, 2, {
      groupId,
      generationId: m1.generationId,
      memberId: m1.memberId,
      assignments: [{ memberId: m1.memberId, assignment: new Uint8Array(0) }],
    });
    expect(sync.body.errorCode).toBe(0);
    // Member 2 joins: the group is PreparingRebalance until member 1 joins again.
    const pending = join(two, "");
    pending.catch(() => {});
    await new Promise((r) => setTimeout(r, 200));
    expect(await commit(m1.memberId, m1.generationId)).toBe(0);
    // Member 1 joins again: both joined, the group is CompletingRebalance until the leader's SyncGroup.
    const [r1, r2] = await Promise.all([join(one, m1.memberId), pending]);
    expect(r1.body.generationId).toBe(m1.generationId + 1);
    expect(r2.body.errorCode).toBe(0);
    expect(await commit(m1.memberId, r1.body.generationId)).toBe(REBALANCE_IN_PROGRESS);
  });

  /** Sends `frame` on a raw connection; resolves with the response frame, or null when the broker closes it. */
  function raw(frame: Uint8Array): Promise<Uint8Array | null> {
    const node = cluster.nodes[0]!;
    return new Promise((resolve) => {
      let got = Buffer.alloc(0);
      const socket = net.connect({ host: node.host, port: node.port }, () => socket.write(frame));
      const timer = setTimeout(() => {
        socket.destroy();
        resolve(null);
      }, 3000);
      socket.on("error", () => {});
      socket.on("data", (chunk: Buffer) => {
        got = Buffer.concat([got, chunk]);
        if (got.length >= 4 && got.length >= 4 + got.readInt32BE(0)) {
          clearTimeout(timer);
          socket.destroy();
          resolve(new Uint8Array(got.subarray(0, 4 + got.readInt32BE(0))));
        }
      });
      socket.on("close", () => {
        clearTimeout(timer);
        resolve(null);
      });
    });
  }

  /** `frame` with `bytes` more (or, negative, fewer) body bytes and its size prefix set to match. */
  function resized(frame: Uint8Array, bytes: number): Uint8Array {
    const out = new Uint8Array(frame.length + bytes);
    out.set(bytes >= 0 ? frame : frame.subarray(0, out.length));
    new DataView(out.buffer).setInt32(0, out.length - 4);
    return out;
  }

  it("ignores bytes after a request body, and still closes a connection whose body is short", async () => {
    // An all-topics Metadata v13 (topics null), as librdkafka 2.15.1 sends it.
    const frame = protocol.encodeRequestFrame(
      { apiKey: METADATA, apiVersion: 13, correlationId: 7, clientId: "rdkafka" },
      protocol.api(METADATA).request.create({ topics: null, allowAutoTopicCreation: true }),
    );
    // librdkafka's 3 stray bytes: a 4-byte array-count placeholder it never finalized, less the
    // one byte it did fill in.
    const response = await raw(resized(frame, 3));
    expect(response).not.toBeNull();
    const decoded = protocol.decodeResponseFrame(response!, METADATA, 13);
    expect(decoded.header.correlationId).toBe(7);
    expect((decoded.body as { topics: { name: string }[] }).topics.map((t) => t.name)).toContain("t");
    // The body without its last byte (the tagged-field count): a short body is not a request.
    expect(await raw(resized(frame, -1))).toBeNull();
  });

  it("stores a CreateTime batch with the maxTimestamp of its records (and a new CRC) when the producer wrote -1", async () => {
    const c = await connect();
    // Records at 1000 and 3000 ms: Kafka's LogValidator sets maxTimestamp 3000 (setMaxTimestamp).
    const batch = (await encodeRecordBatch({
      maxTimestamp: -1,
      records: [
        { timestamp: 1000, key: "a", value: "1" },
        { timestamp: 3000, key: "b", value: "2" },
      ],
    })) as Uint8Array;
    // The library's strict decoder refuses the batch as the producer wrote it.
    await expect(async () => {
      const set = await decodeRecords(batch);
      void (set.batches[0] as RecordBatch).records.length;
    }).rejects.toThrow(/maxTimestamp/);
    const reply = await c.call<{ responses: { partitionResponses: { errorCode: number; baseOffset: bigint }[] }[] }>(
      PRODUCE,
      9,
      { acks: -1, timeoutMs: 5000, topicData: [{ name: "t", partitionData: [{ index: 0, records: batch }] }] },
    );
    expect(reply.body.responses[0]!.partitionResponses[0]!.errorCode).toBe(0);
    const stored = cluster.cluster.topics.get("t")!.partitions[0]!.log.read(0n, 1 << 20);
    expect(stored).toHaveLength(1);
    // Strict decoding checks the CRC-32C and every record's timestamp against maxTimestamp.
    const got = (await decodeRecords(stored[0]!)).batches[0] as RecordBatch;
    expect(got.maxTimestamp).toBe(3000n);
    expect(got.records.map((r) => r.timestamp)).toEqual([1000n, 3000n]);
  });
});
