/**
 * The group coordinator of the example broker, in memory:
 * - classic groups (JoinGroup/SyncGroup/Heartbeat/LeaveGroup): Kafka's state machine (Empty,
 *   PreparingRebalance, CompletingRebalance, Stable), KIP-394's member id round trip, session
 *   timeouts. The embedded consumer protocol stays opaque, as in Kafka: the leader assigns.
 * - consumer groups (ConsumerGroupHeartbeat, KIP-848): the broker assigns, round-robin over the
 *   partitions of the subscribed topics, and hands a partition to its new owner only once the
 *   previous owner no longer holds it (KIP-848's incremental reconciliation, simplified).
 * - committed offsets of both.
 * Every timer is unref'd and cleared by {@link GroupCoordinator.close}.
 */

import { randomUUID } from "node:crypto";
import { errorCode } from "./errors.js";
import { compileRegex, RegexError, type TopicRegex } from "./regex.js";

/** What the coordinator needs to know about topics. */
export interface TopicView {
  /** Partition count of a topic, or undefined when it does not exist. */
  partitions(name: string): number | undefined;
  /** Topic id (Kafka's base64 uuid string) of a topic. */
  topicId(name: string): string | undefined;
  /** Every topic name. */
  names(): string[];
}

export interface GroupOptions {
  /** Kafka's `group.initial.rebalance.delay.ms`: how long the first rebalance of an empty group waits for more members. */
  readonly initialRebalanceDelayMs: number;
  /** Kafka's `group.consumer.heartbeat.interval.ms` (KIP-848). */
  readonly consumerHeartbeatIntervalMs: number;
  /** Kafka's `group.consumer.session.timeout.ms` (KIP-848). */
  readonly consumerSessionTimeoutMs: number;
  /** The most groups (classic and consumer together) and members per group: memory stays bounded. */
  readonly maxGroups: number;
  readonly maxMembers: number;
}

type Timer = ReturnType<typeof setTimeout>;

function timer(ms: number, f: () => void): Timer {
  const t = setTimeout(f, ms);
  t.unref();
  return t;
}

/** A JoinGroup reply's fields (JoinGroupResponse). */
export interface JoinResult {
  errorCode: number;
  generationId: number;
  protocolType: string | null;
  protocolName: string | null;
  leader: string;
  memberId: string;
  members: { memberId: string; groupInstanceId: string | null; metadata: Uint8Array }[];
  /** JoinGroup v9+: the leader need not compute an assignment (a static leader rejoined a Stable group). */
  skipAssignment?: boolean;
}

interface ClassicMember {
  readonly memberId: string;
  readonly groupInstanceId: string | null;
  clientId: string;
  /** As Kafka reports it: `/` and the address. */
  clientHost: string;
  sessionTimeoutMs: number;
  rebalanceTimeoutMs: number;
  protocols: { name: string; metadata: Uint8Array }[];
  assignment: Uint8Array;
  joining: ((r: JoinResult) => void) | null;
  syncing: ((r: { errorCode: number; assignment: Uint8Array }) => void) | null;
  session: Timer | null;
}

type ClassicState = "Empty" | "PreparingRebalance" | "CompletingRebalance" | "Stable";

class ClassicGroup {
  state: ClassicState = "Empty";
  generationId = 0;
  protocolType: string | null = null;
  protocolName: string | null = null;
  leader: string | null = null;
  readonly members = new Map<string, ClassicMember>();
  /** Member ids handed out by MEMBER_ID_REQUIRED (KIP-394), not joined yet. */
  readonly pending = new Set<string>();
  /** Static members (KIP-345): the current member id of each group instance id. */
  readonly staticMembers = new Map<string, string>();
  private rebalance: Timer | null = null;
  private initialDelayOver = true;

  constructor(
    readonly groupId: string,
    private readonly options: GroupOptions,
  ) {}

  join(
    req: {
      memberId: string;
      groupInstanceId: string | null;
      sessionTimeoutMs: number;
      rebalanceTimeoutMs: number;
      protocolType: string;
      protocols: { name: string; metadata: Uint8Array }[];
    },
    apiVersion: number,
    clientId: string,
    clientHost = "",
  ): Promise<JoinResult> {
    const fail = (code: string, memberId = req.memberId): Promise<JoinResult> =>
      Promise.resolve({
        errorCode: errorCode(code),
        generationId: -1,
        protocolType: null,
        protocolName: null,
        leader: "",
        memberId,
        members: [],
      });
    if (this.state !== "Empty" && this.protocolType !== req.protocolType) return fail("INCONSISTENT_GROUP_PROTOCOL");
    if (this.state !== "Empty" && !req.protocols.some((p) => this.everyMemberSupports(p.name, req.memberId))) {
      return fail("INCONSISTENT_GROUP_PROTOCOL");
    }
    // A copy of what is kept: the decoded metadata are views into the request frame, and a member
    // (a static one for good: KIP-345) would hold the whole frame, up to maxRequestBytes, for them.
    const protocols = req.protocols.map((p) => ({ name: p.name, metadata: p.metadata.slice() }));
    req = { ...req, protocols };
    let memberId = req.memberId;
    const instanceId = req.groupInstanceId;
    if (instanceId !== null) {
      // KIP-345: a static member is known by its instance id; a member id it does not hold is fenced.
      const current = this.staticMembers.get(instanceId);
      if (memberId !== "" && current !== undefined && current !== memberId) return fail("FENCED_INSTANCE_ID");
      if (memberId !== "" && current === undefined && !this.members.has(memberId)) return fail("UNKNOWN_MEMBER_ID");
      if (memberId === "" && current !== undefined) {
        const rejoined = this.replaceStatic(
          instanceId,
          current,
          `${instanceId}-${randomUUID()}`,
          req,
          clientId,
          clientHost,
        );
        if (rejoined !== null) return Promise.resolve(rejoined);
        memberId = this.staticMembers.get(instanceId)!;
      } else if (memberId === "") {
        if (this.members.size + this.pending.size >= this.options.maxMembers) return fail("GROUP_MAX_SIZE_REACHED");
        // No MEMBER_ID_REQUIRED round trip for a static member (KIP-394 is for dynamic ones).
        memberId = `${instanceId}-${randomUUID()}`;
        this.staticMembers.set(instanceId, memberId);
      }
    } else if (memberId === "") {
      if (this.members.size + this.pending.size >= this.options.maxMembers) return fail("GROUP_MAX_SIZE_REACHED");
      memberId = `${clientId}-${randomUUID()}`;
      // KIP-394: since v4 a new member first learns its id, then joins with it.
      if (apiVersion >= 4 && req.groupInstanceId === null) {
        this.pending.add(memberId);
        return fail("MEMBER_ID_REQUIRED", memberId);
      }
    } else if (!this.members.has(memberId) && !this.pending.has(memberId)) {
      return fail("UNKNOWN_MEMBER_ID");
    }
    this.pending.delete(memberId);
    let member = this.members.get(memberId);
    if (member === undefined) {
      member = {
        memberId,
        groupInstanceId: req.groupInstanceId,
        clientId,
        clientHost: `/${clientHost}`,
        sessionTimeoutMs: req.sessionTimeoutMs,
        rebalanceTimeoutMs: req.rebalanceTimeoutMs < 0 ? req.sessionTimeoutMs : req.rebalanceTimeoutMs,
        protocols: req.protocols,
        assignment: new Uint8Array(0),
        joining: null,
        syncing: null,
        session: null,
      };
      this.members.set(memberId, member);
    }
    member.protocols = req.protocols;
    member.sessionTimeoutMs = req.sessionTimeoutMs;
    this.protocolType = req.protocolType;
    const result = new Promise<JoinResult>((resolve) => (member.joining = resolve));
    this.prepareRebalance();
    this.maybeCompleteJoin();
    return result;
  }

  sync(req: {
    memberId: string;
    groupInstanceId?: string | null;
    generationId: number;
    assignments: { memberId: string; assignment: Uint8Array }[];
  }): Promise<{ errorCode: number; assignment: Uint8Array }> {
    const reply = (code: string, assignment: Uint8Array = new Uint8Array(0)) =>
      Promise.resolve({ errorCode: errorCode(code), assignment });
    if (this.fenced(req.groupInstanceId ?? null, req.memberId)) return reply("FENCED_INSTANCE_ID");
    const member = this.members.get(req.memberId);
    if (member === undefined) return reply("UNKNOWN_MEMBER_ID");
    if (req.generationId !== this.generationId) return reply("ILLEGAL_GENERATION");
    this.touch(member);
    if (this.state === "PreparingRebalance") return reply("REBALANCE_IN_PROGRESS");
    if (this.state === "Stable") return reply("NONE", member.assignment);
    const result = new Promise<{ errorCode: number; assignment: Uint8Array }>((resolve) => (member.syncing = resolve));
    if (req.memberId === this.leader) {
      for (const m of this.members.values()) {
        // A copy, as the protocol metadata in join: a view would keep the leader's whole SyncGroup frame.
        m.assignment = req.assignments.find((a) => a.memberId === m.memberId)?.assignment.slice() ?? new Uint8Array(0);
      }
      this.state = "Stable";
      for (const m of this.members.values()) {
        m.syncing?.({ errorCode: 0, assignment: m.assignment });
        m.syncing = null;
      }
    }
    return result;
  }

  heartbeat(req: { memberId: string; groupInstanceId?: string | null; generationId: number }): number {
    if (this.fenced(req.groupInstanceId ?? null, req.memberId)) return errorCode("FENCED_INSTANCE_ID");
    const member = this.members.get(req.memberId);
    if (member === undefined) return errorCode("UNKNOWN_MEMBER_ID");
    if (req.generationId !== this.generationId) return errorCode("ILLEGAL_GENERATION");
    this.touch(member);
    return errorCode(this.state === "PreparingRebalance" ? "REBALANCE_IN_PROGRESS" : "NONE");
  }

  /** LeaveGroup of a member, by member id or (v3+, KIP-345) by group instance id. */
  leave(memberId: string, groupInstanceId: string | null = null): number {
    if (groupInstanceId !== null) {
      const current = this.staticMembers.get(groupInstanceId);
      if (current === undefined) return errorCode("UNKNOWN_MEMBER_ID");
      if (memberId !== "" && memberId !== current) return errorCode("FENCED_INSTANCE_ID");
      memberId = current;
    }
    if (!this.members.has(memberId)) return errorCode("UNKNOWN_MEMBER_ID");
    this.remove(memberId);
    return 0;
  }

  /** True when `groupInstanceId` belongs to another member id than `memberId` (FENCED_INSTANCE_ID). */
  fenced(groupInstanceId: string | null, memberId: string): boolean {
    if (groupInstanceId === null) return false;
    const current = this.staticMembers.get(groupInstanceId);
    return current !== undefined && current !== memberId;
  }

  /**
   * A static member rejoining without its member id (a restart): it takes a new member id and
   * the old one is fenced. In a Stable group with the same protocols it keeps its assignment
   * and the group does not rebalance (Kafka's `replaceStaticMember`): the join is answered at
   * once. Otherwise null: the member joins a rebalance under its new id.
   */
  private replaceStatic(
    instanceId: string,
    oldId: string,
    newId: string,
    req: { sessionTimeoutMs: number; rebalanceTimeoutMs: number; protocols: { name: string; metadata: Uint8Array }[] },
    clientId: string,
    clientHost: string,
  ): JoinResult | null {
    const old = this.members.get(oldId);
    this.staticMembers.set(instanceId, newId);
    if (old === undefined) return null;
    if (old.session !== null) clearTimeout(old.session);
    this.members.delete(oldId);
    old.joining?.(this.errorJoin(oldId, "FENCED_INSTANCE_ID"));
    old.syncing?.({ errorCode: errorCode("FENCED_INSTANCE_ID"), assignment: new Uint8Array(0) });
    const member: ClassicMember = {
      ...old,
      memberId: newId,
      clientId,
      clientHost: `/${clientHost}`,
      sessionTimeoutMs: req.sessionTimeoutMs,
      rebalanceTimeoutMs: req.rebalanceTimeoutMs < 0 ? req.sessionTimeoutMs : req.rebalanceTimeoutMs,
      joining: null,
      syncing: null,
      session: null,
    };
    this.members.set(newId, member);
    if (this.leader === oldId) this.leader = newId;
    const sameProtocols =
      old.protocols.length === req.protocols.length && old.protocols.every((p, i) => p.name === req.protocols[i]!.name);
    member.protocols = req.protocols;
    if (this.state !== "Stable" || !sameProtocols) return null;
    this.touch(member);
    return {
      errorCode: 0,
      generationId: this.generationId,
      protocolType: this.protocolType,
      protocolName: this.protocolName,
      leader: this.leader ?? "",
      memberId: newId,
      // The leader learns the members but need not assign again (JoinGroup v9's skipAssignment).
      skipAssignment: this.leader === newId,
      members:
        this.leader === newId
          ? [...this.members.values()].map((x) => ({
              memberId: x.memberId,
              groupInstanceId: x.groupInstanceId,
              metadata: x.protocols.find((p) => p.name === this.protocolName)?.metadata ?? new Uint8Array(0),
            }))
          : [],
    };
  }

  /**
   * True when the chosen protocol's metadata of a member names `topic`: for protocol type
   * `consumer`, the ConsumerProtocolSubscription's topics (Kafka's `ClassicGroup.isSubscribedToTopic`).
   */
  isSubscribed(topic: string): boolean {
    if (this.protocolType !== "consumer" || this.protocolName === null) return false;
    for (const m of this.members.values()) {
      const metadata = m.protocols.find((p) => p.name === this.protocolName)?.metadata;
      if (metadata !== undefined && subscriptionTopics(metadata).includes(topic)) return true;
    }
    return false;
  }

  /** DescribeGroups' view of the members. */
  describeMembers() {
    return [...this.members.values()].map((m) => ({
      memberId: m.memberId,
      groupInstanceId: m.groupInstanceId,
      clientId: m.clientId,
      clientHost: m.clientHost,
      // Kafka sends the metadata of the chosen protocol, and assignments only once the group is Stable.
      memberMetadata: m.protocols.find((p) => p.name === this.protocolName)?.metadata ?? new Uint8Array(0),
      memberAssignment: this.state === "Stable" ? m.assignment : new Uint8Array(0),
    }));
  }

  /** The generation check of OffsetCommit (generation -1: a commit from outside the group). */
  checkCommit(memberId: string, generationId: number): number {
    if (generationId < 0) return this.members.size === 0 ? 0 : errorCode("ILLEGAL_GENERATION");
    if (!this.members.has(memberId)) return errorCode("UNKNOWN_MEMBER_ID");
    if (generationId !== this.generationId) return errorCode("ILLEGAL_GENERATION");
    // Kafka's ClassicGroup.validateOffsetCommit: only CompletingRebalance (the assignment not yet
    // handed out) refuses; while PreparingRebalance a member of the current generation may still
    // commit what it consumed, as consumers do when their partitions are revoked.
    if (this.state === "CompletingRebalance") return errorCode("REBALANCE_IN_PROGRESS");
    return 0;
  }

  close(): void {
    if (this.rebalance !== null) clearTimeout(this.rebalance);
    for (const m of this.members.values()) if (m.session !== null) clearTimeout(m.session);
  }

  private everyMemberSupports(protocol: string, except: string): boolean {
    for (const m of this.members.values()) {
      if (m.memberId !== except && !m.protocols.some((p) => p.name === protocol)) return false;
    }
    return true;
  }

  private touch(member: ClassicMember): void {
    if (member.session !== null) clearTimeout(member.session);
    member.session = timer(member.sessionTimeoutMs, () => {
      // A member waiting in JoinGroup is bounded by the rebalance timeout instead.
      if (member.joining === null) this.remove(member.memberId);
    });
  }

  private remove(memberId: string): void {
    const member = this.members.get(memberId);
    if (member === undefined) return;
    if (member.session !== null) clearTimeout(member.session);
    this.members.delete(memberId);
    if (member.groupInstanceId !== null && this.staticMembers.get(member.groupInstanceId) === memberId) {
      this.staticMembers.delete(member.groupInstanceId);
    }
    member.joining?.(this.errorJoin(memberId, "UNKNOWN_MEMBER_ID"));
    member.syncing?.({ errorCode: errorCode("UNKNOWN_MEMBER_ID"), assignment: new Uint8Array(0) });
    if (this.leader === memberId) this.leader = null;
    if (this.members.size === 0) {
      if (this.rebalance !== null) clearTimeout(this.rebalance);
      this.rebalance = null;
      this.state = "Empty";
      this.protocolName = null;
      return;
    }
    this.prepareRebalance();
    this.maybeCompleteJoin();
  }

  private errorJoin(memberId: string, code: string): JoinResult {
    return {
      errorCode: errorCode(code),
      generationId: -1,
      protocolType: null,
      protocolName: null,
      leader: "",
      memberId,
      members: [],
    };
  }

  private prepareRebalance(): void {
    if (this.state === "PreparingRebalance") return;
    // Members waiting for their assignment learn that it is void.
    for (const m of this.members.values()) {
      m.syncing?.({ errorCode: errorCode("REBALANCE_IN_PROGRESS"), assignment: new Uint8Array(0) });
      m.syncing = null;
    }
    const wasEmpty = this.state === "Empty";
    this.state = "PreparingRebalance";
    let wait = 0;
    for (const m of this.members.values()) wait = Math.max(wait, m.rebalanceTimeoutMs);
    if (wasEmpty) {
      this.initialDelayOver = false;
      wait = this.options.initialRebalanceDelayMs;
    }
    this.rebalance = timer(wait, () => {
      this.rebalance = null;
      this.initialDelayOver = true;
      // Members that did not rejoin within the rebalance timeout leave the group.
      for (const m of [...this.members.values()]) if (m.joining === null) this.members.delete(m.memberId);
      this.completeJoin();
    });
  }

  private maybeCompleteJoin(): void {
    if (this.state !== "PreparingRebalance" || !this.initialDelayOver) return;
    for (const m of this.members.values()) if (m.joining === null) return;
    if (this.rebalance !== null) clearTimeout(this.rebalance);
    this.rebalance = null;
    this.completeJoin();
  }

  private completeJoin(): void {
    if (this.members.size === 0) {
      this.state = "Empty";
      return;
    }
    this.generationId++;
    const members = [...this.members.values()];
    if (this.leader === null || !this.members.has(this.leader)) this.leader = members[0]!.memberId;
    const leader = this.members.get(this.leader)!;
    // The leader's most preferred protocol that every member supports.
    this.protocolName = leader.protocols.find((p) => this.everyMemberSupports(p.name, ""))?.name ?? null;
    this.state = "CompletingRebalance";
    for (const m of members) {
      const join = m.joining;
      m.joining = null;
      this.touch(m);
      join?.({
        errorCode: 0,
        generationId: this.generationId,
        protocolType: this.protocolType,
        protocolName: this.protocolName,
        leader: this.leader,
        memberId: m.memberId,
        members:
          m.memberId === this.leader
            ? members.map((x) => ({
                memberId: x.memberId,
                groupInstanceId: x.groupInstanceId,
                metadata: x.protocols.find((p) => p.name === this.protocolName)?.metadata ?? new Uint8Array(0),
              }))
            : [],
      });
    }
  }
}

/** A topic's partitions by topic id, as ConsumerGroupHeartbeat carries them. */
export type TopicPartitions = { topicId: string; partitions: number[] }[];

interface ConsumerMember {
  readonly memberId: string;
  memberEpoch: number;
  instanceId: string | null;
  rackId: string | null;
  clientId: string;
  clientHost: string;
  subscribedTopicNames: string[];
  subscribedTopicRegex: string | null;
  /** The assignor the member asked for (`uniform`, `range`), or null. */
  serverAssignor: string | null;
  /** `subscribedTopicRegex`, compiled (linear-time matching: see regex.ts). */
  regex: TopicRegex | null;
  /** What the member last reported owning (`TopicPartitions`), as "topicId:partition". */
  owned: Set<string>;
  /** The assignment last sent, as "topicId:partition". */
  sent: Set<string> | null;
  session: Timer | null;
}

/** What ConsumerGroupHeartbeat answers. */
export interface ConsumerHeartbeatResult {
  errorCode: number;
  errorMessage: string | null;
  memberId: string | null;
  memberEpoch: number;
  heartbeatIntervalMs: number;
  assignment: { topicPartitions: TopicPartitions } | null;
}

class ConsumerGroup {
  groupEpoch = 0;
  readonly members = new Map<string, ConsumerMember>();
  /** The round-robin target of the current group epoch, "topicId:partition" per member. */
  target = new Map<string, Set<string>>();
  private targetKey = "";

  constructor(
    readonly groupId: string,
    private readonly options: GroupOptions,
    private readonly topics: TopicView,
  ) {}

  heartbeat(
    req: {
      memberId: string;
      memberEpoch: number;
      subscribedTopicNames: string[] | null;
      subscribedTopicRegex?: string | null;
      topicPartitions: TopicPartitions | null;
      instanceId?: string | null;
      rackId?: string | null;
      serverAssignor?: string | null;
    },
    apiVersion: number,
    client: { clientId: string; clientHost: string } = { clientId: "", clientHost: "" },
  ): ConsumerHeartbeatResult {
    const reply = (code: string, memberId: string | null, memberEpoch: number, message: string | null = null) => ({
      errorCode: errorCode(code),
      errorMessage: message,
      memberId,
      memberEpoch,
      heartbeatIntervalMs: code === "NONE" ? this.options.consumerHeartbeatIntervalMs : 0,
      assignment: null,
    });
    // Leaving: -1, or -2 for a static member that will be back.
    if (req.memberEpoch < 0) {
      const member = this.members.get(req.memberId);
      if (member === undefined) return reply("UNKNOWN_MEMBER_ID", req.memberId, req.memberEpoch);
      this.remove(req.memberId);
      return reply("NONE", req.memberId, req.memberEpoch);
    }
    let member = this.members.get(req.memberId);
    if (req.memberEpoch === 0) {
      if (req.subscribedTopicNames === null && (req.subscribedTopicRegex ?? null) === null) {
        return reply("INVALID_REQUEST", req.memberId, 0, "a joining member must subscribe");
      }
      // v0: the coordinator names the member; v1 (KIP-1082): the member does.
      const memberId = req.memberId !== "" ? req.memberId : apiVersion === 0 ? randomUUID() : null;
      if (memberId === null) return reply("INVALID_REQUEST", null, 0, "MemberId can't be empty");
      if (member === undefined && this.members.size >= this.options.maxMembers) {
        return reply("GROUP_MAX_SIZE_REACHED", memberId, 0);
      }
      member = {
        memberId,
        memberEpoch: 0,
        instanceId: req.instanceId ?? null,
        rackId: req.rackId ?? null,
        clientId: client.clientId,
        clientHost: `/${client.clientHost}`,
        subscribedTopicNames: [],
        subscribedTopicRegex: null,
        serverAssignor: null,
        regex: null,
        owned: new Set(),
        sent: null,
        session: null,
      };
      this.members.set(memberId, member);
      this.groupEpoch++;
    } else if (member === undefined) {
      return reply("UNKNOWN_MEMBER_ID", req.memberId, req.memberEpoch);
    } else if (req.memberEpoch > member.memberEpoch) {
      return reply("FENCED_MEMBER_EPOCH", req.memberId, req.memberEpoch);
    }
    if (req.subscribedTopicNames !== null) {
      const names = [...new Set(req.subscribedTopicNames)].sort();
      if (names.join("\0") !== member.subscribedTopicNames.join("\0")) {
        member.subscribedTopicNames = names;
        this.groupEpoch++;
      }
    }
    const regex = req.subscribedTopicRegex ?? null;
    if (regex !== null && regex !== member.subscribedTopicRegex) {
      let compiled: TopicRegex | null = null;
      try {
        compiled = regex === "" ? null : compileRegex(regex);
      } catch (e) {
        if (!(e instanceof RegexError)) throw e;
        // A member that just joined with it is not kept.
        if (member.memberEpoch === 0 && member.sent === null) this.remove(member.memberId);
        return reply("INVALID_REGULAR_EXPRESSION", req.memberId, req.memberEpoch, e.message);
      }
      member.subscribedTopicRegex = regex === "" ? null : regex;
      member.regex = compiled;
      this.groupEpoch++;
    }
    const assignor = req.serverAssignor ?? null;
    if (assignor !== null && assignor !== member.serverAssignor) {
      if (assignor !== "uniform" && assignor !== "range") {
        if (member.memberEpoch === 0 && member.sent === null) this.remove(member.memberId);
        return reply(
          "UNSUPPORTED_ASSIGNOR",
          req.memberId,
          req.memberEpoch,
          `ServerAssignor ${assignor} is not supported. Supported assignors: uniform, range.`,
        );
      }
      member.serverAssignor = assignor;
      this.groupEpoch++;
    }
    if (req.topicPartitions !== null) member.owned = flatten(req.topicPartitions);
    this.touch(member);
    this.computeTarget();
    // The member's target, less what another member still holds (was sent or still reports).
    const held = new Set<string>();
    for (const other of this.members.values()) {
      if (other === member) continue;
      for (const tp of other.owned) held.add(tp);
      for (const tp of other.sent ?? []) held.add(tp);
    }
    const next = new Set([...(this.target.get(member.memberId) ?? [])].filter((tp) => !held.has(tp)));
    const changed = member.sent === null || !sameSet(next, member.sent) || req.memberEpoch !== this.groupEpoch;
    member.sent = next;
    member.memberEpoch = this.groupEpoch;
    return {
      ...reply("NONE", member.memberId, member.memberEpoch),
      assignment: changed ? { topicPartitions: unflatten(next) } : null,
    };
  }

  /**
   * The group's server-side assignor: the one most members name (`serverAssignor`), else
   * Kafka's default, `uniform`.
   */
  assignor(): "uniform" | "range" {
    let range = 0;
    let uniform = 0;
    for (const m of this.members.values()) {
      if (m.serverAssignor === "range") range++;
      else if (m.serverAssignor === "uniform") uniform++;
    }
    return range > uniform ? "range" : "uniform";
  }

  /** Kafka's `ConsumerGroup.ConsumerGroupState` names: Empty, Reconciling (a member behind the group epoch) or Stable. */
  get state(): string {
    if (this.members.size === 0) return "Empty";
    for (const m of this.members.values()) if (m.memberEpoch !== this.groupEpoch) return "Reconciling";
    return "Stable";
  }

  /** True when a member subscribes to `topic` (by name or regex): OffsetDelete's GROUP_SUBSCRIBED_TO_TOPIC. */
  isSubscribed(topic: string): boolean {
    for (const m of this.members.values()) {
      if (m.subscribedTopicNames.includes(topic)) return true;
      if (m.regex?.matches(topic) === true) return true;
    }
    return false;
  }

  /** ConsumerGroupDescribe's view of the members: assignment as sent, target as computed. */
  describeMembers(topicName: (topicId: string) => string) {
    this.computeTarget();
    const assignment = (set: Set<string> | null | undefined) => ({
      topicPartitions: unflatten(set ?? new Set()).map((t) => ({ ...t, topicName: topicName(t.topicId) })),
    });
    return [...this.members.values()].map((m) => ({
      memberId: m.memberId,
      instanceId: m.instanceId,
      rackId: m.rackId,
      memberEpoch: m.memberEpoch,
      clientId: m.clientId,
      clientHost: m.clientHost,
      subscribedTopicNames: m.subscribedTopicNames,
      subscribedTopicRegex: m.subscribedTopicRegex,
      assignment: assignment(m.sent),
      targetAssignment: assignment(this.target.get(m.memberId)),
      // 0: a consumer group member (1 would be a classic member of a consumer group).
      memberType: 0,
    }));
  }

  /** OffsetCommit's check: the member and its epoch (KIP-848's STALE_MEMBER_EPOCH). */
  checkCommit(memberId: string, memberEpoch: number): number {
    if (memberEpoch < 0) return this.members.size === 0 ? 0 : errorCode("UNKNOWN_MEMBER_ID");
    const member = this.members.get(memberId);
    if (member === undefined) return errorCode("UNKNOWN_MEMBER_ID");
    if (memberEpoch > member.memberEpoch) return errorCode("STALE_MEMBER_EPOCH");
    return 0;
  }

  close(): void {
    for (const m of this.members.values()) if (m.session !== null) clearTimeout(m.session);
  }

  private touch(member: ConsumerMember): void {
    if (member.session !== null) clearTimeout(member.session);
    member.session = timer(this.options.consumerSessionTimeoutMs, () => this.remove(member.memberId));
  }

  private remove(memberId: string): void {
    const member = this.members.get(memberId);
    if (member === undefined) return;
    if (member.session !== null) clearTimeout(member.session);
    this.members.delete(memberId);
    this.groupEpoch++;
  }

  /** Round-robin: every partition of every subscribed topic, in topic and partition order, to the next subscriber. */
  private computeTarget(): void {
    const ids = [...this.members.keys()].sort();
    const subscribers = new Map<string, string[]>();
    for (const id of ids) {
      const m = this.members.get(id)!;
      const topics = new Set(m.subscribedTopicNames);
      if (m.regex !== null) for (const t of this.topics.names()) if (m.regex.matches(t)) topics.add(t);
      for (const t of topics)
        if (this.topics.partitions(t) !== undefined) subscribers.set(t, [...(subscribers.get(t) ?? []), id]);
    }
    const target = new Map<string, Set<string>>(ids.map((id) => [id, new Set<string>()]));
    if (this.assignor() === "range") {
      // Kafka's server-side RangeAssignor: per topic, contiguous ranges over its subscribers in
      // member id order, the first (partitions % subscribers) one partition larger.
      for (const [topic, members] of subscribers) {
        const topicId = this.topics.topicId(topic)!;
        const n = this.topics.partitions(topic)!;
        const size = Math.floor(n / members.length);
        const extra = n % members.length;
        let p = 0;
        members.forEach((id, i) => {
          for (let k = 0; k < size + (i < extra ? 1 : 0); k++) target.get(id)!.add(`${topicId}:${p++}`);
        });
      }
    } else {
      // "uniform": every partition of the subscribed topics, in topic and partition order, to the next subscriber.
      let turn = 0;
      for (const topic of [...subscribers.keys()].sort()) {
        const members = subscribers.get(topic)!;
        const topicId = this.topics.topicId(topic)!;
        for (let p = 0; p < this.topics.partitions(topic)!; p++) {
          target.get(members[turn++ % members.length]!)!.add(`${topicId}:${p}`);
        }
      }
    }
    const key = ids.map((id) => `${id}=${[...target.get(id)!].join(",")}`).join(";");
    // A topic created or grown after members subscribed changes the target: a new group epoch.
    if (key !== this.targetKey && this.targetKey !== "") this.groupEpoch++;
    this.targetKey = key;
    this.target = target;
  }
}

/**
 * The topics of a ConsumerProtocolSubscription (any version: int16 version, then an array of
 * int16-length strings; what follows is not needed). Malformed bytes give what was read.
 */
export function subscriptionTopics(metadata: Uint8Array): string[] {
  const view = new DataView(metadata.buffer, metadata.byteOffset, metadata.byteLength);
  const out: string[] = [];
  if (metadata.length < 6) return out;
  const count = view.getInt32(2);
  let at = 6;
  for (let i = 0; i < count && at + 2 <= metadata.length; i++) {
    const len = view.getInt16(at);
    at += 2;
    if (len < 0 || at + len > metadata.length) break;
    out.push(new TextDecoder().decode(metadata.subarray(at, at + len)));
    at += len;
  }
  return out;
}

function flatten(tps: TopicPartitions): Set<string> {
  const out = new Set<string>();
  for (const t of tps) for (const p of t.partitions) out.add(`${t.topicId}:${p}`);
  return out;
}

function unflatten(set: Set<string>): TopicPartitions {
  const byTopic = new Map<string, number[]>();
  for (const tp of set) {
    const at = tp.lastIndexOf(":");
    const topicId = tp.slice(0, at);
    byTopic.set(topicId, [...(byTopic.get(topicId) ?? []), Number(tp.slice(at + 1))]);
  }
  return [...byTopic].map(([topicId, partitions]) => ({ topicId, partitions: partitions.sort((a, b) => a - b) }));
}

function sameSet(a: Set<string>, b: Set<string>): boolean {
  if (a.size !== b.size) return false;
  for (const x of a) if (!b.has(x)) return false;
  return true;
}

/** A committed offset (OffsetCommit's fields). */
export interface Committed {
  readonly offset: bigint;
  readonly leaderEpoch: number;
  readonly metadata: string | null;
}

export class GroupCoordinator {
  private readonly classic = new Map<string, ClassicGroup>();
  private readonly consumer = new Map<string, ConsumerGroup>();
  /** Committed offsets by group id, then "topic\0partition". */
  private readonly offsets = new Map<string, Map<string, Committed>>();

  constructor(
    private readonly options: GroupOptions,
    private readonly topics: TopicView,
  ) {}

  /** The classic group `groupId`, created if needed; a string error name when it cannot be. */
  classicGroup(groupId: string): ClassicGroup | string {
    if (groupId === "") return "INVALID_GROUP_ID";
    if (this.consumer.has(groupId)) return "GROUP_ID_NOT_FOUND";
    let g = this.classic.get(groupId);
    if (g === undefined) {
      if (this.size() >= this.options.maxGroups) return "GROUP_MAX_SIZE_REACHED";
      g = new ClassicGroup(groupId, this.options);
      this.classic.set(groupId, g);
    }
    return g;
  }

  /** The consumer group `groupId`, created if needed; a string error name when it cannot be. */
  consumerGroup(groupId: string): ConsumerGroup | string {
    if (groupId === "") return "INVALID_GROUP_ID";
    if (this.classic.get(groupId)?.members.size) return "GROUP_ID_NOT_FOUND";
    let g = this.consumer.get(groupId);
    if (g === undefined) {
      if (this.size() >= this.options.maxGroups) return "GROUP_MAX_SIZE_REACHED";
      g = new ConsumerGroup(groupId, this.options, this.topics);
      this.consumer.set(groupId, g);
    }
    return g;
  }

  /** Existing classic group, for Heartbeat/SyncGroup/LeaveGroup (which never create one). */
  existingClassic(groupId: string): ClassicGroup | undefined {
    return this.classic.get(groupId);
  }

  /** OffsetCommit's member check for either kind of group (0 when fine). */
  checkCommit(groupId: string, memberId: string, generationOrEpoch: number): number {
    const consumer = this.consumer.get(groupId);
    if (consumer !== undefined) return consumer.checkCommit(memberId, generationOrEpoch);
    const classic = this.classic.get(groupId);
    if (classic !== undefined) return classic.checkCommit(memberId, generationOrEpoch);
    return generationOrEpoch < 0 ? 0 : errorCode("UNKNOWN_MEMBER_ID");
  }

  commit(groupId: string, topic: string, partition: number, committed: Committed): void {
    let group = this.offsets.get(groupId);
    if (group === undefined) {
      group = new Map();
      this.offsets.set(groupId, group);
    }
    group.set(`${topic}\0${partition}`, committed);
  }

  committed(groupId: string, topic: string, partition: number): Committed | undefined {
    return this.offsets.get(groupId)?.get(`${topic}\0${partition}`);
  }

  /** Every committed partition of a group, by topic. */
  committedTopics(groupId: string): Map<string, number[]> {
    const out = new Map<string, number[]>();
    for (const key of this.offsets.get(groupId)?.keys() ?? []) {
      const [topic, partition] = key.split("\0") as [string, string];
      out.set(topic, [...(out.get(topic) ?? []), Number(partition)]);
    }
    return out;
  }

  /** The group `groupId` of either kind, if it has members or committed offsets. */
  find(
    groupId: string,
  ):
    | { kind: "classic"; group: ClassicGroup }
    | { kind: "consumer"; group: ConsumerGroup }
    | { kind: "offsets" }
    | undefined {
    const consumer = this.consumer.get(groupId);
    if (consumer !== undefined) return { kind: "consumer", group: consumer };
    const classic = this.classic.get(groupId);
    if (classic !== undefined) return { kind: "classic", group: classic };
    return this.offsets.has(groupId) ? { kind: "offsets" } : undefined;
  }

  /**
   * Every group as ListGroups lists it: type (`classic`/`consumer`), protocol type and state. A
   * group known only by its committed offsets is an Empty classic group, as in Kafka.
   */
  list(): { groupId: string; protocolType: string; groupState: string; groupType: string }[] {
    const out = new Map<string, { groupId: string; protocolType: string; groupState: string; groupType: string }>();
    for (const groupId of this.offsets.keys())
      out.set(groupId, { groupId, protocolType: "", groupState: "Empty", groupType: "classic" });
    for (const [groupId, g] of this.classic)
      out.set(groupId, { groupId, protocolType: g.protocolType ?? "", groupState: g.state, groupType: "classic" });
    for (const [groupId, g] of this.consumer)
      out.set(groupId, { groupId, protocolType: "consumer", groupState: g.state, groupType: "consumer" });
    return [...out.values()];
  }

  /** Every classic group, by group id (read only: for inspect.ts). */
  classicGroups(): ReadonlyMap<string, ClassicGroup> {
    return this.classic;
  }

  /** Every consumer group (KIP-848), by group id (read only: for inspect.ts). */
  consumerGroups(): ReadonlyMap<string, ConsumerGroup> {
    return this.consumer;
  }

  /** Every group's committed offsets, by group id, then "topic\0partition" (read only: for inspect.ts). */
  committedOffsets(): ReadonlyMap<string, ReadonlyMap<string, Committed>> {
    return this.offsets;
  }

  /** Deletes an empty group and its offsets: 0, GROUP_ID_NOT_FOUND or NON_EMPTY_GROUP. */
  delete(groupId: string): number {
    const found = this.find(groupId);
    if (found === undefined) return errorCode("GROUP_ID_NOT_FOUND");
    if (found.kind !== "offsets" && found.group.members.size > 0) return errorCode("NON_EMPTY_GROUP");
    if (found.kind === "classic") {
      found.group.close();
      this.classic.delete(groupId);
    } else if (found.kind === "consumer") {
      found.group.close();
      this.consumer.delete(groupId);
    }
    this.offsets.delete(groupId);
    return 0;
  }

  /** Removes one committed offset (OffsetDelete). */
  deleteOffset(groupId: string, topic: string, partition: number): void {
    this.offsets.get(groupId)?.delete(`${topic}\0${partition}`);
  }

  close(): void {
    for (const g of this.classic.values()) g.close();
    for (const g of this.consumer.values()) g.close();
  }

  /** Forgets every group and committed offset (`cluster.reset()`), stopping their timers. */
  reset(): void {
    this.close();
    this.classic.clear();
    this.consumer.clear();
    this.offsets.clear();
  }

  private size(): number {
    return this.classic.size + this.consumer.size;
  }
}
