/**
 * librdkafka 2.15.1 (built by `.ci/build-librdkafka.sh`) beyond the version sweep of
 * interop-versions.test.ts:
 * - the mock's defects that get no reply at all (the sweep caps those versions), each pinned:
 *   JoinGroup v6 and SyncGroup v4 close the connection, a ConsumerGroupHeartbeat with topic
 *   names and a null regex aborts the mock process;
 * - Debian's kcat run on the built library (`LD_LIBRARY_PATH`): it no longer auto-creates the
 *   topic it consumes, and with `-X group.protocol=consumer` (KIP-848) it joins, acknowledges
 *   and leaves a group through the mock while a proxy between the two hands every frame to
 *   kafka-wire, which must decode it and re-encode it to the same bytes.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Protocol } from "../src/runtime/index.js";
import { corpusIndex } from "./support/corpus.js";
import { FrameProxy, type ProxiedFrame } from "./support/frame-proxy.js";
import { findKcat, hex, KafkaTestClient, recordBatch, runKcat } from "./support/kcat.js";
import {
  apiVersionsV3,
  type Body,
  type Defect,
  findLibrdkafka,
  LIBRDKAFKA_VERSION,
  LIBRDKAFKA_VERSION_STRING,
  librdkafkaMissing,
  metadataTrailingZero,
  type MockCluster,
  peerMissing,
  startMockCluster,
} from "./support/librdkafka.js";
import { describeShared } from "./support/shared.js";

const TOPIC = "kafka-wire-2-15";
const STARTUP_TIMEOUT_MS = 10_000;
const RESPONSE_TIMEOUT_MS = 5_000;
/** kcat's KIP-848 run takes under a second on the mock (measured); this bounds a hang. */
const KCAT_TIMEOUT_MS = 20_000;

const NONE = 0;
const PRODUCE = 0;
const METADATA = 3;
const JOIN_GROUP = 11;
const SYNC_GROUP = 14;
const API_VERSIONS = 18;
const CONSUMER_GROUP_HEARTBEAT = 68;

const utf8 = (s: string) => new TextEncoder().encode(s);
const hexOf = (s: string) => hex(utf8(s));

/** The malformed replies kcat's own requests run into (see interop-versions.test.ts for all). */
const DEFECTS = new Map<string, Defect>([
  [`${API_VERSIONS}@3`, apiVersionsV3],
  [`${API_VERSIONS}@4`, apiVersionsV3],
  ...[9, 10, 11, 12].map((v): [string, Defect] => [`${METADATA}@${v}`, metadataTrailingZero]),
]);

const librdkafka = findLibrdkafka();
const kcat = findKcat();

describeShared(
  `librdkafka ${LIBRDKAFKA_VERSION}: defects without a reply, and kcat through a decoding proxy`,
  "kafka-schemas",
  () => {
    if (librdkafka === null) {
      peerMissing(`librdkafka ${LIBRDKAFKA_VERSION}`, librdkafkaMissing());
      return;
    }
    let protocol: Protocol;
    let messages: Awaited<ReturnType<typeof corpusIndex>>["messages"];
    beforeAll(async () => {
      ({ protocol, messages } = await corpusIndex());
    });

    describe("the mock's defects that close the connection or abort the process", () => {
      let mock: MockCluster | undefined;
      const clients: KafkaTestClient[] = [];
      const connect = async (to: MockCluster = mock!) => {
        const client = await KafkaTestClient.connect(to.host, to.port, protocol, { timeoutMs: RESPONSE_TIMEOUT_MS });
        clients.push(client);
        return client;
      };
      const subscription = () => {
        const codec = messages["ConsumerProtocolSubscription"]!;
        return new Uint8Array([0, 0, ...codec.encode(codec.create({ topics: [TOPIC], userData: null }), 0)]);
      };
      const joinInit = (groupId: string) => ({
        groupId,
        sessionTimeoutMs: 30_000,
        rebalanceTimeoutMs: 30_000,
        memberId: "",
        groupInstanceId: null,
        protocolType: "consumer",
        protocols: [{ name: "range", metadata: subscription() }],
      });
      /** Our request is a well-formed Kafka frame: it decodes and re-encodes to the same bytes. */
      const expectWellFormed = (request: Uint8Array) => {
        const decoded = protocol.decodeRequestFrame(request);
        const again = protocol.encodeRequestFrame(
          {
            apiKey: decoded.header.requestApiKey,
            apiVersion: decoded.header.requestApiVersion,
            correlationId: decoded.header.correlationId,
            clientId: decoded.header.clientId,
          },
          decoded.body,
        );
        expect(hex(again)).toBe(hex(request));
        return decoded.body as Body;
      };

      beforeAll(async () => {
        mock = await startMockCluster({
          mockCluster: librdkafka.mockCluster,
          topics: [{ name: TOPIC, partitions: 4 }],
          rebalanceDelayMs: 0,
          timeoutMs: STARTUP_TIMEOUT_MS,
        });
      }, STARTUP_TIMEOUT_MS + 5_000);

      afterAll(async () => {
        for (const client of clients) client.close();
        await mock?.stop();
      }, 10_000);

      /**
       * JoinGroup v6 is flexible: Protocols is a compact array. The mock reads its count with
       * `rd_kafka_buf_read_i32`, i.e. the 4 bytes `02 06 72 61` (count 1 as N+1, then the compact
       * length of "range" and "ra") = 33976929 protocols, over its limit of 1000: it drops the
       * request and closes the connection. Workaround: JoinGroup ≤ v5.
       */
      it("JoinGroup v6: the protocol count is read as an int32 and the connection is closed", async () => {
        const client = await connect();
        const body = protocol.api(JOIN_GROUP).request.create(joinInit("defect-join-v6"));
        const sent = protocol.encodeRequestFrame({ apiKey: JOIN_GROUP, apiVersion: 6, correlationId: 1000 }, body);
        expect(hex(sent)).toContain(`09${hexOf("consumer")}` + "02067261");
        await expect(client.exchange(JOIN_GROUP, 6, body, RESPONSE_TIMEOUT_MS)).rejects.toThrow(
          "the peer closed the connection",
        );
        expectWellFormed(sent);
        // The mock itself lives on, and v5 works.
        const v5 = await (await connect()).call(JOIN_GROUP, 5, joinInit("defect-join-v5"));
        expect(v5.body).toMatchObject({ errorCode: NONE, protocolName: "range" });
      });

      /**
       * SyncGroup v4 is flexible: Assignments is a compact array. The mock reads its count as an
       * int32 too (`02` for one entry, then the member id's compact length and its first bytes),
       * then reads that many entries and runs out of bytes; it logs the underflow (level 1, on
       * stderr) and closes the connection. Workaround: SyncGroup ≤ v3.
       */
      it("SyncGroup v4: the request underflows in the mock and the connection is closed", async () => {
        const client = await connect();
        const join = await client.call<{ memberId: string; generationId: number }>(
          JOIN_GROUP,
          5,
          joinInit("defect-sync-v4"),
        );
        const { memberId, generationId } = join.body;
        const body = protocol.api(SYNC_GROUP).request.create({
          groupId: "defect-sync-v4",
          generationId,
          memberId,
          groupInstanceId: null,
          assignments: [{ memberId, assignment: new Uint8Array([0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff]) }],
        });
        const sent = protocol.encodeRequestFrame({ apiKey: SYNC_GROUP, apiVersion: 4, correlationId: 1 }, body);
        // Assignments' compact count (02) and the member id's compact length, where the mock reads an int32.
        const count = hex(sent).indexOf(`0002${(memberId.length + 1).toString(16).padStart(2, "0")}`);
        expect(count).toBeGreaterThan(0);
        await expect(client.exchange(SYNC_GROUP, 4, body, RESPONSE_TIMEOUT_MS)).rejects.toThrow(
          "the peer closed the connection",
        );
        expectWellFormed(sent);
        // The underflow is logged as soon as the request is read, before the connection closes.
        expect(mock!.stderr()).toMatch(
          /Protocol read buffer underflow for SyncGroup v4 at \d+\/\d+ \(rd_kafka_mock_handle_SyncGroup:\d+\): expected \d+ bytes > \d+ remaining bytes/,
        );
      });

      /**
       * ConsumerGroupHeartbeat v1's SubscribedTopicRegex is nullable: "null if it didn't change
       * since the last heartbeat" (Kafka's ConsumerGroupHeartbeatRequest.json), so a join with
       * topic names and no regex is valid. The mock asserts that names and regex are both null
       * or both set (`validate_subscription` in rdkafka_mock_cgrp.c) and aborts. Workaround:
       * send regex "" with the names, as librdkafka does.
       */
      it("ConsumerGroupHeartbeat v1 with topic names and a null regex aborts the mock process", async () => {
        const doomed = await startMockCluster({
          mockCluster: librdkafka.mockCluster,
          topics: [{ name: TOPIC, partitions: 4 }],
          timeoutMs: STARTUP_TIMEOUT_MS,
        });
        try {
          const client = await connect(doomed);
          const init = {
            groupId: "defect-cghb",
            memberId: "a2Fma2Etd2lyZS1kZWZlY3",
            memberEpoch: 0,
            instanceId: null,
            rackId: null,
            rebalanceTimeoutMs: 30_000,
            subscribedTopicNames: [TOPIC],
            subscribedTopicRegex: null,
            serverAssignor: null,
            topicPartitions: [],
          };
          const body = protocol.api(CONSUMER_GROUP_HEARTBEAT).request.create(init);
          const sent = protocol.encodeRequestFrame(
            { apiKey: CONSUMER_GROUP_HEARTBEAT, apiVersion: 1, correlationId: 1000 },
            body,
          );
          // After the names' compact array (02, then "kafka-wire-2-15" as a compact string): 00, the null regex.
          expect(hex(sent)).toContain(`02${(TOPIC.length + 1).toString(16).padStart(2, "0")}${hexOf(TOPIC)}00`);
          expect(expectWellFormed(sent)).toMatchObject({ subscribedTopicNames: [TOPIC], subscribedTopicRegex: null });
          await expect(client.exchange(CONSUMER_GROUP_HEARTBEAT, 1, body, RESPONSE_TIMEOUT_MS)).rejects.toThrow(
            "the peer closed the connection",
          );
          const exit = await Promise.race([
            doomed.exited,
            new Promise<null>((r) => setTimeout(() => r(null), RESPONSE_TIMEOUT_MS).unref()),
          ]);
          expect(exit).toEqual({ code: null, signal: "SIGABRT" });
          expect(doomed.stderr()).toMatch(/rdkafka_mock_cgrp\.c:\d+: validate_subscription: Assertion .* failed/);
        } finally {
          await doomed.stop();
        }
      });
    });

    describe(`Debian's kcat on librdkafka ${LIBRDKAFKA_VERSION}`, () => {
      if (kcat === null) {
        peerMissing("kcat", "kcat is not on PATH (Debian: apt-get install kcat; .ci/run installs it)");
        return;
      }
      const env = { LD_LIBRARY_PATH: librdkafka.libDir };

      it("runs on the built library, which no longer auto-creates the topic it consumes", async () => {
        const version = await runKcat(kcat, ["-V"], { timeoutMs: 5_000, env });
        expect(version.stdout, "kcat's librdkafka (a stale build: run bash .ci/build-librdkafka.sh)").toContain(
          `librdkafka ${LIBRDKAFKA_VERSION_STRING} `,
        );

        const mock = await startMockCluster({ mockCluster: librdkafka.mockCluster, timeoutMs: STARTUP_TIMEOUT_MS });
        try {
          const consume = (topic: string, ...extra: string[]) =>
            runKcat(kcat, ["-b", mock.bootstrap, "-C", "-t", topic, "-e", ...extra], { timeoutMs: 10_000, env });
          // 2.0.2's consumer auto-creates the topic (startKcatMock relies on it); 2.15.1's does not.
          const plain = await consume("not-there-yet");
          expect(plain).toMatchObject({ code: 1, timedOut: false });
          expect(plain.stderr).toContain("Topic not-there-yet error: Broker: Unknown topic or partition");
          const allowed = await consume("not-there-yet-2", "-X", "allow.auto.create.topics=true");
          expect(allowed).toMatchObject({ code: 0, timedOut: false });
          expect(allowed.stderr).toContain("Reached end of topic not-there-yet-2 [0] at offset 0");
        } finally {
          await mock.stop();
        }
      });

      /**
       * KIP-848: kcat's balanced consumer with `group.protocol=consumer` talks to the mock through
       * a FrameProxy (kafka-wire-proxy, which names itself for the mock's broker, so every connection goes through it).
       * Every frame must decode with our codecs and re-encode to the same bytes, except the mock's
       * known defects, which must fail exactly as pinned.
       */
      it(
        "KIP-848: joins, acknowledges and leaves a group through the mock; kafka-wire decodes every frame",
        async () => {
          let proxy: FrameProxy | undefined;
          let mock: MockCluster | undefined;
          try {
            mock = await startMockCluster({
              mockCluster: librdkafka.mockCluster,
              topics: [{ name: TOPIC, partitions: 4 }],
              timeoutMs: STARTUP_TIMEOUT_MS,
            });
            // The proxy replaces the mock's address in Metadata and FindCoordinator by its own.
            proxy = await FrameProxy.start(mock.host, mock.port, protocol);

            // Two records, on partitions 0 and 2, produced straight to the mock (not through the proxy).
            const producer = await KafkaTestClient.connect(mock.host, mock.port, protocol, {
              timeoutMs: RESPONSE_TIMEOUT_MS,
            });
            try {
              for (const [partition, key, value] of [
                [0, "k0", "consumed over KIP-848"],
                [2, "k2", "and so is this"],
              ] as const) {
                const { body } = await producer.call(PRODUCE, 10, {
                  transactionalId: null,
                  acks: -1,
                  timeoutMs: 5000,
                  topicData: [
                    {
                      name: TOPIC,
                      partitionData: [
                        { index: partition, records: recordBatch(utf8(key), utf8(value), 1_700_000_000_000n) },
                      ],
                    },
                  ],
                });
                expect(body).toMatchObject({ responses: [{ partitionResponses: [{ errorCode: NONE }] }] });
              }
            } finally {
              producer.close();
            }

            const run = await runKcat(
              kcat,
              [
                "-b",
                `127.0.0.1:${proxy.port}`,
                "-X",
                "group.protocol=consumer",
                "-G",
                "kafka-wire-kip848",
                TOPIC,
                "-e",
                // No committed offsets yet: start at the beginning (librdkafka's default is the end).
                "-X",
                "auto.offset.reset=earliest",
                "-f",
                "%p %k=%s\\n",
              ],
              { timeoutMs: KCAT_TIMEOUT_MS, env },
            );
            expect(run, run.stderr).toMatchObject({ code: 0, timedOut: false });
            expect(run.stdout.split("\n").filter(Boolean).sort()).toEqual([
              "0 k0=consumed over KIP-848",
              "2 k2=and so is this",
            ]);

            expect(proxy.problems).toEqual([]);
            const requests = proxy.frames.filter((f) => f.direction === "request");
            const responses = proxy.frames.filter((f) => f.direction === "response");
            // Every response answers a request (proxy.problems). kcat exits without waiting for what
            // is still in flight (Fetch long polls, a Metadata refresh), so some requests have no
            // response; every group heartbeat has one (checked below).
            const unanswered = requests.filter(
              (r) => !responses.some((f) => f.connection === r.connection && f.correlationId === r.correlationId),
            );

            // Every request: decodes, and re-encodes to the bytes kcat sent.
            const heartbeats: { request: Body; response?: Body }[] = [];
            const byCorrelation = new Map<string, Body>();
            for (const f of requests) {
              const decoded = protocol.decodeRequestFrame(f.frame);
              expect(decoded.header).toMatchObject({
                requestApiKey: f.apiKey,
                requestApiVersion: f.apiVersion,
                correlationId: f.correlationId,
              });
              const again = protocol.encodeRequestFrame(
                {
                  apiKey: f.apiKey,
                  apiVersion: f.apiVersion,
                  correlationId: f.correlationId,
                  clientId: decoded.header.clientId,
                },
                decoded.body,
              );
              expect(hex(again), `${decoded.api.name} v${f.apiVersion} request re-encoded`).toBe(hex(f.frame));
              if (f.apiKey === CONSUMER_GROUP_HEARTBEAT) {
                const entry = { request: decoded.body as Body };
                heartbeats.push(entry);
                byCorrelation.set(`${f.connection}/${f.correlationId}`, entry);
              }
            }

            // Every response: decodes and re-encodes, or is one of the mock's pinned defects.
            const requestOf = (f: ProxiedFrame) =>
              requests.find((r) => r.connection === f.connection && r.correlationId === f.correlationId)!;
            const defectsSeen: string[] = [];
            for (const f of responses) {
              const name = `${protocol.api(f.apiKey).name} v${f.apiVersion}`;
              const defect = DEFECTS.get(`${f.apiKey}@${f.apiVersion}`);
              const exchange = { ...f, request: requestOf(f).frame, response: f.frame };
              let body: Body | null;
              if (defect !== undefined) {
                body = defect(exchange, protocol);
                defectsSeen.push(name);
              } else {
                const decoded = protocol.decodeResponseFrame(f.frame, f.apiKey, f.apiVersion);
                const again = protocol.encodeResponseFrame(f, decoded.body);
                expect(hex(again), `${name} response re-encoded`).toBe(hex(f.frame));
                body = decoded.body as Body;
              }
              const heartbeat = byCorrelation.get(`${f.connection}/${f.correlationId}`);
              if (heartbeat !== undefined) heartbeat.response = body!;
            }

            // The KIP-848 exchange: a join (epoch 0, the topic by name, regex ""), an acknowledgement
            // of the assignment (the partitions it was given, by topic id), and a leave (epoch -1).
            expect(heartbeats.length).toBeGreaterThanOrEqual(3);
            expect(heartbeats.every((h) => h.response?.["errorCode"] === NONE)).toBe(true);
            const [join, ...rest] = heartbeats as [(typeof heartbeats)[0], ...typeof heartbeats];
            expect(join.request).toMatchObject({
              groupId: "kafka-wire-kip848",
              memberEpoch: 0,
              subscribedTopicNames: [TOPIC],
              subscribedTopicRegex: "",
            });
            const epoch = join.response!["memberEpoch"] as number;
            expect(epoch).toBeGreaterThan(0);
            const assigned = join.response!["assignment"]["topicPartitions"] as {
              topicId: string;
              partitions: number[];
            }[];
            expect(assigned).toHaveLength(1);
            expect([...assigned[0]!.partitions].sort()).toEqual([0, 1, 2, 3]);
            const ack = rest.find((h) => h.request["memberEpoch"] === epoch && h.request["topicPartitions"] !== null);
            expect(ack, "a heartbeat acknowledging the assignment").toBeDefined();
            const acked = (ack!.request["topicPartitions"] as { topicId: string; partitions: number[] }[]).map((t) => ({
              topicId: t.topicId,
              partitions: [...t.partitions].sort(),
            }));
            expect(acked).toEqual([{ topicId: assigned[0]!.topicId, partitions: [0, 1, 2, 3] }]);
            const leave = heartbeats[heartbeats.length - 1]!;
            expect(leave.request).toMatchObject({ memberEpoch: -1 });
            expect(leave.response).toMatchObject({ errorCode: NONE, memberEpoch: -1 });

            // kcat's sequence, for the record; and the only malformed replies are the pinned ones.
            const sequence = requests.map((f) => `${protocol.api(f.apiKey).name} v${f.apiVersion}`);
            console.log(
              `kcat (librdkafka ${LIBRDKAFKA_VERSION}, group.protocol=consumer) through the proxy: ${requests.length} requests: ${sequence.join(", ")}; unanswered at exit: ${unanswered.map((r) => `${protocol.api(r.apiKey).name} v${r.apiVersion}`).join(", ") || "none"}`,
            );
            expect(new Set(defectsSeen)).toEqual(new Set(["ApiVersions v3", "Metadata v12"]));
          } finally {
            await mock?.stop();
            await proxy?.close();
          }
        },
        KCAT_TIMEOUT_MS + STARTUP_TIMEOUT_MS + 10_000,
      );
    });
  },
);
