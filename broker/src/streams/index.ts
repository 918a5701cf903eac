/** Streams groups (KIP-1071) for kafka-wire-broker: the plugin, the coordinator and the member. */

export { StreamsGroups, type StreamsGroupsOptions } from "./plugin.js";
export {
  StreamsGroupCoordinator,
  GROUP_AUTHORIZED_OPERATIONS,
  JOIN_EPOCH,
  LEAVE_EPOCH,
  STATIC_LEAVE_EPOCH,
  type ClientInfo,
  type CoordinatorOptions,
  type HeartbeatResult,
  type StreamsGroup,
  type StreamsMember,
} from "./coordinator.js";
export {
  StreamsGroupMember,
  StreamsMemberProtocol,
  describeStreamsGroups,
  type ReconcileEvent,
  type StreamsGroupMemberOptions,
  type StreamsMemberOptions,
} from "./member.js";
export { resolveStreamsGroupConfig, STREAMS_GROUP_CONFIG_DEFAULTS, type StreamsGroupConfig } from "./config.js";
export { assignTasks, type AssignorInput, type AssignorMember } from "./assignor.js";
export { MEMBER_STATE, reconcile, type AssignmentState } from "./reconcile.js";
export { RECORD_TYPE, RECORD_NAMES, StreamsRecordCodec, streamsInternalTopics, type StreamsRecord } from "./records.js";
export { withSeedStreamsApis, STREAMS_GROUP_HEARTBEAT, STREAMS_GROUP_DESCRIBE } from "./protocol.js";
export {
  STATUS,
  resolveTopology,
  validateTopology,
  InvalidTopologyError,
  taskKey,
  parseTaskKey,
  type Task,
  type TasksTuple,
  type TopicMetadataSource,
  type TopicToCreate,
} from "./tasks.js";
