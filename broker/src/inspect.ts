/**
 * What the cluster holds, for a test to look at (and GET endpoints of http-control.ts to serve):
 * topics with their partitions, a partition's records decoded, groups (classic, KIP-848 consumer
 * groups, and those of plugins' group listers) with their members, assignments and committed
 * offsets, producers and transactions. Read only: nothing here changes the cluster.
 *
 * Records come a page at a time (`offset`, `limit`, `maxBytes`), so that a large log cannot make
 * an unbounded answer. Bytes (keys, values, header values) are shown as UTF-8 text when they are
 * valid UTF-8, else as base64, and say which (`{ encoding, data }`).
 */

import { decodeRecords, type RecordBatch } from "../../src/records/index.js";
import { bytesToBase64 } from "../../src/runtime/base64.js";
import type { Cluster } from "./cluster.js";

/** Bytes as text: `utf8` when they are valid UTF-8, else `base64` (standard, padded). */
export interface InspectedBytes {
  readonly encoding: "utf8" | "base64";
  readonly data: string;
}

/** A partition as {@link Inspector.topics} reports it. */
export interface InspectedPartition {
  readonly partition: number;
  /** Node id, -1 when none (every replica stopped). */
  readonly leader: number;
  readonly leaderEpoch: number;
  readonly replicas: readonly number[];
  readonly isr: readonly number[];
  /** The first readable offset (DeleteRecords and retention move it). */
  readonly logStartOffset: bigint;
  /** The log end offset, which is also the high watermark here (no replication lag). */
  readonly highWatermark: bigint;
  /** Record batches held (data and control batches). */
  readonly batches: number;
  /** Bytes the batches hold. */
  readonly bytes: number;
}

export interface InspectedTopic {
  readonly name: string;
  /** Kafka's base64 form of the topic's uuid. */
  readonly topicId: string;
  readonly internal: boolean;
  /** The configs set on the topic (not the defaults). */
  readonly configs: Readonly<Record<string, string>>;
  readonly partitions: readonly InspectedPartition[];
}

/** One record of a partition, decoded. */
export interface InspectedRecord {
  readonly offset: bigint;
  /** ms since the epoch; the batch's max timestamp for LogAppendTime. */
  readonly timestamp: bigint;
  readonly timestampType: "CreateTime" | "LogAppendTime";
  readonly key: InspectedBytes | null;
  /** null: a tombstone. */
  readonly value: InspectedBytes | null;
  readonly headers: readonly { readonly key: string; readonly value: InspectedBytes | null }[];
  /** -1 when the producer is not idempotent. */
  readonly producerId: bigint;
  readonly producerEpoch: number;
  /** The record's sequence number, -1 when not idempotent. */
  readonly sequence: number;
  readonly transactional: boolean;
  /** A control record's type (`COMMIT`, `ABORT`, ...), null for a data record. */
  readonly control: string | null;
}

/** A page of a partition's records. */
export interface RecordPage {
  readonly topic: string;
  readonly partition: number;
  readonly logStartOffset: bigint;
  readonly highWatermark: bigint;
  readonly records: readonly InspectedRecord[];
  /** The offset to ask for the next page from; `highWatermark` once everything was read. */
  readonly nextOffset: bigint;
}

/** How much of a partition {@link Inspector.records} reads. */
export interface RecordPageOptions {
  /** The first offset (default: the log start offset; an earlier one starts there). */
  readonly offset?: bigint | number;
  /** At most this many records (1..1000, default 100). */
  readonly limit?: number;
  /**
   * At most this many bytes of keys, values and headers (1..16777216, default 1048576), but at
   * least one record, as Kafka's Fetch (KIP-74): one record is bounded by the request size limit.
   */
  readonly maxBytes?: number;
}

/** A committed offset of a group. */
export interface InspectedOffset {
  readonly topic: string;
  readonly partition: number;
  readonly offset: bigint;
  readonly leaderEpoch: number;
  readonly metadata: string | null;
  /** The partition's high watermark minus the offset (null when the partition no longer exists). */
  readonly lag: bigint | null;
}

/** A partition assignment: topics by name, each with its partition indexes. */
export type InspectedAssignment = readonly { readonly topic: string; readonly partitions: readonly number[] }[];

export interface InspectedMember {
  readonly memberId: string;
  /** KIP-345's group.instance.id (classic), KIP-848's instance id (consumer), or null. */
  readonly instanceId: string | null;
  readonly clientId: string;
  readonly clientHost: string;
  /**
   * Classic groups of protocol type `consumer`: the leader's assignment decoded
   * (ConsumerProtocolAssignment); consumer groups: the assignment the broker last sent. null when
   * none was made yet, or the classic group's protocol is not `consumer` (see `rawAssignment`).
   */
  readonly assignment: InspectedAssignment | null;
  /** Classic groups: the assignment bytes as SyncGroup handed them out (opaque to the broker). */
  readonly rawAssignment?: InspectedBytes;
  /** Consumer groups: the member epoch. */
  readonly memberEpoch?: number;
  /** Consumer groups: the target assignment of the current group epoch. */
  readonly targetAssignment?: InspectedAssignment;
  /** Consumer groups: what the member subscribes to. */
  readonly subscribedTopicNames?: readonly string[];
  readonly subscribedTopicRegex?: string | null;
}

export interface InspectedGroup {
  readonly groupId: string;
  /** `classic`, `consumer` (KIP-848), or a plugin's (`streams`, KIP-1071). */
  readonly type: string;
  /** Kafka's state names: classic Empty/PreparingRebalance/CompletingRebalance/Stable; consumer Empty/Reconciling/Stable. */
  readonly state: string;
  readonly protocolType: string;
  /** Classic: the chosen protocol (e.g. the assignor `range`); consumer: the server assignor. */
  readonly protocol: string | null;
  /** Classic: the generation id; consumer: the group epoch. */
  readonly epoch: number | null;
  /** Classic groups: the leader's member id. */
  readonly leader?: string | null;
  /** Plugin groups (streams) list no members here. */
  readonly members: readonly InspectedMember[];
  readonly offsets: readonly InspectedOffset[];
}

/** One producer id's state, over the partitions it wrote to. */
export interface InspectedProducer {
  readonly producerId: bigint;
  /** The newest epoch any partition saw. */
  readonly producerEpoch: number;
  /** The transactional id holding this producer id, or null (an idempotent producer). */
  readonly transactionalId: string | null;
  readonly partitions: readonly {
    readonly topic: string;
    readonly partition: number;
    readonly producerEpoch: number;
    /** The last sequence number appended, -1 when none is retained. */
    readonly lastSequence: number;
    /** The offset of the last record of the last batch appended, -1 when none is retained. */
    readonly lastOffset: bigint;
    /** The first offset of its open transaction in this partition, or null. */
    readonly transactionFirstOffset: bigint | null;
  }[];
}

export interface InspectedTransaction {
  readonly transactionalId: string;
  readonly producerId: bigint;
  readonly producerEpoch: number;
  /** Kafka's TransactionState names (Empty, Ongoing, CompleteCommit, CompleteAbort, ...). */
  readonly state: string;
  readonly timeoutMs: number;
  readonly partitions: readonly { readonly topic: string; readonly partition: number }[];
  /** Groups whose offsets the transaction commits (TxnOffsetCommit). */
  readonly groups: readonly string[];
  /** ms since the epoch; -1 before the transaction's first partition. */
  readonly startTimestamp: number;
}

const MAX_LIMIT = 1000;
const MAX_PAGE_BYTES = 16 * 1024 * 1024;
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** `bytes` as text: UTF-8 when valid, else base64. */
export function inspectBytes(bytes: Uint8Array): InspectedBytes {
  try {
    return { encoding: "utf8", data: utf8.decode(bytes) };
  } catch {
    return { encoding: "base64", data: bytesToBase64(bytes) };
  }
}

const split = (key: string): [string, number] => {
  const at = key.lastIndexOf("\0");
  return [key.slice(0, at), Number(key.slice(at + 1))];
};

function bounded(name: string, value: number | undefined, fallback: number, max: number): number {
  const v = value ?? fallback;
  if (!Number.isInteger(v) || v < 1 || v > max) throw new RangeError(`${name} must be an integer 1..${max}, not ${v}`);
  return v;
}

/**
 * Topics of a ConsumerProtocolAssignment (Kafka's ConsumerProtocolAssignment.json, every version:
 * int16 version, int32 count of (int16-length topic, int32 count of int32 partitions), then user
 * data that is not read). null when the bytes do not hold one.
 */
export function consumerAssignment(bytes: Uint8Array): InspectedAssignment | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 2;
  const need = (n: number) => at + n <= bytes.length;
  if (!need(4)) return null;
  const topics = view.getInt32(at);
  at += 4;
  // Each topic takes at least 6 bytes: a count past that cannot be honest.
  if (topics < 0 || topics > (bytes.length - at) / 6) return null;
  const out: { topic: string; partitions: number[] }[] = [];
  for (let i = 0; i < topics; i++) {
    if (!need(2)) return null;
    const len = view.getInt16(at);
    at += 2;
    if (len < 0 || !need(len + 4)) return null;
    let topic: string;
    try {
      topic = utf8.decode(bytes.subarray(at, at + len));
    } catch {
      return null;
    }
    at += len;
    const count = view.getInt32(at);
    at += 4;
    if (count < 0 || !need(count * 4)) return null;
    const partitions: number[] = [];
    for (let p = 0; p < count; p++, at += 4) partitions.push(view.getInt32(at));
    out.push({ topic, partitions });
  }
  return out;
}

/** The cluster's state, read only. Every method answers what the cluster holds at the call. */
export class Inspector {
  constructor(private readonly cluster: Cluster) {}

  /** Every topic (internal ones too) with its partitions, by name. */
  topics(): InspectedTopic[] {
    return [...this.cluster.topics.values()]
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map((t) => ({
        name: t.name,
        topicId: t.topicId,
        internal: t.internal,
        configs: Object.fromEntries(t.configs),
        partitions: t.partitions.map((p) => ({
          partition: p.index,
          leader: p.leader,
          leaderEpoch: p.leaderEpoch,
          replicas: [...p.replicas],
          isr: [...p.isr],
          logStartOffset: p.log.logStartOffset,
          highWatermark: p.log.logEndOffset,
          batches: p.log.batches.length,
          bytes: p.log.bytes,
        })),
      }));
  }

  /** One topic, or undefined. */
  topic(name: string): InspectedTopic | undefined {
    return this.topics().find((t) => t.name === name);
  }

  /**
   * A page of a partition's records from `offset`, decompressed and decoded; control records
   * (transaction markers) included, with their type.
   * @throws Error for an unknown partition; RangeError for a bad `limit` or `maxBytes`.
   */
  async records(topic: string, partition: number, options: RecordPageOptions = {}): Promise<RecordPage> {
    const p = this.cluster.partition(topic, partition);
    if (p === undefined) throw new Error(`no partition ${topic}-${partition}`);
    const limit = bounded("limit", options.limit, 100, MAX_LIMIT);
    const maxBytes = bounded("maxBytes", options.maxBytes, 1024 * 1024, MAX_PAGE_BYTES);
    const log = p.log;
    let from = options.offset === undefined ? log.logStartOffset : BigInt(options.offset);
    if (from < log.logStartOffset) from = log.logStartOffset;
    const records: InspectedRecord[] = [];
    let size = 0;
    let next = from;
    // Batch by batch (each read gives at least one): a batch's records past the page are left
    // for the next page, which starts inside that batch.
    pages: while (next < log.logEndOffset && records.length < limit) {
      const chunk = log.read(next, 1);
      if (chunk.length === 0) break;
      const set = await decodeRecords(chunk[0]!, { codecs: this.cluster.codecs });
      const batch = set.batches[0] as RecordBatch | undefined;
      if (batch === undefined) break;
      if (!batch.recordsAvailable) {
        next = batch.nextOffset;
        continue;
      }
      for (const r of batch.records) {
        if (r.offset < next) continue;
        const bytes =
          (r.key?.length ?? 0) +
          (r.value?.length ?? 0) +
          r.headers.reduce((n, h) => n + h.key.length + (h.value?.length ?? 0), 0);
        if (records.length >= limit || (records.length > 0 && size + bytes > maxBytes)) {
          next = r.offset;
          break pages;
        }
        size += bytes;
        records.push({
          offset: r.offset,
          timestamp: r.timestamp,
          timestampType: batch.timestampType,
          key: r.key === null ? null : inspectBytes(r.key),
          value: r.value === null ? null : inspectBytes(r.value),
          headers: r.headers.map((h) => ({ key: h.key, value: h.value === null ? null : inspectBytes(h.value) })),
          producerId: batch.producerId,
          producerEpoch: batch.producerEpoch,
          sequence: r.sequence,
          transactional: batch.isTransactional,
          control: r.control?.type ?? null,
        });
        next = r.offset + 1n;
      }
      // Compaction leaves gaps: the next batch starts after this one, whatever was read of it.
      if (next < batch.nextOffset) next = batch.nextOffset;
    }
    return {
      topic,
      partition,
      logStartOffset: log.logStartOffset,
      highWatermark: log.logEndOffset,
      records,
      nextOffset: next > log.logEndOffset ? log.logEndOffset : next,
    };
  }

  /** Every group, by group id: classic, consumer, then those of `cluster.groupListers`. */
  groups(): InspectedGroup[] {
    const groups = this.cluster.groups;
    const out = new Map<string, InspectedGroup>();
    const topicName = (topicId: string) => this.cluster.topicsById.get(topicId)?.name ?? topicId;
    const byName = (tps: readonly { topicId: string; partitions: number[] }[]): InspectedAssignment =>
      tps.map((t) => ({ topic: topicName(t.topicId), partitions: t.partitions }));
    for (const groupId of groups.committedOffsets().keys()) {
      out.set(groupId, this.group0(groupId, "classic", "Empty", "", null, null, []));
    }
    for (const [groupId, g] of groups.classicGroups()) {
      const members = [...g.members.values()].map((m) => ({
        memberId: m.memberId,
        instanceId: m.groupInstanceId,
        clientId: m.clientId,
        clientHost: m.clientHost,
        assignment: g.protocolType === "consumer" && m.assignment.length > 0 ? consumerAssignment(m.assignment) : null,
        rawAssignment: inspectBytes(m.assignment),
      }));
      out.set(groupId, {
        ...this.group0(groupId, "classic", g.state, g.protocolType ?? "", g.protocolName, g.generationId, members),
        leader: g.leader,
      });
    }
    for (const [groupId, g] of groups.consumerGroups()) {
      const members = g.describeMembers(topicName).map((m) => ({
        memberId: m.memberId,
        instanceId: m.instanceId,
        clientId: m.clientId,
        clientHost: m.clientHost,
        assignment: m.memberEpoch > 0 ? byName(m.assignment.topicPartitions) : null,
        memberEpoch: m.memberEpoch,
        targetAssignment: byName(m.targetAssignment.topicPartitions),
        subscribedTopicNames: m.subscribedTopicNames,
        subscribedTopicRegex: m.subscribedTopicRegex,
      }));
      out.set(groupId, this.group0(groupId, "consumer", g.state, "consumer", g.assignor(), g.groupEpoch, members));
    }
    for (const list of this.cluster.groupListers) {
      for (const g of list()) {
        out.set(g.groupId, this.group0(g.groupId, g.groupType, g.groupState, g.protocolType, null, null, []));
      }
    }
    return [...out.values()].sort((a, b) => (a.groupId < b.groupId ? -1 : a.groupId > b.groupId ? 1 : 0));
  }

  /** One group, or undefined. */
  group(groupId: string): InspectedGroup | undefined {
    return this.groups().find((g) => g.groupId === groupId);
  }

  /** Every producer id that wrote to a partition, with its state there (as Kafka's DescribeProducers). */
  producers(): InspectedProducer[] {
    const byId = new Map<bigint, { producerEpoch: number; partitions: InspectedProducer["partitions"][number][] }>();
    const txnOf = new Map<bigint, string>();
    for (const t of this.cluster.transactions.transactions.values()) txnOf.set(t.producerId, t.transactionalId);
    for (const t of this.cluster.topics.values()) {
      for (const p of t.partitions) {
        for (const e of p.producers.producers.values()) {
          const last = e.batches.at(-1);
          let entry = byId.get(e.producerId);
          if (entry === undefined) {
            entry = { producerEpoch: e.epoch, partitions: [] };
            byId.set(e.producerId, entry);
          }
          if (e.epoch > entry.producerEpoch) entry.producerEpoch = e.epoch;
          entry.partitions.push({
            topic: t.name,
            partition: p.index,
            producerEpoch: e.epoch,
            lastSequence: last?.lastSeq ?? -1,
            lastOffset: last?.lastOffset ?? -1n,
            transactionFirstOffset: e.txnFirstOffset,
          });
        }
      }
    }
    return [...byId]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([producerId, e]) => ({ producerId, transactionalId: txnOf.get(producerId) ?? null, ...e }));
  }

  /** Every transactional id the transaction coordinator knows, with its open transaction's partitions. */
  transactions(): InspectedTransaction[] {
    return [...this.cluster.transactions.transactions.values()]
      .sort((a, b) => (a.transactionalId < b.transactionalId ? -1 : 1))
      .map((t) => ({
        transactionalId: t.transactionalId,
        producerId: t.producerId,
        producerEpoch: t.producerEpoch,
        state: t.state,
        timeoutMs: t.timeoutMs,
        partitions: [...t.partitions].map(split).map(([topic, partition]) => ({ topic, partition })),
        groups: [...t.groups],
        startTimestamp: t.startTimestamp,
      }));
  }

  private group0(
    groupId: string,
    type: string,
    state: string,
    protocolType: string,
    protocol: string | null,
    epoch: number | null,
    members: InspectedMember[],
  ): InspectedGroup {
    return { groupId, type, state, protocolType, protocol, epoch, members, offsets: this.offsets(groupId) };
  }

  private offsets(groupId: string): InspectedOffset[] {
    const committed = this.cluster.groups.committedOffsets().get(groupId);
    if (committed === undefined) return [];
    return [...committed]
      .map(([key, c]) => {
        const [topic, partition] = split(key);
        const hw = this.cluster.partition(topic, partition)?.log.logEndOffset;
        return {
          topic,
          partition,
          offset: c.offset,
          leaderEpoch: c.leaderEpoch,
          metadata: c.metadata,
          lag: hw === undefined ? null : hw - c.offset,
        };
      })
      .sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition));
  }
}
