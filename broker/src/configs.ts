/**
 * Topic and broker configs with Kafka 4.0's defaults (`TopicConfig`/`LogConfig`, `ServerLogConfigs`,
 * `KafkaConfig`), their types (DescribeConfigs v3+'s `configType`) and Kafka's validation of a
 * new value (`ConfigDef`'s type parsing and `ValidString`/`ValidList`/range validators).
 */

import type { Topic } from "./cluster.js";

/** DescribeConfigs' `configType` (Kafka's `ConfigDef.Type` as `DescribeConfigsResponse.ConfigType`). */
export const CONFIG_TYPE = {
  BOOLEAN: 1,
  STRING: 2,
  INT: 3,
  SHORT: 4,
  LONG: 5,
  DOUBLE: 6,
  LIST: 7,
  CLASS: 8,
  PASSWORD: 9,
} as const;

/** DescribeConfigs' `configSource` (Kafka's `DescribeConfigsResponse.ConfigSource`). */
export const CONFIG_SOURCE = {
  UNKNOWN: 0,
  TOPIC_CONFIG: 1,
  DYNAMIC_BROKER_CONFIG: 2,
  DYNAMIC_DEFAULT_BROKER_CONFIG: 3,
  STATIC_BROKER_CONFIG: 4,
  DEFAULT_CONFIG: 5,
} as const;

/** Config resource types (Kafka's `ConfigResource.Type`). */
export const RESOURCE_TYPE = { TOPIC: 2, BROKER: 4, BROKER_LOGGER: 8 } as const;

export interface ConfigDef {
  readonly type: (typeof CONFIG_TYPE)[keyof typeof CONFIG_TYPE];
  /** The default as DescribeConfigs shows it (null: no default). */
  readonly default: string | null;
  /** Allowed values (a LIST: allowed elements). */
  readonly valid?: readonly string[];
  /** Smallest allowed number. */
  readonly min?: number;
  /** The broker config a topic config takes its default from (DescribeConfigs' synonym). */
  readonly synonym?: string;
  readonly readOnly?: boolean;
}

const LONG_MAX = "9223372036854775807";
const COMPRESSION = ["uncompressed", "zstd", "lz4", "snappy", "gzip", "producer"];

/** Every topic config of Kafka 4.0, with its default. */
export const TOPIC_CONFIGS: ReadonlyMap<string, ConfigDef> = new Map<string, ConfigDef>([
  ["cleanup.policy", { type: 7, default: "delete", valid: ["compact", "delete"], synonym: "log.cleanup.policy" }],
  ["compression.gzip.level", { type: 3, default: "-1", synonym: "compression.gzip.level" }],
  ["compression.lz4.level", { type: 3, default: "9", synonym: "compression.lz4.level" }],
  ["compression.type", { type: 2, default: "producer", valid: COMPRESSION, synonym: "compression.type" }],
  ["compression.zstd.level", { type: 3, default: "3", synonym: "compression.zstd.level" }],
  ["delete.retention.ms", { type: 5, default: "86400000", min: 0, synonym: "log.cleaner.delete.retention.ms" }],
  ["file.delete.delay.ms", { type: 5, default: "60000", min: 0, synonym: "log.segment.delete.delay.ms" }],
  ["flush.messages", { type: 5, default: LONG_MAX, min: 1, synonym: "log.flush.interval.messages" }],
  ["flush.ms", { type: 5, default: LONG_MAX, min: 0, synonym: "log.flush.interval.ms" }],
  ["follower.replication.throttled.replicas", { type: 7, default: "" }],
  ["index.interval.bytes", { type: 3, default: "4096", min: 0, synonym: "log.index.interval.bytes" }],
  ["leader.replication.throttled.replicas", { type: 7, default: "" }],
  ["local.retention.bytes", { type: 5, default: "-2", min: -2, synonym: "log.local.retention.bytes" }],
  ["local.retention.ms", { type: 5, default: "-2", min: -2, synonym: "log.local.retention.ms" }],
  ["max.compaction.lag.ms", { type: 5, default: LONG_MAX, min: 1, synonym: "log.cleaner.max.compaction.lag.ms" }],
  ["max.message.bytes", { type: 3, default: "1048588", min: 0, synonym: "message.max.bytes" }],
  [
    "message.timestamp.after.max.ms",
    { type: 5, default: "3600000", min: 0, synonym: "log.message.timestamp.after.max.ms" },
  ],
  [
    "message.timestamp.before.max.ms",
    { type: 5, default: LONG_MAX, min: 0, synonym: "log.message.timestamp.before.max.ms" },
  ],
  [
    "message.timestamp.type",
    { type: 2, default: "CreateTime", valid: ["CreateTime", "LogAppendTime"], synonym: "log.message.timestamp.type" },
  ],
  ["min.cleanable.dirty.ratio", { type: 6, default: "0.5", min: 0, synonym: "log.cleaner.min.cleanable.ratio" }],
  ["min.compaction.lag.ms", { type: 5, default: "0", min: 0, synonym: "log.cleaner.min.compaction.lag.ms" }],
  ["min.insync.replicas", { type: 3, default: "1", min: 1, synonym: "min.insync.replicas" }],
  ["preallocate", { type: 1, default: "false", synonym: "log.preallocate" }],
  ["remote.log.copy.disable", { type: 1, default: "false" }],
  ["remote.log.delete.on.disable", { type: 1, default: "false" }],
  ["remote.storage.enable", { type: 1, default: "false" }],
  ["retention.bytes", { type: 5, default: "-1", synonym: "log.retention.bytes" }],
  ["retention.ms", { type: 5, default: "604800000", min: -1, synonym: "log.retention.ms" }],
  ["segment.bytes", { type: 3, default: "1073741824", min: 14, synonym: "log.segment.bytes" }],
  ["segment.index.bytes", { type: 3, default: "10485760", min: 4, synonym: "log.index.size.max.bytes" }],
  ["segment.jitter.ms", { type: 5, default: "0", min: 0, synonym: "log.roll.jitter.ms" }],
  ["segment.ms", { type: 5, default: "604800000", min: 1, synonym: "log.roll.ms" }],
  ["unclean.leader.election.enable", { type: 1, default: "false", synonym: "unclean.leader.election.enable" }],
]);

/**
 * The broker configs DescribeConfigs lists (a subset of Kafka's: those a client or test may ask
 * about), with Kafka's defaults; `node.id`, `num.partitions`, `default.replication.factor` and
 * `auto.create.topics.enable` show the cluster's options (see {@link brokerConfigValues}).
 */
export const BROKER_CONFIGS: ReadonlyMap<string, ConfigDef> = new Map<string, ConfigDef>([
  ["auto.create.topics.enable", { type: 1, default: "true", readOnly: true }],
  ["compression.type", { type: 2, default: "producer", valid: COMPRESSION }],
  ["connections.max.idle.ms", { type: 5, default: "600000", readOnly: true }],
  ["default.replication.factor", { type: 3, default: "1", readOnly: true }],
  ["delete.topic.enable", { type: 1, default: "true", readOnly: true }],
  ["fetch.max.bytes", { type: 3, default: "57671680", readOnly: true }],
  ["group.consumer.heartbeat.interval.ms", { type: 3, default: "5000", readOnly: true }],
  ["group.consumer.session.timeout.ms", { type: 3, default: "45000", readOnly: true }],
  ["group.initial.rebalance.delay.ms", { type: 3, default: "3000", readOnly: true }],
  ["log.cleanup.policy", { type: 7, default: "delete", valid: ["compact", "delete"] }],
  ["log.retention.bytes", { type: 5, default: "-1" }],
  ["log.retention.hours", { type: 3, default: "168", readOnly: true }],
  ["log.retention.ms", { type: 5, default: null }],
  ["log.segment.bytes", { type: 3, default: "1073741824", min: 14 }],
  ["message.max.bytes", { type: 3, default: "1048588", min: 0 }],
  ["min.insync.replicas", { type: 3, default: "1", min: 1 }],
  ["node.id", { type: 3, default: "-1", readOnly: true }],
  ["num.partitions", { type: 3, default: "1", min: 1 }],
  ["offsets.topic.num.partitions", { type: 3, default: "50", readOnly: true }],
  ["socket.request.max.bytes", { type: 3, default: "104857600", readOnly: true }],
  ["transaction.max.timeout.ms", { type: 3, default: "900000", readOnly: true }],
  ["transaction.state.log.num.partitions", { type: 3, default: "50", readOnly: true }],
  ["unclean.leader.election.enable", { type: 1, default: "false" }],
]);

/**
 * Why `value` is not valid for `def` (Kafka's `ConfigException` text), or null.
 * Checks the type as Kafka's `ConfigDef.parseType` does, then the allowed values and range.
 */
export function invalidConfig(name: string, def: ConfigDef, value: string | null): string | null {
  if (value === null) return null;
  const bad = (why = "") => `Invalid value ${value} for configuration ${name}${why === "" ? "" : `: ${why}`}`;
  const v = value.trim();
  switch (def.type) {
    case CONFIG_TYPE.BOOLEAN:
      if (!/^(true|false)$/i.test(v)) return bad("Expected value to be either true or false");
      break;
    case CONFIG_TYPE.INT:
    case CONFIG_TYPE.SHORT:
    case CONFIG_TYPE.LONG: {
      if (!/^[+-]?\d+$/.test(v)) return bad(`Not a number of type ${def.type === CONFIG_TYPE.LONG ? "LONG" : "INT"}`);
      const n = BigInt(v);
      const max = def.type === CONFIG_TYPE.LONG ? 2n ** 63n : def.type === CONFIG_TYPE.INT ? 2n ** 31n : 2n ** 15n;
      if (n >= max || n < -max) return bad(`Not a number of type ${def.type === CONFIG_TYPE.LONG ? "LONG" : "INT"}`);
      if (def.min !== undefined && n < BigInt(def.min)) return bad(`Value must be at least ${def.min}`);
      break;
    }
    case CONFIG_TYPE.DOUBLE: {
      const n = Number(v);
      if (v === "" || Number.isNaN(n)) return bad("Not a number of type DOUBLE");
      if (def.min !== undefined && n < def.min) return bad(`Value must be at least ${def.min}`);
      break;
    }
    case CONFIG_TYPE.LIST:
      if (def.valid !== undefined) {
        for (const e of splitList(v)) {
          if (!def.valid.includes(e)) return bad(`String must be one of: ${def.valid.join(", ")}`);
        }
      }
      break;
    default:
      if (def.valid !== undefined && !def.valid.includes(v))
        return bad(`String must be one of: ${def.valid.join(", ")}`);
  }
  return null;
}

/** A LIST config's elements (comma-separated, trimmed, empty ones dropped). */
export function splitList(value: string): string[] {
  return value
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

/** The value of a topic config: the topic's own, else Kafka's default. */
export function topicConfig(topic: Topic, name: string): string | null {
  return topic.configs.get(name) ?? TOPIC_CONFIGS.get(name)?.default ?? null;
}
