/**
 * Admin APIs: CreateTopics, DeleteTopics, CreatePartitions, DescribeConfigs, AlterConfigs,
 * IncrementalAlterConfigs, DescribeCluster, DeleteRecords and OffsetForLeaderEpoch. Topic and
 * config changes are answered by any node (a Kafka 4 broker forwards them to the controller);
 * DeleteRecords and OffsetForLeaderEpoch by the partition's leader only.
 */

import { ZERO_UUID } from "../../../src/runtime/index.js";
import { TopicError, type Cluster, type Topic } from "../cluster.js";
import {
  BROKER_CONFIGS,
  CONFIG_SOURCE,
  CONFIG_TYPE,
  invalidConfig,
  RESOURCE_TYPE,
  splitList,
  TOPIC_CONFIGS,
  topicConfig,
  type ConfigDef,
} from "../configs.js";
import { errorCode } from "../errors.js";
import { leaderError } from "./core.js";

const NONE = 0;
/** Kafka's "authorized operations not requested" marker (Integer.MIN_VALUE). */
const NO_AUTHORIZED_OPERATIONS = -2147483648;

/** A TopicError (or anything else thrown) as an error code and message. */
function failure(e: unknown): { errorCode: number; errorMessage: string } {
  if (e instanceof TopicError) return { errorCode: errorCode(e.errorName), errorMessage: e.message };
  return { errorCode: errorCode("UNKNOWN_SERVER_ERROR"), errorMessage: (e as Error).message };
}

/**
 * Checks topic configs as Kafka's CreateTopics and AlterConfigs do.
 * @throws TopicError INVALID_CONFIG naming the config.
 */
export function checkTopicConfigs(configs: Iterable<[string, string | null]>): void {
  for (const [name, value] of configs) {
    const def = TOPIC_CONFIGS.get(name);
    if (def === undefined) throw new TopicError("INVALID_CONFIG", `Unknown topic config name: ${name}`);
    const why = invalidConfig(name, def, value);
    if (why !== null) throw new TopicError("INVALID_CONFIG", why);
  }
}

/** The broker configs of a node, with the cluster's options where they set one. */
export function brokerConfigValues(cluster: Cluster, nodeId: number): Map<string, string | null> {
  const out = new Map<string, string | null>();
  for (const [name, def] of BROKER_CONFIGS) out.set(name, def.default);
  out.set("node.id", String(nodeId));
  out.set("auto.create.topics.enable", String(cluster.config.autoCreateTopics));
  out.set("num.partitions", String(cluster.config.numPartitions));
  out.set("default.replication.factor", String(cluster.config.defaultReplicationFactor));
  out.set("socket.request.max.bytes", String(cluster.config.maxRequestBytes));
  out.set("connections.max.idle.ms", String(cluster.config.idleTimeoutMs));
  out.set("fetch.max.bytes", String(cluster.config.fetchMaxBytes));
  out.set("group.initial.rebalance.delay.ms", String(cluster.config.initialRebalanceDelayMs));
  out.set("group.consumer.heartbeat.interval.ms", String(cluster.config.consumerHeartbeatIntervalMs));
  out.set("group.consumer.session.timeout.ms", String(cluster.config.consumerSessionTimeoutMs));
  for (const [name, value] of cluster.brokerConfigs) out.set(name, value);
  return out;
}

export function registerAdminHandlers(cluster: Cluster): void {
  const h = cluster.handlers;

  h.register(19, (req, { apiVersion }) => {
    const seen = new Map<string, number>();
    for (const t of req.topics) seen.set(t.name, (seen.get(t.name) ?? 0) + 1);
    return {
      throttleTimeMs: 0,
      topics: req.topics.map((t) => {
        const reply = {
          name: t.name,
          topicId: ZERO_UUID,
          errorCode: NONE,
          errorMessage: null as string | null,
          numPartitions: -1,
          replicationFactor: -1,
          configs: null as
            | { name: string; value: string | null; readOnly: boolean; configSource: number; isSensitive: boolean }[]
            | null,
        };
        try {
          if (seen.get(t.name)! > 1)
            throw new TopicError(
              "INVALID_REQUEST",
              `Create topics request from client contains multiple entries for the topic ${t.name}`,
            );
          if (t.assignments.length > 0 && (t.numPartitions !== -1 || t.replicationFactor !== -1)) {
            throw new TopicError(
              "INVALID_REQUEST",
              "Both numPartitions or replicationFactor and replicasAssignments were set. Both cannot be used at the same time.",
            );
          }
          const configs = new Map(t.configs.map((c) => [c.name, c.value] as const));
          checkTopicConfigs(configs);
          const assignments =
            t.assignments.length === 0
              ? undefined
              : [...t.assignments]
                  .sort((a, b) => a.partitionIndex - b.partitionIndex)
                  .map((a, i) => {
                    if (a.partitionIndex !== i) {
                      throw new TopicError(
                        "INVALID_REPLICA_ASSIGNMENT",
                        "Partitions should be a consecutive 0-based integer sequence",
                      );
                    }
                    return a.brokerIds;
                  });
          const topic = cluster.createTopic(
            t.name,
            {
              ...(t.numPartitions === -1 ? {} : { partitions: t.numPartitions }),
              ...(t.replicationFactor === -1 ? {} : { replicationFactor: t.replicationFactor }),
              ...(assignments === undefined ? {} : { assignments }),
              configs: Object.fromEntries([...configs].filter((c): c is [string, string] => c[1] !== null)),
            },
            { validateOnly: req.validateOnly },
          );
          reply.topicId = req.validateOnly ? ZERO_UUID : topic.topicId;
          reply.numPartitions = topic.partitions.length;
          reply.replicationFactor = topic.partitions[0]!.replicas.length;
          if (apiVersion >= 5) {
            reply.configs = [...TOPIC_CONFIGS].map(([name, def]) => ({
              name,
              value: topicConfig(topic, name),
              readOnly: false,
              configSource: topic.configs.has(name) ? CONFIG_SOURCE.TOPIC_CONFIG : CONFIG_SOURCE.DEFAULT_CONFIG,
              isSensitive: def.type === CONFIG_TYPE.PASSWORD,
            }));
          }
        } catch (e) {
          Object.assign(reply, failure(e));
        }
        return reply;
      }),
    };
  });

  h.register(20, (req, { apiVersion }) => {
    // v6+: by name or id; before: by name only.
    const wanted =
      apiVersion >= 6
        ? req.topics.map((t) => ({ name: t.name, topicId: t.topicId }))
        : req.topicNames.map((name) => ({ name: name as string | null, topicId: ZERO_UUID }));
    const responses = wanted.map(({ name, topicId }) => {
      const topic =
        name !== null ? cluster.topics.get(name) : topicId !== ZERO_UUID ? cluster.topicsById.get(topicId) : undefined;
      if (topic === undefined) {
        return {
          name,
          topicId,
          errorCode: errorCode(name === null ? "UNKNOWN_TOPIC_ID" : "UNKNOWN_TOPIC_OR_PARTITION"),
          errorMessage: null,
        };
      }
      // The segment pool is compacted once, after every topic named is gone.
      cluster.deleteTopic(topic.name, false);
      return { name: topic.name, topicId: topic.topicId, errorCode: NONE, errorMessage: null };
    });
    cluster.compactSegments();
    return { throttleTimeMs: 0, responses };
  });

  h.register(37, (req) => ({
    throttleTimeMs: 0,
    results: req.topics.map((t) => {
      const topic = cluster.topics.get(t.name);
      const reply = { name: t.name, errorCode: NONE, errorMessage: null as string | null };
      try {
        if (topic === undefined)
          throw new TopicError("UNKNOWN_TOPIC_OR_PARTITION", `The topic '${t.name}' does not exist.`);
        const current = topic.partitions.length;
        if (t.count < current) {
          throw new TopicError(
            "INVALID_PARTITIONS",
            `Topic currently has ${current} partitions, which is higher than the requested ${t.count}.`,
          );
        }
        if (t.count === current) throw new TopicError("INVALID_PARTITIONS", `Topic already has ${current} partitions.`);
        const rf = topic.partitions[0]!.replicas.length;
        let added: number[][];
        if (t.assignments !== null) {
          if (t.assignments.length !== t.count - current) {
            throw new TopicError(
              "INVALID_REPLICA_ASSIGNMENT",
              `Attempted to add ${t.count - current} additional partition(s), but only ${t.assignments.length} assignment(s) were specified.`,
            );
          }
          for (const a of t.assignments) {
            if (a.brokerIds.length !== rf) {
              throw new TopicError(
                "INVALID_REPLICA_ASSIGNMENT",
                `The manual partition assignment includes a partition with ${a.brokerIds.length} replica(s), but this is not consistent with previous partitions, which have ${rf} replica(s).`,
              );
            }
            for (const id of a.brokerIds) {
              if (cluster.node(id) === undefined)
                throw new TopicError(
                  "INVALID_REPLICA_ASSIGNMENT",
                  `The manual partition assignment includes broker ${id}, but no such broker is registered.`,
                );
            }
            if (new Set(a.brokerIds).size !== a.brokerIds.length)
              throw new TopicError(
                "INVALID_REPLICA_ASSIGNMENT",
                "The manual partition assignment includes the broker more than once.",
              );
          }
          cluster.checkPartitionBudget(t.assignments.length);
          added = t.assignments.map((a) => [...a.brokerIds]);
        } else {
          added = cluster.assignReplicas(t.count - current, rf, current);
        }
        if (!req.validateOnly) {
          for (const replicas of added) topic.partitions.push(cluster.newPartition(topic.partitions.length, replicas));
        }
      } catch (e) {
        Object.assign(reply, failure(e));
      }
      return reply;
    }),
  }));

  h.register(32, (req, { apiVersion }) => ({
    throttleTimeMs: 0,
    results: req.resources.map((r) => {
      const reply = {
        errorCode: NONE,
        errorMessage: null as string | null,
        resourceType: r.resourceType,
        resourceName: r.resourceName,
        configs: [] as {
          name: string;
          value: string | null;
          readOnly: boolean;
          configSource: number;
          isSensitive: boolean;
          synonyms: { name: string; value: string | null; source: number }[];
          configType: number;
          documentation: string | null;
        }[],
      };
      const entry = (
        name: string,
        def: ConfigDef,
        value: string | null,
        source: number,
        synonyms: { name: string; value: string | null; source: number }[],
      ) => ({
        name,
        value: def.type === CONFIG_TYPE.PASSWORD ? null : value,
        readOnly: def.readOnly ?? false,
        configSource: source,
        isSensitive: def.type === CONFIG_TYPE.PASSWORD,
        synonyms: req.includeSynonyms ? synonyms : [],
        configType: apiVersion >= 3 ? def.type : 0,
        documentation: null,
      });
      const wanted = (name: string) => r.configurationKeys === null || r.configurationKeys.includes(name);
      if (r.resourceType === RESOURCE_TYPE.TOPIC) {
        const topic = cluster.topics.get(r.resourceName);
        if (topic === undefined) {
          return {
            ...reply,
            errorCode: errorCode("UNKNOWN_TOPIC_OR_PARTITION"),
            errorMessage: `Topic ${r.resourceName} does not exist`,
          };
        }
        for (const [name, def] of TOPIC_CONFIGS) {
          if (!wanted(name)) continue;
          const own = topic.configs.get(name);
          const synonyms = [
            ...(own === undefined ? [] : [{ name, value: own, source: CONFIG_SOURCE.TOPIC_CONFIG }]),
            ...(def.synonym === undefined
              ? []
              : [{ name: def.synonym, value: def.default, source: CONFIG_SOURCE.DEFAULT_CONFIG }]),
          ];
          reply.configs.push(
            entry(
              name,
              def,
              own ?? def.default,
              own === undefined ? CONFIG_SOURCE.DEFAULT_CONFIG : CONFIG_SOURCE.TOPIC_CONFIG,
              synonyms,
            ),
          );
        }
        return reply;
      }
      if (r.resourceType === RESOURCE_TYPE.BROKER) {
        const nodeId = r.resourceName === "" ? cluster.controllerId : Number(r.resourceName);
        if (!/^\d*$/.test(r.resourceName) || cluster.node(nodeId) === undefined) {
          return {
            ...reply,
            errorCode: errorCode("INVALID_REQUEST"),
            errorMessage: `Unexpected broker id, expected a registered broker but got ${r.resourceName}`,
          };
        }
        for (const [name, value] of brokerConfigValues(cluster, nodeId)) {
          if (!wanted(name)) continue;
          const def = BROKER_CONFIGS.get(name)!;
          const dynamic = cluster.brokerConfigs.has(name);
          const source = dynamic
            ? CONFIG_SOURCE.DYNAMIC_DEFAULT_BROKER_CONFIG
            : value === def.default
              ? CONFIG_SOURCE.DEFAULT_CONFIG
              : CONFIG_SOURCE.STATIC_BROKER_CONFIG;
          reply.configs.push(entry(name, def, value, source, [{ name, value, source }]));
        }
        return reply;
      }
      return {
        ...reply,
        errorCode: errorCode("INVALID_REQUEST"),
        errorMessage: `Unsupported resource type ${r.resourceType}`,
      };
    }),
  }));

  /** Applies (or only checks) new config values of a resource; null value: back to the default. */
  const alter = (
    resourceType: number,
    resourceName: string,
    changes: Map<string, string | null>,
    validateOnly: boolean,
  ) => {
    try {
      if (resourceType === RESOURCE_TYPE.TOPIC) {
        const topic = cluster.topics.get(resourceName);
        if (topic === undefined)
          throw new TopicError("UNKNOWN_TOPIC_OR_PARTITION", `Topic ${resourceName} does not exist`);
        checkTopicConfigs(changes);
        if (!validateOnly) {
          for (const [name, value] of changes) {
            if (value === null) topic.configs.delete(name);
            else topic.configs.set(name, value);
          }
          cluster.applyRetention(topic);
        }
      } else if (resourceType === RESOURCE_TYPE.BROKER) {
        if (resourceName !== "" && cluster.node(Number(resourceName)) === undefined) {
          throw new TopicError(
            "INVALID_REQUEST",
            `Unexpected broker id, expected a registered broker but got ${resourceName}`,
          );
        }
        for (const [name, value] of changes) {
          const def = BROKER_CONFIGS.get(name);
          if (def === undefined || def.readOnly === true) {
            throw new TopicError("INVALID_CONFIG", `Cannot update these configs dynamically: [${name}]`);
          }
          const why = invalidConfig(name, def, value);
          if (why !== null) throw new TopicError("INVALID_CONFIG", why);
        }
        if (!validateOnly) {
          for (const [name, value] of changes) {
            if (value === null) cluster.brokerConfigs.delete(name);
            else cluster.brokerConfigs.set(name, value);
          }
        }
      } else {
        throw new TopicError("INVALID_REQUEST", `Unsupported resource type ${resourceType}`);
      }
      return { errorCode: NONE, errorMessage: null, resourceType, resourceName };
    } catch (e) {
      return { ...failure(e), resourceType, resourceName };
    }
  };

  // AlterConfigs replaces the resource's whole set of configs: those not named go back to their defaults.
  h.register(33, (req) => ({
    throttleTimeMs: 0,
    responses: req.resources.map((r) => {
      const changes = new Map<string, string | null>(r.configs.map((c) => [c.name, c.value]));
      const current =
        r.resourceType === RESOURCE_TYPE.TOPIC
          ? cluster.topics.get(r.resourceName)?.configs
          : r.resourceType === RESOURCE_TYPE.BROKER
            ? cluster.brokerConfigs
            : undefined;
      for (const name of current?.keys() ?? []) if (!changes.has(name)) changes.set(name, null);
      return alter(r.resourceType, r.resourceName, changes, req.validateOnly);
    }),
  }));

  // IncrementalAlterConfigs: SET 0, DELETE 1, APPEND 2, SUBTRACT 3 (the last two for LIST configs).
  h.register(44, (req) => ({
    throttleTimeMs: 0,
    responses: req.resources.map((r) => {
      const changes = new Map<string, string | null>();
      const defs = r.resourceType === RESOURCE_TYPE.TOPIC ? TOPIC_CONFIGS : BROKER_CONFIGS;
      const topic = r.resourceType === RESOURCE_TYPE.TOPIC ? cluster.topics.get(r.resourceName) : undefined;
      const currentValue = (name: string) =>
        r.resourceType === RESOURCE_TYPE.TOPIC
          ? topic === undefined
            ? null
            : topicConfig(topic, name)
          : (cluster.brokerConfigs.get(name) ?? defs.get(name)?.default ?? null);
      for (const c of r.configs) {
        if (changes.has(c.name)) {
          return {
            errorCode: errorCode("INVALID_REQUEST"),
            errorMessage: `Error due to duplicate config keys: ${c.name}`,
            resourceType: r.resourceType,
            resourceName: r.resourceName,
          };
        }
        const def = defs.get(c.name);
        if (c.configOperation === 0) changes.set(c.name, c.value);
        else if (c.configOperation === 1) changes.set(c.name, null);
        else if (c.configOperation === 2 || c.configOperation === 3) {
          if (def !== undefined && def.type !== CONFIG_TYPE.LIST) {
            return {
              errorCode: errorCode("INVALID_CONFIG"),
              errorMessage: `Config value append is not allowed for config key: ${c.name}`,
              resourceType: r.resourceType,
              resourceName: r.resourceName,
            };
          }
          const now = splitList(currentValue(c.name) ?? "");
          const given = splitList(c.value ?? "");
          const next =
            c.configOperation === 2
              ? [...now, ...given.filter((v) => !now.includes(v))]
              : now.filter((v) => !given.includes(v));
          changes.set(c.name, next.join(","));
        } else {
          return {
            errorCode: errorCode("INVALID_REQUEST"),
            errorMessage: `Unknown config operation ${c.configOperation}`,
            resourceType: r.resourceType,
            resourceName: r.resourceName,
          };
        }
      }
      return alter(r.resourceType, r.resourceName, changes, req.validateOnly);
    }),
  }));

  h.register(60, (req) => ({
    throttleTimeMs: 0,
    errorCode: NONE,
    errorMessage: null,
    // 1: brokers (2 would be controllers, which this cluster does not list apart).
    endpointType: req.endpointType,
    clusterId: cluster.clusterId,
    controllerId: cluster.controllerId,
    brokers: cluster.nodes.map((n) => ({
      brokerId: n.nodeId,
      host: n.host,
      port: n.port,
      rack: n.rack,
      isFenced: false,
    })),
    clusterAuthorizedOperations: NO_AUTHORIZED_OPERATIONS,
  }));

  h.register(21, (req, ctx) => ({
    throttleTimeMs: 0,
    topics: req.topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => {
        const partition = cluster.partition(t.name, p.partitionIndex);
        const notLeader = leaderError(partition, ctx);
        if (notLeader !== NONE) return { partitionIndex: p.partitionIndex, lowWatermark: -1n, errorCode: notLeader };
        const log = partition!.log;
        // -1: up to the high watermark (Kafka's DeleteRecordsRequest.HIGH_WATERMARK).
        const offset = p.offset === -1n ? log.logEndOffset : p.offset;
        if (offset < 0n || offset > log.logEndOffset) {
          return { partitionIndex: p.partitionIndex, lowWatermark: -1n, errorCode: errorCode("OFFSET_OUT_OF_RANGE") };
        }
        cluster.deleteRecordsBefore(partition!, offset);
        return { partitionIndex: p.partitionIndex, lowWatermark: log.logStartOffset, errorCode: NONE };
      }),
    })),
  }));

  h.register(23, (req, ctx) => ({
    throttleTimeMs: 0,
    topics: req.topics.map((t) => ({
      topic: t.topic,
      partitions: t.partitions.map((p) => {
        const partition = cluster.partition(t.topic, p.partition);
        const reply = (code: number, leaderEpoch = -1, endOffset = -1n) => ({
          errorCode: code,
          partition: p.partition,
          leaderEpoch,
          endOffset,
        });
        const notLeader = leaderError(partition, ctx);
        if (notLeader !== NONE) return reply(notLeader);
        const { leaderEpoch, log } = partition!;
        // The client's view of the leader epoch, checked as Kafka's Partition.lastOffsetForLeaderEpoch does.
        if (p.currentLeaderEpoch >= 0 && p.currentLeaderEpoch < leaderEpoch)
          return reply(errorCode("FENCED_LEADER_EPOCH"));
        if (p.currentLeaderEpoch > leaderEpoch) return reply(errorCode("UNKNOWN_LEADER_EPOCH"));
        // Leaders move (moveLeader, stopBroker): an older epoch ends where the next one starts.
        return reply(NONE, ...log.endOffsetForEpoch(p.leaderEpoch, leaderEpoch));
      }),
    })),
  }));
}
