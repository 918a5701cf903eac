/**
 * Coordinators as Kafka finds them: a group's (or transactional id's) coordinator is the leader of
 * partition `abs(key.hashCode()) % partitions` of `__consumer_offsets` (or `__transaction_state`),
 * created on first use with Kafka's default 50 partitions (`offsets.topic.num.partitions`,
 * `transaction.state.log.num.partitions`). Kafka: `GroupCoordinatorService.partitionFor`,
 * `TransactionStateManager.partitionFor`, `Utils.abs`.
 */

import type { BrokerNode, Cluster } from "../cluster.js";
import { errorCode } from "../errors.js";

/** FindCoordinator's key types. */
export const COORDINATOR_TYPES = { GROUP: 0, TRANSACTION: 1 } as const;

const INTERNAL_TOPICS: Record<number, string> = { 0: "__consumer_offsets", 1: "__transaction_state" };
/** Kafka's default partition count of both internal topics. */
export const INTERNAL_TOPIC_PARTITIONS = 50;

/** Java's `String.hashCode()`: over UTF-16 code units, 32-bit wrapping. */
export function javaStringHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return h;
}

/** Kafka's `Utils.abs`: `Math.abs`, except that Integer.MIN_VALUE gives 0. */
export function kafkaAbs(n: number): number {
  return n === -2147483648 ? 0 : Math.abs(n);
}

/** The partition of the internal topic that holds `key`'s state. */
export function coordinatorPartition(key: string, partitions = INTERNAL_TOPIC_PARTITIONS): number {
  return kafkaAbs(javaStringHash(key)) % partitions;
}

/**
 * The coordinator node of `key` for key type `keyType` (0 group, 1 transaction), or an error code
 * (INVALID_REQUEST for another key type).
 */
export function coordinatorFor(cluster: Cluster, key: string, keyType: number): BrokerNode | number {
  const name = INTERNAL_TOPICS[keyType];
  if (name === undefined) return errorCode("INVALID_REQUEST");
  let topic = cluster.topics.get(name);
  if (topic === undefined) {
    topic = cluster.createTopic(
      name,
      {
        partitions: INTERNAL_TOPIC_PARTITIONS,
        replicationFactor: Math.min(3, cluster.nodes.length),
        configs: { "cleanup.policy": "compact" },
      },
      { internal: true },
    );
  }
  // A group whose coordinator a test moved (cluster.moveCoordinator), while that node runs.
  const moved = keyType === 0 && cluster.movedCoordinators.size > 0 ? cluster.movedCoordinators.get(key) : undefined;
  if (moved !== undefined && !cluster.stopped.has(moved)) return cluster.node(moved)!;
  const partition = topic.partitions[coordinatorPartition(key, topic.partitions.length)]!;
  return cluster.node(partition.leader) ?? errorCode("COORDINATOR_NOT_AVAILABLE");
}

/** True when `node` coordinates `key` (else the request gets NOT_COORDINATOR). */
export function isCoordinator(cluster: Cluster, node: BrokerNode, key: string, keyType: number): boolean {
  const found = coordinatorFor(cluster, key, keyType);
  return typeof found !== "number" && found.nodeId === node.nodeId;
}
