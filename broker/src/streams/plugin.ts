/**
 * Streams groups in kafka-wire-broker: a {@link BrokerPlugin} serving StreamsGroupHeartbeat (88)
 * and StreamsGroupDescribe (89) with the seed codecs, answered by {@link StreamsGroupCoordinator};
 * every record the coordinator writes is appended, as one record batch per request, to the
 * group's partition of `__consumer_offsets` (Kafka's `abs(groupId.hashCode()) % 50`), where
 * consumers of that topic and `kafka-wire internal-record` see them. Internal topics the
 * coordinator asks for are created. `restore` replays a previous cluster's `__consumer_offsets`
 * (a restart).
 *
 *   const streams = new StreamsGroups({ internalTopics }); // Kafka's generated internalTopics
 *   const cluster = await startCluster({ protocol, plugins: [streams.plugin], topics: { orders: 6 } });
 */

import { decodeRecords, type RecordBatch } from "../../../src/records/index.js";
import type { InternalTopics } from "../../../src/runtime/index.js";
import type { StreamsGroupDescribeRequest, StreamsGroupHeartbeatRequest } from "./messages.js";
import { TopicError, type BrokerPlugin, type Cluster } from "../cluster.js";
import { errorCode } from "../errors.js";
import { coordinatorFor, coordinatorPartition, COORDINATOR_TYPES } from "../handlers/coordinator.js";
import type { ApiKey, Handler } from "../types.js";
import type { StreamsGroupConfig } from "./config.js";
import { StreamsGroupCoordinator } from "./coordinator.js";
import { withSeedStreamsApis, STREAMS_GROUP_DESCRIBE, STREAMS_GROUP_HEARTBEAT } from "./protocol.js";
import { CONSUMER_OFFSETS, StreamsRecordCodec, type StreamsRecord } from "./records.js";
import type { TopicMetadataSource } from "./tasks.js";

export interface StreamsGroupsOptions {
  /** The `internalTopics` generated from Kafka's group-coordinator schemas (record types 17–23). */
  readonly internalTopics: InternalTopics;
  /** Streams group configs (page 002's table); defaults as there. */
  readonly config?: Partial<StreamsGroupConfig>;
  /** Milliseconds; default Date.now. */
  readonly clock?: () => number;
  /** How often session and rebalance timeouts are checked (ms, default 250). */
  readonly tickMs?: number;
  /** A previous cluster's `__consumer_offsets` batches by partition, replayed and appended at start. */
  readonly restore?: ReadonlyMap<number, readonly Uint8Array[]>;
}

/** Streams groups for one cluster: install {@link plugin}; {@link coordinator} is there once installed. */
export class StreamsGroups {
  readonly options: StreamsGroupsOptions;
  readonly codec: StreamsRecordCodec;
  private installed: StreamsGroupCoordinator | null = null;
  private cluster: Cluster | null = null;
  private pendingRestore: [number, Uint8Array][] = [];

  /** @throws Error when `internalTopics` lacks a streams record type; RangeError for a config out of bounds. */
  constructor(options: StreamsGroupsOptions) {
    this.options = options;
    this.codec = new StreamsRecordCodec(options.internalTopics);
  }

  get coordinator(): StreamsGroupCoordinator {
    if (this.installed === null) throw new Error("the streams plugin is not installed in a cluster yet");
    return this.installed;
  }

  /** The plugin to give `startCluster({ plugins })`. */
  readonly plugin: BrokerPlugin = (cluster) => {
    if (this.installed !== null) throw new Error("a StreamsGroups instance serves one cluster");
    this.cluster = cluster;
    // Api keys 88 and 89 are the seed's messages, not Kafka's (see protocol.ts).
    Object.defineProperty(cluster, "protocol", { value: withSeedStreamsApis(cluster.protocol.untyped) });
    const topics: TopicMetadataSource = {
      describe: (name) => {
        const t = cluster.topics.get(name);
        return t === undefined ? undefined : { id: t.topicId, partitions: t.partitions.length };
      },
      names: () => [...cluster.topics.values()].filter((t) => !t.internal).map((t) => t.name),
    };
    const coordinator = new StreamsGroupCoordinator({
      topics,
      ...(this.options.config === undefined ? {} : { config: this.options.config }),
      ...(this.options.clock === undefined ? {} : { clock: this.options.clock }),
    });
    this.installed = coordinator;
    // ListGroups (and cluster.inspect) list streams groups too, as Kafka's group coordinator does
    // (StreamsGroup: protocol type and group type "streams").
    cluster.groupListers.add(() =>
      coordinator.groupIds().map((groupId) => ({
        groupId,
        protocolType: "streams",
        groupState: coordinator.groupState(coordinator.group(groupId)!),
        groupType: "streams",
      })),
    );
    // The groups come back at once; the batches go back into __consumer_offsets on its first use
    // (plugins run before the nodes exist, and the topic's replicas need them).
    for (const [partition, batches] of this.options.restore ?? []) {
      for (const bytes of batches) {
        for (const r of this.codec.decode(bytes)) coordinator.replay(r);
        this.pendingRestore.push([partition, bytes]);
      }
    }

    const heartbeat: Handler<ApiKey> = (body, context) => {
      const req = body as unknown as StreamsGroupHeartbeatRequest;
      const coordinatorNode = coordinatorFor(cluster, req.groupId, COORDINATOR_TYPES.GROUP);
      if (typeof coordinatorNode === "number" || coordinatorNode.nodeId !== context.node.nodeId)
        return { errorCode: errorCode("NOT_COORDINATOR"), errorMessage: null, memberId: req.memberId } as never;
      const result = coordinator.heartbeat(req, {
        clientId: context.header.clientId ?? "",
        clientHost: `/${context.connection.remoteAddress}`,
      });
      this.append(result.records);
      for (const t of result.topicsToCreate) {
        if (cluster.topics.has(t.name)) continue;
        try {
          cluster.createTopic(t.name, {
            partitions: t.partitions,
            ...(t.replicationFactor > 0
              ? { replicationFactor: Math.min(t.replicationFactor, cluster.nodes.length) }
              : {}),
            configs: Object.fromEntries(t.configs.map((c) => [c.key, c.value])),
          });
        } catch (e) {
          // A name or count the cluster refuses: the group stays at MISSING_INTERNAL_TOPICS.
          if (!(e instanceof TopicError)) throw e;
          cluster.log(`streams group ${req.groupId}: internal topic ${t.name} not created: ${e.message}`);
        }
      }
      return result.response as never;
    };
    const describe: Handler<ApiKey> = (body, context) => {
      const req = body as unknown as StreamsGroupDescribeRequest;
      const response = coordinator.describe(req);
      for (const g of response.groups) {
        const node = coordinatorFor(cluster, g.groupId, COORDINATOR_TYPES.GROUP);
        if (g.groupId !== "" && (typeof node === "number" || node.nodeId !== context.node.nodeId)) {
          Object.assign(g, {
            errorCode: errorCode("NOT_COORDINATOR"),
            errorMessage: null,
            members: [],
            topology: null,
          });
        }
      }
      return response as never;
    };
    cluster.handlers.register(STREAMS_GROUP_HEARTBEAT as ApiKey, heartbeat);
    cluster.handlers.register(STREAMS_GROUP_DESCRIBE as ApiKey, describe);

    const tickMs = this.options.tickMs ?? 250;
    const tick = () => {
      if (cluster.isClosed) return;
      this.append(coordinator.tick());
      cluster.timer(tickMs, tick);
    };
    cluster.timer(tickMs, tick);
  };

  private offsetsTopic() {
    const cluster = this.cluster!;
    // Creates __consumer_offsets (50 partitions, compacted) on first use, as FindCoordinator does.
    coordinatorFor(cluster, "", COORDINATOR_TYPES.GROUP);
    const topic = cluster.topics.get(CONSUMER_OFFSETS)!;
    const restore = this.pendingRestore;
    this.pendingRestore = [];
    for (const [partition, bytes] of restore) {
      const p = topic.partitions[partition];
      if (p === undefined) throw new Error(`restore: __consumer_offsets has no partition ${partition}`);
      p.log.append(decodedBatches(bytes), p.leaderEpoch);
    }
    return topic;
  }

  private offsetsPartition(partition: number) {
    const p = this.offsetsTopic().partitions[partition];
    if (p === undefined) throw new Error(`__consumer_offsets has no partition ${partition}`);
    return p;
  }

  /** Appends records, one batch per group, to each group's partition of `__consumer_offsets`. */
  private append(records: readonly StreamsRecord[]): void {
    if (records.length === 0) return;
    const byGroup = new Map<string, StreamsRecord[]>();
    for (const r of records) {
      const list = byGroup.get(r.key.groupId) ?? [];
      list.push(r);
      byGroup.set(r.key.groupId, list);
    }
    const now = (this.options.clock ?? Date.now)();
    for (const [groupId, list] of byGroup) {
      const bytes = this.codec.batch(list, now);
      const topic = this.offsetsTopic();
      const partition = this.offsetsPartition(coordinatorPartition(groupId, topic.partitions.length));
      partition.log.append(decodedBatches(bytes), partition.leaderEpoch);
    }
  }

  /** Every batch of `__consumer_offsets` by partition (what `restore` takes), e.g. to restart with. */
  consumerOffsets(): Map<number, Uint8Array[]> {
    const out = new Map<number, Uint8Array[]>();
    if (this.cluster === null) return out;
    const topic = this.pendingRestore.length > 0 ? this.offsetsTopic() : this.cluster.topics.get(CONSUMER_OFFSETS);
    if (topic === undefined) return out;
    for (const p of topic.partitions)
      if (p.log.batches.length > 0)
        out.set(
          p.index,
          // Copies: a stored batch's bytes are a view of the cluster's segment pool, reused once deleted.
          p.log.batches.map((b) => b.bytes.slice()),
        );
    return out;
  }
}

function decodedBatches(bytes: Uint8Array): RecordBatch[] {
  const set = decodeRecords(bytes);
  if (set instanceof Promise) throw new Error("streams records are written uncompressed");
  return set.batches as RecordBatch[];
}
