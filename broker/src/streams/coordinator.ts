/**
 * The streams group coordinator of KIP-1071 as a deterministic state machine: no sockets, no
 * timers, an injectable clock. The broker feeds it decoded StreamsGroupHeartbeat and
 * StreamsGroupDescribe requests (the seed codecs' types) and appends the records each call
 * returns to `__consumer_offsets`; {@link StreamsGroupCoordinator.replay} rebuilds the groups
 * from those records after a restart.
 *
 * The rules and where they come from are listed in the README's "Streams groups" section.
 */

import {
  StreamsGroupDescribeResponse,
  StreamsGroupHeartbeatResponse,
  type DescribedGroup,
  type Endpoint,
  type EndpointToPartitions,
  type KeyValue,
  type Status,
  type StreamsGroupDescribeRequest,
  type StreamsGroupHeartbeatRequest,
  type TaskOffset,
  type Topology,
} from "./messages.js";
import { ERROR_CODES } from "../../../src/error-codes.js";
import { assignTasks, endOffsetsOf, isCaughtUp } from "./assignor.js";
import { resolveStreamsGroupConfig, type StreamsGroupConfig } from "./config.js";
import {
  MEMBER_STATE,
  reconcile,
  type AssignmentState,
  type CurrentOwners,
  type MemberStateCode,
} from "./reconcile.js";
import type { StreamsRecord, StreamsGroupTopologyValue, StreamsGroupPartitionMetadataValue } from "./records.js";
import {
  EMPTY_TASKS,
  InvalidTopologyError,
  ROLES,
  STATUS,
  isEmptyTuple,
  partitionsOfTasks,
  resolveTopology,
  sameTuple,
  taskKey,
  tasksOf,
  toTaskIds,
  tupleFromWire,
  tupleToWire,
  compileRegex,
  validateTopology,
  type ResolvedTopology,
  type TasksTuple,
  type TopicMetadataSource,
  type TopicToCreate,
} from "./tasks.js";

/** Member epochs with a meaning of their own (page 000, MemberEpoch). */
export const JOIN_EPOCH = 0;
export const LEAVE_EPOCH = -1;
export const STATIC_LEAVE_EPOCH = -2;

/** No ACLs here: every group operation is allowed (READ, DELETE, DESCRIBE, DESCRIBE_CONFIGS, ALTER_CONFIGS). */
export const GROUP_AUTHORIZED_OPERATIONS = (1 << 3) | (1 << 6) | (1 << 8) | (1 << 10) | (1 << 11);
const AUTHORIZED_OPERATIONS_OMITTED = -2147483648;

/** A member of a streams group. */
export interface StreamsMember extends AssignmentState {
  readonly memberId: string;
  instanceId: string | null;
  rackId: string | null;
  clientId: string;
  clientHost: string;
  rebalanceTimeoutMs: number;
  topologyEpoch: number;
  processId: string;
  userEndpoint: Endpoint | null;
  clientTags: KeyValue[];
  memberEpoch: number;
  previousMemberEpoch: number;
  state: MemberStateCode;
  assigned: TasksTuple;
  pendingRevocation: TasksTuple;
  /** Not persisted (page 002: task offsets change constantly). */
  taskOffsets: Map<string, bigint>;
  taskEndOffsets: Map<string, bigint>;
  /** When the coordinator removes the member for want of heartbeats (ms). */
  sessionDeadline: number;
  /** When a member still holding tasks to revoke is removed (ms), or null. */
  revocationDeadline: number | null;
  /** What was last sent to it (JSON), so unchanged fields go out as null. */
  sent: { assignment: string | null; status: string | null; endpoints: string | null };
}

/** A streams group. */
export interface StreamsGroup {
  readonly groupId: string;
  groupEpoch: number;
  assignmentEpoch: number;
  topology: Topology | null;
  partitionMetadata: StreamsGroupPartitionMetadataValue;
  readonly members: Map<string, StreamsMember>;
  readonly targetAssignment: Map<string, TasksTuple>;
  /** A member asked for SHUTDOWN_APPLICATION (kept in memory, as Kafka does). */
  shutdownRequested: boolean;
}

/** What one heartbeat produced. */
export interface HeartbeatResult {
  readonly response: StreamsGroupHeartbeatResponse;
  /** The records to append to `__consumer_offsets` (one batch), in order. */
  readonly records: StreamsRecord[];
  /** Internal topics the broker must create (MISSING_INTERNAL_TOPICS). */
  readonly topicsToCreate: readonly TopicToCreate[];
}

export interface CoordinatorOptions {
  readonly config?: Partial<StreamsGroupConfig>;
  /** The cluster's topics. */
  readonly topics: TopicMetadataSource;
  /** Milliseconds; default Date.now. */
  readonly clock?: () => number;
}

/** The client a request came from (for the member metadata). */
export interface ClientInfo {
  readonly clientId: string;
  readonly clientHost: string;
}

const CODES = new Map(ERROR_CODES.map((e) => [e.name, e.code]));

/** The int16 code of a Kafka error name. */
function errorCode(name: string): number {
  const code = CODES.get(name);
  if (code === undefined) throw new Error(`no Kafka error named ${name}`);
  return code;
}

class HeartbeatError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const fail = (code: string, message: string): never => {
  throw new HeartbeatError(code, message);
};

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Canonical JSON (bigint as text) for comparisons. */
const json = (v: unknown) => JSON.stringify(v, (_k, x) => (typeof x === "bigint" ? x.toString() : x));

function topologyRecordValue(t: Topology): StreamsGroupTopologyValue {
  return {
    epoch: t.epoch,
    subtopologies: t.subtopologies.map((s) => ({
      subtopologyId: s.subtopologyId,
      sourceTopics: [...s.sourceTopics],
      sourceTopicRegex: [...s.sourceTopicRegex],
      stateChangelogTopics: s.stateChangelogTopics.map((i) => ({
        ...i,
        topicConfigs: i.topicConfigs.map((c) => ({ ...c })),
      })),
      repartitionSinkTopics: [...s.repartitionSinkTopics],
      repartitionSourceTopics: s.repartitionSourceTopics.map((i) => ({
        ...i,
        topicConfigs: i.topicConfigs.map((c) => ({ ...c })),
      })),
      copartitionGroups: s.copartitionGroups.map((g) => ({
        sourceTopics: [...g.sourceTopics],
        sourceTopicRegex: [...g.sourceTopicRegex],
        repartitionSourceTopics: [...g.repartitionSourceTopics],
      })),
    })),
  };
}

const offsetsToMap = (list: readonly TaskOffset[]) =>
  new Map(list.map((o) => [taskKey(o.subtopologyId, o.partition), o.offset]));

function offsetsToWire(m: ReadonlyMap<string, bigint>): TaskOffset[] {
  return [...m.entries()]
    .map(([k, offset]) => {
      const at = k.lastIndexOf("\u0000");
      return { subtopologyId: k.slice(0, at), partition: Number(k.slice(at + 1)), offset };
    })
    .sort((a, b) => cmp(a.subtopologyId, b.subtopologyId) || a.partition - b.partition);
}

export class StreamsGroupCoordinator {
  readonly config: StreamsGroupConfig;
  private readonly topics: TopicMetadataSource;
  private readonly clock: () => number;
  private readonly groups = new Map<string, StreamsGroup>();

  /** @throws RangeError for a config out of its bounds ({@link resolveStreamsGroupConfig}). */
  constructor(options: CoordinatorOptions) {
    this.config = resolveStreamsGroupConfig(options.config);
    this.topics = options.topics;
    this.clock = options.clock ?? Date.now;
  }

  /** The group, or undefined (read it, do not change it). */
  group(groupId: string): StreamsGroup | undefined {
    return this.groups.get(groupId);
  }

  groupIds(): string[] {
    return [...this.groups.keys()].sort(cmp);
  }

  /**
   * Kafka's StreamsGroupState names: Empty (no members), NotReady (no tasks: topics missing or
   * not partitioned as required), Assigning (the target assignment is behind the group epoch or
   * the topics), Reconciling (a member is not at the assignment epoch yet), Stable.
   */
  groupState(g: StreamsGroup): string {
    if (g.members.size === 0) return "Empty";
    if (g.topology === null || this.resolve(g).subtopologies === null) return "NotReady";
    // Topics changed since the last assignment: the next heartbeat bumps the epoch and reassigns.
    if (g.groupEpoch > g.assignmentEpoch || json(this.partitionMetadataOf(g)) !== json(g.partitionMetadata))
      return "Assigning";
    for (const m of g.members.values())
      if (m.memberEpoch !== g.assignmentEpoch || m.state !== MEMBER_STATE.STABLE) return "Reconciling";
    return "Stable";
  }

  private resolve(g: StreamsGroup): ResolvedTopology {
    return resolveTopology(g.topology!, this.topics);
  }

  // ---------------------------------------------------------------- heartbeat

  /** Handles one StreamsGroupHeartbeat request (never throws for a bad request: the response carries the error). */
  heartbeat(req: StreamsGroupHeartbeatRequest, client: ClientInfo = { clientId: "", clientHost: "" }): HeartbeatResult {
    try {
      return this.heartbeatOrThrow(req, client);
    } catch (e) {
      if (!(e instanceof HeartbeatError)) throw e;
      return {
        response: StreamsGroupHeartbeatResponse.create({
          errorCode: errorCode(e.code),
          errorMessage: e.message,
          memberId: req.memberId,
          memberEpoch: req.memberEpoch,
        }),
        records: [],
        topicsToCreate: [],
      };
    }
  }

  private validate(req: StreamsGroupHeartbeatRequest): void {
    if (req.groupId === "") fail("INVALID_REQUEST", "GroupId can't be empty.");
    if (req.memberId === "") fail("INVALID_REQUEST", "MemberId can't be empty.");
    if (req.instanceId === "") fail("INVALID_REQUEST", "InstanceId can't be empty.");
    if (req.rackId === "") fail("INVALID_REQUEST", "RackId can't be empty.");
    if (req.memberEpoch < STATIC_LEAVE_EPOCH) fail("INVALID_REQUEST", `MemberEpoch ${req.memberEpoch} is invalid.`);
    const owned = [req.activeTasks, req.standbyTasks, req.warmupTasks];
    if (owned.some((x) => x === null) && owned.some((x) => x !== null))
      fail("INVALID_REQUEST", "ActiveTasks, StandbyTasks and WarmupTasks must be all null or all set.");
    if (req.memberEpoch === STATIC_LEAVE_EPOCH && req.instanceId === null)
      fail("INVALID_REQUEST", "InstanceId can't be null when MemberEpoch is -2 (static leave).");
    if (req.memberEpoch === JOIN_EPOCH) {
      if (req.topology === null) fail("INVALID_REQUEST", "Topology must be set when joining (MemberEpoch 0).");
      if (req.rebalanceTimeoutMs <= 0) fail("INVALID_REQUEST", "RebalanceTimeoutMs must be provided when joining.");
      if (req.processId === null || req.processId === "")
        fail("INVALID_REQUEST", "ProcessId must be set when joining.");
      if (owned.some((x) => x !== null && x.length > 0))
        fail("INVALID_REQUEST", "ActiveTasks, StandbyTasks and WarmupTasks must be empty when joining.");
    } else if (req.topology !== null) {
      fail("INVALID_REQUEST", "Topology is only sent when joining (MemberEpoch 0).");
    }
    if (req.processId === "") fail("INVALID_REQUEST", "ProcessId can't be empty.");
    if (req.rebalanceTimeoutMs < -1 || req.rebalanceTimeoutMs === 0)
      fail("INVALID_REQUEST", `RebalanceTimeoutMs ${req.rebalanceTimeoutMs} is invalid.`);
    if (req.topology !== null) {
      try {
        validateTopology(req.topology);
      } catch (e) {
        if (e instanceof InvalidTopologyError) fail("STREAMS_INVALID_TOPOLOGY", e.message);
        throw e;
      }
    }
  }

  private heartbeatOrThrow(req: StreamsGroupHeartbeatRequest, client: ClientInfo): HeartbeatResult {
    this.validate(req);
    const now = this.clock();
    const records: StreamsRecord[] = [];
    if (req.memberEpoch === LEAVE_EPOCH || req.memberEpoch === STATIC_LEAVE_EPOCH) return this.leave(req, records);

    let group = this.groups.get(req.groupId);
    let member: StreamsMember | undefined;
    let bump = false;
    const joining = req.memberEpoch === JOIN_EPOCH;
    if (joining) {
      const topology = req.topology!;
      const existing = group?.members.get(req.memberId);
      let replaced: StreamsMember | undefined;
      if (group !== undefined && req.instanceId !== null) {
        const owner = [...group.members.values()].find((m) => m.instanceId === req.instanceId);
        if (owner !== undefined && owner.memberId !== req.memberId) {
          if (owner.memberEpoch !== STATIC_LEAVE_EPOCH)
            fail(
              "UNRELEASED_INSTANCE_ID",
              `Static member ${owner.memberId} with instance id ${req.instanceId} has not left.`,
            );
          replaced = owner;
        }
      }
      if (
        group !== undefined &&
        existing === undefined &&
        replaced === undefined &&
        group.members.size >= this.config["group.streams.max.size"]
      )
        fail(
          "GROUP_MAX_SIZE_REACHED",
          `The streams group has reached its maximum size ${this.config["group.streams.max.size"]}.`,
        );
      const current = group?.topology ?? null;
      let topologyChanged = current === null;
      if (current !== null) {
        if (topology.epoch > current.epoch) topologyChanged = true;
        else if (topology.epoch === current.epoch) {
          if (json(topologyRecordValue(topology)) !== json(topologyRecordValue(current)))
            fail(
              "STREAMS_INVALID_TOPOLOGY_EPOCH",
              `The topology differs from the group's but has the same epoch ${topology.epoch}.`,
            );
        } else
          fail(
            "STREAMS_TOPOLOGY_FENCED",
            `The topology epoch ${topology.epoch} is older than the group's ${current.epoch}.`,
          );
      }
      // Everything below changes state: every refusal is above.
      if (group === undefined) {
        group = {
          groupId: req.groupId,
          groupEpoch: 0,
          assignmentEpoch: 0,
          topology: null,
          partitionMetadata: { topics: [] },
          members: new Map(),
          targetAssignment: new Map(),
          shutdownRequested: false,
        };
        this.groups.set(req.groupId, group);
      }
      if (topologyChanged) {
        group.topology = structuredClone(topology);
        records.push({ recordType: 23, key: { groupId: group.groupId }, value: topologyRecordValue(topology) });
        bump = true;
      }
      if (replaced !== undefined) {
        member = this.newMember(req, client, now, topology.epoch, {
          memberEpoch: replaced.previousMemberEpoch,
          previousMemberEpoch: replaced.previousMemberEpoch,
          state: replaced.state,
          assigned: replaced.assigned,
          pendingRevocation: replaced.pendingRevocation,
        });
        member.taskOffsets = replaced.taskOffsets;
        member.taskEndOffsets = replaced.taskEndOffsets;
        const target = group.targetAssignment.get(replaced.memberId);
        this.removeMember(group, replaced, records, false);
        group.members.set(member.memberId, member);
        records.push(this.memberMetadataRecord(group, member));
        if (target !== undefined) {
          group.targetAssignment.set(member.memberId, target);
          records.push({
            recordType: 21,
            key: { groupId: group.groupId, memberId: member.memberId },
            value: tupleToWire(target),
          });
        }
        records.push(this.currentAssignmentRecord(group, member));
        if (replaced.topologyEpoch !== member.topologyEpoch || this.assignmentInputsDiffer(replaced, member))
          bump = true;
      } else if (existing === undefined) {
        member = this.newMember(req, client, now, topology.epoch, {
          memberEpoch: 0,
          previousMemberEpoch: -1,
          state: MEMBER_STATE.STABLE,
          assigned: EMPTY_TASKS,
          pendingRevocation: EMPTY_TASKS,
        });
        group.members.set(member.memberId, member);
        records.push(this.memberMetadataRecord(group, member));
        bump = true;
      } else {
        member = existing;
        if (member.memberEpoch === STATIC_LEAVE_EPOCH) {
          member.memberEpoch = member.previousMemberEpoch;
          records.push(this.currentAssignmentRecord(group, member));
        }
        if (member.topologyEpoch !== topology.epoch) {
          member.topologyEpoch = topology.epoch;
          bump = true;
          records.push(this.memberMetadataRecord(group, member));
        }
      }
      member.sent = { assignment: null, status: null, endpoints: null };
    } else {
      if (group === undefined) fail("GROUP_ID_NOT_FOUND", `Streams group ${req.groupId} not found.`);
      member = group!.members.get(req.memberId);
      if (member === undefined)
        fail("UNKNOWN_MEMBER_ID", `Member ${req.memberId} is not a member of group ${req.groupId}.`);
      this.checkEpoch(member!, req);
    }
    group = group!;
    member = member!;

    // Metadata sent when it changed (null fields: unchanged).
    const before = { ...member, clientTags: member.clientTags, userEndpoint: member.userEndpoint };
    if (req.instanceId !== null) member.instanceId = req.instanceId;
    if (req.rackId !== null) member.rackId = req.rackId;
    if (req.rebalanceTimeoutMs !== -1) member.rebalanceTimeoutMs = req.rebalanceTimeoutMs;
    if (req.processId !== null) member.processId = req.processId;
    if (req.userEndpoint !== null) member.userEndpoint = { ...req.userEndpoint };
    if (req.clientTags !== null) member.clientTags = req.clientTags.map((t) => ({ ...t }));
    if (!joining || req.memberId !== member.memberId) {
      // (a joining member's metadata was written above)
    }
    const metadataChanged =
      before.instanceId !== member.instanceId ||
      before.rackId !== member.rackId ||
      before.rebalanceTimeoutMs !== member.rebalanceTimeoutMs ||
      json(before.userEndpoint) !== json(member.userEndpoint) ||
      this.assignmentInputsDiffer(before, member);
    if (metadataChanged && !records.some((r) => r.recordType === 19))
      records.push(this.memberMetadataRecord(group, member));
    if (this.assignmentInputsDiffer(before, member) || before.instanceId !== member.instanceId) bump = true;

    // Task offsets: a warm-up task that has now caught up bumps the group epoch (page 002).
    if (req.taskOffsets !== null || req.taskEndOffsets !== null) {
      const caughtBefore = this.caughtUpWarmups(group);
      if (req.taskOffsets !== null) member.taskOffsets = offsetsToMap(req.taskOffsets);
      if (req.taskEndOffsets !== null) member.taskEndOffsets = offsetsToMap(req.taskEndOffsets);
      for (const t of this.caughtUpWarmups(group)) if (!caughtBefore.has(t)) bump = true;
    }
    if (req.shutdownApplication) group.shutdownRequested = true;

    // Partition metadata: the topology's topics as they are now.
    const resolved = this.resolve(group);
    const metadata = this.partitionMetadataOf(group);
    if (json(metadata) !== json(group.partitionMetadata)) {
      group.partitionMetadata = metadata;
      records.push({ recordType: 18, key: { groupId: group.groupId }, value: metadata });
      bump = true;
    }
    if (bump) {
      group.groupEpoch++;
      records.push({ recordType: 17, key: { groupId: group.groupId }, value: { epoch: group.groupEpoch } });
    }
    if (group.groupEpoch > group.assignmentEpoch) this.computeTargetAssignment(group, resolved, records);

    // Reconcile this member.
    const owned =
      req.activeTasks === null
        ? null
        : tupleFromWire({
            activeTasks: req.activeTasks,
            standbyTasks: req.standbyTasks!,
            warmupTasks: req.warmupTasks!,
          });
    const nextState = reconcile(
      member,
      member.processId,
      group.assignmentEpoch,
      group.targetAssignment.get(member.memberId) ?? EMPTY_TASKS,
      this.ownersExcept(group, member.memberId),
      owned,
    );
    const moved =
      nextState.memberEpoch !== member.memberEpoch ||
      nextState.previousMemberEpoch !== member.previousMemberEpoch ||
      nextState.state !== member.state ||
      !sameTuple(nextState.assigned, member.assigned) ||
      !sameTuple(nextState.pendingRevocation, member.pendingRevocation);
    if (moved) {
      const wasUnrevoked = member.state === MEMBER_STATE.UNREVOKED_TASKS;
      Object.assign(member, nextState);
      records.push(this.currentAssignmentRecord(group, member));
      if (member.state === MEMBER_STATE.UNREVOKED_TASKS) {
        if (!wasUnrevoked) member.revocationDeadline = now + member.rebalanceTimeoutMs;
      } else member.revocationDeadline = null;
    } else if (records.some((r) => r.recordType === 22 && r.key.memberId === member!.memberId) === false && joining) {
      // A joining member's current assignment is always written (Kafka writes it on every join).
      records.push(this.currentAssignmentRecord(group, member));
    }
    member.sessionDeadline = now + this.config["group.streams.session.timeout.ms"];

    return {
      response: this.response(group, member, resolved, joining || owned !== null),
      records,
      topicsToCreate: resolved.topicsToCreate,
    };
  }

  private newMember(
    req: StreamsGroupHeartbeatRequest,
    client: ClientInfo,
    now: number,
    topologyEpoch: number,
    a: AssignmentState,
  ): StreamsMember {
    return {
      memberId: req.memberId,
      instanceId: req.instanceId,
      rackId: req.rackId,
      clientId: client.clientId,
      clientHost: client.clientHost,
      rebalanceTimeoutMs: req.rebalanceTimeoutMs,
      topologyEpoch,
      processId: req.processId!,
      userEndpoint: req.userEndpoint === null ? null : { ...req.userEndpoint },
      clientTags: (req.clientTags ?? []).map((t) => ({ ...t })),
      ...a,
      taskOffsets: new Map(),
      taskEndOffsets: new Map(),
      sessionDeadline: now + this.config["group.streams.session.timeout.ms"],
      revocationDeadline: null,
      sent: { assignment: null, status: null, endpoints: null },
    };
  }

  /** Page 002: the epoch is bumped when a member's topology, rack, client tags or process change. */
  private assignmentInputsDiffer(a: StreamsMember, b: StreamsMember): boolean {
    return (
      a.topologyEpoch !== b.topologyEpoch ||
      a.rackId !== b.rackId ||
      a.processId !== b.processId ||
      json(a.clientTags) !== json(b.clientTags)
    );
  }

  /** FENCED_MEMBER_EPOCH unless the epoch is the member's, or its previous one with owned tasks it still has (a lost response). */
  private checkEpoch(m: StreamsMember, req: StreamsGroupHeartbeatRequest): void {
    if (m.memberEpoch === STATIC_LEAVE_EPOCH)
      fail("FENCED_MEMBER_EPOCH", `Static member ${m.memberId} left the group; it must rejoin with epoch 0.`);
    if (req.memberEpoch === m.memberEpoch) return;
    if (req.memberEpoch < m.memberEpoch && req.memberEpoch === m.previousMemberEpoch && req.activeTasks !== null) {
      const owned = tupleFromWire({
        activeTasks: req.activeTasks,
        standbyTasks: req.standbyTasks!,
        warmupTasks: req.warmupTasks!,
      });
      if (ROLES.every((r) => [...owned[r]].every((t) => m.assigned[r].has(t)))) return;
    }
    fail(
      "FENCED_MEMBER_EPOCH",
      `The member epoch ${req.memberEpoch} is fenced; the member's epoch is ${m.memberEpoch}.`,
    );
  }

  private leave(req: StreamsGroupHeartbeatRequest, records: StreamsRecord[]): HeartbeatResult {
    const group = this.groups.get(req.groupId);
    if (group === undefined) fail("GROUP_ID_NOT_FOUND", `Streams group ${req.groupId} not found.`);
    const member = group!.members.get(req.memberId);
    if (member === undefined)
      fail("UNKNOWN_MEMBER_ID", `Member ${req.memberId} is not a member of group ${req.groupId}.`);
    const g = group!;
    const m = member!;
    if (req.shutdownApplication) g.shutdownRequested = true;
    if (req.memberEpoch === STATIC_LEAVE_EPOCH) {
      if (m.instanceId !== req.instanceId)
        fail(
          "FENCED_INSTANCE_ID",
          `Member ${m.memberId} has instance id ${String(m.instanceId)}, not ${req.instanceId}.`,
        );
      if (m.memberEpoch !== STATIC_LEAVE_EPOCH) {
        m.previousMemberEpoch = m.memberEpoch;
        m.memberEpoch = STATIC_LEAVE_EPOCH;
        records.push(this.currentAssignmentRecord(g, m));
      }
    } else {
      this.removeMember(g, m, records, true);
    }
    return {
      response: StreamsGroupHeartbeatResponse.create({
        memberId: req.memberId,
        memberEpoch: req.memberEpoch,
        heartbeatIntervalMs: this.config["group.streams.heartbeat.interval.ms"],
        acceptableRecoveryLag: this.config["group.streams.acceptable.recovery.lag"],
        taskOffsetIntervalMs: this.config["group.streams.task.offset.interval.ms"],
      }),
      records,
      topicsToCreate: [],
    };
  }

  /** Removes a member: tombstones for its three records; `bump` bumps the group epoch (a leave or a timeout). */
  private removeMember(g: StreamsGroup, m: StreamsMember, records: StreamsRecord[], bump: boolean): void {
    const key = { groupId: g.groupId, memberId: m.memberId };
    records.push({ recordType: 22, key, value: null });
    records.push({ recordType: 21, key, value: null });
    records.push({ recordType: 19, key, value: null });
    g.members.delete(m.memberId);
    g.targetAssignment.delete(m.memberId);
    if (g.members.size === 0) g.shutdownRequested = false;
    if (bump) {
      g.groupEpoch++;
      records.push({ recordType: 17, key: { groupId: g.groupId }, value: { epoch: g.groupEpoch } });
    }
  }

  /**
   * Removes members whose session timed out (no heartbeat within `session.timeout.ms`; static
   * members that left with -2 included) or that kept tasks to revoke past their rebalance
   * timeout. Call it periodically; returns the records to append.
   */
  tick(): StreamsRecord[] {
    const now = this.clock();
    const records: StreamsRecord[] = [];
    for (const g of this.groups.values())
      for (const m of [...g.members.values()])
        if (now > m.sessionDeadline || (m.revocationDeadline !== null && now > m.revocationDeadline))
          this.removeMember(g, m, records, true);
    return records;
  }

  private caughtUpWarmups(g: StreamsGroup): Set<string> {
    const out = new Set<string>();
    const members = [...g.members.values()];
    const ends = endOffsetsOf(members);
    const lag = BigInt(this.config["group.streams.acceptable.recovery.lag"]);
    for (const m of members)
      for (const t of m.assigned.warmup)
        if (isCaughtUp(t, (k) => m.taskOffsets.get(k), ends.get(t), lag)) out.add(`${m.memberId}\u0001${t}`);
    return out;
  }

  /** Every existing topic of the topology (sources, repartition and changelog topics), by name. */
  private partitionMetadataOf(g: StreamsGroup): StreamsGroupPartitionMetadataValue {
    const names = new Set<string>();
    const all = [...this.topics.names()];
    for (const s of g.topology!.subtopologies) {
      for (const t of s.sourceTopics) names.add(t);
      for (const r of s.sourceTopicRegex) {
        const re = compileRegex(r)!; // validated when the topology was accepted
        for (const n of all) if (re.matches(n) && !n.startsWith("__")) names.add(n);
      }
      for (const t of s.repartitionSourceTopics) names.add(t.name);
      for (const t of s.stateChangelogTopics) names.add(t.name);
    }
    const topics = [];
    for (const name of [...names].sort(cmp)) {
      const d = this.topics.describe(name);
      if (d !== undefined)
        topics.push({ topicId: d.id, topicName: name, numPartitions: d.partitions, partitionMetadata: [] });
    }
    return { topics };
  }

  private computeTargetAssignment(g: StreamsGroup, resolved: ResolvedTopology, records: StreamsRecord[]): void {
    const members = [...g.members.values()].sort((a, b) => cmp(a.memberId, b.memberId));
    let target: Map<string, TasksTuple>;
    if (resolved.subtopologies === null) {
      target = new Map(members.map((m) => [m.memberId, EMPTY_TASKS]));
    } else {
      const { tasks, stateful } = tasksOf(resolved.subtopologies);
      target = assignTasks({
        tasks,
        statefulSubtopologies: stateful,
        members: members.map((m) => ({
          memberId: m.memberId,
          processId: m.processId,
          previous: g.targetAssignment.get(m.memberId) ?? EMPTY_TASKS,
          taskOffsets: m.taskOffsets,
          taskEndOffsets: m.taskEndOffsets,
        })),
        numStandbyReplicas: this.config["group.streams.num.standby.replicas"],
        numWarmupReplicas: this.config["group.streams.num.warmup.replicas"],
        acceptableRecoveryLag: BigInt(this.config["group.streams.acceptable.recovery.lag"]),
      });
    }
    for (const m of members) {
      const next = target.get(m.memberId) ?? EMPTY_TASKS;
      const prev = g.targetAssignment.get(m.memberId);
      if (prev === undefined || !sameTuple(prev, next))
        records.push({ recordType: 21, key: { groupId: g.groupId, memberId: m.memberId }, value: tupleToWire(next) });
      g.targetAssignment.set(m.memberId, next);
    }
    g.assignmentEpoch = g.groupEpoch;
    records.push({ recordType: 20, key: { groupId: g.groupId }, value: { assignmentEpoch: g.assignmentEpoch } });
  }

  /** Where each task is now, in the other members' current assignments and pending revocations. */
  private ownersExcept(g: StreamsGroup, memberId: string): CurrentOwners {
    const active = new Map<string, string>();
    const standby = new Map<string, Set<string>>();
    const warmup = new Map<string, Set<string>>();
    const add = (map: Map<string, Set<string>>, t: string, p: string) => {
      let s = map.get(t);
      if (s === undefined) map.set(t, (s = new Set()));
      s.add(p);
    };
    for (const m of g.members.values()) {
      if (m.memberId === memberId) continue;
      for (const tuple of [m.assigned, m.pendingRevocation]) {
        for (const t of tuple.active) active.set(t, m.processId);
        for (const t of tuple.standby) add(standby, t, m.processId);
        for (const t of tuple.warmup) add(warmup, t, m.processId);
      }
    }
    const none: ReadonlySet<string> = new Set();
    return {
      activeProcess: (t) => active.get(t),
      standbyProcesses: (t) => standby.get(t) ?? none,
      warmupProcesses: (t) => warmup.get(t) ?? none,
    };
  }

  private statusesOf(g: StreamsGroup, m: StreamsMember, resolved: ResolvedTopology): Status[] {
    const out: Status[] = [];
    if (g.topology !== null && m.topologyEpoch < g.topology.epoch)
      out.push({
        statusCode: STATUS.STALE_TOPOLOGY,
        statusDetail: `The member's topology epoch ${m.topologyEpoch} is older than the group's ${g.topology.epoch}.`,
      });
    out.push(...resolved.statuses);
    if (g.shutdownRequested)
      out.push({
        statusCode: STATUS.SHUTDOWN_APPLICATION,
        statusDetail: "A member requested the shutdown of the application.",
      });
    return out.sort((a, b) => a.statusCode - b.statusCode);
  }

  /** IQ: each member with an endpoint, its current active and standby tasks' input partitions. */
  private endpointsOf(g: StreamsGroup, resolved: ResolvedTopology): EndpointToPartitions[] {
    if (resolved.subtopologies === null) return [];
    const byEndpoint = new Map<string, { endpoint: Endpoint; active: Set<string>; standby: Set<string> }>();
    for (const m of [...g.members.values()].sort((a, b) => cmp(a.memberId, b.memberId))) {
      if (m.userEndpoint === null) continue;
      const key = `${m.userEndpoint.host}:${m.userEndpoint.port}`;
      let e = byEndpoint.get(key);
      if (e === undefined)
        byEndpoint.set(key, (e = { endpoint: m.userEndpoint, active: new Set(), standby: new Set() }));
      for (const t of m.assigned.active) e.active.add(t);
      for (const t of m.assigned.standby) e.standby.add(t);
    }
    const parts = (topic: string) => resolved.inputTopics.get(topic)?.partitions ?? 0;
    return [...byEndpoint.keys()].sort(cmp).map((k) => {
      const e = byEndpoint.get(k)!;
      return {
        userEndpoint: { ...e.endpoint },
        activePartitions: partitionsOfTasks(e.active, resolved.subtopologies!, parts),
        standbyPartitions: partitionsOfTasks(e.standby, resolved.subtopologies!, parts),
      };
    });
  }

  private response(
    g: StreamsGroup,
    m: StreamsMember,
    resolved: ResolvedTopology,
    full: boolean,
  ): StreamsGroupHeartbeatResponse {
    const assignment = tupleToWire(m.assigned);
    const assignmentJson = json(assignment);
    const sendAssignment = full || m.sent.assignment !== assignmentJson;
    m.sent.assignment = assignmentJson;
    const status = this.statusesOf(g, m, resolved);
    const statusJson = json(status);
    const sendStatus = m.sent.status !== statusJson && !(m.sent.status === null && status.length === 0 && !full);
    m.sent.status = statusJson;
    const endpoints = this.endpointsOf(g, resolved);
    const endpointsJson = json(endpoints);
    const sendEndpoints = m.sent.endpoints !== endpointsJson;
    m.sent.endpoints = endpointsJson;
    return StreamsGroupHeartbeatResponse.create({
      memberId: m.memberId,
      memberEpoch: m.memberEpoch,
      currentAssignmentEpoch: g.assignmentEpoch,
      heartbeatIntervalMs: this.config["group.streams.heartbeat.interval.ms"],
      acceptableRecoveryLag: this.config["group.streams.acceptable.recovery.lag"],
      taskOffsetIntervalMs: this.config["group.streams.task.offset.interval.ms"],
      status: sendStatus ? status : null,
      activeTasks: sendAssignment ? assignment.activeTasks : null,
      standbyTasks: sendAssignment ? assignment.standbyTasks : null,
      warmupTasks: sendAssignment ? assignment.warmupTasks : null,
      partitionsByUserEndpoint: sendEndpoints ? endpoints : null,
    });
  }

  private memberMetadataRecord(g: StreamsGroup, m: StreamsMember): StreamsRecord {
    return {
      recordType: 19,
      key: { groupId: g.groupId, memberId: m.memberId },
      value: {
        instanceId: m.instanceId,
        rackId: m.rackId,
        clientId: m.clientId,
        clientHost: m.clientHost,
        rebalanceTimeoutMs: m.rebalanceTimeoutMs,
        // The seed's value has a TopologyId string where Kafka's has TopologyEpoch: the epoch in decimal.
        topologyId: String(m.topologyEpoch),
        processId: m.processId,
        // The seed's UserEndpoint is not nullable: no endpoint is written as host "" and port 0.
        userEndpoint: m.userEndpoint === null ? { host: "", port: 0 } : { ...m.userEndpoint },
        clientTags: m.clientTags.map((t) => ({ ...t })),
      },
    };
  }

  private currentAssignmentRecord(g: StreamsGroup, m: StreamsMember): StreamsRecord {
    const a = tupleToWire(m.assigned);
    const p = tupleToWire(m.pendingRevocation);
    return {
      recordType: 22,
      key: { groupId: g.groupId, memberId: m.memberId },
      value: {
        memberEpoch: m.memberEpoch,
        previousMemberEpoch: m.previousMemberEpoch,
        state: m.state,
        ...a,
        activeTasksPendingRevocation: p.activeTasks,
        standbyTasksPendingRevocation: p.standbyTasks,
        warmupTasksPendingRevocation: p.warmupTasks,
      },
    };
  }

  // ---------------------------------------------------------------- describe

  /** Handles one StreamsGroupDescribe request. */
  describe(req: StreamsGroupDescribeRequest): StreamsGroupDescribeResponse {
    const groups: DescribedGroup[] = req.groupIds.map((groupId) => {
      const g = this.groups.get(groupId);
      const base = {
        groupId,
        authorizedOperations: req.includeAuthorizedOperations
          ? GROUP_AUTHORIZED_OPERATIONS
          : AUTHORIZED_OPERATIONS_OMITTED,
      };
      if (groupId === "")
        return {
          ...base,
          errorCode: errorCode("INVALID_GROUP_ID"),
          errorMessage: "GroupId can't be empty.",
          groupState: "",
          groupEpoch: -1,
          assignmentEpoch: -1,
          topology: null,
          members: [],
        };
      if (g === undefined)
        return {
          ...base,
          errorCode: errorCode("GROUP_ID_NOT_FOUND"),
          errorMessage: `Group ${groupId} not found.`,
          groupState: "",
          groupEpoch: -1,
          assignmentEpoch: -1,
          topology: null,
          members: [],
        };
      const resolved = g.topology === null ? null : this.resolve(g);
      return {
        ...base,
        errorCode: 0,
        errorMessage: null,
        groupState: this.groupState(g),
        groupEpoch: g.groupEpoch,
        assignmentEpoch: g.assignmentEpoch,
        topology:
          g.topology === null
            ? null
            : {
                epoch: g.topology.epoch,
                subtopologies:
                  resolved!.subtopologies?.map((s) => ({
                    subtopologyId: s.subtopologyId,
                    sourceTopics: [...s.sourceTopics],
                    repartitionSinkTopics: [...s.repartitionSinkTopics],
                    stateChangelogTopics: s.stateChangelogTopics.map((t) => ({ ...t })),
                    repartitionSourceTopics: s.repartitionSourceTopics.map((t) => ({ ...t })),
                  })) ?? null,
              },
        members: [...g.members.values()]
          .sort((a, b) => cmp(a.memberId, b.memberId))
          .map((m) => ({
            memberId: m.memberId,
            memberEpoch: m.memberEpoch,
            currentAssignmentEpoch: m.memberEpoch === STATIC_LEAVE_EPOCH ? m.previousMemberEpoch : m.memberEpoch,
            instanceId: m.instanceId,
            rackId: m.rackId,
            clientId: m.clientId,
            clientHost: m.clientHost,
            topologyEpoch: m.topologyEpoch,
            processId: m.processId,
            userEndpoint: m.userEndpoint === null ? null : { ...m.userEndpoint },
            clientTags: m.clientTags.map((t) => ({ ...t })),
            taskOffsets: offsetsToWire(m.taskOffsets),
            taskEndOffsets: offsetsToWire(m.taskEndOffsets),
            assignment: tupleToWire(m.assigned),
            targetAssignment: tupleToWire(g.targetAssignment.get(m.memberId) ?? EMPTY_TASKS),
            isClassic: false,
          })),
      };
    });
    return StreamsGroupDescribeResponse.create({ groups });
  }

  // ---------------------------------------------------------------- replay

  /**
   * Applies one record read back from `__consumer_offsets` (a restart replays them all in
   * order). Members get a fresh session; offsets and what was last sent are not in the records.
   */
  replay(record: StreamsRecord): void {
    const groupId = record.key.groupId;
    let g = this.groups.get(groupId);
    if (g === undefined) {
      if (record.value === null) return;
      g = {
        groupId,
        groupEpoch: 0,
        assignmentEpoch: 0,
        topology: null,
        partitionMetadata: { topics: [] },
        members: new Map(),
        targetAssignment: new Map(),
        shutdownRequested: false,
      };
      this.groups.set(groupId, g);
    }
    const now = this.clock();
    const memberOf = (memberId: string): StreamsMember => {
      let m = g!.members.get(memberId);
      if (m === undefined) {
        m = {
          memberId,
          instanceId: null,
          rackId: null,
          clientId: "",
          clientHost: "",
          rebalanceTimeoutMs: -1,
          topologyEpoch: 0,
          processId: "",
          userEndpoint: null,
          clientTags: [],
          memberEpoch: 0,
          previousMemberEpoch: -1,
          state: MEMBER_STATE.STABLE,
          assigned: EMPTY_TASKS,
          pendingRevocation: EMPTY_TASKS,
          taskOffsets: new Map(),
          taskEndOffsets: new Map(),
          sessionDeadline: now + this.config["group.streams.session.timeout.ms"],
          revocationDeadline: null,
          sent: { assignment: null, status: null, endpoints: null },
        };
        g!.members.set(memberId, m);
      }
      return m;
    };
    switch (record.recordType) {
      case 17:
        if (record.value === null) this.groups.delete(groupId);
        else g.groupEpoch = record.value.epoch;
        return;
      case 18:
        g.partitionMetadata = record.value ?? { topics: [] };
        return;
      case 19: {
        if (record.value === null) {
          g.members.delete(record.key.memberId);
          return;
        }
        const v = record.value;
        const m = memberOf(record.key.memberId);
        m.instanceId = v.instanceId;
        m.rackId = v.rackId;
        m.clientId = v.clientId;
        m.clientHost = v.clientHost;
        m.rebalanceTimeoutMs = v.rebalanceTimeoutMs;
        m.topologyEpoch = Number(v.topologyId);
        m.processId = v.processId;
        m.userEndpoint = v.userEndpoint.host === "" ? null : { ...v.userEndpoint };
        m.clientTags = v.clientTags.map((t) => ({ ...t }));
        return;
      }
      case 20:
        g.assignmentEpoch = record.value?.assignmentEpoch ?? 0;
        return;
      case 21:
        if (record.value === null) g.targetAssignment.delete(record.key.memberId);
        else g.targetAssignment.set(record.key.memberId, tupleFromWire(record.value));
        return;
      case 22: {
        if (record.value === null) return; // the member's metadata tombstone removes it
        const v = record.value;
        const m = memberOf(record.key.memberId);
        m.memberEpoch = v.memberEpoch;
        m.previousMemberEpoch = v.previousMemberEpoch;
        m.state = v.state as MemberStateCode;
        m.assigned = tupleFromWire(v);
        m.pendingRevocation = tupleFromWire({
          activeTasks: v.activeTasksPendingRevocation,
          standbyTasks: v.standbyTasksPendingRevocation,
          warmupTasks: v.warmupTasksPendingRevocation,
        });
        m.revocationDeadline =
          m.state === MEMBER_STATE.UNREVOKED_TASKS ? now + Math.max(m.rebalanceTimeoutMs, 0) : null;
        return;
      }
      case 23:
        g.topology = record.value === null ? null : structuredClone(record.value);
        return;
    }
  }

  /** The persisted part of every group (what replaying the records must rebuild), as plain data. */
  snapshot(): unknown {
    return this.groupIds().map((id) => {
      const g = this.groups.get(id)!;
      return {
        groupId: id,
        groupEpoch: g.groupEpoch,
        assignmentEpoch: g.assignmentEpoch,
        topology: g.topology === null ? null : topologyRecordValue(g.topology),
        partitionMetadata: g.partitionMetadata,
        members: [...g.members.values()]
          .sort((a, b) => cmp(a.memberId, b.memberId))
          .map((m) => ({
            memberId: m.memberId,
            instanceId: m.instanceId,
            rackId: m.rackId,
            clientId: m.clientId,
            clientHost: m.clientHost,
            rebalanceTimeoutMs: m.rebalanceTimeoutMs,
            topologyEpoch: m.topologyEpoch,
            processId: m.processId,
            userEndpoint: m.userEndpoint,
            clientTags: m.clientTags,
            memberEpoch: m.memberEpoch,
            previousMemberEpoch: m.previousMemberEpoch,
            state: m.state,
            assigned: tupleToWire(m.assigned),
            pendingRevocation: tupleToWire(m.pendingRevocation),
          })),
        targetAssignment: [...g.targetAssignment.keys()]
          .sort(cmp)
          .map((id) => [id, tupleToWire(g.targetAssignment.get(id)!)]),
      };
    });
  }
}

export { isEmptyTuple, toTaskIds };
