/**
 * The seed messages the streams coordinator and member speak, as the library exports them
 * (`kafka-wire`: the codecs of `schemas/`), and the names of their nested structs.
 */

import type {
  StreamsGroupDescribeResponse,
  StreamsGroupHeartbeatRequest,
  StreamsGroupHeartbeatResponse,
} from "../../../src/index.js";

export {
  internalTopics as seedInternalTopics,
  StreamsGroupDescribeRequest,
  StreamsGroupDescribeResponse,
  StreamsGroupHeartbeatRequest,
  StreamsGroupHeartbeatResponse,
  type StreamsGroupMemberMetadataValue,
} from "../../../src/index.js";

/** A member's topology (page 000's Topology struct). */
export type Topology = NonNullable<StreamsGroupHeartbeatRequest["topology"]>;
export type Subtopology = Topology["subtopologies"][number];
export type TopicInfo = Subtopology["stateChangelogTopics"][number];
export type TaskIds = NonNullable<StreamsGroupHeartbeatRequest["activeTasks"]>[number];
export type TaskOffset = NonNullable<StreamsGroupHeartbeatRequest["taskOffsets"]>[number];
export type KeyValue = NonNullable<StreamsGroupHeartbeatRequest["clientTags"]>[number];
export type Endpoint = NonNullable<StreamsGroupHeartbeatRequest["userEndpoint"]>;
export type Status = NonNullable<StreamsGroupHeartbeatResponse["status"]>[number];
export type EndpointToPartitions = NonNullable<StreamsGroupHeartbeatResponse["partitionsByUserEndpoint"]>[number];
export type DescribedGroup = StreamsGroupDescribeResponse["groups"][number];
