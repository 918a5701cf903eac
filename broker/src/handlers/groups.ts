/**
 * Group APIs: classic groups (JoinGroup, SyncGroup, Heartbeat, LeaveGroup), KIP-848 consumer
 * groups (ConsumerGroupHeartbeat) and committed offsets (OffsetCommit, OffsetFetch). A group's
 * requests are answered by its coordinator only (see coordinator.ts); another node answers
 * NOT_COORDINATOR, as Kafka does, and the client looks the coordinator up again.
 */

import type { Init } from "../../../src/runtime/index.js";
import type { Member } from "../../kafka/ConsumerGroupDescribeResponse.js";
import type { DescribedGroupMember } from "../../kafka/DescribeGroupsResponse.js";
import type { Cluster } from "../cluster.js";
import { errorCode } from "../errors.js";
import type { RequestContext } from "../types.js";
import { COORDINATOR_TYPES, isCoordinator } from "./coordinator.js";

const NONE = 0;
/** Kafka's "authorized operations not requested" marker (Integer.MIN_VALUE). */
const NO_AUTHORIZED_OPERATIONS = -2147483648;
/** READ, DELETE, DESCRIBE (Kafka's AclOperation codes 3, 6, 8) as a bit set. */
const GROUP_OPERATIONS = (1 << 3) | (1 << 6) | (1 << 8);

/** NONE when `ctx.node` coordinates `groupId`, else NOT_COORDINATOR. */
export function coordinatorError(ctx: RequestContext, groupId: string): number {
  return isCoordinator(ctx.cluster, ctx.node, groupId, COORDINATOR_TYPES.GROUP) ? NONE : errorCode("NOT_COORDINATOR");
}

export function registerGroupHandlers(cluster: Cluster): void {
  const h = cluster.handlers;
  const groups = cluster.groups;

  h.register(11, async (req, ctx) => {
    const { apiVersion } = ctx;
    const reply = (r: {
      errorCode: number;
      generationId?: number;
      protocolType?: string | null;
      protocolName?: string | null;
      leader?: string;
      memberId?: string;
      members?: { memberId: string; groupInstanceId: string | null; metadata: Uint8Array }[];
      skipAssignment?: boolean;
    }) => ({
      throttleTimeMs: 0,
      errorCode: r.errorCode,
      generationId: r.generationId ?? -1,
      protocolType: r.protocolType ?? null,
      // Not nullable before v7.
      protocolName: r.protocolName ?? (apiVersion >= 7 ? null : ""),
      leader: r.leader ?? "",
      skipAssignment: r.skipAssignment ?? false,
      memberId: r.memberId ?? req.memberId,
      members: r.members ?? [],
    });
    const notCoordinator = coordinatorError(ctx, req.groupId);
    if (notCoordinator !== NONE) return reply({ errorCode: notCoordinator });
    if (req.sessionTimeoutMs < 1000 || req.sessionTimeoutMs > 1_800_000) {
      return reply({ errorCode: errorCode("INVALID_SESSION_TIMEOUT") });
    }
    const group = groups.classicGroup(req.groupId);
    if (typeof group === "string") return reply({ errorCode: errorCode(group) });
    return reply(await group.join(req, apiVersion, ctx.header.clientId ?? "", ctx.connection.remoteAddress));
  });

  h.register(14, async (req, ctx) => {
    const notCoordinator = coordinatorError(ctx, req.groupId);
    const group = notCoordinator === NONE ? groups.existingClassic(req.groupId) : undefined;
    const r =
      notCoordinator !== NONE
        ? { errorCode: notCoordinator, assignment: new Uint8Array(0) }
        : group === undefined
          ? { errorCode: errorCode("UNKNOWN_MEMBER_ID"), assignment: new Uint8Array(0) }
          : await group.sync(req);
    return {
      throttleTimeMs: 0,
      errorCode: r.errorCode,
      protocolType: group?.protocolType ?? null,
      protocolName: group?.protocolName ?? null,
      assignment: r.assignment,
    };
  });

  h.register(12, (req, ctx) => {
    const notCoordinator = coordinatorError(ctx, req.groupId);
    return {
      throttleTimeMs: 0,
      errorCode:
        notCoordinator !== NONE
          ? notCoordinator
          : (groups.existingClassic(req.groupId)?.heartbeat(req) ?? errorCode("UNKNOWN_MEMBER_ID")),
    };
  });

  h.register(13, (req, ctx) => {
    const notCoordinator = coordinatorError(ctx, req.groupId);
    if (notCoordinator !== NONE) return { throttleTimeMs: 0, errorCode: notCoordinator };
    const group = groups.existingClassic(req.groupId);
    const leave = (memberId: string, groupInstanceId: string | null = null) =>
      group?.leave(memberId, groupInstanceId) ?? errorCode("UNKNOWN_MEMBER_ID");
    if (ctx.apiVersion < 3) return { throttleTimeMs: 0, errorCode: leave(req.memberId) };
    return {
      throttleTimeMs: 0,
      errorCode: NONE,
      members: req.members.map((m) => ({
        memberId: m.memberId,
        groupInstanceId: m.groupInstanceId,
        errorCode: leave(m.memberId, m.groupInstanceId),
      })),
    };
  });

  h.register(8, (req, ctx) => {
    const notCoordinator = coordinatorError(ctx, req.groupId);
    const check =
      notCoordinator !== NONE
        ? notCoordinator
        : groups.checkCommit(req.groupId, req.memberId, req.generationIdOrMemberEpoch);
    return {
      throttleTimeMs: 0,
      topics: req.topics.map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p) => {
          let code = check;
          if (code === NONE && cluster.partition(t.name, p.partitionIndex) === undefined) {
            code = errorCode("UNKNOWN_TOPIC_OR_PARTITION");
          } else if (code === NONE && (p.committedMetadata?.length ?? 0) > cluster.config.maxOffsetMetadataBytes) {
            code = errorCode("OFFSET_METADATA_TOO_LARGE");
          }
          if (code === NONE) {
            groups.commit(req.groupId, t.name, p.partitionIndex, {
              offset: p.committedOffset,
              leaderEpoch: p.committedLeaderEpoch,
              metadata: p.committedMetadata,
            });
          }
          return { partitionIndex: p.partitionIndex, errorCode: code };
        }),
      })),
    };
  });

  h.register(9, (req, ctx) => {
    // v7+: requireStable asks for UNSTABLE_OFFSET_COMMIT where a transaction has offsets pending.
    const stable = ctx.apiVersion >= 7 && req.requireStable;
    const fetchGroup = (groupId: string, wanted: { name: string; partitionIndexes: number[] }[] | null) => {
      const asked: [string, number[]][] =
        wanted === null ? [...groups.committedTopics(groupId)] : wanted.map((t) => [t.name, t.partitionIndexes]);
      return asked.map(([name, partitions]) => ({
        name,
        partitions: partitions.map((partitionIndex) => {
          const c = groups.committed(groupId, name, partitionIndex);
          return {
            partitionIndex,
            committedOffset: c?.offset ?? -1n,
            committedLeaderEpoch: c?.leaderEpoch ?? -1,
            // Kafka's OffsetFetchResponse.NO_METADATA.
            metadata: c?.metadata ?? "",
            errorCode:
              stable && cluster.transactions.hasPendingOffset(groupId, name, partitionIndex)
                ? errorCode("UNSTABLE_OFFSET_COMMIT")
                : NONE,
          };
        }),
      }));
    };
    if (ctx.apiVersion >= 8) {
      return {
        throttleTimeMs: 0,
        groups: req.groups.map((g) => {
          const notCoordinator = coordinatorError(ctx, g.groupId);
          return {
            groupId: g.groupId,
            topics: notCoordinator === NONE ? fetchGroup(g.groupId, g.topics) : [],
            errorCode: notCoordinator,
          };
        }),
      };
    }
    const notCoordinator = coordinatorError(ctx, req.groupId);
    if (notCoordinator !== NONE) return { throttleTimeMs: 0, topics: [], errorCode: notCoordinator };
    return { throttleTimeMs: 0, topics: fetchGroup(req.groupId, req.topics), errorCode: NONE };
  });

  h.register(68, (req, ctx) => {
    const fail = (code: number) => ({
      throttleTimeMs: 0,
      errorCode: code,
      errorMessage: null,
      memberId: req.memberId,
      memberEpoch: -1,
      heartbeatIntervalMs: 0,
      assignment: null,
    });
    const notCoordinator = coordinatorError(ctx, req.groupId);
    if (notCoordinator !== NONE) return fail(notCoordinator);
    const group = groups.consumerGroup(req.groupId);
    if (typeof group === "string") return fail(errorCode(group));
    const client = { clientId: ctx.header.clientId ?? "", clientHost: ctx.connection.remoteAddress };
    return { throttleTimeMs: 0, ...group.heartbeat(req, ctx.apiVersion, client) };
  });

  h.register(15, (req, ctx) => ({
    throttleTimeMs: 0,
    groups: req.groups.map((groupId) => {
      const reply = {
        errorCode: NONE,
        errorMessage: null as string | null,
        groupId,
        groupState: "Dead",
        protocolType: "",
        protocolData: "",
        members: [] as Init<DescribedGroupMember>[],
        authorizedOperations: NO_AUTHORIZED_OPERATIONS,
      };
      const notCoordinator = coordinatorError(ctx, groupId);
      if (notCoordinator !== NONE) return { ...reply, errorCode: notCoordinator };
      const found = groups.find(groupId);
      // Kafka 4: a consumer group described by DescribeGroups is GROUP_ID_NOT_FOUND (v6+ says why).
      if (found?.kind === "consumer") {
        return {
          ...reply,
          errorCode: ctx.apiVersion >= 6 ? errorCode("GROUP_ID_NOT_FOUND") : NONE,
          errorMessage: ctx.apiVersion >= 6 ? `Group ${groupId} is not a classic group.` : null,
        };
      }
      if (found === undefined) {
        return ctx.apiVersion >= 6
          ? { ...reply, errorCode: errorCode("GROUP_ID_NOT_FOUND"), errorMessage: `Group ${groupId} not found.` }
          : reply;
      }
      if (found.kind === "offsets") return { ...reply, groupState: "Empty" };
      const g = found.group;
      return {
        ...reply,
        groupState: g.state,
        protocolType: g.protocolType ?? "",
        protocolData: g.protocolName ?? "",
        members: g.describeMembers(),
        authorizedOperations: req.includeAuthorizedOperations ? GROUP_OPERATIONS : NO_AUTHORIZED_OPERATIONS,
      };
    }),
  }));

  // Every node answers for the groups it coordinates, as in Kafka (admin clients ask each node).
  h.register(16, (req, ctx) => {
    const states = req.statesFilter.map((s) => s.toLowerCase());
    const types = req.typesFilter.map((t) => t.toLowerCase());
    return {
      throttleTimeMs: 0,
      errorCode: NONE,
      groups: [...groups.list(), ...[...cluster.groupListers].flatMap((list) => list())]
        .filter((g) => coordinatorError(ctx, g.groupId) === NONE)
        .filter((g) => states.length === 0 || states.includes(g.groupState.toLowerCase()))
        .filter((g) => types.length === 0 || types.includes(g.groupType)),
    };
  });

  h.register(42, (req, ctx) => ({
    throttleTimeMs: 0,
    results: req.groupsNames.map((groupId) => {
      const notCoordinator = coordinatorError(ctx, groupId);
      return { groupId, errorCode: notCoordinator !== NONE ? notCoordinator : groups.delete(groupId) };
    }),
  }));

  h.register(47, (req, ctx) => {
    const fail = (code: number) => ({ errorCode: code, throttleTimeMs: 0, topics: [] });
    const notCoordinator = coordinatorError(ctx, req.groupId);
    if (notCoordinator !== NONE) return fail(notCoordinator);
    const found = groups.find(req.groupId);
    if (found === undefined) return fail(errorCode("GROUP_ID_NOT_FOUND"));
    const subscribed = (topic: string) =>
      found.kind !== "offsets" && found.group.members.size > 0 && found.group.isSubscribed(topic);
    return {
      errorCode: NONE,
      throttleTimeMs: 0,
      topics: req.topics.map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p) => {
          if (subscribed(t.name))
            return { partitionIndex: p.partitionIndex, errorCode: errorCode("GROUP_SUBSCRIBED_TO_TOPIC") };
          if (cluster.partition(t.name, p.partitionIndex) === undefined) {
            return { partitionIndex: p.partitionIndex, errorCode: errorCode("UNKNOWN_TOPIC_OR_PARTITION") };
          }
          groups.deleteOffset(req.groupId, t.name, p.partitionIndex);
          return { partitionIndex: p.partitionIndex, errorCode: NONE };
        }),
      })),
    };
  });

  h.register(69, (req, ctx) => ({
    throttleTimeMs: 0,
    groups: req.groupIds.map((groupId) => {
      const reply = {
        errorCode: NONE,
        errorMessage: null as string | null,
        groupId,
        groupState: "Dead",
        groupEpoch: -1,
        assignmentEpoch: -1,
        assignorName: "",
        members: [] as Init<Member>[],
        authorizedOperations: NO_AUTHORIZED_OPERATIONS,
      };
      const notCoordinator = coordinatorError(ctx, groupId);
      if (notCoordinator !== NONE) return { ...reply, errorCode: notCoordinator };
      const found = groups.find(groupId);
      if (found?.kind !== "consumer") {
        return {
          ...reply,
          errorCode: errorCode("GROUP_ID_NOT_FOUND"),
          errorMessage:
            found === undefined ? `Group ${groupId} not found.` : `Group ${groupId} is not a consumer group.`,
        };
      }
      const g = found.group;
      return {
        ...reply,
        groupState: g.state,
        groupEpoch: g.groupEpoch,
        assignmentEpoch: g.groupEpoch,
        assignorName: g.assignor(),
        members: g.describeMembers((id) => cluster.topicsById.get(id)?.name ?? ""),
        authorizedOperations: req.includeAuthorizedOperations ? GROUP_OPERATIONS : NO_AUTHORIZED_OPERATIONS,
      };
    }),
  }));
}
