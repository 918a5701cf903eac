/**
 * The core APIs: ApiVersions, Metadata, Produce, Fetch, ListOffsets, FindCoordinator and
 * InitProducerId. Partition requests are answered by the partition's leader only; another node
 * answers NOT_LEADER_OR_FOLLOWER (with KIP-951's leader hint and node endpoints where the
 * version has them), as Kafka does.
 */

import {
  decodeRecords,
  encodeRecords,
  withBatchHeader,
  type Codecs,
  type DecodeRecordsOptions,
  type RecordBatch,
  type RecordSet,
} from "../../../src/records/index.js";
import { ZERO_UUID } from "../../../src/runtime/index.js";
import type { Cluster, Partition, Topic } from "../cluster.js";
import { errorCode } from "../errors.js";
import type { Init } from "../../../src/runtime/index.js";
import type { PartitionData } from "../../kafka/FetchResponse.js";
import type { MetadataResponseTopic } from "../../kafka/MetadataResponse.js";
import type { PartitionProduceResponse, TopicProduceResponse } from "../../kafka/ProduceResponse.js";
import type { Handler, RequestContext } from "../types.js";
import { topicConfig } from "../configs.js";
import { coordinatorFor } from "./coordinator.js";
import { FetchSessions, type SessionPartition } from "../fetch-sessions.js";

/** Kafka's "authorized operations not requested" marker (Integer.MIN_VALUE). */
const NO_AUTHORIZED_OPERATIONS = -2147483648;
/** Every topic operation a user may perform, as Kafka's bit set (READ..DESCRIBE_CONFIGS, ALTER_CONFIGS). */
const TOPIC_OPERATIONS = 0b1101_1111_1000;

const NONE = 0;

/**
 * Handlers that keep nothing of their request's bytes once answered (the log copies a Produce's
 * batches): a connection may read into the same memory again (see ConnectionServer.take).
 */
export const COPYING_HANDLERS = new WeakSet<object>();

/**
 * The record batches of a Produce partition, decoded strictly, with each CreateTime batch's
 * maxTimestamp set to its records' largest timestamp (and the CRC-32C recomputed) where the
 * producer wrote another one, as Kafka's LogValidator does (`setMaxTimestamp`): sarama 1.22
 * writes -1, which the strict decoder reads as records newer than the batch. Only a batch that
 * decodes strictly once so corrected is accepted; otherwise the strict decoder's first error.
 */
function decodeProduced(
  records: Uint8Array,
  codecs: Codecs | undefined,
  maxRecords: number,
): RecordSet | Promise<RecordSet> {
  // decodeRecords checks every record of every batch as it decodes them (Kafka's LogValidator);
  // a batch whose records failed is not recordsAvailable. Synchronous for uncompressed batches
  // (the usual case), so that the handler awaits only when a codec does.
  const options = codecs === undefined ? { maxRecords } : { codecs, maxRecords };
  let set: RecordSet | Promise<RecordSet>;
  try {
    set = decodeRecords(records, options);
  } catch (strictError) {
    return repairProduced(records, options, strictError);
  }
  return set instanceof Promise
    ? set.then(
        (s) => withMaxTimestamps(s, options),
        (e: unknown) => repairProduced(records, options, e),
      )
    : withMaxTimestamps(set, options);
}

/** `set`, or its bytes decoded again where a batch's maxTimestamp needed correcting. */
function withMaxTimestamps(set: RecordSet, options: DecodeRecordsOptions): RecordSet | Promise<RecordSet> {
  const fixed = withRecomputedMaxTimestamps(set);
  return fixed === null ? set : decodeRecords(fixed, options);
}

/** The batches decoded again with their maxTimestamps corrected, else `strictError` (see decodeProduced). */
async function repairProduced(
  records: Uint8Array,
  options: DecodeRecordsOptions,
  strictError: unknown,
): Promise<RecordSet> {
  if (tooManyRecords(strictError)) throw strictError;
  let fixed: Uint8Array | null = null;
  try {
    fixed = withRecomputedMaxTimestamps(await decodeRecords(records, { ...options, lenient: true }));
  } catch {
    // Not a timestamp matter: the strict error stands.
  }
  if (fixed === null) throw strictError;
  try {
    return await decodeRecords(fixed, options);
  } catch {
    throw strictError;
  }
}

/** The decoder's error for a record set past its `maxRecords` budget. */
function tooManyRecords(e: unknown): boolean {
  return (e as { code?: unknown } | null)?.code === "TOO_MANY_RECORDS";
}

/**
 * The batches' bytes with corrected CreateTime maxTimestamps, or null when none needs it: the
 * decode pass found each batch's largest record timestamp (`recordsMaxTimestamp`, from
 * NO_TIMESTAMP as Kafka starts), so no record is made here.
 */
function withRecomputedMaxTimestamps(set: RecordSet): Uint8Array | null {
  if (set.incompleteTail !== 0 || !set.batches.some(needsMaxTimestamp)) return null;
  const parts = set.batches.map((b) =>
    needsMaxTimestamp(b)
      ? withBatchHeader(b.raw, { maxTimestamp: { timestampType: "CreateTime", timestamp: b.recordsMaxTimestamp } })
      : b.raw,
  );
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Whether a batch's CreateTime maxTimestamp differs from its records' largest timestamp. */
function needsMaxTimestamp(b: RecordSet["batches"][number]): b is RecordBatch {
  return (
    b.magic === 2 &&
    b.timestampType === "CreateTime" &&
    !b.isControl &&
    b.recordsAvailable &&
    b.recordsMaxTimestamp !== b.maxTimestamp
  );
}

/** Leader hint (KIP-951) for a partition: its leader and leader epoch. */
export function currentLeader(p: Partition): { leaderId: number; leaderEpoch: number } {
  return { leaderId: p.leader, leaderEpoch: p.leaderEpoch };
}

/** The error of a partition request arriving at `ctx.node`: NONE when it is the leader. */
export function leaderError(p: Partition | undefined, ctx: RequestContext): number {
  if (p === undefined) return errorCode("UNKNOWN_TOPIC_OR_PARTITION");
  return p.leader === ctx.node.nodeId ? NONE : errorCode("NOT_LEADER_OR_FOLLOWER");
}

/** Kafka's `ApiVersionsRequest.SOFTWARE_NAME_VERSION_PATTERN` (anchored; linear: one start, one pass). */
const SOFTWARE_NAME_OR_VERSION = /^[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?$/;

/** The ApiVersions reply: the versions served, and the features KIP-848 needs. */
function apiVersionsReply(ctx: RequestContext) {
  return {
    errorCode: NONE,
    apiKeys: [...ctx.cluster.versions()].map(([apiKey, v]) => ({ apiKey, minVersion: v.min, maxVersion: v.max })),
    throttleTimeMs: 0,
    // KIP-848 needs group.version 1 (Kafka 4 finalizes it).
    supportedFeatures: [{ name: "group.version", minVersion: 0, maxVersion: 1 }],
    finalizedFeaturesEpoch: 1n,
    finalizedFeatures: [{ name: "group.version", maxVersionLevel: 1, minVersionLevel: 1 }],
    zkMigrationReady: false,
  };
}

export function registerCoreHandlers(cluster: Cluster): void {
  const h = cluster.handlers;

  h.register(18, (req, ctx) => {
    // Kafka's ApiVersionsRequest.isValid (KIP-511, v3+): a client software name or version that is
    // not SOFTWARE_NAME_VERSION_PATTERN gets INVALID_REQUEST and no api keys (getErrorResponse).
    if (
      ctx.apiVersion >= 3 &&
      !(
        SOFTWARE_NAME_OR_VERSION.test(req.clientSoftwareName) &&
        SOFTWARE_NAME_OR_VERSION.test(req.clientSoftwareVersion)
      )
    ) {
      return { errorCode: errorCode("INVALID_REQUEST"), apiKeys: [], throttleTimeMs: 0 };
    }
    return apiVersionsReply(ctx);
  });

  h.register(3, (req, { apiVersion }) => {
    const reply = (t: Topic | null, name: string | null, topicId: string, code = NONE) => ({
      errorCode: code,
      // Before v12 the name is not nullable.
      name: name ?? (apiVersion >= 12 ? null : ""),
      topicId,
      isInternal: t?.internal ?? false,
      partitions: t === null ? [] : t.partitions.map((p) => partitionMetadata(cluster, p)),
      topicAuthorizedOperations: req.includeTopicAuthorizedOperations ? TOPIC_OPERATIONS : NO_AUTHORIZED_OPERATIONS,
    });
    const topics: Init<MetadataResponseTopic>[] = [];
    if (req.topics === null) {
      for (const t of cluster.topics.values()) topics.push(reply(t, t.name, t.topicId));
    } else {
      for (const wanted of req.topics) {
        const byId = wanted.topicId !== ZERO_UUID ? cluster.topicsById.get(wanted.topicId) : undefined;
        const name = wanted.name ?? byId?.name ?? null;
        if (name === null) {
          topics.push(reply(null, null, wanted.topicId, errorCode("UNKNOWN_TOPIC_ID")));
          continue;
        }
        let t = cluster.topics.get(name);
        if (t === undefined && req.allowAutoTopicCreation && cluster.config.autoCreateTopics) {
          try {
            t = cluster.createTopic(name);
          } catch (e) {
            const code = (e as { errorName?: string }).errorName ?? "POLICY_VIOLATION";
            topics.push(reply(null, name, ZERO_UUID, errorCode(code)));
            continue;
          }
        }
        topics.push(
          t === undefined
            ? reply(null, name, ZERO_UUID, errorCode("UNKNOWN_TOPIC_OR_PARTITION"))
            : reply(t, t.name, t.topicId),
        );
      }
    }
    return {
      throttleTimeMs: 0,
      // A stopped node is not listed, as Kafka lists only the brokers alive.
      brokers: nodeEndpoints(cluster),
      clusterId: cluster.clusterId,
      controllerId: cluster.controllerId,
      topics,
      clusterAuthorizedOperations: NO_AUTHORIZED_OPERATIONS,
      errorCode: NONE,
    };
  });

  const produce: Handler<0> = async (req, ctx) => {
    // Kafka: acks must be -1 (all), 0 or 1; a transactional producer must use -1.
    if (req.acks !== -1 && req.acks !== 0 && req.acks !== 1) {
      return {
        responses: req.topicData.map((td) => ({
          name: td.name,
          partitionResponses: td.partitionData.map((pd) => ({
            index: pd.index,
            errorCode: errorCode("INVALID_REQUIRED_ACKS"),
            baseOffset: -1n,
          })),
        })),
      };
    }
    let hinted = false;
    /** Records this request may still append (`maxProduceRecords`). */
    let recordsLeft = cluster.config.maxProduceRecords;
    const responses: Init<TopicProduceResponse>[] = [];
    for (const td of req.topicData) {
      const topic = cluster.topics.get(td.name);
      const partitionResponses: Init<PartitionProduceResponse>[] = [];
      for (const pd of td.partitionData) {
        const index = pd.index;
        const partition = topic?.partitions[index];
        const fail = (code: number, message: string | null = null) =>
          partitionResponses.push({ index, errorCode: code, baseOffset: -1n, errorMessage: message });
        const notLeader = leaderError(partition, ctx);
        if (notLeader !== NONE) {
          fail(notLeader);
          // KIP-951's hints exist from Produce v10 (tagged fields; an older version cannot carry them).
          if (partition !== undefined && ctx.apiVersion >= 10) {
            hinted = true;
            partitionResponses[partitionResponses.length - 1]!.currentLeader = currentLeader(partition);
          }
          continue;
        }
        const log = partition!.log;
        const records = pd.records;
        if (records === null || records.length === 0) {
          fail(errorCode("INVALID_RECORD"), "no records");
          continue;
        }
        // Between record sets the other connections are served (one set is decoded in one go).
        const breath = cluster.breathe();
        if (breath !== undefined) await breath;
        let batches: RecordBatch[];
        try {
          const decoded = decodeProduced(records, cluster.codecs, recordsLeft);
          const set = decoded instanceof Promise ? await decoded : decoded;
          if (set.incompleteTail !== 0) throw new Error(`${set.incompleteTail} bytes of a partial batch`);
          if (set.batches.some((b) => b.magic !== 2)) {
            fail(errorCode("UNSUPPORTED_FOR_MESSAGE_FORMAT"), "Produce v3+ carries magic-2 record batches only");
            continue;
          }
          batches = set.batches as RecordBatch[];
        } catch (e) {
          if (tooManyRecords(e)) {
            fail(
              errorCode("RECORD_LIST_TOO_LARGE"),
              `a Produce request carries at most maxProduceRecords (${cluster.config.maxProduceRecords}) records; ${recordsLeft} were left for this partition`,
            );
          } else {
            fail(errorCode("CORRUPT_MESSAGE"), (e as Error).message);
          }
          continue;
        }
        // Kafka: "Produce requests with version 3 and above must have exactly one record batch".
        if (batches.length !== 1) {
          fail(errorCode("INVALID_RECORD"), "exactly one record batch per partition");
          continue;
        }
        const batch = batches[0]!;
        recordsLeft -= batch.recordCount;
        const maxMessageBytes = Number(topicConfig(topic!, "max.message.bytes"));
        if (batch.raw.length > maxMessageBytes) {
          fail(
            errorCode("MESSAGE_TOO_LARGE"),
            `The record batch of ${batch.raw.length} bytes is larger than the topic's max.message.bytes ${maxMessageBytes}`,
          );
          continue;
        }
        if (
          batch.recordsAvailable &&
          (topicConfig(topic!, "cleanup.policy") ?? "").split(",").includes("compact") &&
          batch.nullKeyRecords > 0
        ) {
          // Kafka's LogValidator: "Compacted topic cannot accept message without key".
          fail(
            errorCode("INVALID_RECORD"),
            `Compacted topic cannot accept message without key in topic partition ${td.name}-${index}.`,
          );
          continue;
        }
        if (cluster.storedBytes + records.length > cluster.config.maxLogBytes) {
          fail(errorCode("KAFKA_STORAGE_ERROR"), `the cluster holds at most ${cluster.config.maxLogBytes} bytes`);
          continue;
        }
        const idempotent = batch.producerId >= 0n;
        if (batch.isTransactional) {
          // Kafka 3.6+ verifies a transactional batch against the coordinator (KIP-890 part 1);
          // Produce v12 (KIP-890 part 2) adds the partition to the transaction implicitly.
          const txn =
            req.transactionalId === null ? undefined : cluster.transactions.transactions.get(req.transactionalId);
          if (txn === undefined || txn.producerId !== batch.producerId) {
            fail(errorCode("INVALID_TXN_STATE"), "the batch's producer has no transaction with this transactional id");
            continue;
          }
          if (batch.producerEpoch < txn.producerEpoch) {
            fail(
              errorCode("INVALID_PRODUCER_EPOCH"),
              `Producer epoch ${batch.producerEpoch} is older than ${txn.producerEpoch}`,
            );
            continue;
          }
          const key = `${td.name}\0${index}`;
          if (!txn.partitions.has(key)) {
            if (ctx.apiVersion < 12 || txn.state === "PrepareCommit" || txn.state === "PrepareAbort") {
              fail(
                errorCode("INVALID_TXN_STATE"),
                `the partition ${td.name}-${index} was not added to the transaction`,
              );
              continue;
            }
            cluster.transactions.begin(txn);
            txn.partitions.add(key);
          }
        }
        if (idempotent) {
          const check = partition!.producers.check(batch);
          if (check.kind === "error") {
            fail(errorCode(check.error), check.message);
            continue;
          }
          if (check.kind === "duplicate") {
            // Kafka answers a retried batch with the offset it was appended at, appending nothing.
            partitionResponses.push({
              index,
              errorCode: NONE,
              baseOffset: check.firstOffset,
              logStartOffset: log.logStartOffset,
            });
            continue;
          }
        }
        const before = log.bytes;
        const logAppendTime =
          topicConfig(topic!, "message.timestamp.type") === "LogAppendTime" ? BigInt(Date.now()) : undefined;
        const baseOffset = log.append(batches, partition!.leaderEpoch, logAppendTime);
        cluster.storedBytes += log.bytes - before;
        if (idempotent) partition!.producers.appended(batch, baseOffset, baseOffset + BigInt(batch.lastOffsetDelta));
        cluster.applyRetention(topic!, Date.now(), [partition!]);
        partitionResponses.push({
          index,
          errorCode: NONE,
          baseOffset,
          logAppendTimeMs: logAppendTime ?? -1n,
          logStartOffset: log.logStartOffset,
        });
      }
      responses.push({ name: td.name, partitionResponses });
    }
    // acks=0: Kafka sends no response at all.
    if (req.acks === 0) return null;
    return { responses, ...(hinted ? { nodeEndpoints: nodeEndpoints(cluster) } : {}) };
  };
  h.register(0, produce);
  COPYING_HANDLERS.add(produce);

  h.register(1, async (req, ctx) => {
    const { apiVersion } = ctx;
    // KIP-227 (v7+): the partitions come from the request, or from its fetch session.
    const resolved =
      apiVersion >= 7
        ? cluster.fetchSessions.resolve(req, ctx.node.nodeId, apiVersion >= 13)
        : { error: null, session: null, incremental: false, partitions: [] as SessionPartition[] };
    if (resolved.error !== null) return { errorCode: errorCode(resolved.error), sessionId: 0, responses: [] };
    const { session, incremental } = resolved;
    const sessionPartitions = apiVersion >= 7 ? resolved.partitions : null;
    // By topic, in the order first asked for.
    const grouped = new Map<string, { topic: string; topicId: string; partitions: SessionPartition[] }>();
    const source: SessionPartition[] =
      sessionPartitions ??
      req.topics.flatMap((t) =>
        t.partitions.map((p) => ({
          topic: t.topic,
          topicId: t.topicId,
          partition: p.partition,
          fetchOffset: p.fetchOffset,
          partitionMaxBytes: p.partitionMaxBytes,
          currentLeaderEpoch: p.currentLeaderEpoch,
          highWatermark: -2n,
          lastStableOffset: -2n,
          logStartOffset: -2n,
        })),
      );
    for (const p of source) {
      const k = apiVersion >= 13 ? p.topicId : p.topic;
      let g = grouped.get(k);
      if (g === undefined) grouped.set(k, (g = { topic: p.topic, topicId: p.topicId, partitions: [] }));
      g.partitions.push(p);
    }
    const wanted = [...grouped.values()].map((t) => ({
      t,
      topic: apiVersion >= 13 ? cluster.topicsById.get(t.topicId) : cluster.topics.get(t.topic),
    }));
    let hinted = false;
    const build = () => {
      // The broker's fetch.max.bytes caps what the client asks for.
      let budget = Math.min(req.maxBytes, cluster.config.fetchMaxBytes);
      let total = 0;
      const responses = wanted.map(({ t, topic }) => ({
        topic: t.topic,
        topicId: t.topicId,
        partitions: t.partitions.map((p) => {
          const out: Init<PartitionData> = {
            partitionIndex: p.partition,
            errorCode: NONE,
            highWatermark: -1n,
            lastStableOffset: -1n,
            logStartOffset: -1n,
            abortedTransactions: req.isolationLevel === 1 ? [] : null,
            records: new Uint8Array(0),
          };
          const partition = topic?.partitions[p.partition];
          if (partition === undefined) {
            out.errorCode = errorCode(
              topic === undefined && apiVersion >= 13 ? "UNKNOWN_TOPIC_ID" : "UNKNOWN_TOPIC_OR_PARTITION",
            );
            return out;
          }
          const notLeader = leaderError(partition, ctx);
          if (notLeader !== NONE) {
            out.errorCode = notLeader;
            // KIP-951: currentLeader from Fetch v12, nodeEndpoints from v16.
            if (apiVersion >= 12) out.currentLeader = currentLeader(partition);
            hinted = true;
            return out;
          }
          // Kafka's Partition.checkCurrentLeaderEpoch: a fetcher that knows an older epoch is
          // fenced (it refreshes its metadata), one that knows a newer epoch is ahead of this broker.
          if (p.currentLeaderEpoch >= 0 && p.currentLeaderEpoch !== partition.leaderEpoch) {
            out.errorCode = errorCode(
              p.currentLeaderEpoch < partition.leaderEpoch ? "FENCED_LEADER_EPOCH" : "UNKNOWN_LEADER_EPOCH",
            );
            return out;
          }
          const log = partition.log;
          const lso = partition.producers.lastStableOffset(log.logEndOffset);
          out.highWatermark = log.logEndOffset;
          out.lastStableOffset = lso;
          out.logStartOffset = log.logStartOffset;
          if (p.fetchOffset < log.logStartOffset || p.fetchOffset > log.logEndOffset) {
            out.errorCode = errorCode("OFFSET_OUT_OF_RANGE");
            return out;
          }
          if (budget <= 0 && total > 0) return out;
          // read_committed (1): up to the last stable offset, with the aborted transactions in that range.
          const committed = req.isolationLevel === 1;
          const batches = log.read(
            p.fetchOffset,
            Math.min(p.partitionMaxBytes, budget),
            committed ? lso : log.logEndOffset,
          );
          if (committed && batches.length > 0) {
            const last = lastOffsetOf(batches[batches.length - 1]!);
            out.abortedTransactions = partition.producers
              .abortedBetween(p.fetchOffset, last)
              .map((a) => ({ producerId: a.producerId, firstOffset: a.firstOffset }));
          }
          // Whole stored batches: encodeRecords only concatenates them (synchronously).
          const records = encodeRecords(batches) as Uint8Array;
          out.records = records;
          budget -= records.length;
          total += records.length;
          return out;
        }),
      }));
      return { responses, total };
    };
    let result = build();
    const waitMs = Math.min(req.maxWaitMs, cluster.config.maxFetchWaitMs);
    if (result.total < Math.max(1, req.minBytes) && waitMs > 0 && !hinted) {
      // Wait for an append to any partition asked for, for maxWaitMs, or for the cluster to close.
      const logs = wanted.flatMap(({ t, topic }) =>
        t.partitions.map((p) => topic?.partitions[p.partition]?.log).filter((l) => l !== undefined),
      );
      await new Promise<void>((resolve) => {
        const cancels: (() => void)[] = [];
        const done = () => {
          cluster.clearTimer(timeout);
          for (const c of cancels) c();
          resolve();
        };
        const timeout = cluster.timer(waitMs, done);
        for (const l of logs) cancels.push(l.onAppend(done));
        cancels.push(cluster.onClose(done));
      });
      result = build();
    }
    let responses = result.responses;
    if (session !== null) {
      // An incremental response lists only what changed since the client last heard of it.
      const changed = (sp: SessionPartition, out: Init<PartitionData>): boolean => {
        const moved =
          out.highWatermark !== sp.highWatermark ||
          out.lastStableOffset !== sp.lastStableOffset ||
          out.logStartOffset !== sp.logStartOffset;
        sp.highWatermark = out.highWatermark ?? -1n;
        sp.lastStableOffset = out.lastStableOffset ?? -1n;
        sp.logStartOffset = out.logStartOffset ?? -1n;
        return !incremental || moved || (out.errorCode ?? 0) !== NONE || (out.records?.length ?? 0) > 0;
      };
      responses = responses
        .map((r, i) => ({
          ...r,
          partitions: r.partitions.filter((out, j) => changed(wanted[i]!.t.partitions[j]!, out)),
        }))
        .filter((r) => r.partitions.length > 0);
      FetchSessions.advance(session);
    }
    return {
      errorCode: NONE,
      sessionId: session?.id ?? 0,
      responses,
      ...(hinted && apiVersion >= 16 ? { nodeEndpoints: nodeEndpoints(cluster) } : {}),
    };
  });

  h.register(2, async (req, ctx) => ({
    throttleTimeMs: 0,
    topics: await Promise.all(
      req.topics.map(async (t) => ({
        name: t.name,
        partitions: await Promise.all(
          t.partitions.map(async (p) => {
            const partition = cluster.partition(t.name, p.partitionIndex);
            const reply = (offset: bigint, timestamp = -1n, code = NONE) => ({
              partitionIndex: p.partitionIndex,
              errorCode: code,
              timestamp,
              offset,
              // Not ignorable, and only in v4+.
              leaderEpoch: code === NONE && ctx.apiVersion >= 4 ? partition!.leaderEpoch : -1,
            });
            const notLeader = leaderError(partition, ctx);
            if (notLeader !== NONE) return reply(-1n, -1n, notLeader);
            const log = partition!.log;
            const ts = p.timestamp;
            // Kafka's ListOffsetsRequest: -1 latest, -2 earliest, -3 max timestamp, -4 earliest local, -5 latest tiered.
            // read_committed (isolation level 1) sees up to the last stable offset.
            if (ts === -1n)
              return reply(
                req.isolationLevel === 1 ? partition!.producers.lastStableOffset(log.logEndOffset) : log.logEndOffset,
              );
            if (ts === -2n || ts === -4n) return reply(log.logStartOffset);
            if (ts === -5n) return reply(-1n);
            const found =
              ts === -3n ? await log.maxTimestamp(cluster.codecs) : await log.offsetForTimestamp(ts, cluster.codecs);
            return found === null ? reply(-1n) : reply(found.offset, found.timestamp);
          }),
        ),
      })),
    ),
  }));

  h.register(10, (req, { apiVersion }) => {
    const find = (key: string) => {
      const found = coordinatorFor(cluster, key, req.keyType);
      if (typeof found === "number")
        return { key, nodeId: -1, host: "", port: -1, errorCode: found, errorMessage: null };
      return { key, nodeId: found.nodeId, host: found.host, port: found.port, errorCode: NONE, errorMessage: null };
    };
    if (apiVersion >= 4) return { throttleTimeMs: 0, coordinators: req.coordinatorKeys.map(find) };
    const one = find(req.key);
    return {
      throttleTimeMs: 0,
      errorCode: one.errorCode,
      errorMessage: null,
      nodeId: one.nodeId,
      host: one.host,
      port: one.port,
    };
  });
}

/** The last offset of a stored batch: baseOffset (bytes 0..7) + lastOffsetDelta (bytes 23..26). */
function lastOffsetOf(batch: Uint8Array): bigint {
  const view = new DataView(batch.buffer, batch.byteOffset, batch.byteLength);
  return view.getBigInt64(0) + BigInt(view.getInt32(23));
}

/** A partition as Metadata reports it. */
function partitionMetadata(cluster: Cluster, p: Partition) {
  return {
    // No running replica left to lead it (cluster.stopBroker).
    errorCode: p.leader === -1 ? errorCode("LEADER_NOT_AVAILABLE") : NONE,
    partitionIndex: p.index,
    leaderId: p.leader,
    leaderEpoch: p.leaderEpoch,
    replicaNodes: p.replicas,
    isrNodes: p.isr,
    offlineReplicas: cluster.stopped.size === 0 ? [] : p.replicas.filter((r) => cluster.stopped.has(r)),
  };
}

/** KIP-951's node endpoints: every running node, so that a client can reach the leader it was told about. */
export function nodeEndpoints(cluster: Cluster) {
  return cluster.nodes
    .filter((n) => !cluster.stopped.has(n.nodeId))
    .map((n) => ({ nodeId: n.nodeId, host: n.host, port: n.port, rack: n.rack }));
}
