/**
 * A streams group simulated without sockets: the coordinator (broker/src/streams) and
 * StreamsMemberProtocol members driven by hand, on a fake clock, over fake cluster topics.
 * Every request and response goes through the seed codecs' encode/decode (as on the wire).
 */

import { StreamsGroupHeartbeatRequest, type Topology } from "../../generated/StreamsGroupHeartbeatRequest.js";
import { StreamsGroupHeartbeatResponse } from "../../generated/StreamsGroupHeartbeatResponse.js";
import type { StreamsGroupConfig } from "../../broker/src/streams/config.js";
import { StreamsGroupCoordinator, type HeartbeatResult } from "../../broker/src/streams/coordinator.js";
import { StreamsMemberProtocol, type StreamsMemberOptions } from "../../broker/src/streams/member.js";
import type { StreamsRecord } from "../../broker/src/streams/records.js";
import { taskKey, type TopicDescription, type TopicMetadataSource } from "../../broker/src/streams/tasks.js";

/** Topics of a fake cluster; `create` as the broker would for the coordinator's internal topics. */
export class FakeTopics implements TopicMetadataSource {
  readonly topics = new Map<string, TopicDescription>();
  private next = 1;
  constructor(init: Record<string, number> = {}) {
    for (const [name, partitions] of Object.entries(init)) this.create(name, partitions);
  }
  create(name: string, partitions: number): void {
    if (this.topics.has(name)) return;
    // A distinct, valid uuid per topic (base64 of 16 bytes).
    const bytes = new Uint8Array(16);
    bytes[15] = this.next++;
    this.topics.set(name, { id: Buffer.from(bytes).toString("base64url"), partitions });
  }
  describe(name: string): TopicDescription | undefined {
    return this.topics.get(name);
  }
  names(): Iterable<string> {
    return this.topics.keys();
  }
}

/** Test defaults: short timeouts, bounds lowered to allow them. */
export const TEST_CONFIG: Partial<StreamsGroupConfig> = {
  "group.streams.min.session.timeout.ms": 1_000,
  "group.streams.session.timeout.ms": 3_000,
  "group.streams.min.heartbeat.interval.ms": 100,
  "group.streams.heartbeat.interval.ms": 500,
};

/** One subtopology reading `topic`, optionally with a changelog (stateful). */
export function simpleTopology(
  epoch: number,
  subtopologies: { id: string; topic: string; changelog?: string }[],
): Topology {
  return {
    epoch,
    subtopologies: subtopologies.map((s) => ({
      subtopologyId: s.id,
      sourceTopics: [s.topic],
      sourceTopicRegex: [],
      stateChangelogTopics:
        s.changelog === undefined ? [] : [{ name: s.changelog, partitions: 0, replicationFactor: 0, topicConfigs: [] }],
      repartitionSinkTopics: [],
      repartitionSourceTopics: [],
      copartitionGroups: [],
    })),
  };
}

export class Sim {
  now = 1_000_000;
  readonly topics: FakeTopics;
  readonly coordinator: StreamsGroupCoordinator;
  readonly members = new Map<string, StreamsMemberProtocol>();
  /** Every record written, in order (one inner array per coordinator call). */
  readonly batches: StreamsRecord[][] = [];
  /** Every frame body exchanged (request and response bytes), for re-encoding checks. */
  readonly frames: { request: Uint8Array; response: Uint8Array }[] = [];
  heartbeats = 0;

  constructor(topics: Record<string, number>, config: Partial<StreamsGroupConfig> = TEST_CONFIG) {
    this.topics = new FakeTopics(topics);
    this.coordinator = new StreamsGroupCoordinator({ config, topics: this.topics, clock: () => this.now });
  }

  add(options: Omit<StreamsMemberOptions, "clock">): StreamsMemberProtocol {
    const m = new StreamsMemberProtocol({ ...options, clock: () => this.now });
    this.members.set(options.memberId, m);
    return m;
  }

  /** One heartbeat of `m`, through the codecs' bytes. */
  heartbeat(m: StreamsMemberProtocol): HeartbeatResult {
    const request = StreamsGroupHeartbeatRequest.encode(m.nextRequest(), 0);
    const result = this.coordinator.heartbeat(StreamsGroupHeartbeatRequest.decode(request, 0), {
      clientId: `client-${m.options.memberId}`,
      clientHost: "/127.0.0.1",
    });
    const response = StreamsGroupHeartbeatResponse.encode(result.response, 0);
    this.frames.push({ request, response });
    this.heartbeats++;
    if (result.records.length > 0) this.batches.push(result.records);
    for (const t of result.topicsToCreate) this.topics.create(t.name, t.partitions);
    m.onResponse(StreamsGroupHeartbeatResponse.decode(response, 0));
    if (m.left) this.members.delete(m.options.memberId);
    return result;
  }

  /** Every member heartbeats once (in member id order), then the clock moves and the coordinator ticks. */
  round(advanceMs = 100): void {
    for (const id of [...this.members.keys()].sort()) this.heartbeat(this.members.get(id)!);
    this.advance(advanceMs);
  }

  advance(ms: number): void {
    this.now += ms;
    const records = this.coordinator.tick();
    if (records.length > 0) this.batches.push(records);
  }

  /** Stable: the group says so and every member owns exactly what the coordinator assigned it. */
  stable(groupId: string): boolean {
    const g = this.coordinator.group(groupId);
    if (g === undefined || this.coordinator.groupState(g) !== "Stable") return false;
    for (const [id, m] of this.members) {
      const cm = g.members.get(id);
      if (cm === undefined || m.memberEpoch !== cm.memberEpoch) return false;
      for (const r of ["active", "standby", "warmup"] as const) {
        if (m.owned[r].size !== cm.assigned[r].size) return false;
        for (const t of m.owned[r]) if (!cm.assigned[r].has(t)) return false;
      }
    }
    return true;
  }

  /** Rounds until stable; returns how many it took. @throws when not stable within `max`. */
  stabilize(groupId: string, max = 20): number {
    for (let i = 1; i <= max; i++) {
      this.round();
      if (this.stable(groupId)) return i;
    }
    throw new Error(
      `group ${groupId} not stable within ${max} rounds: ${this.coordinator.groupState(this.coordinator.group(groupId)!)}`,
    );
  }
}

/** `{ member: "a:0 a:1" }`-style summary of one kind of owned task, for readable assertions. */
export function owned(sim: Sim, role: "active" | "standby" | "warmup" = "active"): Record<string, string> {
  const out: Record<string, string> = {};
  for (const id of [...sim.members.keys()].sort()) {
    const keys = [...sim.members.get(id)!.owned[role]]
      .map((k) => k.replace("\u0000", ":"))
      .sort((a, b) => {
        const [sa, pa] = a.split(":");
        const [sb, pb] = b.split(":");
        return sa! < sb! ? -1 : sa! > sb! ? 1 : Number(pa) - Number(pb);
      });
    out[id] = keys.join(" ");
  }
  return out;
}

export { taskKey };
