/**
 * A Kafka cluster in one process: several broker nodes, each with its own loopback listener,
 * sharing one in-memory state (topics and their partition logs, groups, producers). Every
 * request is answered by the handler registered for its api key (see registry.ts, types.ts).
 *
 * A test double for applications and clients, not a production broker: no persistence, no
 * replication (followers and ISR are reported, every replica is "in sync"), loopback only,
 * every table and buffer bounded.
 */

import net from "node:net";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { codecs as compressionCodecs } from "kafka-wire-compression";
import type { Codecs } from "../../src/records/index.js";
import { defineProtocol, type ProtocolDefinition } from "../../src/codegen/v1.js";
import { uuidToString, type DecodedRequest, type Protocol, type TypedProtocol } from "../../src/runtime/index.js";
import { GroupCoordinator } from "./groups.js";
import { PartitionLog } from "./log.js";
import { SegmentPool } from "./segment-pool.js";
import { ProducerStates } from "./producers.js";
import { FetchSessions } from "./fetch-sessions.js";
import { TransactionCoordinator } from "./transactions.js";
import { HandlerRegistry } from "./registry.js";
import type { ApiKey, Apis, Connection, RequestContext } from "./types.js";
import { registerCoreHandlers } from "./handlers/core.js";
import { registerGroupHandlers } from "./handlers/groups.js";
import { registerAdminHandlers } from "./handlers/admin.js";
import { registerTransactionHandlers } from "./handlers/transactions.js";
import { registerSaslHandlers, type SaslOptions } from "./handlers/sasl.js";
import { topicConfig } from "./configs.js";
import { compactTopic } from "./compaction.js";
import { Control, type DelaySpec, type FailSpec, type FaultScope, type Interceptor } from "./control.js";
import { RequestLog, type RequestLogEntry, type RequestLogOptions } from "./request-log.js";
import { Inspector } from "./inspect.js";
import { ConnectionServer, makeRoom } from "./connection.js";

/** One broker node of the cluster, as Metadata reports it. */
export interface BrokerNode {
  readonly nodeId: number;
  readonly host: string;
  readonly port: number;
  readonly rack: string | null;
}

/** A topic to create: a partition count, or the details. */
export interface TopicSpec {
  /** Number of partitions (default: the cluster's `numPartitions`). */
  readonly partitions?: number;
  /** Replicas per partition (default: the cluster's `defaultReplicationFactor`), at most the number of brokers. */
  readonly replicationFactor?: number;
  /** Explicit replica node ids per partition (the first is the leader); overrides `partitions` and `replicationFactor`. */
  readonly assignments?: readonly (readonly number[])[];
  /** Topic configs (`cleanup.policy`, `retention.ms`, ...); the rest take the broker's defaults. */
  readonly configs?: Readonly<Record<string, string>>;
}

/** One request and what the cluster answered, for tests and logs. */
export interface Exchange {
  /** Which connection (0, 1, ...), in the order they were accepted over the whole cluster. */
  readonly connection: number;
  /** The node that received it. */
  readonly nodeId: number;
  readonly apiKey: number;
  readonly apiVersion: number;
  readonly correlationId: number;
  /** The request frame, size prefix included. */
  readonly request: Uint8Array;
  /** The decoded request, or null when it did not decode (KIP-511's fallback, or an error). */
  readonly decoded: DecodedRequest | null;
  /** The response frame, or null when none was sent (Produce with acks=0, or an error). */
  readonly response: Uint8Array | null;
  /** Why the connection was closed instead of answering. */
  readonly error: Error | null;
}

/** Adds APIs to a cluster (or replaces core ones): called once, before the listeners open. */
export type BrokerPlugin = (cluster: Cluster) => void;

export interface ClusterOptions {
  /**
   * The codecs: a generated index's `protocol` (of Kafka's client messages). Without it, give
   * `schemas` or `kafka` and the codecs come from kafka-wire-cli's codec cache.
   */
  readonly protocol?: Protocol | TypedProtocol<Apis>;
  /** Kafka's message schema folders (e.g. `clients/src/main/resources/common/message`). */
  readonly schemas?: string | readonly string[];
  /** A Kafka release whose schemas to use (downloaded once and cached by kafka-wire-cli), e.g. `4.1.0`. */
  readonly kafka?: string;
  /** The codec cache folder (default `$KAFKA_WIRE_CACHE_DIR`, else `~/.cache/kafka-wire`). */
  readonly cacheDir?: string;
  /** Number of broker nodes, each with its own listener (default 1). Node ids are 1..brokers. */
  readonly brokers?: number;
  /** A loopback address: `127.0.0.1` (default), `::1` or `localhost`. */
  readonly host?: string;
  /** One port per broker (default: ephemeral ports). */
  readonly ports?: readonly number[];
  readonly clusterId?: string;
  /** Topics that exist from the start: `{ orders: 6 }`, or `{ orders: { partitions: 6, configs: {...} } }`. */
  readonly topics?: Readonly<Record<string, number | TopicSpec>>;
  /** Kafka's `auto.create.topics.enable` (default true, as in Kafka). */
  readonly autoCreateTopics?: boolean;
  /**
   * Kafka's `unstable.api.versions.enable` (default false, as in Kafka): whether the latest
   * version of APIs whose request schema says `latestVersionUnstable` is served. Left out,
   * ApiVersions does not list it (nor an API with no other version) and a request at it closes
   * the connection. Needs a `protocol` defined with `unstableVersions: true` (one loaded from
   * `schemas` or `kafka` is defined so).
   */
  readonly unstableVersions?: boolean;
  /** Kafka's `num.partitions`, for auto-created topics and CreateTopics with -1 (Kafka: 1). Default 1. */
  readonly numPartitions?: number;
  /** Kafka's `default.replication.factor` (Kafka: 1). Default: min(3, brokers). */
  readonly defaultReplicationFactor?: number;
  /** Codecs to decompress produced batches with (default: kafka-wire-compression's five). */
  readonly codecs?: Codecs;
  /** Kafka's `group.initial.rebalance.delay.ms` (Kafka: 3000). Default 300. */
  readonly initialRebalanceDelayMs?: number;
  /** KIP-848's `group.consumer.heartbeat.interval.ms` (Kafka: 5000). Default 1000. */
  readonly consumerHeartbeatIntervalMs?: number;
  /** KIP-848's `group.consumer.session.timeout.ms` (Kafka: 45000). */
  readonly consumerSessionTimeoutMs?: number;
  /** Kafka's `socket.request.max.bytes`: the largest request frame (default 104857600, 100 MiB, as Kafka). */
  readonly maxRequestBytes?: number;
  /** Kafka's `connections.max.idle.ms`: a connection with no traffic this long is closed (default 600000, as Kafka). */
  readonly idleTimeoutMs?: number;
  /**
   * The longest a request frame may take to arrive once its first byte has, and a new connection
   * to send its first complete request (ms; default 30000, the `request.timeout.ms` of Kafka's
   * clients: a request not sent by then is one the client has given up on). Past it the connection
   * is closed. Kafka has no such deadline (a byte now and then keeps a connection open there);
   * here it keeps slow senders from holding connections and buffers. Time while the broker itself
   * is not reading the connection (see `maxQueuedRequests`) does not count.
   */
  readonly requestTimeoutMs?: number;
  /** Kafka's broker `fetch.max.bytes`: a Fetch response carries at most this many record bytes (default 57671680, as Kafka). */
  readonly fetchMaxBytes?: number;
  /**
   * Connections per node (default 256). A connection past it is let in, and one already open is
   * closed instead: the one stuck longest (a partial frame, no first request yet, responses not
   * read), else the one idle longest, else the one whose last request came longest ago. Kafka's
   * `max.connections` makes a newcomer wait, closing the least recently used connection only for
   * its inter-broker listener (KIP-402); a test double must never lock out its test's own client.
   */
  readonly maxConnections?: number;
  /** Requests read ahead on one connection before it stops being read (default 64); it also stops at `maxRequestBytes` of them. */
  readonly maxQueuedRequests?: number;
  /** Bytes of unanswered requests all connections together may hold before reading stops (default 268435456, 256 MiB). */
  readonly maxBufferedBytes?: number;
  /** Bytes held by all partition logs together (default 256 MiB); a Produce past it gets KAFKA_STORAGE_ERROR. */
  readonly maxLogBytes?: number;
  /**
   * Records one Produce request may carry, all its partitions together (default 1000000, the
   * `maxRecords` default of `decodeRecords`). A partition whose record set would pass it gets
   * RECORD_LIST_TOO_LARGE (18, Kafka's error for a record set larger than the broker takes: its
   * `RecordBatchTooLargeException`) and is not appended; the request's other partitions are
   * served. Kafka has no such count (its limits are in bytes); it bounds the CPU one request costs.
   */
  readonly maxProduceRecords?: number;
  /**
   * Kafka's `offset.metadata.max.bytes` (default 4096, as Kafka): an OffsetCommit or
   * TxnOffsetCommit partition whose metadata is longer gets OFFSET_METADATA_TOO_LARGE (12) and is
   * not committed. Counted as Kafka counts it: UTF-16 code units (Java's `String.length()`).
   */
  readonly maxOffsetMetadataBytes?: number;
  readonly maxTopics?: number;
  /** Partitions per topic (default 1000). */
  readonly maxPartitions?: number;
  /** Partitions of all topics together (default 20000): each has a log and producer state. */
  readonly maxTotalPartitions?: number;
  readonly maxGroups?: number;
  readonly maxMembers?: number;
  /** The longest a Fetch waits for data, whatever it asks for (ms). Default 5000. */
  readonly maxFetchWaitMs?: number;
  /**
   * SASL (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512) with these users: every connection must
   * authenticate first, as on Kafka's SASL_PLAINTEXT listener. Default: no authentication.
   */
  readonly sasl?: SaslOptions;
  /** More APIs (or replacements of core ones), installed in order after the core handlers. */
  readonly plugins?: readonly BrokerPlugin[];
  /**
   * Records every request and response as Kafka's JSON (`RunningCluster.requestLog()`, GET /log):
   * true for the default bounds (the newest 1000), or the bounds. Default off; see request-log.ts.
   */
  readonly requestLog?: boolean | RequestLogOptions;
  /**
   * @internal How connections read their sockets: into a slab reused from read to read (default;
   * see frame-reader.ts), or through Node's 'data' events (false; also where this Node.js cannot
   * read into a buffer of the broker's own). For the tests of both paths.
   */
  readonly slabReads?: boolean;
  /** Called for every request once answered (or not). */
  readonly onExchange?: (exchange: Exchange) => void;
  /** Diagnostics (a closed connection and why). */
  readonly log?: (line: string) => void;
}

/** The limits and defaults a cluster runs with (every option resolved). */
export interface ClusterConfig {
  readonly autoCreateTopics: boolean;
  readonly unstableVersions: boolean;
  readonly numPartitions: number;
  readonly defaultReplicationFactor: number;
  readonly initialRebalanceDelayMs: number;
  readonly consumerHeartbeatIntervalMs: number;
  readonly consumerSessionTimeoutMs: number;
  readonly maxRequestBytes: number;
  readonly idleTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly fetchMaxBytes: number;
  readonly maxConnections: number;
  readonly maxQueuedRequests: number;
  readonly maxBufferedBytes: number;
  readonly maxLogBytes: number;
  readonly maxProduceRecords: number;
  readonly maxOffsetMetadataBytes: number;
  readonly maxTopics: number;
  readonly maxPartitions: number;
  readonly maxTotalPartitions: number;
  readonly maxGroups: number;
  readonly maxMembers: number;
  readonly maxFetchWaitMs: number;
  /** @internal See ClusterOptions.slabReads. */
  readonly slabReads: boolean;
}

/** @internal What {@link Cluster.holders} knows of one open connection. */
export interface ConnectionHolder {
  readonly nodeId: number;
  /** Bytes held: queued requests and the partial frame (in full from its size prefix on). */
  held(): number;
  /** Bytes of what it holds that have arrived (less than `held` while a frame is partial). */
  received(): number;
  /**
   * How the connection stands for `maxConnections`, with the `performance.now()` it has since:
   * `stuck` (a partial frame or no first request yet, or its responses not read), `idle`
   * (nothing in flight) or `busy` (a request queued or being answered).
   */
  standing(): { readonly kind: "stuck" | "idle" | "busy"; readonly since: number };
  drop(why: string): void;
  /** Called each second: an idle connection gives back what it need not keep (read slabs). */
  tidy(now: number): void;
}

/** One partition: its replicas (the first is the preferred leader), leader and log. */
export interface Partition {
  readonly index: number;
  readonly replicas: number[];
  isr: number[];
  leader: number;
  leaderEpoch: number;
  readonly log: PartitionLog;
  /** Producer ids, sequences and transactions of this partition. */
  readonly producers: ProducerStates;
}

/** A topic. */
export interface Topic {
  readonly name: string;
  /** Kafka's base64 form of the topic's uuid. */
  readonly topicId: string;
  readonly internal: boolean;
  readonly partitions: Partition[];
  /** The configs set on the topic (not the defaults). */
  readonly configs: Map<string, string>;
}

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);
/** How long requests may keep the event loop before {@link Cluster.breathe} yields it (ms). */
const BREATHE_MS = 10;
/** Kafka's topic name rule (`Topic.validate`): 1..249 of [a-zA-Z0-9._-], not "." or "..". */
const TOPIC_NAME = /^[a-zA-Z0-9._-]{1,249}$/;

/** Why a topic cannot be created: Kafka's error name and message. */
export class TopicError extends Error {
  constructor(
    readonly errorName: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The shared state of a running cluster, as handlers and plugins see it. Its methods keep
 * Kafka's invariants (topic ids, leaders, bounds); handlers read the fields directly.
 */
export class Cluster {
  readonly clusterId: string;
  /** The nodes, by node id order. */
  readonly nodes: BrokerNode[] = [];
  readonly config: ClusterConfig;
  readonly handlers = new HandlerRegistry();
  /** The codecs, typed by the generated types. */
  readonly protocol: TypedProtocol<Apis>;
  /** Codecs produced batches are decompressed with. */
  readonly codecs: Codecs;
  readonly topics = new Map<string, Topic>();
  readonly topicsById = new Map<string, Topic>();
  readonly groups: GroupCoordinator;
  readonly transactions: TransactionCoordinator = new TransactionCoordinator(this);
  /** Bytes held by every partition log. */
  storedBytes = 0;
  /** @internal Where the logs store batches of up to 64 KiB (its memory is reserved on first use). */
  readonly segments: SegmentPool;
  /** Bytes all connections hold in requests not answered yet (bounded by `maxBufferedBytes`). */
  bufferedBytes = 0;
  /**
   * @internal Every open connection by id: what it holds (the cluster-wide bound closes the
   * largest), how long it has been stuck or idle (`maxConnections` closes one of those first), and
   * how to close it.
   */
  readonly holders = new Map<number, ConnectionHolder>();
  /**
   * More groups for ListGroups, from plugins with group types of their own (KIP-1071's
   * `streams` groups): each lister gives its groups as ListGroups reports them.
   */
  readonly groupListers = new Set<
    () => readonly { groupId: string; protocolType: string; groupState: string; groupType: string }[]
  >();
  /** KIP-227's incremental fetch sessions of every node. */
  readonly fetchSessions = new FetchSessions();
  /** True when connections must authenticate (the `sasl` option). */
  readonly saslRequired: boolean;
  /** Broker configs set by AlterConfigs/IncrementalAlterConfigs (cluster-wide here). */
  readonly brokerConfigs = new Map<string, string>();
  /** Faults and interceptors registered by tests (see control.ts and {@link RunningCluster.fail}). */
  readonly control: Control = new Control(this);
  /** Node ids stopped by {@link RunningCluster.stopBroker}: not in Metadata, not leading, not in any ISR. */
  readonly stopped = new Set<number>();
  /** Coordinators moved by {@link RunningCluster.moveCoordinator}: by group id, the node id. */
  readonly movedCoordinators = new Map<string, number>();
  /** The opt-in log of requests and responses as Kafka's JSON (request-log.ts); cleared by reset. */
  readonly requestLog: RequestLog;
  /** The next producer id InitProducerId hands out. */
  nextProducerId = 1000n;
  readonly log: (line: string) => void;
  private readonly closers = new Set<() => void>();
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();
  private assignmentStart = 0;
  private closed = false;
  /** When {@link breathe} last let the event loop run. */
  private lastBreath = performance.now();

  constructor(options: ClusterOptions & { readonly protocol: Protocol | TypedProtocol<Apis> }) {
    this.protocol = options.protocol as TypedProtocol<Apis>;
    this.clusterId = options.clusterId ?? "kafka-wire-cluster";
    this.codecs = options.codecs ?? compressionCodecs;
    this.log = options.log ?? (() => {});
    this.saslRequired = options.sasl !== undefined;
    this.requestLog = new RequestLog(this.protocol.untyped);
    if (options.requestLog !== undefined && options.requestLog !== false) {
      this.requestLog.enable(options.requestLog === true ? {} : options.requestLog);
    }
    const brokers = options.brokers ?? 1;
    this.config = {
      autoCreateTopics: options.autoCreateTopics ?? true,
      unstableVersions: options.unstableVersions ?? false,
      numPartitions: options.numPartitions ?? 1,
      defaultReplicationFactor: options.defaultReplicationFactor ?? Math.min(3, brokers),
      initialRebalanceDelayMs: options.initialRebalanceDelayMs ?? 300,
      consumerHeartbeatIntervalMs: options.consumerHeartbeatIntervalMs ?? 1000,
      consumerSessionTimeoutMs: options.consumerSessionTimeoutMs ?? 45_000,
      maxRequestBytes: options.maxRequestBytes ?? 104_857_600,
      idleTimeoutMs: options.idleTimeoutMs ?? 600_000,
      requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
      fetchMaxBytes: options.fetchMaxBytes ?? 57_671_680,
      maxConnections: options.maxConnections ?? 256,
      maxQueuedRequests: options.maxQueuedRequests ?? 64,
      maxBufferedBytes: options.maxBufferedBytes ?? 256 * 1024 * 1024,
      maxLogBytes: options.maxLogBytes ?? 256 * 1024 * 1024,
      maxProduceRecords: options.maxProduceRecords ?? 1_000_000,
      maxOffsetMetadataBytes: options.maxOffsetMetadataBytes ?? 4096,
      maxTopics: options.maxTopics ?? 1000,
      maxPartitions: options.maxPartitions ?? 1000,
      maxTotalPartitions: options.maxTotalPartitions ?? 20_000,
      maxGroups: options.maxGroups ?? 1000,
      maxMembers: options.maxMembers ?? 100,
      maxFetchWaitMs: options.maxFetchWaitMs ?? 5000,
      slabReads: options.slabReads ?? true,
    };
    this.segments = new SegmentPool(this.config.maxLogBytes);
    this.groups = new GroupCoordinator(
      {
        initialRebalanceDelayMs: this.config.initialRebalanceDelayMs,
        consumerHeartbeatIntervalMs: this.config.consumerHeartbeatIntervalMs,
        consumerSessionTimeoutMs: this.config.consumerSessionTimeoutMs,
        maxGroups: this.config.maxGroups,
        maxMembers: this.config.maxMembers,
      },
      {
        partitions: (name) => this.topics.get(name)?.partitions.length,
        topicId: (name) => this.topics.get(name)?.topicId,
        // Regex subscriptions never match internal topics, as in Kafka.
        names: () => [...this.topics.values()].filter((t) => !t.internal).map((t) => t.name),
      },
    );
  }

  /** The node with this id, or undefined. */
  node(nodeId: number): BrokerNode | undefined {
    return this.nodes.find((n) => n.nodeId === nodeId);
  }

  /** The controller Metadata and DescribeCluster report (the first node). */
  get controllerId(): number {
    return this.nodes[0]?.nodeId ?? -1;
  }

  /** A partition, or undefined when the topic or partition does not exist. */
  partition(topic: string, index: number): Partition | undefined {
    return this.topics.get(topic)?.partitions[index];
  }

  /**
   * Checks a topic name as Kafka's `Topic.validate` does.
   * @throws TopicError INVALID_TOPIC_EXCEPTION.
   */
  validateTopicName(name: string): void {
    if (!TOPIC_NAME.test(name) || name === "." || name === "..") {
      throw new TopicError(
        "INVALID_TOPIC_EXCEPTION",
        `Topic name "${name}" is illegal, it contains a character other than ASCII alphanumerics, '.', '_' and '-', or is longer than 249`,
      );
    }
  }

  /**
   * The replica lists of a new topic's partitions, spread as Kafka's rack-unaware assignment
   * does: each topic starts at the next broker, partition p's leader is broker (start + p), its
   * followers the brokers after it.
   * @throws TopicError INVALID_REPLICATION_FACTOR / INVALID_PARTITIONS.
   */
  assignReplicas(partitions: number, replicationFactor: number, first = 0): number[][] {
    const n = this.nodes.length;
    if (!Number.isInteger(replicationFactor) || replicationFactor < 1 || replicationFactor > n) {
      throw new TopicError(
        "INVALID_REPLICATION_FACTOR",
        `Replication factor: ${replicationFactor} larger than available brokers: ${n}.`,
      );
    }
    if (!Number.isInteger(partitions) || partitions < 1 || first + partitions > this.config.maxPartitions) {
      throw new TopicError(
        "INVALID_PARTITIONS",
        `Number of partitions must be 1..${this.config.maxPartitions}, got ${partitions}.`,
      );
    }
    this.checkPartitionBudget(partitions);
    const start = this.assignmentStart++ % n;
    return Array.from({ length: partitions }, (_, i) =>
      Array.from({ length: replicationFactor }, (_, r) => this.nodes[(start + first + i + r) % n]!.nodeId),
    );
  }

  /** @throws TopicError POLICY_VIOLATION when `more` partitions would pass `maxTotalPartitions`. */
  checkPartitionBudget(more: number): void {
    let total = 0;
    for (const t of this.topics.values()) total += t.partitions.length;
    if (total + more > this.config.maxTotalPartitions) {
      throw new TopicError(
        "POLICY_VIOLATION",
        `this cluster holds at most ${this.config.maxTotalPartitions} partitions (it has ${total})`,
      );
    }
  }

  /**
   * Creates a topic (Kafka's checks: name, partitions, replication factor, assignments).
   * @throws TopicError with Kafka's error name (TOPIC_ALREADY_EXISTS, INVALID_TOPIC_EXCEPTION, ...).
   */
  createTopic(name: string, spec: TopicSpec = {}, options: { internal?: boolean; validateOnly?: boolean } = {}): Topic {
    this.validateTopicName(name);
    if (this.topics.has(name)) throw new TopicError("TOPIC_ALREADY_EXISTS", `Topic '${name}' already exists.`);
    if (this.topics.size >= this.config.maxTopics) {
      throw new TopicError("POLICY_VIOLATION", `this cluster holds at most ${this.config.maxTopics} topics`);
    }
    let assignments: number[][];
    if (spec.assignments !== undefined) {
      if (spec.assignments.length === 0 || spec.assignments.length > this.config.maxPartitions) {
        throw new TopicError("INVALID_REPLICA_ASSIGNMENT", "a replica assignment needs 1.. partitions");
      }
      const size = spec.assignments[0]!.length;
      for (const replicas of spec.assignments) {
        if (replicas.length === 0 || replicas.length !== size) {
          throw new TopicError("INVALID_REPLICA_ASSIGNMENT", "All partitions should have the same number of replicas");
        }
        if (new Set(replicas).size !== replicas.length) {
          throw new TopicError("INVALID_REPLICA_ASSIGNMENT", `Duplicate replica assignment found: ${replicas}`);
        }
        for (const id of replicas) {
          if (this.node(id) === undefined) {
            throw new TopicError("INVALID_REPLICA_ASSIGNMENT", `Unknown broker id ${id} in the replica assignment`);
          }
        }
      }
      this.checkPartitionBudget(spec.assignments.length);
      assignments = spec.assignments.map((r) => [...r]);
    } else {
      assignments = this.assignReplicas(
        spec.partitions ?? this.config.numPartitions,
        spec.replicationFactor ?? this.config.defaultReplicationFactor,
      );
    }
    const id = new Uint8Array(16);
    crypto.getRandomValues(id);
    const topic: Topic = {
      name,
      topicId: uuidToString(id, 0),
      internal: options.internal ?? false,
      partitions: assignments.map((replicas, index) => this.newPartition(index, replicas)),
      configs: new Map(Object.entries(spec.configs ?? {})),
    };
    if (options.validateOnly === true) return topic;
    this.topics.set(name, topic);
    this.topicsById.set(topic.topicId, topic);
    return topic;
  }

  /** A partition with these replicas, led by the first. */
  newPartition(index: number, replicas: number[]): Partition {
    return {
      index,
      replicas,
      isr: [...replicas],
      leader: replicas[0]!,
      leaderEpoch: 0,
      log: new PartitionLog(this.segments),
      producers: new ProducerStates(),
    };
  }

  /**
   * Deletes a topic and its logs. Returns false when it does not exist. `compactSegments` false:
   * the caller deletes more and compacts once after (else the batches of a topic deleted next
   * could be moved first).
   */
  deleteTopic(name: string, compactSegments = true): boolean {
    const topic = this.topics.get(name);
    if (topic === undefined) return false;
    for (const p of topic.partitions) {
      this.storedBytes -= p.log.bytes;
      p.log.close();
    }
    this.topics.delete(name);
    this.topicsById.delete(topic.topicId);
    if (compactSegments) this.compactSegments();
    return true;
  }

  /**
   * Applies a topic's `retention.ms` and `retention.bytes` (when its `cleanup.policy` has
   * `delete`): batches older than retention.ms (by max timestamp) or beyond retention.bytes
   * (oldest first) are dropped and the log start offset moves past them. Kafka deletes whole
   * segments; here each batch is its own segment, so retention takes effect at once. Only a
   * retention the topic sets applies: Kafka's default (7 days) would only drop records a test
   * produced with old timestamps, which Kafka keeps until their segment rolls.
   * `partitions`: those to check (an append checks its own partition; the cluster's timer every
   * partition each second).
   */
  applyRetention(topic: Topic, now = Date.now(), partitions: readonly Partition[] = topic.partitions): void {
    // Called on every append: the cheap test (no retention set, the usual case) first.
    const ms = BigInt(topic.configs.get("retention.ms") ?? "-1");
    const bytes = Number(topic.configs.get("retention.bytes") ?? "-1");
    if (ms < 0n && bytes < 0) return;
    if (!(topicConfig(topic, "cleanup.policy") ?? "").split(",").includes("delete")) return;
    for (const p of partitions) {
      const log = p.log;
      let cut = log.logStartOffset;
      if (ms >= 0n) {
        for (const b of log.batches) {
          if (b.maxTimestamp >= BigInt(now) - ms) break;
          cut = b.lastOffset + 1n;
        }
      }
      if (bytes >= 0) {
        let size = log.bytes;
        for (const b of log.batches) {
          if (size <= bytes) break;
          size -= b.bytes.length;
          if (b.lastOffset + 1n > cut) cut = b.lastOffset + 1n;
        }
      }
      if (cut > log.logStartOffset) this.deleteRecordsBefore(p, cut);
    }
  }

  /** Compacts the topics whose cleanup.policy has `compact` (see compaction.ts); errors are logged. */
  async compact(): Promise<void> {
    for (const t of [...this.topics.values()]) {
      if (this.closed) return;
      await compactTopic(this, t).catch((e: Error) => this.log(`compacting ${t.name}: ${e.message}`));
    }
    this.compactSegments();
  }

  /**
   * Makes `nodeId` (one of the replicas, running) the partition's leader and bumps its leader
   * epoch, as Kafka's controller does on every election: the old leader answers
   * NOT_LEADER_OR_FOLLOWER, requests with the old epoch FENCED_LEADER_EPOCH.
   * @throws Error for an unknown partition, a node that is not a replica or is stopped.
   */
  moveLeader(topic: string, index: number, nodeId: number): void {
    const p = this.partition(topic, index);
    if (p === undefined) throw new Error(`no partition ${topic}-${index}`);
    if (!p.replicas.includes(nodeId)) {
      throw new Error(`node ${nodeId} is not a replica of ${topic}-${index} (replicas ${p.replicas.join(",")})`);
    }
    if (this.stopped.has(nodeId)) throw new Error(`node ${nodeId} is stopped`);
    p.leader = nodeId;
    p.leaderEpoch++;
  }

  /**
   * @internal A node stops: it leaves every ISR, and the partitions it led move to their first
   * running in-sync replica (or have no leader, -1, when none is left), epoch bumped.
   */
  nodeStopped(nodeId: number): void {
    this.stopped.add(nodeId);
    for (const t of this.topics.values()) {
      for (const p of t.partitions) {
        if (!p.replicas.includes(nodeId)) continue;
        p.isr = p.isr.filter((r) => r !== nodeId);
        if (p.leader !== nodeId) continue;
        p.leader = p.isr.find((r) => !this.stopped.has(r)) ?? -1;
        p.leaderEpoch++;
      }
    }
  }

  /** @internal A node starts again: back in the ISR of its partitions, leading those left without a leader. */
  nodeStarted(nodeId: number): void {
    this.stopped.delete(nodeId);
    for (const t of this.topics.values()) {
      for (const p of t.partitions) {
        if (!p.replicas.includes(nodeId)) continue;
        p.isr = p.replicas.filter((r) => r === nodeId || p.isr.includes(r));
        if (p.leader === -1) {
          p.leader = nodeId;
          p.leaderEpoch++;
        }
      }
    }
  }

  /**
   * @internal Back to an empty cluster (`RunningCluster.reset`): no topics, groups, committed
   * offsets, transactions, fetch sessions, broker configs, faults or moved coordinators; every
   * node running. Producer ids keep counting up, so that a client still holding one is fenced.
   */
  reset(): void {
    this.control.clear();
    this.requestLog.clear();
    // Every topic goes: nothing left to compact.
    for (const name of [...this.topics.keys()]) this.deleteTopic(name, false);
    this.groups.reset();
    for (const txn of this.transactions.transactions.values()) if (txn.timer !== null) this.clearTimer(txn.timer);
    this.transactions.transactions.clear();
    this.fetchSessions.clear();
    this.brokerConfigs.clear();
    this.movedCoordinators.clear();
    this.stopped.clear();
    // The topics created again are placed as they were at the start.
    this.assignmentStart = 0;
  }

  /** Moves a partition's log start offset forward (DeleteRecords, retention). */
  deleteRecordsBefore(p: Partition, offset: bigint): void {
    this.storedBytes -= p.log.deleteBefore(offset);
    p.producers.truncateBefore(p.log.logStartOffset);
    this.compactSegments();
  }

  /**
   * Moves the batches out of the segment pool's emptiest segments when deletions left it holding
   * more than its bound (see segment-pool.ts); called after every deletion.
   */
  compactSegments(): void {
    const sparse = this.segments.sparse();
    if (sparse === null) return;
    for (const t of this.topics.values()) for (const p of t.partitions) p.log.moveOutOf(sparse);
  }

  /** A timer cleared when the cluster closes (unref'd: it never keeps the process alive). */
  timer(ms: number, f: () => void): ReturnType<typeof setTimeout> {
    const t = setTimeout(() => {
      this.timers.delete(t);
      f();
    }, ms);
    t.unref();
    this.timers.add(t);
    return t;
  }

  clearTimer(t: ReturnType<typeof setTimeout>): void {
    clearTimeout(t);
    this.timers.delete(t);
  }

  /**
   * Lets other connections be served (their reads and timers run) when requests have kept the
   * event loop for {@link BREATHE_MS} since the last time: called between requests and between
   * the record sets of a Produce, so that one client's heavy request stalls the others for one
   * record set at most, not the whole request.
   */
  breathe(): Promise<void> | undefined {
    if (performance.now() - this.lastBreath < BREATHE_MS) return undefined;
    return new Promise<void>((resolve) =>
      setImmediate(() => {
        this.lastBreath = performance.now();
        resolve();
      }),
    );
  }

  /** Runs `f` when the cluster closes (e.g. to wake a waiting Fetch); returns a canceller. */
  onClose(f: () => void): () => void {
    this.closers.add(f);
    return () => this.closers.delete(f);
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** @internal Called by {@link RunningCluster.close}. */
  shutdown(): void {
    if (this.closed) return;
    this.closed = true;
    for (const f of [...this.closers]) f();
    this.closers.clear();
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.groups.close();
  }

  /**
   * The version range served for each registered api key: the codecs' request and response
   * `validVersions`, narrowed by the handler's options and, unless `unstableVersions`, without
   * the latest version of a request marked `latestVersionUnstable` (the ApiVersions reply; an
   * API left with no version is not served, as Kafka's `ApiVersionsResponse` leaves it out).
   */
  versions(): ReadonlyMap<number, { readonly min: number; readonly max: number }> {
    // Asked on every request: worked out again only when a handler was registered or removed.
    if (this.versionsCache?.generation === this.handlers.generation) return this.versionsCache.versions;
    const out = new Map<number, { min: number; max: number }>();
    for (const apiKey of this.handlers.apiKeys()) {
      const api = this.protocol.apis.get(apiKey);
      if (api === undefined) continue;
      const { options } = this.handlers.get(apiKey)!;
      const min = Math.max(
        api.request.validVersions.lowest,
        api.response.validVersions.lowest,
        options.minVersion ?? 0,
      );
      const unstable = api.request.latestVersionUnstable === true && !this.config.unstableVersions;
      const max = Math.min(
        api.request.validVersions.highest - (unstable ? 1 : 0),
        api.response.validVersions.highest,
        options.maxVersion ?? 0x7fff,
      );
      if (min <= max) out.set(apiKey, { min, max });
    }
    this.versionsCache = { generation: this.handlers.generation, versions: out };
    return out;
  }
  private versionsCache:
    { generation: number; versions: ReadonlyMap<number, { min: number; max: number }> } | undefined;
}

/** A running cluster. */
export interface RunningCluster {
  /** `host:port` of every node, comma-separated: a client's bootstrap servers. */
  readonly bootstrap: string;
  /** Every node's address. */
  readonly nodes: readonly BrokerNode[];
  /** The shared state (topics, groups, handlers): for tests and plugins. */
  readonly cluster: Cluster;
  /** What the cluster holds: topics and records, groups and offsets, producers, transactions (inspect.ts). */
  readonly inspect: Inspector;
  /**
   * The request log's entries, oldest first (empty unless the `requestLog` option or
   * `cluster.requestLog.enable()` turned it on); `since` a `seq`, at most `limit` of them.
   */
  requestLog(options?: { since?: number; limit?: number }): RequestLogEntry[];
  /** Creates a topic. @throws TopicError as Kafka's CreateTopics would answer. */
  createTopic(name: string, spec?: number | TopicSpec): void;
  /**
   * The next `times` (default 1) requests of `apiKey` matching the scope get `errorCode` instead
   * of their answer and take no effect: on Produce (0), Fetch (1), ListOffsets (2), OffsetCommit
   * (8) and OffsetForLeaderEpoch (23) the matching partitions (`topic`, `partition`) get it and
   * the others are answered as usual; on other APIs the response's top-level error code.
   * @throws Error for an unknown api key or error code, or an API without error codes.
   */
  fail(spec: FailSpec): void;
  /** The next `times` (default 1) requests of `apiKey` are answered `ms` later (the connection's later requests wait too). */
  delay(spec: DelaySpec): void;
  /** The next `times` (default 1) requests of `apiKey` close their connection instead of being answered. */
  drop(spec: FaultScope): void;
  /** Puts `handler` in front of `apiKey`'s handler: it sees the decoded request and answers it or calls `next`. Returns a disposer. */
  intercept<K extends ApiKey>(apiKey: K, handler: Interceptor<K>): () => void;
  /** Makes `node` (a running replica) the leader of the partition, bumping its leader epoch. @throws Error */
  moveLeader(topic: string, partition: number, node: number): void;
  /**
   * Makes `node` the coordinator of group `group` (the state stays; the old coordinator answers
   * NOT_COORDINATOR), until reset or while `node` is stopped.
   */
  moveCoordinator(group: string, node: number): void;
  /**
   * Stops a node: its listener closes and its connections drop; it leaves Metadata and every
   * ISR, and its partitions' leadership moves to a running in-sync replica (none: leader -1,
   * LEADER_NOT_AVAILABLE). Resolves once the listener is closed. @throws Error for an unknown node.
   */
  stopBroker(node: number): Promise<void>;
  /** Starts a stopped node again on the same port, back in its partitions' ISR (leading those without a leader). */
  startBroker(node: number): Promise<void>;
  /**
   * Back to the cluster as started, between tests: every topic deleted and those of the `topics`
   * option created afresh (new topic ids), groups, offsets, transactions, faults and logged requests forgotten,
   * stopped nodes started. Listeners and open connections stay.
   */
  reset(): Promise<void>;
  /** Stops every listener, closes every connection and clears every timer. */
  close(): Promise<void>;
}

/**
 * Starts a cluster of `brokers` nodes on loopback; resolves once every node listens.
 * @throws Error for a non-loopback host, codecs without the core APIs, or a port in use;
 *   TopicError for a bad topic in `topics`.
 */
export async function startCluster(options: ClusterOptions = {}): Promise<RunningCluster> {
  const host = options.host ?? "127.0.0.1";
  if (!LOOPBACK.has(host)) throw new Error(`kafka-wire-broker listens on loopback only, not ${host}`);
  const brokers = options.brokers ?? 1;
  if (!Number.isInteger(brokers) || brokers < 1 || brokers > 64)
    throw new Error(`brokers must be 1..64, not ${brokers}`);
  if (options.ports !== undefined && options.ports.length !== brokers) {
    throw new Error(`ports gives ${options.ports.length} ports for ${brokers} brokers`);
  }
  const protocol = options.protocol ?? (await loadProtocol(options));
  if (options.unstableVersions === true && !protocol.unstableVersions) {
    throw new Error(
      "unstableVersions: true needs a protocol that accepts unstable versions: defineProtocol({ ...protocolDefinition, unstableVersions: true })",
    );
  }
  const cluster = new Cluster({ ...options, protocol });
  registerCoreHandlers(cluster);
  registerGroupHandlers(cluster);
  registerAdminHandlers(cluster);
  registerTransactionHandlers(cluster);
  if (options.sasl !== undefined) registerSaslHandlers(cluster, options.sasl);
  for (const plugin of options.plugins ?? []) plugin(cluster);

  const servers: net.Server[] = [];
  /** Every open connection, with the node id that accepted it. */
  const sockets = new Map<net.Socket, number>();
  const ids = { next: 0 };
  const listen = async (port: number): Promise<net.Server> => {
    // No server.maxConnections: past the cap, serveConnection closes another connection instead.
    // Paused: a connection starts reading once ConnectionServer has set up its slab reads.
    const server = net.createServer({ pauseOnConnect: true });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, () => {
        server.off("error", reject);
        resolve();
      });
    });
    return server;
  };
  const serve = (server: net.Server, node: BrokerNode) =>
    server.on("connection", (socket) => serveConnection(cluster, node, socket, ids.next++, sockets, options));
  try {
    for (let i = 0; i < brokers; i++) {
      const server = await listen(options.ports?.[i] ?? 0);
      servers.push(server);
      const node: BrokerNode = { nodeId: i + 1, host, port: (server.address() as net.AddressInfo).port, rack: null };
      cluster.nodes.push(node);
      serve(server, node);
    }
  } catch (error) {
    for (const s of servers) s.close();
    throw error;
  }
  const closeServer = (s: net.Server) => new Promise<void>((resolve) => s.close(() => resolve()));
  const nodeIndex = (nodeId: number): number => {
    const i = cluster.nodes.findIndex((n) => n.nodeId === nodeId);
    if (i < 0) throw new Error(`no node ${nodeId} (nodes ${cluster.nodes.map((n) => n.nodeId).join(",")})`);
    return i;
  };
  /** Node ids whose listener is closed (their restart listens again on the same port). */
  const down = new Set<number>();
  const stopBroker = async (nodeId: number): Promise<void> => {
    const i = nodeIndex(nodeId);
    if (down.has(nodeId)) return;
    down.add(nodeId);
    cluster.nodeStopped(nodeId);
    const closed = closeServer(servers[i]!);
    for (const [socket, id] of sockets) if (id === nodeId) socket.destroy();
    await closed;
  };
  const startBroker = async (nodeId: number): Promise<void> => {
    const i = nodeIndex(nodeId);
    if (!down.has(nodeId)) return;
    const node = cluster.nodes[i]!;
    servers[i] = await listen(node.port);
    serve(servers[i]!, node);
    down.delete(nodeId);
    cluster.nodeStarted(nodeId);
  };
  const createTopics = () => {
    for (const [name, spec] of Object.entries(options.topics ?? {})) {
      cluster.createTopic(name, typeof spec === "number" ? { partitions: spec } : spec);
    }
  };
  // Kafka's log.retention.check.interval.ms (300000 there): often enough for a test to see it.
  // And compaction, each second too (Kafka's cleaner wakes on log.cleaner.backoff.ms, 15 s).
  let compacting = false;
  const retention = () => {
    for (const t of cluster.topics.values()) cluster.applyRetention(t);
    // Segments out of quarantine freed, an empty open segment closed, arenas all free dropped.
    cluster.segments.tidy();
    const now = performance.now();
    for (const h of cluster.holders.values()) h.tidy(now);
    if (!compacting) {
      compacting = true;
      void cluster.compact().finally(() => (compacting = false));
    }
    cluster.timer(1000, retention);
  };
  cluster.timer(1000, retention);
  createTopics();
  const format = (n: BrokerNode) => `${n.host.includes(":") ? `[${n.host}]` : n.host}:${n.port}`;
  let closing: Promise<void> | undefined;
  return {
    bootstrap: cluster.nodes.map(format).join(","),
    nodes: cluster.nodes,
    cluster,
    inspect: new Inspector(cluster),
    requestLog: (options) => cluster.requestLog.entries(options),
    createTopic: (name, spec) => void cluster.createTopic(name, typeof spec === "number" ? { partitions: spec } : spec),
    fail: (spec) => cluster.control.fail(spec),
    delay: (spec) => cluster.control.delay(spec),
    drop: (spec) => cluster.control.drop(spec),
    intercept: (apiKey, handler) => cluster.control.intercept(apiKey, handler),
    moveLeader: (topic, partition, node) => cluster.moveLeader(topic, partition, node),
    moveCoordinator(group, node) {
      nodeIndex(node);
      cluster.movedCoordinators.set(group, node);
    },
    stopBroker,
    startBroker,
    async reset() {
      for (const nodeId of [...down]) await startBroker(nodeId);
      cluster.reset();
      createTopics();
    },
    close() {
      closing ??= (async () => {
        cluster.shutdown();
        for (const s of sockets.keys()) s.destroy();
        await Promise.all(servers.filter((_, i) => !down.has(cluster.nodes[i]!.nodeId)).map(closeServer));
      })();
      return closing;
    },
  };
}

/** The codecs of `options.schemas` / `options.kafka`, from kafka-wire-cli's codec cache. */
async function loadProtocol(options: ClusterOptions): Promise<Protocol> {
  if (options.schemas === undefined && options.kafka === undefined) {
    throw new Error(
      "kafka-wire-broker needs Kafka's codecs: give `protocol` (a generated index's), `schemas` (Kafka's message schema folder) or `kafka` (a release, e.g. 4.1.0)",
    );
  }
  // Loaded only here: a caller that passes `protocol` never loads the CLI's generator.
  const { loadSchemaSet } = await import("kafka-wire-cli/codecs");
  const set = await loadSchemaSet({
    cwd: process.cwd(),
    ...(options.schemas === undefined
      ? {}
      : { schemas: typeof options.schemas === "string" ? [options.schemas] : options.schemas }),
    ...(options.kafka === undefined ? {} : { kafka: options.kafka }),
    ...(options.cacheDir === undefined ? {} : { cacheDir: options.cacheDir }),
    onStatus: options.log ?? (() => {}),
  });
  const protocol = set.codecs.protocol;
  if (protocol === undefined) {
    throw new Error("the schema set has no RequestHeader/ResponseHeader: give Kafka's clients message schemas");
  }
  if (options.unstableVersions !== true) return protocol;
  // The generated index (already imported by loadSchemaSet) exports what `protocol` is defined from.
  const { protocolDefinition } = (await import(pathToFileURL(path.join(set.dir, "index.js")).href)) as {
    protocolDefinition: ProtocolDefinition;
  };
  return defineProtocol({ ...protocolDefinition, unstableVersions: true });
}

/** Serves one connection (see {@link ConnectionServer}); past `maxConnections` on its node, another is closed first. */
function serveConnection(
  cluster: Cluster,
  node: BrokerNode,
  socket: net.Socket,
  id: number,
  sockets: Map<net.Socket, number>,
  options: ClusterOptions,
): void {
  if (cluster.isClosed) {
    socket.destroy();
    return;
  }
  makeRoom(cluster, node.nodeId);
  sockets.set(socket, node.nodeId);
  const served = new ConnectionServer(cluster, node, socket, id, options.onExchange);
  socket.on("close", () => {
    sockets.delete(socket);
    served.closed();
  });
}
