/**
 * The logical messages the bench encodes and decodes. Deterministic (no randomness), so every run
 * and every machine measures the same bytes. Names, ids and sizes are picked to look like a real
 * cluster: 22-character member ids, realistic topic names, replication factor 3.
 */

import { uuidToString } from "../src/runtime/index.js";
import {
  StreamsGroupDescribeResponse,
  StreamsGroupHeartbeatRequest,
  StreamsGroupHeartbeatResponse,
  StreamsGroupMemberMetadataValue,
} from "../generated/index.js";
import type {
  Member as DescribeMember,
  Subtopology as DescribeSubtopology,
} from "../generated/StreamsGroupDescribeResponse.js";
import type { Subtopology, TaskIds, TaskOffset } from "../generated/StreamsGroupHeartbeatRequest.js";
import type {
  ConsumerGroupHeartbeatRequest,
  ConsumerGroupHeartbeatResponse,
  CorpusCodecs,
  CghTopicPartitions,
  ListPartitionReassignmentsRequest,
  ListPartitionReassignmentsResponse,
  MetadataRequest,
  MetadataResponse,
} from "./corpus.js";

const MEMBER_ID = "kz6pUbiSQ3a2dTqHn0bWbA";
const PROCESS_ID = "7b5c3e1a-2f44-4c1e-9d0b-6a1f2e3d4c5b";

/** A deterministic, non-zero topic id in Kafka's string form (22-char URL-safe base64). */
export function topicId(i: number): string {
  const b = new Uint8Array(16);
  for (let k = 0; k < 16; k++) b[k] = (i * 31 + k * 17 + 7) & 0xff;
  return uuidToString(b, 0);
}

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

// ---------------------------------------------------------------------------------------------
// The four KIP-1071 seed messages, two shapes each. "steady": the steady-state heartbeat, every
// nullable field null. "join": a member joining with a 5-subtopology topology, 30 tasks (20
// active + 5 standby + 5 warm-up task partitions) and 40 task offsets (20 taskOffsets + 20
// taskEndOffsets), carried over to the other three messages as far as their schemas have those
// parts (the heartbeat response has tasks but no offsets; the member metadata has neither).
// ---------------------------------------------------------------------------------------------

/** `counts[s]` partitions of subtopology s, as TaskIds. */
function taskIds(counts: readonly number[], firstPartition = 0): TaskIds[] {
  return counts.map((n, s) => ({ subtopologyId: `${s}`, partitions: range(n).map((p) => p + firstPartition) }));
}

function taskOffsets(n: number, base: bigint): TaskOffset[] {
  return range(n).map((i) => ({
    subtopologyId: `${i % 5}`,
    partition: Math.floor(i / 5),
    offset: base + BigInt(i) * 7919n,
  }));
}

function subtopology(s: number): Subtopology {
  return {
    subtopologyId: `${s}`,
    sourceTopics: [`orders-${s}`, `payments-${s}`],
    sourceTopicRegex: [],
    stateChangelogTopics: [
      {
        name: `orders-app-store-${s}-changelog`,
        partitions: 0,
        replicationFactor: 0,
        topicConfigs: [{ key: "cleanup.policy", value: "compact" }],
      },
    ],
    repartitionSinkTopics: [`orders-app-repartition-${s + 1}`],
    repartitionSourceTopics: [
      { name: `orders-app-repartition-${s}`, partitions: 12, replicationFactor: 3, topicConfigs: [] },
    ],
    copartitionGroups: [{ sourceTopics: [0, 1], sourceTopicRegex: [], repartitionSourceTopics: [0] }],
  };
}

const ACTIVE = [4, 4, 4, 4, 4]; // 20 active task partitions over the 5 subtopologies
const ONE_EACH = [1, 1, 1, 1, 1]; // 5 standby, 5 warm-up

export const streamsGroupHeartbeatRequest = {
  steady: StreamsGroupHeartbeatRequest.create({
    groupId: "orders-app",
    memberId: MEMBER_ID,
    memberEpoch: 42,
    currentAssignmentEpoch: 42,
  }),
  join: StreamsGroupHeartbeatRequest.create({
    groupId: "orders-app",
    memberId: MEMBER_ID,
    memberEpoch: 0,
    currentAssignmentEpoch: 0,
    instanceId: "orders-app-instance-1",
    rackId: "eu-west-1a",
    rebalanceTimeoutMs: 300_000,
    topology: { epoch: 1, subtopologies: range(5).map(subtopology) },
    activeTasks: taskIds(ACTIVE),
    standbyTasks: taskIds(ONE_EACH, 4),
    warmupTasks: taskIds(ONE_EACH, 5),
    processId: PROCESS_ID,
    userEndpoint: { host: "10.0.3.17", port: 8080 },
    clientTags: [
      { key: "zone", value: "eu-west-1a" },
      { key: "cluster", value: "prod-7" },
    ],
    taskOffsets: taskOffsets(20, 1_000_000n),
    taskEndOffsets: taskOffsets(20, 1_050_000n),
  }),
};

export const streamsGroupHeartbeatResponse = {
  steady: StreamsGroupHeartbeatResponse.create({
    memberId: MEMBER_ID,
    memberEpoch: 42,
    currentAssignmentEpoch: 42,
    heartbeatIntervalMs: 5_000,
    acceptableRecoveryLag: 10_000,
    taskOffsetIntervalMs: 60_000,
  }),
  join: StreamsGroupHeartbeatResponse.create({
    memberId: MEMBER_ID,
    memberEpoch: 1,
    currentAssignmentEpoch: 1,
    heartbeatIntervalMs: 5_000,
    acceptableRecoveryLag: 10_000,
    taskOffsetIntervalMs: 60_000,
    status: [{ statusCode: 2, statusDetail: "Assignment is being computed" }],
    activeTasks: taskIds(ACTIVE),
    standbyTasks: taskIds(ONE_EACH, 4),
    warmupTasks: taskIds(ONE_EACH, 5),
    partitionsByUserEndpoint: range(3).map((e) => ({
      userEndpoint: { host: `10.0.3.${17 + e}`, port: 8080 },
      activePartitions: range(2).map((t) => ({ topic: `orders-${t}`, partitions: range(4).map((p) => p + 4 * e) })),
      standbyPartitions: [{ topic: "orders-0", partitions: [(e + 1) % 3, (e + 2) % 3] }],
    })),
  }),
  /**
   * A member of a 10-instance application receiving its whole assignment: 40 active, 20 standby
   * and 10 warm-up task partitions over the 5 subtopologies, and where every one of the 10
   * instances serves which partitions (2 topics × 4 active, 1 topic × 2 standby each).
   */
  fullAssignment: StreamsGroupHeartbeatResponse.create({
    memberId: MEMBER_ID,
    memberEpoch: 3,
    currentAssignmentEpoch: 3,
    heartbeatIntervalMs: 5_000,
    acceptableRecoveryLag: 10_000,
    taskOffsetIntervalMs: 60_000,
    activeTasks: taskIds([8, 8, 8, 8, 8]),
    standbyTasks: taskIds([4, 4, 4, 4, 4], 8),
    warmupTasks: taskIds([2, 2, 2, 2, 2], 12),
    partitionsByUserEndpoint: range(10).map((e) => ({
      userEndpoint: { host: `10.0.3.${17 + e}`, port: 8080 },
      activePartitions: range(2).map((t) => ({ topic: `orders-${t}`, partitions: range(4).map((p) => p + 4 * e) })),
      standbyPartitions: [{ topic: "orders-0", partitions: [(e + 1) % 10, (e + 2) % 10] }],
    })),
  }),
};

function describeMember(m: number, full: boolean): DescribeMember {
  const assignment = full
    ? { activeTasks: taskIds([2, 2, 2, 2, 2], 2 * m), standbyTasks: taskIds(ONE_EACH, 4 + m), warmupTasks: [] }
    : { activeTasks: [], standbyTasks: [], warmupTasks: [] };
  return {
    memberId: `${MEMBER_ID.slice(0, 21)}${m}`,
    memberEpoch: 42,
    currentAssignmentEpoch: 42,
    instanceId: full ? `orders-app-instance-${m}` : null,
    rackId: full ? "eu-west-1a" : null,
    clientId: `orders-app-StreamThread-${m}-consumer`,
    clientHost: `/10.0.3.${17 + m}`,
    topologyEpoch: 1,
    processId: PROCESS_ID,
    userEndpoint: full ? { host: `10.0.3.${17 + m}`, port: 8080 } : null,
    clientTags: full ? [{ key: "zone", value: "eu-west-1a" }] : [],
    taskOffsets: full ? taskOffsets(10, 1_000_000n) : [],
    taskEndOffsets: full ? taskOffsets(10, 1_050_000n) : [],
    assignment,
    targetAssignment: assignment,
    isClassic: false,
  };
}

function describeSubtopology(s: number): DescribeSubtopology {
  const { subtopologyId, sourceTopics, repartitionSinkTopics, stateChangelogTopics, repartitionSourceTopics } =
    subtopology(s);
  return { subtopologyId, sourceTopics, repartitionSinkTopics, stateChangelogTopics, repartitionSourceTopics };
}

export const streamsGroupDescribeResponse = {
  /** One stable group, one member, every nullable field null, empty assignments. */
  steady: StreamsGroupDescribeResponse.create({
    groups: [
      {
        errorCode: 0,
        errorMessage: null,
        groupId: "orders-app",
        groupState: "Stable",
        groupEpoch: 42,
        assignmentEpoch: 42,
        topology: null,
        members: [describeMember(0, false)],
        authorizedOperations: -2147483648,
      },
    ],
  }),
  /** 5-subtopology topology, two members holding 15 tasks and 20 task offsets each. */
  join: StreamsGroupDescribeResponse.create({
    groups: [
      {
        errorCode: 0,
        errorMessage: null,
        groupId: "orders-app",
        groupState: "Stable",
        groupEpoch: 42,
        assignmentEpoch: 42,
        topology: { epoch: 1, subtopologies: range(5).map(describeSubtopology) },
        members: [describeMember(0, true), describeMember(1, true)],
        authorizedOperations: 0x0ff8,
      },
    ],
  }),
  /** The same group with 10 members, each holding its tasks and 20 task offsets. */
  tenMembers: StreamsGroupDescribeResponse.create({
    groups: [
      {
        errorCode: 0,
        errorMessage: null,
        groupId: "orders-app",
        groupState: "Stable",
        groupEpoch: 42,
        assignmentEpoch: 42,
        topology: { epoch: 1, subtopologies: range(5).map(describeSubtopology) },
        members: range(10).map((m) => describeMember(m, true)),
        authorizedOperations: 0x0ff8,
      },
    ],
  }),
};

export const streamsGroupMemberMetadataValue = {
  steady: StreamsGroupMemberMetadataValue.create({
    clientId: "orders-app-StreamThread-1-consumer",
    clientHost: "/10.0.3.17",
    rebalanceTimeoutMs: 300_000,
    topologyId: "",
    processId: PROCESS_ID,
    userEndpoint: { host: "", port: 0 },
  }),
  join: StreamsGroupMemberMetadataValue.create({
    instanceId: "orders-app-instance-1",
    rackId: "eu-west-1a",
    clientId: "orders-app-StreamThread-1-consumer",
    clientHost: "/10.0.3.17",
    rebalanceTimeoutMs: 300_000,
    topologyId: "orders-app-topology-1",
    processId: PROCESS_ID,
    userEndpoint: { host: "10.0.3.17", port: 8080 },
    clientTags: [
      { key: "zone", value: "eu-west-1a" },
      { key: "cluster", value: "prod-7" },
      { key: "rack", value: "r12" },
    ],
  }),
};

// ---------------------------------------------------------------------------------------------
// Apache Kafka messages the peers implement too.
// ---------------------------------------------------------------------------------------------

/** Owned or assigned partitions: `topics` topics × `partitions` partitions each. */
function cghTopicPartitions(topics: number, partitions: number): CghTopicPartitions[] {
  return range(topics).map((t) => ({ topicId: topicId(t), partitions: range(partitions).map((p) => p * 2 + (t % 2)) }));
}

export function consumerGroupHeartbeat(c: CorpusCodecs): {
  request: Record<"steady" | "full", ConsumerGroupHeartbeatRequest>;
  response: Record<"steady" | "full", ConsumerGroupHeartbeatResponse>;
} {
  const Req = c.ConsumerGroupHeartbeatRequest;
  const Res = c.ConsumerGroupHeartbeatResponse;
  return {
    request: {
      /** Steady state: only the required fields; every nullable one null ("unchanged"). */
      steady: Req.create({ groupId: "orders-consumers", memberId: MEMBER_ID, memberEpoch: 42, rebalanceTimeoutMs: -1 }),
      /** Every field set: 10 subscribed topics, 10 owned topics × 3 partitions. */
      full: Req.create({
        groupId: "orders-consumers",
        memberId: MEMBER_ID,
        memberEpoch: 7,
        instanceId: "orders-consumer-1",
        rackId: "eu-west-1a",
        rebalanceTimeoutMs: 300_000,
        subscribedTopicNames: range(10).map((t) => `orders-${t}`),
        serverAssignor: "uniform",
        topicPartitions: cghTopicPartitions(10, 3),
      }),
    },
    response: {
      steady: Res.create({ throttleTimeMs: 3, memberId: MEMBER_ID, memberEpoch: 42, heartbeatIntervalMs: 5_000 }),
      /** A new assignment: 10 topics × 3 partitions. */
      full: Res.create({
        throttleTimeMs: 3,
        memberId: MEMBER_ID,
        memberEpoch: 8,
        heartbeatIntervalMs: 5_000,
        assignment: { topicPartitions: cghTopicPartitions(10, 3) },
      }),
    },
  };
}

/** A Metadata request for 10 named topics (the topic ids are zero, as a client sends them). */
export function metadataRequest(c: CorpusCodecs): MetadataRequest {
  return c.MetadataRequest.create({
    topics: range(10).map((t) => ({ topicId: "AAAAAAAAAAAAAAAAAAAAAA", name: `orders-${t}` })),
    allowAutoTopicCreation: false,
  });
}

/**
 * A Metadata response from a `brokers`-broker cluster for `topics` topics × `partitions`
 * partitions, replication factor 3, one partition in ten with a shrunk ISR. Written for `version`:
 * below v7 there is no leader epoch, below v10 no topic id, and from v11 on the cluster authorized
 * operations are gone; those fields keep their defaults so that the message is valid there.
 */
export function metadataResponse(
  c: CorpusCodecs,
  version: number,
  brokers: number,
  topics: number,
  partitions: number,
): MetadataResponse {
  return c.MetadataResponse.create({
    throttleTimeMs: 12, // non-zero so that verification would notice a decoder dropping or moving it
    brokers: range(brokers).map((b) => ({
      nodeId: b + 1,
      host: `broker-${b + 1}.kafka.internal`,
      port: 9092,
      rack: `eu-west-1${"abc"[b % 3]}`,
    })),
    clusterId: "MkU3OEVBNTcwNTJENDM2Qk",
    controllerId: 1,
    topics: range(topics).map((t) => ({
      errorCode: 0,
      name: `orders-${t}`,
      topicId: version >= 10 ? topicId(t) : "AAAAAAAAAAAAAAAAAAAAAA",
      isInternal: false,
      topicAuthorizedOperations: -2147483648,
      partitions: range(partitions).map((p) => {
        const replicas = [0, 1, 2].map((k) => ((t + p + k) % brokers) + 1);
        return {
          errorCode: 0,
          partitionIndex: p,
          leaderId: replicas[0]!,
          leaderEpoch: version >= 7 ? 10 + ((t * 7 + p) % 50) : -1,
          replicaNodes: replicas,
          isrNodes: (t * partitions + p) % 10 === 9 ? replicas.slice(0, 2) : replicas,
          offlineReplicas: [],
        };
      }),
    })),
  });
}

export function listPartitionReassignments(c: CorpusCodecs): {
  request: ListPartitionReassignmentsRequest;
  response: ListPartitionReassignmentsResponse;
} {
  return {
    /** Ask about 5 topics × 4 partitions. */
    request: c.ListPartitionReassignmentsRequest.create({
      timeoutMs: 30_000,
      topics: range(5).map((t) => ({ name: `orders-${t}`, partitionIndexes: range(4) })),
    }),
    /** 5 topics × 4 partitions moving from broker 1 to broker 4. */
    response: c.ListPartitionReassignmentsResponse.create({
      throttleTimeMs: 7,
      topics: range(5).map((t) => ({
        name: `orders-${t}`,
        partitions: range(4).map((p) => ({
          partitionIndex: p,
          replicas: [1, 2, 3, 4],
          addingReplicas: [4],
          removingReplicas: [1],
        })),
      })),
    }),
  };
}
