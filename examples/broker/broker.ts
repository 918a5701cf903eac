/**
 * A Kafka broker built only on kafka-wire: one process, in memory, loopback only, bounded. An
 * example and a test peer for real clients, not a product: one node that leads every partition,
 * no replication, no transactions, no ACLs, no retention.
 *
 * It speaks Kafka 4's versions of the APIs it handles (the `validVersions` of the codecs it is
 * given, generated from Kafka's schemas), so clients pick their newest:
 * ApiVersions (with KIP-511's fallback reply), Metadata, Produce, Fetch, ListOffsets,
 * FindCoordinator, JoinGroup/SyncGroup/Heartbeat/LeaveGroup, OffsetCommit/OffsetFetch,
 * InitProducerId and ConsumerGroupHeartbeat (KIP-848).
 *
 * Produced record batches are read with `decodeRecords` (CRC checked, compressed ones
 * decompressed to validate them) and stored as they came, with the base offset the log assigns
 * set by `withBatchHeader`; Fetch returns those bytes.
 */

import net from "node:net";
import { decodeRecords, encodeRecords, type Codecs, type RecordBatch } from "../../src/records/index.js";
import {
  FrameSplitter,
  KafkaDecodeError,
  UNSUPPORTED_VERSION_ERROR,
  uuidToString,
  ZERO_UUID,
  type DecodedRequest,
  type Protocol,
} from "../../src/runtime/index.js";
import { errorCode } from "./errors.js";
import { GroupCoordinator, type TopicPartitions } from "./groups.js";
import { LEADER_EPOCH, PartitionLog } from "./log.js";

/** A decoded message body: the generated codecs are loaded at run time, so fields are looked up by name. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Body = Record<string, any>;

/** The api keys this broker handles, with Kafka's names. */
export const API_KEYS = {
  Produce: 0,
  Fetch: 1,
  ListOffsets: 2,
  Metadata: 3,
  OffsetCommit: 8,
  OffsetFetch: 9,
  FindCoordinator: 10,
  JoinGroup: 11,
  Heartbeat: 12,
  LeaveGroup: 13,
  SyncGroup: 14,
  ApiVersions: 18,
  InitProducerId: 22,
  ConsumerGroupHeartbeat: 68,
} as const;

/** One request and what the broker answered, for tests and logs. */
export interface Exchange {
  /** Which connection (0, 1, ...), in the order they were accepted. */
  readonly connection: number;
  readonly apiKey: number;
  readonly apiVersion: number;
  readonly correlationId: number;
  /** The request frame, size prefix included (a copy). */
  readonly request: Uint8Array;
  /** The decoded request, or null when it did not decode (KIP-511's fallback, or an error). */
  readonly decoded: DecodedRequest | null;
  /** The response frame, or null when none was sent (Produce with acks=0, or an error). */
  readonly response: Uint8Array | null;
  /** Why the connection was closed instead of answering. */
  readonly error: Error | null;
}

export interface BrokerOptions {
  /** Framing and codecs of at least the APIs above, generated from Kafka's schemas (a generated index's `protocol`). */
  readonly protocol: Protocol;
  /** A loopback address: `127.0.0.1` (default), `::1` or `localhost`. */
  readonly host?: string;
  /** Default 0: an ephemeral port. */
  readonly port?: number;
  /** Default 1. */
  readonly nodeId?: number;
  readonly clusterId?: string;
  /** Topics that exist from the start. */
  readonly topics?: readonly { readonly name: string; readonly partitions: number }[];
  /** Partitions of a topic created by a Metadata request that allows it (Kafka's `num.partitions`); 0 disables auto-creation. Default 3. */
  readonly autoCreatePartitions?: number;
  /** Codecs to decompress produced batches with (`kafka-wire-compression`'s `codecs`); without one, batches of that codec are stored unchecked. */
  readonly codecs?: Codecs;
  /** Kafka's `group.initial.rebalance.delay.ms` (Kafka: 3000). Default 300. */
  readonly initialRebalanceDelayMs?: number;
  /** KIP-848's heartbeat interval (Kafka: 5000). Default 1000. */
  readonly consumerHeartbeatIntervalMs?: number;
  /** KIP-848's session timeout (Kafka: 45000). */
  readonly consumerSessionTimeoutMs?: number;
  /** Bounds: connections, bytes of one frame, bytes held by all logs, topics, groups, members per group. */
  readonly maxConnections?: number;
  readonly maxFrameSize?: number;
  readonly maxLogBytes?: number;
  readonly maxTopics?: number;
  readonly maxPartitions?: number;
  readonly maxGroups?: number;
  readonly maxMembers?: number;
  /** The longest a Fetch waits for data, whatever it asks for (ms). Default 5000. */
  readonly maxFetchWaitMs?: number;
  /** Called for every request once answered (or not). */
  readonly onExchange?: (exchange: Exchange) => void;
  /** Diagnostics (a closed connection and why). */
  readonly log?: (line: string) => void;
}

interface Topic {
  readonly name: string;
  readonly topicId: string;
  readonly partitions: PartitionLog[];
}

interface Context {
  readonly apiVersion: number;
  readonly clientId: string;
  readonly connection: number;
}

type Handler = (request: Body, ctx: Context) => Body | null | Promise<Body | null>;

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);
const NO_AUTHORIZED_OPERATIONS = -2147483648;
const TOPIC_NAME = /^[a-zA-Z0-9._-]{1,249}$/;
/** Kafka's `offset.metadata.max.bytes`. */
const MAX_OFFSET_METADATA = 4096;
/** Frames a connection may queue before the broker stops reading from it (Kafka mutes a channel while it works). */
const MAX_QUEUED_FRAMES = 64;

/** A running broker. */
export interface Broker {
  readonly host: string;
  readonly port: number;
  /** `host:port`, for a client's bootstrap servers. */
  readonly bootstrap: string;
  /** The version range advertised for each api key (the ApiVersions reply). */
  readonly versions: ReadonlyMap<number, { readonly min: number; readonly max: number }>;
  /** Creates a topic (no-op when it exists). @throws Error for an invalid name or count. */
  createTopic(name: string, partitions: number): void;
  /** Stops listening, closes every connection and clears every timer. */
  close(): Promise<void>;
}

/** Starts a broker on a loopback address; resolves once it listens. */
export async function startBroker(options: BrokerOptions): Promise<Broker> {
  const host = options.host ?? "127.0.0.1";
  if (!LOOPBACK.has(host)) throw new Error(`the example broker listens on loopback only, not ${host}`);
  const protocol = options.protocol;
  const nodeId = options.nodeId ?? 1;
  const clusterId = options.clusterId ?? "kafka-wire-example";
  const autoCreatePartitions = options.autoCreatePartitions ?? 3;
  const maxLogBytes = options.maxLogBytes ?? 256 * 1024 * 1024;
  const maxTopics = options.maxTopics ?? 1000;
  const maxPartitions = options.maxPartitions ?? 64;
  const maxFetchWaitMs = options.maxFetchWaitMs ?? 5000;
  const log = options.log ?? (() => {});

  // Kafka 4's version table: the versions of the generated codecs, for the APIs handled here.
  const versions = new Map<number, { min: number; max: number }>();
  for (const apiKey of Object.values(API_KEYS)) {
    const api = protocol.apis.get(apiKey);
    if (api === undefined) throw new Error(`the protocol given has no codecs for api key ${apiKey}`);
    const min = Math.max(api.request.validVersions.lowest, api.response.validVersions.lowest);
    const max = Math.min(api.request.validVersions.highest, api.response.validVersions.highest);
    versions.set(apiKey, { min, max });
  }

  const topics = new Map<string, Topic>();
  const topicsById = new Map<string, Topic>();
  let storedBytes = 0;
  let nextProducerId = 1000n;
  let port = 0;

  function createTopic(name: string, partitions: number): Topic {
    const existing = topics.get(name);
    if (existing !== undefined) return existing;
    if (!TOPIC_NAME.test(name) || name === "." || name === "..") throw new Error(`invalid topic name ${name}`);
    if (!Number.isInteger(partitions) || partitions < 1 || partitions > maxPartitions) {
      throw new Error(`a topic has 1..${maxPartitions} partitions, not ${partitions}`);
    }
    if (topics.size >= maxTopics) throw new Error(`at most ${maxTopics} topics`);
    const id = new Uint8Array(16);
    crypto.getRandomValues(id);
    const topic = {
      name,
      topicId: uuidToString(id, 0),
      partitions: Array.from({ length: partitions }, () => new PartitionLog()),
    };
    topics.set(name, topic);
    topicsById.set(topic.topicId, topic);
    return topic;
  }
  for (const t of options.topics ?? []) createTopic(t.name, t.partitions);

  const groups = new GroupCoordinator(
    {
      initialRebalanceDelayMs: options.initialRebalanceDelayMs ?? 300,
      consumerHeartbeatIntervalMs: options.consumerHeartbeatIntervalMs ?? 1000,
      consumerSessionTimeoutMs: options.consumerSessionTimeoutMs ?? 45_000,
      maxGroups: options.maxGroups ?? 1000,
      maxMembers: options.maxMembers ?? 100,
    },
    {
      partitions: (name) => topics.get(name)?.partitions.length,
      topicId: (name) => topics.get(name)?.topicId,
      names: () => [...topics.keys()],
    },
  );

  const partitionsOf = (topic: Topic) =>
    topic.partitions.map((_, i) => ({
      errorCode: 0,
      partitionIndex: i,
      leaderId: nodeId,
      leaderEpoch: LEADER_EPOCH,
      replicaNodes: [nodeId],
      isrNodes: [nodeId],
      offlineReplicas: [],
    }));

  const handlers = new Map<number, Handler>();

  handlers.set(API_KEYS.ApiVersions, () => ({
    errorCode: 0,
    apiKeys: [...versions].map(([apiKey, v]) => ({ apiKey, minVersion: v.min, maxVersion: v.max })),
    throttleTimeMs: 0,
    // KIP-848 needs group.version 1 (Kafka 4 finalizes it).
    supportedFeatures: [{ name: "group.version", minVersion: 0, maxVersion: 1 }],
    finalizedFeaturesEpoch: 1n,
    finalizedFeatures: [{ name: "group.version", maxVersionLevel: 1, minVersionLevel: 1 }],
    zkMigrationReady: false,
  }));

  handlers.set(API_KEYS.Metadata, (req, { apiVersion }) => {
    const reply = (t: Topic | null, name: string | null, topicId: string, code = 0) => ({
      errorCode: code,
      // Before v12 the name is not nullable.
      name: name ?? (apiVersion >= 12 ? null : ""),
      topicId,
      isInternal: false,
      partitions: t === null ? [] : partitionsOf(t),
      topicAuthorizedOperations: req["includeTopicAuthorizedOperations"] ? 0b1101_1111_1000 : NO_AUTHORIZED_OPERATIONS,
    });
    const out: Body[] = [];
    if (req["topics"] === null) {
      for (const t of topics.values()) out.push(reply(t, t.name, t.topicId));
    } else {
      for (const wanted of req["topics"] as Body[]) {
        const byId = wanted["topicId"] !== ZERO_UUID ? topicsById.get(wanted["topicId"]) : undefined;
        const name: string | null = wanted["name"] ?? byId?.name ?? null;
        if (name === null) {
          out.push(reply(null, null, wanted["topicId"], errorCode("UNKNOWN_TOPIC_ID")));
          continue;
        }
        let t = topics.get(name);
        if (t === undefined && req["allowAutoTopicCreation"] && autoCreatePartitions > 0) {
          if (!TOPIC_NAME.test(name)) {
            out.push(reply(null, name, ZERO_UUID, errorCode("INVALID_TOPIC_EXCEPTION")));
            continue;
          }
          try {
            t = createTopic(name, autoCreatePartitions);
          } catch {
            out.push(reply(null, name, ZERO_UUID, errorCode("POLICY_VIOLATION")));
            continue;
          }
        }
        out.push(
          t === undefined
            ? reply(null, name, ZERO_UUID, errorCode("UNKNOWN_TOPIC_OR_PARTITION"))
            : reply(t, t.name, t.topicId),
        );
      }
    }
    return {
      throttleTimeMs: 0,
      brokers: [{ nodeId, host, port, rack: null }],
      clusterId,
      controllerId: nodeId,
      topics: out,
      clusterAuthorizedOperations: NO_AUTHORIZED_OPERATIONS,
      errorCode: 0,
    };
  });

  handlers.set(API_KEYS.Produce, async (req) => {
    const responses: Body[] = [];
    for (const td of req["topicData"] as Body[]) {
      const topic = topics.get(td["name"]);
      const partitionResponses: Body[] = [];
      for (const pd of td["partitionData"] as Body[]) {
        const index: number = pd["index"];
        const fail = (code: string, message: string | null = null) =>
          partitionResponses.push({
            index,
            errorCode: errorCode(code),
            baseOffset: -1n,
            errorMessage: message,
          });
        const log = topic?.partitions[index];
        if (log === undefined) {
          fail("UNKNOWN_TOPIC_OR_PARTITION");
          continue;
        }
        const records: Uint8Array | null = pd["records"];
        if (records === null || records.length === 0) {
          fail("INVALID_RECORD", "no records");
          continue;
        }
        let batches: RecordBatch[];
        try {
          const set = await decodeRecords(records, { codecs: options.codecs });
          if (set.incompleteTail !== 0) throw new Error(`${set.incompleteTail} bytes of a partial batch`);
          if (set.batches.some((b) => b.magic !== 2)) {
            fail("UNSUPPORTED_FOR_MESSAGE_FORMAT", "Produce v3+ carries magic-2 record batches only");
            continue;
          }
          batches = set.batches as RecordBatch[];
          // Decompressing every batch validates it, as Kafka's LogValidator does.
          for (const b of batches) if (b.recordsAvailable) void b.records.length;
        } catch (e) {
          fail("CORRUPT_MESSAGE", (e as Error).message);
          continue;
        }
        // Kafka: "Produce requests with version 3 and above must have exactly one record batch".
        if (batches.length !== 1) {
          fail("INVALID_RECORD", "exactly one record batch per partition");
          continue;
        }
        if (storedBytes + records.length > maxLogBytes) {
          fail("KAFKA_STORAGE_ERROR", `the broker holds at most ${maxLogBytes} bytes`);
          continue;
        }
        const before = log.bytes;
        const baseOffset = log.append(batches);
        storedBytes += log.bytes - before;
        partitionResponses.push({
          index,
          errorCode: 0,
          baseOffset,
          logStartOffset: 0n,
        });
      }
      responses.push({ name: td["name"], partitionResponses });
    }
    // acks=0: Kafka sends no response at all.
    if (req["acks"] === 0) return null;
    return { responses };
  });

  handlers.set(API_KEYS.Fetch, async (req, { apiVersion }) => {
    if (req["sessionId"] !== 0) {
      // No fetch sessions (KIP-227) here: a reply with session id 0 told the client so.
      return fetchReply([], errorCode("FETCH_SESSION_ID_NOT_FOUND"));
    }
    const wanted = (req["topics"] as Body[]).map((t) => ({
      t,
      topic: apiVersion >= 13 ? topicsById.get(t["topicId"]) : topics.get(t["topic"]),
    }));
    const build = () => {
      let budget: number = req["maxBytes"];
      let total = 0;
      const responses = wanted.map(({ t, topic }) => ({
        topic: t["topic"],
        topicId: t["topicId"],
        partitions: (t["partitions"] as Body[]).map((p) => {
          const partition = {
            partitionIndex: p["partition"],
            errorCode: 0,
            highWatermark: -1n,
            lastStableOffset: -1n,
            logStartOffset: -1n,
            abortedTransactions: req["isolationLevel"] === 1 ? [] : null,
            records: new Uint8Array(0) as Uint8Array,
          };
          const log = topic?.partitions[p["partition"]];
          if (log === undefined) {
            partition.errorCode = errorCode(
              topic === undefined && apiVersion >= 13 ? "UNKNOWN_TOPIC_ID" : "UNKNOWN_TOPIC_OR_PARTITION",
            );
            return partition;
          }
          partition.highWatermark = log.logEndOffset;
          partition.lastStableOffset = log.logEndOffset;
          partition.logStartOffset = 0n;
          const offset: bigint = p["fetchOffset"];
          if (offset < 0n || offset > log.logEndOffset) {
            partition.errorCode = errorCode("OFFSET_OUT_OF_RANGE");
            return partition;
          }
          if (budget <= 0 && total > 0) return partition;
          const batches = log.read(offset, Math.min(p["partitionMaxBytes"], budget));
          partition.records = encodeRecords(batches) as Uint8Array;
          budget -= partition.records.length;
          total += partition.records.length;
          return partition;
        }),
      }));
      return { responses, total };
    };
    let result = build();
    const waitMs = Math.min(req["maxWaitMs"], maxFetchWaitMs);
    if (result.total < Math.max(1, req["minBytes"]) && waitMs > 0) {
      // Wait for an append to any partition asked for, or for maxWaitMs.
      const logs = wanted.flatMap(({ t, topic }) =>
        (t["partitions"] as Body[]).map((p) => topic?.partitions[p["partition"]]).filter((l) => l !== undefined),
      );
      await new Promise<void>((resolve) => {
        const cancels: (() => void)[] = [];
        const done = () => {
          clearTimeout(timeout);
          for (const c of cancels) c();
          closing.delete(done);
          resolve();
        };
        const timeout = setTimeout(done, waitMs);
        for (const l of logs) cancels.push(l.onAppend(done));
        closing.add(done);
      });
      result = build();
    }
    return fetchReply(result.responses, 0);
  });

  function fetchReply(responses: Body[], code: number): Body {
    return { errorCode: code, sessionId: 0, responses };
  }

  handlers.set(API_KEYS.ListOffsets, (req, { apiVersion }) => ({
    throttleTimeMs: 0,
    topics: (req["topics"] as Body[]).map((t) => ({
      name: t["name"],
      partitions: (t["partitions"] as Body[]).map((p) => {
        const log = topics.get(t["name"])?.partitions[p["partitionIndex"]];
        const reply = (offset: bigint, timestamp = -1n, code = 0) => ({
          partitionIndex: p["partitionIndex"],
          errorCode: code,
          timestamp,
          offset,
          // Not ignorable, and only in v4+.
          leaderEpoch: code === 0 && apiVersion >= 4 ? LEADER_EPOCH : -1,
        });
        if (log === undefined) return reply(-1n, -1n, errorCode("UNKNOWN_TOPIC_OR_PARTITION"));
        const ts: bigint = p["timestamp"];
        // Kafka's ListOffsetsRequest constants: -1 latest, -2 earliest, -3 max timestamp, -4 earliest local, -5 latest tiered.
        if (ts === -1n) return reply(log.logEndOffset);
        if (ts === -2n || ts === -4n) return reply(0n);
        if (ts === -5n) return reply(-1n);
        const found = ts === -3n ? log.maxTimestamp() : log.offsetForTimestamp(ts);
        return found === null ? reply(-1n) : reply(found.offset, found.timestamp);
      }),
    })),
  }));

  handlers.set(API_KEYS.FindCoordinator, (req, { apiVersion }) => {
    const coordinator = (key: string) => ({ key, nodeId, host, port, errorCode: 0, errorMessage: null });
    if (apiVersion >= 4) {
      return { throttleTimeMs: 0, coordinators: (req["coordinatorKeys"] as string[]).map(coordinator) };
    }
    return { throttleTimeMs: 0, errorCode: 0, errorMessage: null, nodeId, host, port };
  });

  handlers.set(API_KEYS.InitProducerId, (req) => {
    // KIP-360: a producer that already has an id asks for its epoch to be bumped.
    const bump = req["producerId"] >= 0n;
    return {
      throttleTimeMs: 0,
      errorCode: 0,
      producerId: bump ? req["producerId"] : nextProducerId++,
      producerEpoch: bump ? (req["producerEpoch"] + 1) & 0x7fff : 0,
    };
  });

  handlers.set(API_KEYS.JoinGroup, async (req, { apiVersion, clientId }) => {
    const reply = (r: {
      errorCode: number;
      generationId?: number;
      protocolType?: string | null;
      protocolName?: string | null;
      leader?: string;
      memberId?: string;
      members?: Body[];
    }) => ({
      throttleTimeMs: 0,
      errorCode: r.errorCode,
      generationId: r.generationId ?? -1,
      protocolType: r.protocolType ?? null,
      // Not nullable before v7.
      protocolName: r.protocolName ?? (apiVersion >= 7 ? null : ""),
      leader: r.leader ?? "",
      skipAssignment: false,
      memberId: r.memberId ?? req["memberId"],
      members: r.members ?? [],
    });
    if (req["sessionTimeoutMs"] < 1000 || req["sessionTimeoutMs"] > 1_800_000) {
      return reply({ errorCode: errorCode("INVALID_SESSION_TIMEOUT") });
    }
    const group = groups.classicGroup(req["groupId"]);
    if (typeof group === "string") return reply({ errorCode: errorCode(group) });
    return reply(await group.join(req as never, apiVersion, clientId));
  });

  handlers.set(API_KEYS.SyncGroup, async (req) => {
    const group = groups.existingClassic(req["groupId"]);
    const r =
      group === undefined
        ? { errorCode: errorCode("UNKNOWN_MEMBER_ID"), assignment: new Uint8Array(0) }
        : await group.sync(req as never);
    return {
      throttleTimeMs: 0,
      errorCode: r.errorCode,
      protocolType: group?.protocolType ?? null,
      protocolName: group?.protocolName ?? null,
      assignment: r.assignment,
    };
  });

  handlers.set(API_KEYS.Heartbeat, (req) => ({
    throttleTimeMs: 0,
    errorCode: groups.existingClassic(req["groupId"])?.heartbeat(req as never) ?? errorCode("UNKNOWN_MEMBER_ID"),
  }));

  handlers.set(API_KEYS.LeaveGroup, (req, { apiVersion }) => {
    const group = groups.existingClassic(req["groupId"]);
    const leave = (memberId: string) => group?.leave(memberId) ?? errorCode("UNKNOWN_MEMBER_ID");
    if (apiVersion < 3) return { throttleTimeMs: 0, errorCode: leave(req["memberId"]) };
    return {
      throttleTimeMs: 0,
      errorCode: 0,
      members: (req["members"] as Body[]).map((m) => ({
        memberId: m["memberId"],
        groupInstanceId: m["groupInstanceId"],
        errorCode: leave(m["memberId"]),
      })),
    };
  });

  handlers.set(API_KEYS.OffsetCommit, (req) => {
    const check = groups.checkCommit(req["groupId"], req["memberId"], req["generationIdOrMemberEpoch"]);
    return {
      throttleTimeMs: 0,
      topics: (req["topics"] as Body[]).map((t) => ({
        name: t["name"],
        partitions: (t["partitions"] as Body[]).map((p) => {
          let code = check;
          if (code === 0 && topics.get(t["name"])?.partitions[p["partitionIndex"]] === undefined) {
            code = errorCode("UNKNOWN_TOPIC_OR_PARTITION");
          } else if (code === 0 && (p["committedMetadata"]?.length ?? 0) > MAX_OFFSET_METADATA) {
            code = errorCode("OFFSET_METADATA_TOO_LARGE");
          }
          if (code === 0) {
            groups.commit(req["groupId"], t["name"], p["partitionIndex"], {
              offset: p["committedOffset"],
              leaderEpoch: p["committedLeaderEpoch"],
              metadata: p["committedMetadata"],
            });
          }
          return { partitionIndex: p["partitionIndex"], errorCode: code };
        }),
      })),
    };
  });

  handlers.set(API_KEYS.OffsetFetch, (req, { apiVersion }) => {
    const fetchGroup = (groupId: string, wanted: Body[] | null) => {
      const asked: [string, number[]][] =
        wanted === null
          ? [...groups.committedTopics(groupId)]
          : wanted.map((t) => [t["name"] as string, t["partitionIndexes"] as number[]]);
      return asked.map(([name, partitions]) => ({
        name,
        partitions: partitions.map((partitionIndex) => {
          const c = groups.committed(groupId, name, partitionIndex);
          return {
            partitionIndex,
            committedOffset: c?.offset ?? -1n,
            committedLeaderEpoch: c?.leaderEpoch ?? -1,
            // Kafka's OffsetFetchResponse.NO_METADATA.
            metadata: c?.metadata ?? "",
            errorCode: 0,
          };
        }),
      }));
    };
    if (apiVersion >= 8) {
      return {
        throttleTimeMs: 0,
        groups: (req["groups"] as Body[]).map((g) => ({
          groupId: g["groupId"],
          topics: fetchGroup(g["groupId"], g["topics"]),
          errorCode: 0,
        })),
      };
    }
    return { throttleTimeMs: 0, topics: fetchGroup(req["groupId"], req["topics"]), errorCode: 0 };
  });

  handlers.set(API_KEYS.ConsumerGroupHeartbeat, (req, { apiVersion }) => {
    const group = groups.consumerGroup(req["groupId"]);
    if (typeof group === "string") {
      return {
        throttleTimeMs: 0,
        errorCode: errorCode(group),
        errorMessage: null,
        memberId: req["memberId"],
        memberEpoch: -1,
        heartbeatIntervalMs: 0,
        assignment: null,
      };
    }
    const r = group.heartbeat(
      req as {
        memberId: string;
        memberEpoch: number;
        subscribedTopicNames: string[] | null;
        topicPartitions: TopicPartitions | null;
      },
      apiVersion,
    );
    return { throttleTimeMs: 0, ...r };
  });

  /** Answers one request frame: the response frame, or null for none (acks=0). @throws to close the connection. */
  async function handle(
    frame: Uint8Array,
    ctx: { connection: number },
  ): Promise<Omit<Exchange, "connection" | "error">> {
    const view = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
    const apiKey = view.getInt16(4);
    const apiVersion = view.getInt16(6);
    const correlationId = view.getInt32(8);
    const range = versions.get(apiKey);
    if (apiKey === API_KEYS.ApiVersions && apiVersion > range!.max) {
      // KIP-511: a version this broker cannot parse gets the v0 layout, UNSUPPORTED_VERSION and
      // the ApiVersions range, so that the client retries with a version it has.
      const response = protocol.encodeResponseFrame(
        { apiKey, apiVersion: 0, correlationId },
        { errorCode: UNSUPPORTED_VERSION_ERROR, apiKeys: [{ apiKey, minVersion: range!.min, maxVersion: range!.max }] },
      );
      return { apiKey, apiVersion, correlationId, request: frame, decoded: null, response };
    }
    if (range === undefined || apiVersion < range.min || apiVersion > range.max) {
      throw new KafkaDecodeError("UNSUPPORTED_VERSION", `api key ${apiKey} v${apiVersion} is not supported`, 4);
    }
    const decoded = protocol.decodeRequestFrame(frame);
    const body = await handlers.get(apiKey)!(decoded.body as Body, {
      apiVersion,
      clientId: decoded.header.clientId ?? "",
      connection: ctx.connection,
    });
    // Fields a handler leaves out, at any depth (those of other versions, tagged fields), take their schema defaults.
    const response =
      body === null
        ? null
        : protocol.encodeResponseFrame({ apiKey, apiVersion, correlationId }, decoded.api.response.create(body));
    return { apiKey, apiVersion, correlationId, request: frame, decoded, response };
  }

  const sockets = new Set<net.Socket>();
  /** Fetches waiting for data, woken when the broker closes. */
  const closing = new Set<() => void>();
  let connections = 0;
  let closed = false;

  const server = net.createServer((socket) => {
    const connection = connections++;
    sockets.add(socket);
    socket.setNoDelay(true);
    const splitter = new FrameSplitter({ maxFrameSize: options.maxFrameSize ?? 16 * 1024 * 1024 });
    const queue: Uint8Array[] = [];
    let busy = false;
    const drop = (why: string) => {
      log(`connection ${connection}: ${why}; closing it`);
      socket.destroy();
    };
    const pump = async () => {
      if (busy) return;
      busy = true;
      // One request at a time per connection, answered in order, as Kafka does.
      while (queue.length > 0 && !socket.destroyed) {
        const frame = queue.shift()!;
        if (queue.length < MAX_QUEUED_FRAMES / 2) socket.resume();
        let exchange: Omit<Exchange, "connection" | "error">;
        try {
          exchange = await handle(frame, { connection });
        } catch (e) {
          const view = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
          const failed = {
            connection,
            apiKey: frame.length >= 8 ? view.getInt16(4) : -1,
            apiVersion: frame.length >= 8 ? view.getInt16(6) : -1,
            correlationId: frame.length >= 12 ? view.getInt32(8) : -1,
            request: frame,
            decoded: null,
            response: null,
            error: e as Error,
          };
          options.onExchange?.(failed);
          drop(`api key ${failed.apiKey} v${failed.apiVersion}: ${(e as Error).message}`);
          break;
        }
        options.onExchange?.({ connection, ...exchange, error: null });
        if (exchange.response !== null && !socket.destroyed) socket.write(exchange.response);
      }
      busy = false;
    };
    socket.on("data", (chunk: Buffer) => {
      let frames: Uint8Array[];
      try {
        frames = splitter.push(chunk);
      } catch (e) {
        drop((e as Error).message);
        return;
      }
      // Copies: requests are answered later, and record batches are views into them.
      for (const f of frames) queue.push(f.length >= 12 ? new Uint8Array(f) : f);
      if (frames.some((f) => f.length < 12)) {
        drop("a request frame shorter than its header");
        return;
      }
      if (queue.length >= MAX_QUEUED_FRAMES) socket.pause();
      void pump();
    });
    socket.on("error", () => {});
    socket.on("close", () => sockets.delete(socket));
  });
  server.maxConnections = options.maxConnections ?? 64;

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  port = (server.address() as net.AddressInfo).port;

  return {
    host,
    port,
    bootstrap: `${host.includes(":") ? `[${host}]` : host}:${port}`,
    versions,
    createTopic: (name, partitions) => void createTopic(name, partitions),
    async close() {
      if (closed) return;
      closed = true;
      for (const wake of [...closing]) wake();
      groups.close();
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
