/**
 * Every version of every API that both kafka-wire's Kafka 4 corpus codecs and a real peer speak,
 * exchanged live against both of librdkafka's mock clusters:
 * - 2.0.2, started by Debian's kcat (`-X test.mock.num.brokers=1`, as in interop-kcat.test.ts);
 * - 2.15.1, built by `.ci/build-librdkafka.sh` and started by test/support/mock-cluster.c.
 *
 * For each peer: ask ApiVersions v2 what it speaks, check the overlap with our codecs against
 * the table below, then send a request at EVERY version of the overlap (flexible ones included)
 * and check each response: it decodes strictly, carries the request's correlation id, re-encodes
 * to the very same bytes, and says what the scenario expects (offsets, error codes, members).
 *
 * Overlap (our corpus ∩ the mock's ApiVersions table, request and response codecs):
 *
 *   api key  name                       2.0.2    2.15.1   flexible from
 *        0   Produce                    3–7      3–10     9
 *        1   Fetch                      4–11     4–16     12 (topic ids from 13)
 *        2   ListOffsets                1–5      1–7      6
 *        3   Metadata                   none     4–12     9 (2.0.2 stops at v2; Kafka 4 starts at v4)
 *        8   OffsetCommit               2–7      2–9      8
 *        9   OffsetFetch                1–5      1–6      6
 *       10   FindCoordinator            0–2      0–3      3
 *       11   JoinGroup                  2–5      2–6      6
 *       12   Heartbeat                  0–3      0–4      4
 *       13   LeaveGroup                 0–1      0–4      4
 *       14   SyncGroup                  0–3      0–4      4
 *       18   ApiVersions                0–2      0–2      3
 *       22   InitProducerId             0–4      0–4      2
 *       23   OffsetForLeaderEpoch       none     2        4
 *       24   AddPartitionsToTxn         0–1      0–1      3
 *       25   AddOffsetsToTxn            0–1      0–1      3
 *       26   EndTxn                     0–1      0–1      3
 *       28   TxnOffsetCommit            0–2      0–3      3
 *       68   ConsumerGroupHeartbeat     none     1        0
 *       71   GetTelemetrySubscriptions  none     0        0
 *       72   PushTelemetry              none     0        0
 *
 * (2.15.1 also advertises ShareGroupHeartbeat, ShareFetch and ShareAcknowledge v1; our corpus
 * has v0 only, so they are not in the overlap.)
 *
 * The mocks' defects, each pinned with the mock's bytes; kafka-wire's result on each malformed
 * reply is a KafkaDecodeError with its code, field path and byte offset:
 *
 *   defect                                                        2.0.2   2.15.1   pinned in
 *   ApiVersions v3/v4 reply well-formed in no version              yes     yes      here
 *   Produce v5 reply lacks LogStartOffset (written from v6)        yes     yes      here
 *   ListOffsets v4/v5 LeaderEpoch written as an int64              yes     no       here
 *   flexible Metadata replies end with one extra 00                –       yes      here
 *   Metadata names controller id 0 (no broker 0 exists)            –       yes      here
 *   LeaveGroup v3/v4: request misread, reply lacks Members         –       yes      here
 *   JoinGroup v6: protocol count read as int32, connection closed  –       yes      interop-librdkafka-2.15.test.ts
 *   SyncGroup v4 request underflows, connection closed             –       yes      interop-librdkafka-2.15.test.ts
 *   ConsumerGroupHeartbeat v1, topic names + null regex: abort     –       yes      interop-librdkafka-2.15.test.ts
 *
 * The last three get no reply at all, so the sweep caps those versions (JoinGroup ≤ 5,
 * SyncGroup ≤ 3) and sends ConsumerGroupHeartbeat with regex "" (as librdkafka itself does).
 */

import { afterAll, beforeAll, expect, it } from "vitest";
import { KafkaDecodeError, type Protocol } from "../src/runtime/index.js";
import { corpusIndex } from "./support/corpus.js";
import { findKcat, hex, KafkaTestClient, recordBatch, startKcatMock } from "./support/kcat.js";
import {
  apiVersionsV3,
  type Body,
  corr,
  type Defect,
  findLibrdkafka,
  LIBRDKAFKA_VERSION,
  LIBRDKAFKA_VERSION_STRING,
  librdkafkaMissing,
  metadataTrailingZero,
  peerMissing,
  startMockCluster,
  thrown,
} from "./support/librdkafka.js";
import { describeShared } from "./support/shared.js";

const TOPIC = "kafka-wire-versions";
const PARTITIONS = 4;
const ZERO_UUID = "AAAAAAAAAAAAAAAAAAAAAA";
const STARTUP_TIMEOUT_MS = 15_000;
const RESPONSE_TIMEOUT_MS = 5_000;
/** 2.0.2's mock holds a new group's JoinGroup for its initial rebalance delay (3 s). */
const JOIN_TIMEOUT_MS = 10_000;

/** Kafka's error codes the mocks return below. */
const NONE = 0;
const UNKNOWN_MEMBER_ID = 25;

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
const OFFSET_FOR_LEADER_EPOCH = 23;
const ADD_PARTITIONS_TO_TXN = 24;
const ADD_OFFSETS_TO_TXN = 25;
const END_TXN = 26;
const TXN_OFFSET_COMMIT = 28;
const CONSUMER_GROUP_HEARTBEAT = 68;
const GET_TELEMETRY_SUBSCRIPTIONS = 71;
const PUSH_TELEMETRY = 72;

const utf8 = (s: string) => new TextEncoder().encode(s);
const hexOf = (s: string) => hex(utf8(s));
const i64 = (n: bigint) => BigInt.asUintN(64, n).toString(16).padStart(16, "0");

/** What differs between the two mocks. */
interface PeerSpec {
  readonly title: string;
  /** Why it cannot run here, or null. */
  readonly missing: () => string | null;
  readonly start: () => Promise<{ host: string; port: number; stop(): Promise<void> }>;
  /** The overlap this mock has with our corpus (the table above): api key → [min, max]. */
  readonly overlap: Readonly<Record<number, readonly [number, number]>>;
  /** Versions the sweep does not send: the mock gives no reply (pinned in interop-librdkafka-2.15.test.ts). */
  readonly caps: Readonly<Record<number, number>>;
  /** Malformed replies, by `apiKey@version`. */
  readonly defects: ReadonlyMap<string, Defect>;
  /** The controller id Metadata reports. */
  readonly controllerId?: number;
  /** The partition leader epoch the mock writes into a stored batch (ours says -1). */
  readonly storedLeaderEpoch: number;
}

/**
 * ProduceResponse has LogStartOffset from v5 (Kafka's ProduceResponse.json: "Version 5 added
 * LogStartOffset"); both mocks write it from v6 (`ApiVersion >= 6` in rdkafka_mock_handlers.c),
 * so a v5 partition response ends after LogAppendTimeMs and the int32 ThrottleTimeMs is read as
 * the first half of LogStartOffset. 59 (0x3b) bytes after the size:
 *
 *   0000003b | correlation id | 00000001 topics | 0013 "kafka-wire-versions" | 00000001 partitions
 *   | 00000000 index | 0000 error | BaseOffset (int64) | 00000000000004d2 LogAppendTimeMs 1234
 *   | 00000000 ThrottleTimeMs
 *
 * Returns the fields read by hand from those bytes.
 */
const produceV5: Defect = (exchange, protocol) => {
  const response = hex(exchange.response);
  const baseOffset = BigInt(`0x${response.slice(-40, -24)}`);
  expect(response).toBe(
    `0000003b${corr(exchange)}00000001` +
      `0013${hexOf(TOPIC)}` +
      `00000001000000000000${i64(baseOffset)}00000000000004d2` +
      "00000000",
  );
  const e = thrown(() => protocol.decodeResponseFrame(exchange.response, PRODUCE, 5));
  expect(e).toBeInstanceOf(KafkaDecodeError);
  expect(e).toMatchObject({
    code: "BUFFER_UNDERFLOW",
    path: "responses[0].partitionResponses[0].logStartOffset",
    offset: exchange.response.length - 4,
  });
  return {
    responses: [
      { name: TOPIC, partitionResponses: [{ index: 0, errorCode: NONE, baseOffset, logAppendTimeMs: 1234n }] },
    ],
  };
};

/**
 * 2.0.2 writes ListOffsets v4+'s int32 LeaderEpoch as an int64 (documented in
 * interop-kcat.test.ts): the partition ends with ffffffffffffffff, 4 bytes after the body.
 */
const listOffsetsInt64Epoch: Defect = (exchange, protocol) => {
  expect(hex(exchange.response.subarray(-8))).toBe("ffffffffffffffff");
  const e = thrown(() => protocol.decodeResponseFrame(exchange.response, LIST_OFFSETS, exchange.apiVersion));
  expect(e).toBeInstanceOf(KafkaDecodeError);
  expect(e).toMatchObject({ code: "TRAILING_BYTES", path: "", offset: exchange.response.length - 4 });
  return protocol.decodeResponseFrame(exchange.response, LIST_OFFSETS, exchange.apiVersion, {
    allowTrailingBytes: true,
  }).body as Body;
};

/**
 * LeaveGroup v3 (KIP-345) replaced MemberId with a Members array in both request and response.
 * 2.15.1's mock still reads a v0 MemberId (so it reads the array's count as a member id and
 * answers UNKNOWN_MEMBER_ID, 0019) and writes no Members:
 *   v3: 0000000a | correlation id | 00000000 ThrottleTimeMs | 0019 ErrorCode        (Members missing)
 *   v4: 0000000c | correlation id | 00 header tags | 00000000 | 0019 | 00 tags      (Members missing)
 * In v4 the final 00 reads as Members' compact count 0, i.e. null.
 */
const leaveGroupNoMembers: Defect = (exchange, protocol) => {
  const v = exchange.apiVersion;
  expect(hex(exchange.response)).toBe(
    v === 3 ? `0000000a${corr(exchange)}000000000019` : `0000000c${corr(exchange)}00000000000019` + "00",
  );
  const e = thrown(() => protocol.decodeResponseFrame(exchange.response, LEAVE_GROUP, v));
  expect(e).toBeInstanceOf(KafkaDecodeError);
  expect(e).toMatchObject(
    v === 3
      ? { code: "BUFFER_UNDERFLOW", path: "members", offset: 14 }
      : { code: "NULL_NOT_ALLOWED", path: "members", offset: 15 },
  );
  return null;
};

const kcat = findKcat();
const librdkafka = findLibrdkafka();

const PEERS: readonly PeerSpec[] = [
  {
    title: "librdkafka 2.0.2 mock (Debian's kcat)",
    missing: () => (kcat === null ? "kcat is not on PATH (Debian: apt-get install kcat; .ci/run installs it)" : null),
    start: () => startKcatMock({ kcat: kcat!, topic: TOPIC, timeoutMs: STARTUP_TIMEOUT_MS }),
    overlap: {
      [PRODUCE]: [3, 7],
      [FETCH]: [4, 11],
      [LIST_OFFSETS]: [1, 5],
      [OFFSET_COMMIT]: [2, 7],
      [OFFSET_FETCH]: [1, 5],
      [FIND_COORDINATOR]: [0, 2],
      [JOIN_GROUP]: [2, 5],
      [HEARTBEAT]: [0, 3],
      [LEAVE_GROUP]: [0, 1],
      [SYNC_GROUP]: [0, 3],
      [API_VERSIONS]: [0, 2],
      [INIT_PRODUCER_ID]: [0, 4],
      [ADD_PARTITIONS_TO_TXN]: [0, 1],
      [ADD_OFFSETS_TO_TXN]: [0, 1],
      [END_TXN]: [0, 1],
      [TXN_OFFSET_COMMIT]: [0, 2],
    },
    caps: {},
    defects: new Map<string, Defect>([
      [`${API_VERSIONS}@3`, apiVersionsV3],
      [`${API_VERSIONS}@4`, apiVersionsV3],
      [`${PRODUCE}@5`, produceV5],
      [`${LIST_OFFSETS}@4`, listOffsetsInt64Epoch],
      [`${LIST_OFFSETS}@5`, listOffsetsInt64Epoch],
    ]),
    storedLeaderEpoch: -1,
  },
  {
    title: `librdkafka ${LIBRDKAFKA_VERSION} mock (mock-cluster)`,
    missing: () => (librdkafka === null ? librdkafkaMissing() : null),
    start: async () => {
      const mock = await startMockCluster({
        mockCluster: librdkafka!.mockCluster,
        topics: [{ name: TOPIC, partitions: PARTITIONS }],
        rebalanceDelayMs: 0,
        timeoutMs: STARTUP_TIMEOUT_MS,
      });
      expect(mock.version, "the mock's librdkafka (a stale build: run bash .ci/build-librdkafka.sh)").toBe(
        LIBRDKAFKA_VERSION_STRING,
      );
      return mock;
    },
    overlap: {
      [PRODUCE]: [3, 10],
      [FETCH]: [4, 16],
      [LIST_OFFSETS]: [1, 7],
      [METADATA]: [4, 12],
      [OFFSET_COMMIT]: [2, 9],
      [OFFSET_FETCH]: [1, 6],
      [FIND_COORDINATOR]: [0, 3],
      [JOIN_GROUP]: [2, 6],
      [HEARTBEAT]: [0, 4],
      [LEAVE_GROUP]: [0, 4],
      [SYNC_GROUP]: [0, 4],
      [API_VERSIONS]: [0, 2],
      [INIT_PRODUCER_ID]: [0, 4],
      [OFFSET_FOR_LEADER_EPOCH]: [2, 2],
      [ADD_PARTITIONS_TO_TXN]: [0, 1],
      [ADD_OFFSETS_TO_TXN]: [0, 1],
      [END_TXN]: [0, 1],
      [TXN_OFFSET_COMMIT]: [0, 3],
      [CONSUMER_GROUP_HEARTBEAT]: [1, 1],
      [GET_TELEMETRY_SUBSCRIPTIONS]: [0, 0],
      [PUSH_TELEMETRY]: [0, 0],
    },
    caps: { [JOIN_GROUP]: 5, [SYNC_GROUP]: 3 },
    defects: new Map<string, Defect>([
      [`${API_VERSIONS}@3`, apiVersionsV3],
      [`${API_VERSIONS}@4`, apiVersionsV3],
      [`${PRODUCE}@5`, produceV5],
      ...[9, 10, 11, 12].map((v): [string, Defect] => [`${METADATA}@${v}`, metadataTrailingZero]),
      [`${LEAVE_GROUP}@3`, leaveGroupNoMembers],
      [`${LEAVE_GROUP}@4`, leaveGroupNoMembers],
    ]),
    controllerId: 0,
    storedLeaderEpoch: 0,
  },
];

for (const peer of PEERS) {
  describeShared(`interop at every common version: ${peer.title}`, "kafka-schemas", () => {
    const why = peer.missing();
    if (why !== null) {
      peerMissing(peer.title, why);
      return;
    }

    let protocol: Protocol;
    let messages: Awaited<ReturnType<typeof corpusIndex>>["messages"];
    let mock: { host: string; port: number; stop(): Promise<void> } | undefined;
    let client: KafkaTestClient | undefined;
    const clients: KafkaTestClient[] = [];
    /** Every (api key, version) exchanged, as `apiKey@version`. */
    const exercised = new Set<string>();
    let overlap = new Map<number, { min: number; max: number }>();
    let topicId = ZERO_UUID;
    let produced = 0;

    const c = (): KafkaTestClient => {
      if (client === undefined) throw new Error("not connected");
      return client;
    };
    const connect = async (): Promise<KafkaTestClient> => {
      const extra = await KafkaTestClient.connect(mock!.host, mock!.port, protocol, { timeoutMs: RESPONSE_TIMEOUT_MS });
      clients.push(extra);
      return extra;
    };
    /** The versions the sweep sends: the overlap, without the capped ones. */
    const versions = (apiKey: number): number[] => {
      const range = overlap.get(apiKey);
      if (range === undefined) return [];
      const max = Math.min(range.max, peer.caps[apiKey] ?? range.max);
      return Array.from({ length: max - range.min + 1 }, (_, i) => range.min + i);
    };

    /**
     * One exchange: a well-formed reply must decode strictly, carry the correlation id and
     * re-encode to the same bytes; a known defect is checked by its own function. Returns the
     * body (null when a defect leaves none).
     */
    const send = async (
      via: KafkaTestClient,
      apiKey: number,
      version: number,
      init: Body,
      timeoutMs = RESPONSE_TIMEOUT_MS,
    ): Promise<Body | null> => {
      const request = protocol.api(apiKey).request.create(init);
      const exchange = await via.exchange(apiKey, version, request, timeoutMs);
      exercised.add(`${apiKey}@${version}`);
      const defect = peer.defects.get(`${apiKey}@${version}`);
      if (defect !== undefined) return defect(exchange, protocol);
      const decoded =
        apiKey === API_VERSIONS
          ? protocol.decodeApiVersionsResponseFrame(exchange.response, version)
          : protocol.decodeResponseFrame(exchange.response, apiKey, version);
      expect(decoded.apiVersion, `${protocol.api(apiKey).name} v${version}`).toBe(version);
      expect(decoded.header.correlationId).toBe(exchange.correlationId);
      const again = protocol.encodeResponseFrame(
        { apiKey, apiVersion: version, correlationId: exchange.correlationId },
        decoded.body,
      );
      expect(hex(again), `${protocol.api(apiKey).name} v${version} re-encoded`).toBe(hex(exchange.response));
      return decoded.body as Body;
    };
    /** `send` for a reply that must be well-formed. */
    const call = async (via: KafkaTestClient, apiKey: number, version: number, init: Body, timeoutMs?: number) => {
      const body = await send(via, apiKey, version, init, timeoutMs);
      if (body === null) throw new Error(`${protocol.api(apiKey).name} v${version}: no body`);
      return body;
    };

    beforeAll(
      async () => {
        ({ protocol, messages } = await corpusIndex());
        mock = await peer.start();
        client = await KafkaTestClient.connect(mock.host, mock.port, protocol, { timeoutMs: RESPONSE_TIMEOUT_MS });
      },
      STARTUP_TIMEOUT_MS + RESPONSE_TIMEOUT_MS + 5_000,
    );

    afterAll(async () => {
      client?.close();
      for (const extra of clients) extra.close();
      await mock?.stop();
    }, 10_000);

    it("ApiVersions v0–v2 give one table; its overlap with our codecs is the table above; v3/v4 are malformed", async () => {
      const tables: unknown[] = [];
      const { lowest, highest } = protocol.api(API_VERSIONS).request.validVersions;
      for (let v = lowest; v <= highest; v++) {
        const body = await send(
          c(),
          API_VERSIONS,
          v,
          v >= 3 ? { clientSoftwareName: "kafka-wire", clientSoftwareVersion: "0.1.0" } : {},
        );
        if (v <= 2) {
          expect(body).toMatchObject({ errorCode: NONE });
          tables.push(body!["apiKeys"]);
        } else {
          expect(body, `ApiVersions v${v}`).toBeNull(); // a defect: see apiVersionsV3
        }
      }
      expect(tables).toHaveLength(3);
      expect(tables[1]).toEqual(tables[0]);
      expect(tables[2]).toEqual(tables[0]);

      for (const { apiKey, minVersion, maxVersion } of tables[2] as Body[]) {
        const api = protocol.apis.get(apiKey);
        if (api === undefined) continue;
        const min = Math.max(minVersion, api.request.validVersions.lowest, api.response.validVersions.lowest);
        const max = Math.min(maxVersion, api.request.validVersions.highest, api.response.validVersions.highest);
        if (min <= max) overlap.set(apiKey, { min, max });
      }
      const measured = Object.fromEntries([...overlap].map(([k, r]) => [k, [r.min, r.max]]));
      expect(measured).toEqual(peer.overlap);
    });

    it("Metadata at every common version: the topic, its partitions and our broker", async () => {
      if (peer.overlap[METADATA] === undefined) {
        // 2.0.2: Metadata v0–v2 only; Kafka 4 starts at v4 (KIP-896).
        expect(overlap.has(METADATA)).toBe(false);
        return;
      }
      for (const v of versions(METADATA)) {
        const body = await send(c(), METADATA, v, {
          topics: [{ name: TOPIC, topicId: ZERO_UUID }],
          allowAutoTopicCreation: false,
        });
        expect(body, `Metadata v${v}`).toMatchObject({
          brokers: [{ nodeId: 1, host: mock!.host, port: mock!.port }],
          topics: [{ errorCode: NONE, name: TOPIC }],
        });
        // "Metadata reports controller id 0": no broker 0 exists in a cluster of broker 1.
        expect(body!["controllerId"]).toBe(peer.controllerId);
        const partitions = body!["topics"][0].partitions as Body[];
        expect(partitions.map((p) => p["partitionIndex"]).sort()).toEqual([0, 1, 2, 3]);
        expect(partitions.every((p) => p["leaderId"] === 1 && p["errorCode"] === NONE)).toBe(true);
        if (v >= 10) {
          // Topic ids (KIP-516) from v10: the same non-zero id every time.
          const id = body!["topics"][0].topicId as string;
          expect(id).not.toBe(ZERO_UUID);
          if (topicId !== ZERO_UUID) expect(id).toBe(topicId);
          topicId = id;
        }
      }
    });

    const batch = recordBatch(utf8("key"), utf8("kafka-wire at every version"), 1_700_000_000_000n);

    it("Produce at every common version: one batch each, at consecutive base offsets", async () => {
      const vs = versions(PRODUCE);
      expect(vs.length).toBeGreaterThan(0);
      for (const v of vs) {
        const body = await send(c(), PRODUCE, v, {
          transactionalId: null,
          acks: -1,
          timeoutMs: 5000,
          topicData: [{ name: TOPIC, partitionData: [{ index: 0, records: batch }] }],
        });
        expect(body, `Produce v${v}`).toMatchObject({
          responses: [
            {
              name: TOPIC,
              partitionResponses: [{ index: 0, errorCode: NONE, baseOffset: BigInt(produced), logAppendTimeMs: 1234n }],
            },
          ],
        });
        produced++;
      }
    });

    it("Fetch at every common version: the first batch comes back byte for byte, the high watermark counts them all", async () => {
      const vs = versions(FETCH);
      expect(vs.length).toBeGreaterThan(0);
      if (vs.some((v) => v >= 13)) expect(topicId).not.toBe(ZERO_UUID);
      for (const v of vs) {
        const body = await call(c(), FETCH, v, {
          maxWaitMs: 100,
          minBytes: 1,
          maxBytes: 1 << 20,
          isolationLevel: 0,
          sessionId: 0,
          sessionEpoch: -1,
          topics: [
            {
              // Names until v12, topic ids (KIP-516) from v13.
              topic: v >= 13 ? "" : TOPIC,
              topicId: v >= 13 ? topicId : ZERO_UUID,
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
        });
        expect(body, `Fetch v${v}`).toMatchObject({
          errorCode: NONE,
          responses: [
            {
              topic: v >= 13 ? "" : TOPIC,
              topicId: v >= 13 ? topicId : ZERO_UUID,
              partitions: [
                {
                  partitionIndex: 0,
                  errorCode: NONE,
                  highWatermark: BigInt(produced),
                  lastStableOffset: BigInt(produced),
                },
              ],
            },
          ],
        });
        // The batch as the mock stores it: base offset 0 and the partition leader epoch are the
        // broker's to set (neither is covered by the CRC); every other byte is ours.
        const records = body["responses"][0].partitions[0].records as Uint8Array;
        const stored = new DataView(records.buffer, records.byteOffset, records.byteLength);
        expect(stored.getBigInt64(0), `Fetch v${v}: base offset`).toBe(0n);
        expect(stored.getInt32(12), `Fetch v${v}: partition leader epoch`).toBe(peer.storedLeaderEpoch);
        expect(hex(records.subarray(8, 12)), `Fetch v${v}: batch length`).toBe(hex(batch.subarray(8, 12)));
        expect(hex(records.subarray(16, batch.length)), `Fetch v${v}: from magic on`).toBe(hex(batch.subarray(16)));
      }
    });

    it("ListOffsets at every common version: the latest offset", async () => {
      for (const v of versions(LIST_OFFSETS)) {
        const body = await send(c(), LIST_OFFSETS, v, {
          replicaId: -1,
          isolationLevel: 0,
          topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1n }] }],
        });
        expect(body, `ListOffsets v${v}`).toMatchObject({
          topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0, errorCode: NONE, offset: BigInt(produced) }] }],
        });
      }
    });

    it("OffsetForLeaderEpoch and FindCoordinator at every common version", async () => {
      for (const v of versions(OFFSET_FOR_LEADER_EPOCH)) {
        const body = await call(c(), OFFSET_FOR_LEADER_EPOCH, v, {
          replicaId: -2,
          topics: [{ topic: TOPIC, partitions: [{ partition: 0, currentLeaderEpoch: -1, leaderEpoch: 0 }] }],
        });
        expect(body).toMatchObject({
          topics: [{ topic: TOPIC, partitions: [{ errorCode: NONE, partition: 0, endOffset: BigInt(produced) }] }],
        });
      }
      const vs = versions(FIND_COORDINATOR);
      expect(vs.length).toBeGreaterThan(0);
      for (const v of vs) {
        const body = await call(c(), FIND_COORDINATOR, v, { key: "g0", keyType: 0 });
        expect(body, `FindCoordinator v${v}`).toMatchObject({
          errorCode: NONE,
          nodeId: 1,
          host: mock!.host,
          port: mock!.port,
        });
      }
    });

    it(
      "classic group: JoinGroup, SyncGroup, Heartbeat, OffsetCommit, OffsetFetch and LeaveGroup at every common version",
      async () => {
        const joins = versions(JOIN_GROUP);
        const syncs = versions(SYNC_GROUP);
        const leaves = versions(LEAVE_GROUP);
        expect(joins.length * syncs.length * leaves.length).toBeGreaterThan(0);
        // One single-member group per join, sync and leave version: member i joins with
        // joins[i % n] and syncs with syncs[i % n]; the first |leaves| members leave with one version each.
        const count = Math.max(joins.length, syncs.length, leaves.length);
        const subscriptionCodec = messages["ConsumerProtocolSubscription"]!;
        const subscription = new Uint8Array([
          0,
          0,
          ...subscriptionCodec.encode(subscriptionCodec.create({ topics: [TOPIC], userData: null }), 0),
        ]);
        const assignmentCodec = messages["ConsumerProtocolAssignment"]!;

        // The mock blocks a connection while it holds a JoinGroup: one connection per member, joined together.
        const members = await Promise.all(
          Array.from({ length: count }, async (_, i) => {
            const via = await connect();
            const groupId = `versions-g${i}`;
            const v = joins[i % joins.length]!;
            const join = await call(
              via,
              JOIN_GROUP,
              v,
              {
                groupId,
                sessionTimeoutMs: 30_000,
                rebalanceTimeoutMs: 30_000,
                memberId: "",
                groupInstanceId: null,
                protocolType: "consumer",
                protocols: [{ name: "range", metadata: subscription }],
              },
              JOIN_TIMEOUT_MS,
            );
            const memberId = join["memberId"] as string;
            expect(join, `JoinGroup v${v}`).toMatchObject({
              errorCode: NONE,
              protocolName: "range",
              leader: memberId,
              members: [{ memberId, metadata: subscription }],
            });
            return { via, groupId, memberId, generationId: join["generationId"] as number };
          }),
        );

        for (const [i, m] of members.entries()) {
          const v = syncs[i % syncs.length]!;
          const assigned = { assignedPartitions: [{ topic: TOPIC, partitions: [0, 1, 2, 3] }], userData: null };
          const assignment = new Uint8Array([0, 0, ...assignmentCodec.encode(assignmentCodec.create(assigned), 0)]);
          const sync = await call(m.via, SYNC_GROUP, v, {
            groupId: m.groupId,
            generationId: m.generationId,
            memberId: m.memberId,
            groupInstanceId: null,
            protocolType: "consumer",
            protocolName: "range",
            assignments: [{ memberId: m.memberId, assignment }],
          });
          expect(sync, `SyncGroup v${v}`).toMatchObject({ errorCode: NONE });
          expect(hex(sync["assignment"] as Uint8Array)).toBe(hex(assignment));
        }

        const first = members[0]!;
        for (const v of versions(HEARTBEAT)) {
          const body = await call(first.via, HEARTBEAT, v, {
            groupId: first.groupId,
            generationId: first.generationId,
            memberId: first.memberId,
            groupInstanceId: null,
          });
          expect(body, `Heartbeat v${v}`).toMatchObject({ errorCode: NONE });
        }

        // Each commit stores the version it was sent with, so OffsetFetch shows the last one.
        const commits = versions(OFFSET_COMMIT);
        expect(commits.length).toBeGreaterThan(0);
        for (const v of commits) {
          const body = await call(first.via, OFFSET_COMMIT, v, {
            groupId: first.groupId,
            generationIdOrMemberEpoch: first.generationId,
            memberId: first.memberId,
            groupInstanceId: null,
            retentionTimeMs: -1n,
            topics: [
              {
                name: TOPIC,
                partitions: [
                  {
                    partitionIndex: 0,
                    committedOffset: BigInt(v),
                    committedLeaderEpoch: -1,
                    committedMetadata: `v${v}`,
                  },
                ],
              },
            ],
          });
          expect(body, `OffsetCommit v${v}`).toMatchObject({
            topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0, errorCode: NONE }] }],
          });
        }
        const last = commits[commits.length - 1]!;
        for (const v of versions(OFFSET_FETCH)) {
          const body = await call(first.via, OFFSET_FETCH, v, {
            groupId: first.groupId,
            topics: [{ name: TOPIC, partitionIndexes: [0, 1] }],
          });
          expect(body, `OffsetFetch v${v}`).toMatchObject({
            errorCode: NONE,
            topics: [
              {
                name: TOPIC,
                partitions: [
                  { partitionIndex: 0, committedOffset: BigInt(last), metadata: `v${last}`, errorCode: NONE },
                  { partitionIndex: 1, committedOffset: -1n, metadata: null, errorCode: NONE },
                ],
              },
            ],
          });
        }

        for (const [i, v] of leaves.entries()) {
          const m = members[i]!;
          // LeaveGroup v3 (KIP-345) names the members in an array.
          const body = await send(
            m.via,
            LEAVE_GROUP,
            v,
            v >= 3
              ? { groupId: m.groupId, members: [{ memberId: m.memberId, groupInstanceId: null }] }
              : { groupId: m.groupId, memberId: m.memberId },
          );
          const heartbeat = await call(m.via, HEARTBEAT, versions(HEARTBEAT)[0]!, {
            groupId: m.groupId,
            generationId: m.generationId,
            memberId: m.memberId,
            groupInstanceId: null,
          });
          if (body === null) {
            // The defect: the mock did not find the member, which therefore is still there.
            expect(heartbeat, `Heartbeat after LeaveGroup v${v}`).toMatchObject({ errorCode: NONE });
          } else {
            expect(body, `LeaveGroup v${v}`).toMatchObject({ errorCode: NONE });
            expect(heartbeat, `Heartbeat after LeaveGroup v${v}`).toMatchObject({ errorCode: UNKNOWN_MEMBER_ID });
          }
        }
      },
      JOIN_TIMEOUT_MS + 20_000,
    );

    it("transactions: InitProducerId, AddPartitionsToTxn, AddOffsetsToTxn, TxnOffsetCommit and EndTxn at every common version", async () => {
      const sets = [INIT_PRODUCER_ID, ADD_PARTITIONS_TO_TXN, ADD_OFFSETS_TO_TXN, TXN_OFFSET_COMMIT, END_TXN].map(
        versions,
      );
      expect(sets.every((s) => s.length > 0)).toBe(true);
      const [inits, adds, addOffsets, txnCommits, ends] = sets as [number[], number[], number[], number[], number[]];
      // One committed transaction per version of the API with the most versions.
      const count = Math.max(...sets.map((s) => s.length));
      const pick = (s: number[], i: number) => s[i % s.length]!;
      for (let i = 0; i < count; i++) {
        const transactionalId = `versions-tx${i}`;
        const init = await call(c(), INIT_PRODUCER_ID, pick(inits, i), {
          transactionalId,
          transactionTimeoutMs: 60_000,
          producerId: -1n,
          producerEpoch: -1,
        });
        expect(init).toMatchObject({ errorCode: NONE, producerEpoch: 0 });
        const producerId = init["producerId"] as bigint;
        const producerEpoch = init["producerEpoch"] as number;
        expect(producerId).toBeGreaterThan(0n);

        const add = await call(c(), ADD_PARTITIONS_TO_TXN, pick(adds, i), {
          v3AndBelowTransactionalId: transactionalId,
          v3AndBelowProducerId: producerId,
          v3AndBelowProducerEpoch: producerEpoch,
          v3AndBelowTopics: [{ name: TOPIC, partitions: [0] }],
        });
        expect(add).toMatchObject({
          resultsByTopicV3AndBelow: [
            { name: TOPIC, resultsByPartition: [{ partitionIndex: 0, partitionErrorCode: NONE }] },
          ],
        });
        const offsets = await call(c(), ADD_OFFSETS_TO_TXN, pick(addOffsets, i), {
          transactionalId,
          producerId,
          producerEpoch,
          groupId: "versions-g0",
        });
        expect(offsets).toMatchObject({ errorCode: NONE });
        const commit = await call(c(), TXN_OFFSET_COMMIT, pick(txnCommits, i), {
          transactionalId,
          groupId: "versions-g0",
          producerId,
          producerEpoch,
          generationId: -1,
          memberId: "",
          groupInstanceId: null,
          topics: [
            {
              name: TOPIC,
              partitions: [
                { partitionIndex: 0, committedOffset: 1n, committedLeaderEpoch: -1, committedMetadata: null },
              ],
            },
          ],
        });
        expect(commit).toMatchObject({
          topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0, errorCode: NONE }] }],
        });
        const end = await call(c(), END_TXN, pick(ends, i), {
          transactionalId,
          producerId,
          producerEpoch,
          committed: true,
        });
        expect(end).toMatchObject({ errorCode: NONE });
      }
      // Without a transactional id: an idempotent producer id, at every version.
      for (const v of inits) {
        const body = await call(c(), INIT_PRODUCER_ID, v, {
          transactionalId: null,
          transactionTimeoutMs: 60_000,
          producerId: -1n,
          producerEpoch: -1,
        });
        expect(body, `InitProducerId v${v}`).toMatchObject({ errorCode: NONE, producerEpoch: 0 });
      }
    });

    it("KIP-848 ConsumerGroupHeartbeat: join, acknowledge the assignment, leave", async () => {
      const vs = versions(CONSUMER_GROUP_HEARTBEAT);
      if (peer.overlap[CONSUMER_GROUP_HEARTBEAT] === undefined) {
        expect(vs).toEqual([]);
        return;
      }
      expect(topicId).not.toBe(ZERO_UUID); // from Metadata v10+
      for (const v of vs) {
        const groupId = `versions-cg-v${v}`;
        // KIP-1082 (v1): the member id is chosen by the client.
        const memberId = "a2Fma2Etd2lyZS12ZXJzaW";
        const base = { groupId, memberId, instanceId: null, rackId: null, serverAssignor: null };
        const join = await call(c(), CONSUMER_GROUP_HEARTBEAT, v, {
          ...base,
          memberEpoch: 0,
          rebalanceTimeoutMs: 30_000,
          subscribedTopicNames: [TOPIC],
          // "" rather than null: a null regex beside topic names aborts 2.15.1's mock.
          subscribedTopicRegex: "",
          topicPartitions: [],
        });
        expect(join).toMatchObject({ errorCode: NONE, memberId });
        const epoch = join["memberEpoch"] as number;
        expect(epoch).toBeGreaterThan(0);
        const assigned = join["assignment"]["topicPartitions"] as { topicId: string; partitions: number[] }[];
        expect(assigned.map((t) => t.topicId)).toEqual([topicId]);
        expect([...assigned[0]!.partitions].sort()).toEqual([0, 1, 2, 3]);

        const ack = await call(c(), CONSUMER_GROUP_HEARTBEAT, v, {
          ...base,
          memberEpoch: epoch,
          rebalanceTimeoutMs: -1,
          subscribedTopicNames: null,
          subscribedTopicRegex: null,
          topicPartitions: assigned,
        });
        expect(ack).toMatchObject({ errorCode: NONE, memberId, memberEpoch: epoch });

        const leave = await call(c(), CONSUMER_GROUP_HEARTBEAT, v, {
          ...base,
          memberEpoch: -1,
          rebalanceTimeoutMs: -1,
          subscribedTopicNames: null,
          subscribedTopicRegex: null,
          topicPartitions: null,
        });
        expect(leave).toMatchObject({ errorCode: NONE, memberEpoch: -1 });
      }
    });

    it("KIP-714 client telemetry: GetTelemetrySubscriptions, then PushTelemetry", async () => {
      if (peer.overlap[GET_TELEMETRY_SUBSCRIPTIONS] === undefined) {
        expect(versions(GET_TELEMETRY_SUBSCRIPTIONS)).toEqual([]);
        return;
      }
      for (const v of versions(GET_TELEMETRY_SUBSCRIPTIONS)) {
        const sub = await call(c(), GET_TELEMETRY_SUBSCRIPTIONS, v, { clientInstanceId: ZERO_UUID });
        expect(sub).toMatchObject({ errorCode: NONE });
        // A zero id asks the broker for one.
        expect(sub["clientInstanceId"]).not.toBe(ZERO_UUID);
        for (const p of versions(PUSH_TELEMETRY)) {
          const push = await call(c(), PUSH_TELEMETRY, p, {
            clientInstanceId: sub["clientInstanceId"],
            subscriptionId: sub["subscriptionId"],
            terminating: false,
            compressionType: 0,
            metrics: new Uint8Array(),
          });
          expect(push).toMatchObject({ errorCode: NONE });
        }
      }
    });

    it("exchanged every (api key, version) of the overlap but the capped ones", () => {
      expect(overlap.size).toBeGreaterThan(0);
      const missing: string[] = [];
      const capped: string[] = [];
      for (const [apiKey, { min, max }] of overlap) {
        for (let v = min; v <= max; v++) {
          if (exercised.has(`${apiKey}@${v}`)) continue;
          const cap = peer.caps[apiKey];
          (cap !== undefined && v > cap ? capped : missing).push(`${protocol.api(apiKey).name} v${v}`);
        }
      }
      expect(missing).toEqual([]);
      expect(capped.sort()).toEqual(
        Object.entries(peer.caps)
          .flatMap(([k, cap]) => {
            const r = overlap.get(Number(k))!;
            return Array.from({ length: r.max - cap }, (_, i) => `${protocol.api(Number(k)).name} v${cap + 1 + i}`);
          })
          .sort(),
      );
      const pairs = [...overlap.values()].reduce((n, r) => n + r.max - r.min + 1, 0);
      console.log(
        `${peer.title}: ${exercised.size} (api key, version) pairs exchanged live; the overlap has ${pairs}, ${capped.length} capped (${capped.join(", ") || "none"})`,
      );
    });
  });
}
