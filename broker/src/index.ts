/**
 * kafka-wire-broker: a Kafka cluster in one call, for testing applications and clients against.
 * A test double, not a production broker: in memory, loopback only, bounded.
 *
 *   const cluster = await startCluster({ brokers: 3, topics: { orders: 6 }, kafka: "4.1.0" });
 *   // cluster.bootstrap: "127.0.0.1:P1,127.0.0.1:P2,127.0.0.1:P3"
 *   await cluster.close();
 *
 * See README.md for the APIs and versions served and how they differ from Kafka's.
 */

export {
  startCluster,
  Cluster,
  TopicError,
  type BrokerNode,
  type BrokerPlugin,
  type ClusterConfig,
  type ClusterOptions,
  type Exchange,
  type Partition,
  type RunningCluster,
  type Topic,
  type TopicSpec,
} from "./cluster.js";
export { HandlerRegistry, type Registered } from "./registry.js";
export { startControlServer, type ControlServer } from "./http-control.js";
export {
  Inspector,
  consumerAssignment,
  inspectBytes,
  type InspectedAssignment,
  type InspectedBytes,
  type InspectedGroup,
  type InspectedMember,
  type InspectedOffset,
  type InspectedPartition,
  type InspectedProducer,
  type InspectedRecord,
  type InspectedTopic,
  type InspectedTransaction,
  type RecordPage,
  type RecordPageOptions,
} from "./inspect.js";
export { RequestLog, type RequestLogEntry, type RequestLogOptions } from "./request-log.js";
export { jsonText, RawJson } from "./json-text.js";
export { Control, DroppedByTest, type DelaySpec, type FailSpec, type FaultScope, type Interceptor } from "./control.js";
export type {
  ApiKey,
  Apis,
  Connection,
  Handler,
  HandlerOptions,
  RequestBody,
  RequestContext,
  ResponseBody,
} from "./types.js";
export { errorCode } from "./errors.js";
export type { SaslMechanism, SaslOptions } from "./handlers/sasl.js";
export { coordinatorFor, coordinatorPartition, isCoordinator, javaStringHash } from "./handlers/coordinator.js";
export { currentLeader, leaderError, nodeEndpoints } from "./handlers/core.js";
export { coordinatorError } from "./handlers/groups.js";
export { PartitionLog, type StoredBatch } from "./log.js";
export * from "./streams/index.js";
