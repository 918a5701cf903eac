/**
 * Interop with a real peer: the mock cluster built into librdkafka, started by Debian's kcat
 * (`.ci/run` installs it; bookworm ships kcat 1.7.1 with librdkafka 2.0.2). We open a TCP socket,
 * ask with ApiVersions v0–v2 what the mock speaks, intersect that with the versions of our Kafka 4
 * corpus codecs, and send one frame per API of the overlap at its highest common version,
 * decoding every response with our codecs.
 *
 * What the mock answers to ApiVersions v0, v1 and v2 (the same table each time):
 *
 *   api key  name                versions     our corpus   overlap
 *        0   Produce             0–7          3–12         3–7
 *        1   Fetch               0–11         4–17         4–11
 *        2   ListOffsets         0–5          1–10         1–5
 *        3   Metadata            0–2          4–13         none (the mock stops at v2, Kafka 4 starts at v4)
 *        8   OffsetCommit        0–7          2–9          2–7
 *        9   OffsetFetch         0–5          1–9          1–5
 *       10   FindCoordinator     0–2          0–6          0–2
 *       11   JoinGroup           0–5          2–9          2–5
 *       12   Heartbeat           0–3          0–4          0–3
 *       13   LeaveGroup          0–1          0–5          0–1
 *       14   SyncGroup           0–3          0–5          0–3
 *       18   ApiVersions         0–2          0–4          0–2
 *       22   InitProducerId      0–4          0–5          0–4 (v2+ flexible)
 *       24   AddPartitionsToTxn  0–1          0–5          0–1
 *       25   AddOffsetsToTxn     0–1          0–4          0–1
 *       26   EndTxn              0–1          0–5          0–1
 *       28   TxnOffsetCommit     0–2          0–5          0–2
 *
 * Two replies of this mock are not well-formed Kafka messages, and the test pins both down (our
 * decoder must reject them with a typed error, not misread them):
 * - ApiVersions v3 (see the test of that name);
 * - ListOffsets v4+: the mock writes the int32 LeaderEpoch as an int64 (librdkafka of that era:
 *   `rd_kafka_buf_write_i64(resp, -1)` under "Response: LeaderEpoch"; later versions write an
 *   int32), so 4 bytes remain after the body.
 * One error reply is off-schema too: SyncGroup's error reply carries a null Assignment, which
 * Kafka's schema does not allow (the Java client would fail the same way).
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KafkaDecodeError, type MessageCodec, type Protocol } from "../src/runtime/index.js";
import { corpusIndex } from "./support/corpus.js";
import {
  crc32c,
  findKcat,
  hex,
  KafkaTestClient,
  recordBatch,
  startKcatMock,
  type Exchange,
  type KcatMock,
} from "./support/kcat.js";
import { describeShared, isCi } from "./support/shared.js";

/** The topic kcat consumes, so that the mock creates it (4 partitions). */
const TOPIC = "kafka-wire-interop";
const GROUP = "g1";
const TRANSACTIONAL_ID = "tx1";

/** Kafka's error codes that the mock returns below. */
const NONE = 0;
const UNKNOWN_TOPIC_OR_PARTITION = 3;
const UNKNOWN_MEMBER_ID = 25;
const UNSUPPORTED_VERSION = 35;
const INVALID_PRODUCER_EPOCH = 47;
const GROUP_ID_NOT_FOUND = 69;

/** Api keys. */
const PRODUCE = 0;
const FETCH = 1;
const LIST_OFFSETS = 2;
const METADATA = 3;
const OFFSET_COMMIT = 8;
const OFFSET_FETCH = 9;
const FIND_COORDINATOR = 10;
const JOIN_GROUP = 11;
const HEARTBEAT = 12;
const LEAVE_GROUP = 13;
const SYNC_GROUP = 14;
const API_VERSIONS = 18;
const INIT_PRODUCER_ID = 22;
const ADD_PARTITIONS_TO_TXN = 24;
const ADD_OFFSETS_TO_TXN = 25;
const END_TXN = 26;
const TXN_OFFSET_COMMIT = 28;

/** The overlap the issue names: every one of these must be there, with at least this range. */
const REQUIRED_OVERLAP: readonly [apiKey: number, min: number, max: number][] = [
  [API_VERSIONS, 0, 2],
  [FIND_COORDINATOR, 0, 2],
  [INIT_PRODUCER_ID, 0, 4],
  [JOIN_GROUP, 2, 5],
  [SYNC_GROUP, 0, 3],
  [HEARTBEAT, 0, 3],
  [LEAVE_GROUP, 0, 1],
  [PRODUCE, 3, 7],
  [LIST_OFFSETS, 1, 5],
  [OFFSET_COMMIT, 2, 7],
  [OFFSET_FETCH, 1, 5],
];

const STARTUP_TIMEOUT_MS = 15_000;
const RESPONSE_TIMEOUT_MS = 5_000;
/** The mock holds a JoinGroup of a new group for its initial rebalance delay (3 s, measured). */
const JOIN_TIMEOUT_MS = 10_000;

const ZERO_UUID = "AAAAAAAAAAAAAAAAAAAAAA";
const utf8 = (s: string) => new TextEncoder().encode(s);

interface ApiVersionRange {
  apiKey: number;
  minVersion: number;
  maxVersion: number;
}

interface ApiVersionsBody {
  errorCode: number;
  apiKeys: ApiVersionRange[];
  throttleTimeMs: number;
}

interface Overlap {
  readonly name: string;
  readonly min: number;
  readonly max: number;
}

/** The versions both the peer (its ApiVersions table) and our codecs (request and response) accept. */
function computeOverlap(peer: readonly ApiVersionRange[], protocol: Protocol): Map<number, Overlap> {
  const out = new Map<number, Overlap>();
  for (const { apiKey, minVersion, maxVersion } of peer) {
    const api = protocol.apis.get(apiKey);
    if (api === undefined) continue;
    const min = Math.max(minVersion, api.request.validVersions.lowest, api.response.validVersions.lowest);
    const max = Math.min(maxVersion, api.request.validVersions.highest, api.response.validVersions.highest);
    if (min <= max) out.set(apiKey, { name: api.name, min, max });
  }
  return out;
}

/** Calls `f` and returns what it threw (fails when it does not throw). */
function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  throw new Error("expected a throw");
}

describeShared("interop with a real peer: kcat's librdkafka mock cluster", "kafka-schemas", () => {
  const kcat = findKcat();
  if (kcat === null) {
    const reason = "kcat is not on PATH (Debian: apt-get install kcat; .ci/run installs it)";
    if (isCi()) {
      it("needs kcat", () => {
        throw new Error(`${reason} (CI is set, so this is a failure, not a skip)`);
      });
    } else {
      console.warn(`[skip] interop with kcat: ${reason}`);
      it.skip("needs kcat on PATH", () => {});
    }
    return;
  }

  let protocol: Protocol;
  let messages: Record<string, MessageCodec<unknown>>;
  let mock: KcatMock | undefined;
  let client: KafkaTestClient | undefined;
  /** The mock's ApiVersions table (from v2) and the overlap with our corpus. */
  let peer: ApiVersionRange[] = [];
  let overlap = new Map<number, Overlap>();

  /** The highest version both sides accept; fails when the API is not in the overlap. */
  const top = (apiKey: number): number => {
    const range = overlap.get(apiKey);
    if (range === undefined) throw new Error(`api key ${apiKey} is not in the overlap`);
    return range.max;
  };
  const c = (): KafkaTestClient => {
    if (client === undefined) throw new Error("not connected");
    return client;
  };

  beforeAll(
    async () => {
      ({ protocol, messages } = await corpusIndex());
      mock = await startKcatMock({ kcat, topic: TOPIC, timeoutMs: STARTUP_TIMEOUT_MS });
      client = await KafkaTestClient.connect(mock.host, mock.port, protocol, { timeoutMs: RESPONSE_TIMEOUT_MS });
    },
    STARTUP_TIMEOUT_MS + RESPONSE_TIMEOUT_MS + 5_000,
  );

  afterAll(async () => {
    client?.close();
    await mock?.stop();
  }, 10_000);

  it("negotiates with ApiVersions v0, v1 and v2: the same table each time", async () => {
    const tables: ApiVersionRange[][] = [];
    for (const version of [0, 1, 2]) {
      const { decoded, body } = await c().call<ApiVersionsBody>(API_VERSIONS, version, {});
      expect(decoded.headerVersion).toBe(0);
      expect(decoded.apiVersion).toBe(version);
      expect(body.errorCode).toBe(NONE);
      if (version >= 1) expect(body.throttleTimeMs).toBe(0);
      tables.push(body.apiKeys.map(({ apiKey, minVersion, maxVersion }) => ({ apiKey, minVersion, maxVersion })));
    }
    expect(tables[1]).toEqual(tables[0]);
    expect(tables[2]).toEqual(tables[0]);
    peer = tables[2]!;
    // What the mock of librdkafka 2.0.2 speaks (see the table at the top of this file).
    expect(peer).toContainEqual({ apiKey: API_VERSIONS, minVersion: 0, maxVersion: 2 });
    expect(peer).toContainEqual({ apiKey: METADATA, minVersion: 0, maxVersion: 2 });
  });

  it("computes the overlap with our corpus codecs: at least the APIs and ranges the issue names", () => {
    expect(peer.length).toBeGreaterThan(0);
    overlap = computeOverlap(peer, protocol);
    for (const [apiKey, min, max] of REQUIRED_OVERLAP) {
      const range = overlap.get(apiKey);
      expect(range, `${protocol.api(apiKey).name} is missing from the overlap`).toBeDefined();
      expect(range!.min, `${range!.name} overlap starts at v${range!.min}`).toBeLessThanOrEqual(min);
      expect(range!.max, `${range!.name} overlap ends at v${range!.max}`).toBeGreaterThanOrEqual(max);
    }
    // Not Metadata: the mock stops at v2, Kafka 4 starts at v4 (KIP-896).
    expect(overlap.has(METADATA)).toBe(false);
    expect(peer.find((r) => r.apiKey === METADATA)!.maxVersion).toBeLessThan(
      protocol.api(METADATA).request.validVersions.lowest,
    );
  });

  /**
   * KIP-511: a broker that does not know an ApiVersions version answers in the v0 layout with
   * UNSUPPORTED_VERSION (35) and its own ApiVersions range, and the client retries. This mock
   * instead hand-writes a half-flexible reply. For correlation id C it sends 21 bytes:
   *
   *   00 00 00 11      size 17
   *   C (int32)        response header v0: correlation id
   *   00 23            ErrorCode 35 UNSUPPORTED_VERSION
   *   01               a one-byte count: the raw count 1, not the compact N+1 (which would be 02)
   *   00 12 00 00 00 02   one entry: ApiKey 18, MinVersion 0, MaxVersion 2, without its tagged fields
   *   00 00 00 00      ThrottleTimeMs 0, and no tagged fields after it
   *
   * As v0–v2 the int32 array count reads 0x01001200 (16781824 entries): too long for the frame.
   * As v3/v4 the compact count 01 is an empty array, then ThrottleTimeMs reads 00 12 00 00 and
   * the tagged fields 00, leaving 5 bytes. So it is well-formed in no version: our decoder rejects
   * it with a KafkaDecodeError, and the client falls back to ApiVersions v2.
   */
  it("ApiVersions v3: the mock's reply is well-formed in no version; the client falls back to v2", async () => {
    const attempts: { version: number; exchange: Exchange; error?: unknown }[] = [];
    let result: { version: number; body: ApiVersionsBody } | undefined;
    let version = 3;
    while (result === undefined) {
      expect(attempts.length, "ApiVersions negotiation does not converge").toBeLessThan(3);
      const request = protocol
        .api(API_VERSIONS)
        .request.create(version >= 3 ? { clientSoftwareName: "kafka-wire", clientSoftwareVersion: "0.1.0" } : {});
      const exchange = await c().exchange(API_VERSIONS, version, request, RESPONSE_TIMEOUT_MS);
      try {
        const decoded = protocol.decodeApiVersionsResponseFrame(exchange.response, version);
        expect(decoded.header.correlationId).toBe(exchange.correlationId);
        const body = decoded.body as ApiVersionsBody;
        if (body.errorCode === UNSUPPORTED_VERSION && version > 0) {
          // A KIP-511 reply: retry with the highest version both sides have.
          attempts.push({ version, exchange });
          const theirs = body.apiKeys.find((k) => k.apiKey === API_VERSIONS)?.maxVersion ?? 0;
          version = Math.min(theirs, version - 1);
          continue;
        }
        result = { version, body };
      } catch (error) {
        if (!(error instanceof KafkaDecodeError) || version <= 2) throw error;
        // Not even a KIP-511 reply: fall back to v2, the last version before the flexible layout.
        attempts.push({ version, exchange, error });
        version = 2;
      }
    }

    // Exactly one failed attempt, at v3, with the bytes documented above.
    expect(attempts.map((a) => a.version)).toEqual([3]);
    const [{ exchange: v3, error }] = attempts as [(typeof attempts)[0]];
    const correlation = v3.correlationId.toString(16).padStart(8, "0");
    expect(hex(v3.response)).toBe(`00000011${correlation}0023` + "01" + "001200000002" + "00000000");
    // The fallback's typed error is the v3 one: 5 bytes after the body.
    expect(error).toBeInstanceOf(KafkaDecodeError);
    expect(error).toMatchObject({ code: "TRAILING_BYTES", offset: 16 });
    // And it decodes in no version of ApiVersionsResponse.
    const { lowest, highest } = protocol.api(API_VERSIONS).response.validVersions;
    for (let v = lowest; v <= highest; v++) {
      const e = thrown(() => protocol.decodeResponseFrame(v3.response, API_VERSIONS, v));
      expect(e, `decoded as v${v}`).toBeInstanceOf(KafkaDecodeError);
      expect((e as KafkaDecodeError).code, `as v${v}`).toBe(v <= 2 ? "INVALID_LENGTH" : "TRAILING_BYTES");
    }

    // The retry at v2, on the same connection, gets the full table.
    expect(result.version).toBe(2);
    expect(result.body.errorCode).toBe(NONE);
    expect(
      result.body.apiKeys.map(({ apiKey, minVersion, maxVersion }) => ({ apiKey, minVersion, maxVersion })),
    ).toEqual(peer);
  });

  describe("data: Produce, Fetch, ListOffsets", () => {
    const batch = recordBatch(utf8("key"), utf8("hello from kafka-wire"), 1_700_000_000_000n);

    it("Produce: one record batch to partition 0 of the topic; an unknown topic fails", async () => {
      expect(crc32c(utf8("123456789"))).toBe(0xe3069283); // the CRC-32C check value
      const produce = (topic: string) =>
        c().call(PRODUCE, top(PRODUCE), {
          transactionalId: null,
          acks: -1,
          timeoutMs: 5000,
          topicData: [{ name: topic, partitionData: [{ index: 0, records: batch }] }],
        });
      const ok = await produce(TOPIC);
      expect(ok.body).toMatchObject({
        throttleTimeMs: 0,
        responses: [
          {
            name: TOPIC,
            // logAppendTimeMs: the mock always answers 1234.
            partitionResponses: [
              { index: 0, errorCode: NONE, baseOffset: 0n, logAppendTimeMs: 1234n, logStartOffset: 0n },
            ],
          },
        ],
      });
      const unknown = await produce("no-such-topic");
      expect(unknown.body).toMatchObject({
        responses: [
          {
            name: "no-such-topic",
            partitionResponses: [{ index: 0, errorCode: UNKNOWN_TOPIC_OR_PARTITION, baseOffset: -1n }],
          },
        ],
      });
    });

    it("Fetch: the batch comes back byte for byte", async () => {
      const { body } = await c().call<{ responses: { partitions: { records: Uint8Array | null }[] }[] }>(
        FETCH,
        top(FETCH),
        {
          maxWaitMs: 100,
          minBytes: 1,
          maxBytes: 1 << 20,
          isolationLevel: 0,
          sessionId: 0,
          sessionEpoch: -1,
          topics: [
            {
              topic: TOPIC,
              topicId: ZERO_UUID,
              partitions: [
                {
                  partition: 0,
                  currentLeaderEpoch: -1,
                  fetchOffset: 0n,
                  lastFetchedEpoch: -1,
                  logStartOffset: -1n,
                  partitionMaxBytes: 1 << 20,
                  replicaDirectoryId: ZERO_UUID,
                },
              ],
            },
          ],
          forgottenTopicsData: [],
          rackId: "",
        },
      );
      expect(body).toMatchObject({
        throttleTimeMs: 0,
        errorCode: NONE,
        sessionId: 0,
        responses: [
          {
            topic: TOPIC,
            partitions: [
              {
                partitionIndex: 0,
                errorCode: NONE,
                highWatermark: 1n,
                lastStableOffset: 1n,
                logStartOffset: 0n,
                abortedTransactions: [],
                preferredReadReplica: -1,
              },
            ],
          },
        ],
      });
      const records = body.responses[0]!.partitions[0]!.records!;
      expect(hex(records)).toBe(hex(batch));
      expect(new DataView(records.buffer, records.byteOffset).getUint32(17)).toBe(crc32c(records.subarray(21)));
    });

    it("ListOffsets: the latest offset is 1 (v4+ replies carry the mock's 8-byte LeaderEpoch)", async () => {
      const request = (version: number) =>
        protocol.api(LIST_OFFSETS).request.create({
          replicaId: -1,
          isolationLevel: 0,
          topics: [
            { name: TOPIC, partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1n /* latest */ }] },
          ],
        });
      const expected = {
        throttleTimeMs: 0,
        topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0, errorCode: NONE, timestamp: -1n, offset: 1n }] }],
      };

      // At the highest common version (5) the partition ends with
      //   ff ff ff ff ff ff ff ff   LeaderEpoch written as int64 -1
      // where Kafka's schema has an int32: strict decoding stops 4 bytes before the end.
      const v = top(LIST_OFFSETS);
      const exchange = await c().exchange(LIST_OFFSETS, v, request(v), RESPONSE_TIMEOUT_MS);
      const e = thrown(() => protocol.decodeResponseFrame(exchange.response, LIST_OFFSETS, v));
      expect(e).toBeInstanceOf(KafkaDecodeError);
      expect(e).toMatchObject({ code: "TRAILING_BYTES" });
      expect(exchange.response.length - (e as KafkaDecodeError).offset).toBe(4);
      expect(hex(exchange.response.subarray(-8))).toBe("ffffffffffffffff");
      // Everything before those 4 bytes is a correct v5 response.
      const lenient = protocol.decodeResponseFrame(exchange.response, LIST_OFFSETS, v, { allowTrailingBytes: true });
      expect(lenient.header.correlationId).toBe(exchange.correlationId);
      expect(lenient.body).toMatchObject({
        ...expected,
        topics: [{ partitions: [{ ...expected.topics[0]!.partitions[0], leaderEpoch: -1 }] }],
      });

      // v1–v3 have no LeaderEpoch: a well-formed reply, decoded strictly.
      const { body } = await c().call(LIST_OFFSETS, 3, request(3) as Record<string, unknown>);
      expect(body).toMatchObject(expected);
    });
  });

  describe("consumer group: FindCoordinator, JoinGroup, SyncGroup, Heartbeat, OffsetCommit, OffsetFetch, LeaveGroup", () => {
    let memberId = "";
    let generationId = -1;

    it("FindCoordinator: the mock's only broker, at the address we connected to", async () => {
      const { body, decoded } = await c().call(FIND_COORDINATOR, top(FIND_COORDINATOR), { key: GROUP, keyType: 0 });
      expect(decoded.headerVersion).toBe(0);
      expect(body).toMatchObject({
        throttleTimeMs: 0,
        errorCode: NONE,
        errorMessage: null,
        nodeId: 1,
        host: mock!.host,
        port: mock!.port,
      });
    });

    it("JoinGroup then SyncGroup: our subscription and assignment come back as sent", async () => {
      // The consumer protocol's metadata: int16 version, then ConsumerProtocolSubscription.
      const subscriptionCodec = messages["ConsumerProtocolSubscription"]!;
      const subscription = new Uint8Array([
        0,
        0,
        ...subscriptionCodec.encode(subscriptionCodec.create({ topics: [TOPIC], userData: null }), 0),
      ]);
      const join = await c().call<{ memberId: string; generationId: number; leader: string }>(
        JOIN_GROUP,
        top(JOIN_GROUP),
        {
          groupId: GROUP,
          sessionTimeoutMs: 10_000,
          rebalanceTimeoutMs: 10_000,
          memberId: "",
          groupInstanceId: null,
          protocolType: "consumer",
          protocols: [{ name: "range", metadata: subscription }],
        },
        JOIN_TIMEOUT_MS,
      );
      expect(join.body).toMatchObject({ throttleTimeMs: 0, errorCode: NONE, protocolName: "range" });
      ({ memberId, generationId } = join.body);
      expect(memberId).not.toBe(""); // the mock assigns one (no KIP-394 MEMBER_ID_REQUIRED round trip)
      expect(generationId).toBeGreaterThan(0);
      expect(join.body.leader).toBe(memberId);
      expect(join.body).toMatchObject({ members: [{ memberId, groupInstanceId: null, metadata: subscription }] });

      const assignmentCodec = messages["ConsumerProtocolAssignment"]!;
      const assigned = { assignedPartitions: [{ topic: TOPIC, partitions: [0, 1, 2, 3] }], userData: null };
      const assignment = new Uint8Array([0, 0, ...assignmentCodec.encode(assignmentCodec.create(assigned), 0)]);
      const sync = await c().call<{ assignment: Uint8Array }>(SYNC_GROUP, top(SYNC_GROUP), {
        groupId: GROUP,
        generationId,
        memberId,
        groupInstanceId: null,
        assignments: [{ memberId, assignment }],
      });
      expect(sync.body).toMatchObject({ throttleTimeMs: 0, errorCode: NONE });
      expect(hex(sync.body.assignment)).toBe(hex(assignment));
      expect(assignmentCodec.decode(sync.body.assignment.subarray(2), 0)).toMatchObject(assigned);
    });

    it("Heartbeat, OffsetCommit and OffsetFetch as the group's member", async () => {
      const heartbeat = await c().call(HEARTBEAT, top(HEARTBEAT), {
        groupId: GROUP,
        generationId,
        memberId,
        groupInstanceId: null,
      });
      expect(heartbeat.body).toMatchObject({ throttleTimeMs: 0, errorCode: NONE });

      const commit = await c().call(OFFSET_COMMIT, top(OFFSET_COMMIT), {
        groupId: GROUP,
        generationIdOrMemberEpoch: generationId,
        memberId,
        groupInstanceId: null,
        topics: [
          {
            name: TOPIC,
            partitions: [
              { partitionIndex: 0, committedOffset: 1n, committedLeaderEpoch: -1, committedMetadata: "kafka-wire" },
            ],
          },
        ],
      });
      expect(commit.body).toMatchObject({
        throttleTimeMs: 0,
        topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0, errorCode: NONE }] }],
      });

      const fetch = await c().call(OFFSET_FETCH, top(OFFSET_FETCH), {
        groupId: GROUP,
        topics: [{ name: TOPIC, partitionIndexes: [0, 1] }],
      });
      expect(fetch.body).toMatchObject({
        throttleTimeMs: 0,
        errorCode: NONE,
        topics: [
          {
            name: TOPIC,
            partitions: [
              {
                partitionIndex: 0,
                committedOffset: 1n,
                committedLeaderEpoch: -1,
                metadata: "kafka-wire",
                errorCode: NONE,
              },
              { partitionIndex: 1, committedOffset: -1n, committedLeaderEpoch: -1, metadata: null, errorCode: NONE },
            ],
          },
        ],
      });
    });

    it("unknown members and groups get the exact error codes", async () => {
      const stranger = "no-such-member";
      const heartbeat = await c().call(HEARTBEAT, top(HEARTBEAT), {
        groupId: GROUP,
        generationId,
        memberId: stranger,
        groupInstanceId: null,
      });
      expect(heartbeat.body).toMatchObject({ errorCode: UNKNOWN_MEMBER_ID });
      const noGroup = await c().call(HEARTBEAT, top(HEARTBEAT), {
        groupId: "no-such-group",
        generationId,
        memberId,
        groupInstanceId: null,
      });
      expect(noGroup.body).toMatchObject({ errorCode: GROUP_ID_NOT_FOUND });
      const leave = await c().call(LEAVE_GROUP, top(LEAVE_GROUP), { groupId: GROUP, memberId: stranger });
      expect(leave.body).toMatchObject({ throttleTimeMs: 0, errorCode: UNKNOWN_MEMBER_ID });

      // SyncGroup's error reply: ThrottleTimeMs 0, ErrorCode 25, then Assignment ff ff ff ff
      // (null), which SyncGroupResponse does not allow (non-nullable bytes in every version).
      const v = top(SYNC_GROUP);
      const request = protocol
        .api(SYNC_GROUP)
        .request.create({ groupId: GROUP, generationId, memberId: stranger, groupInstanceId: null, assignments: [] });
      const sync = await c().exchange(SYNC_GROUP, v, request, RESPONSE_TIMEOUT_MS);
      const correlation = sync.correlationId.toString(16).padStart(8, "0");
      expect(hex(sync.response)).toBe(`0000000e${correlation}00000000` + "0019" + "ffffffff");
      const e = thrown(() => protocol.decodeResponseFrame(sync.response, SYNC_GROUP, v));
      expect(e).toBeInstanceOf(KafkaDecodeError);
      expect(e).toMatchObject({ code: "NULL_NOT_ALLOWED", path: "assignment" });
    });

    it("LeaveGroup, after which the member is unknown", async () => {
      const leave = await c().call(LEAVE_GROUP, top(LEAVE_GROUP), { groupId: GROUP, memberId });
      expect(leave.body).toMatchObject({ throttleTimeMs: 0, errorCode: NONE });
      const heartbeat = await c().call(HEARTBEAT, top(HEARTBEAT), {
        groupId: GROUP,
        generationId,
        memberId,
        groupInstanceId: null,
      });
      expect(heartbeat.body).toMatchObject({ errorCode: UNKNOWN_MEMBER_ID });
    });
  });

  describe("transactions: InitProducerId, AddPartitionsToTxn, AddOffsetsToTxn, TxnOffsetCommit, EndTxn", () => {
    it("runs a transaction to its commit", async () => {
      const coordinator = await c().call(FIND_COORDINATOR, top(FIND_COORDINATOR), {
        key: TRANSACTIONAL_ID,
        keyType: 1,
      });
      expect(coordinator.body).toMatchObject({ errorCode: NONE, nodeId: 1, host: mock!.host, port: mock!.port });

      // InitProducerId is flexible from v2: request header v2, response header v1.
      const init = await c().call<{ producerId: bigint; producerEpoch: number }>(
        INIT_PRODUCER_ID,
        top(INIT_PRODUCER_ID),
        {
          transactionalId: TRANSACTIONAL_ID,
          transactionTimeoutMs: 60_000,
          producerId: -1n,
          producerEpoch: -1,
        },
      );
      expect(top(INIT_PRODUCER_ID)).toBeGreaterThanOrEqual(2);
      expect(init.decoded.headerVersion).toBe(1);
      expect(init.body).toMatchObject({ throttleTimeMs: 0, errorCode: NONE, producerEpoch: 0 });
      const { producerId, producerEpoch } = init.body;
      expect(producerId).toBeGreaterThan(0n);

      const add = await c().call(ADD_PARTITIONS_TO_TXN, top(ADD_PARTITIONS_TO_TXN), {
        v3AndBelowTransactionalId: TRANSACTIONAL_ID,
        v3AndBelowProducerId: producerId,
        v3AndBelowProducerEpoch: producerEpoch,
        v3AndBelowTopics: [{ name: TOPIC, partitions: [0] }],
      });
      expect(add.body).toMatchObject({
        throttleTimeMs: 0,
        resultsByTopicV3AndBelow: [
          { name: TOPIC, resultsByPartition: [{ partitionIndex: 0, partitionErrorCode: NONE }] },
        ],
      });

      const addOffsets = await c().call(ADD_OFFSETS_TO_TXN, top(ADD_OFFSETS_TO_TXN), {
        transactionalId: TRANSACTIONAL_ID,
        producerId,
        producerEpoch,
        groupId: GROUP,
      });
      expect(addOffsets.body).toMatchObject({ throttleTimeMs: 0, errorCode: NONE });

      const commit = await c().call(TXN_OFFSET_COMMIT, top(TXN_OFFSET_COMMIT), {
        transactionalId: TRANSACTIONAL_ID,
        groupId: GROUP,
        producerId,
        producerEpoch,
        topics: [
          {
            name: TOPIC,
            partitions: [{ partitionIndex: 0, committedOffset: 1n, committedLeaderEpoch: -1, committedMetadata: null }],
          },
        ],
      });
      expect(commit.body).toMatchObject({
        throttleTimeMs: 0,
        topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0, errorCode: NONE }] }],
      });

      const staleEpoch = await c().call(END_TXN, top(END_TXN), {
        transactionalId: TRANSACTIONAL_ID,
        producerId,
        producerEpoch: producerEpoch + 1,
        committed: true,
      });
      expect(staleEpoch.body).toMatchObject({ errorCode: INVALID_PRODUCER_EPOCH });
      const end = await c().call(END_TXN, top(END_TXN), {
        transactionalId: TRANSACTIONAL_ID,
        producerId,
        producerEpoch,
        committed: true,
      });
      expect(end.body).toMatchObject({ throttleTimeMs: 0, errorCode: NONE });
    });
  });

  it("sent every API of the overlap at its highest common version, each with its own correlation id", () => {
    expect(overlap.size).toBeGreaterThan(0);
    const ids = c().sent.map((s) => s.correlationId);
    expect(new Set(ids).size).toBe(ids.length);
    const sent = new Set(c().sent.map(({ apiKey, apiVersion }) => `${apiKey}@${apiVersion}`));
    const missing = [...overlap]
      .filter(([apiKey, r]) => !sent.has(`${apiKey}@${r.max}`))
      .map(([, r]) => `${r.name} v${r.max}`);
    expect(missing, "APIs of the overlap without an exchange at their highest common version").toEqual([]);
  });
});
