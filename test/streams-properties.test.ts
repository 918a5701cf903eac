/**
 * Properties of the streams group coordinator (fast-check), over random sequences of joins,
 * leaves, crashes, static bounces, rejoins (fenced, then epoch 0 with the same member id, possibly
 * on another process), topology updates, partition additions and offset reports, driven through
 * the seed codecs' bytes (test/support/streams.ts). After every heartbeat and every round:
 * - no active task has two owners (in the coordinator's current assignments, pending revocation
 *   included, nor among the members' own views);
 * - no process holds a task both as active and as standby or warm-up (current and target);
 * - group epoch, assignment epoch and every member's epoch never go back.
 * After the sequence: the group is stable within a bounded number of rounds, each task then has
 * exactly one active owner, every frame re-encodes to its bytes, and replaying the records into a
 * new coordinator rebuilds the same state.
 */

import path from "node:path";
import fc from "fast-check";
import { expect, it } from "vitest";
import { StreamsGroupHeartbeatRequest } from "../generated/StreamsGroupHeartbeatRequest.js";
import { StreamsGroupHeartbeatResponse } from "../generated/StreamsGroupHeartbeatResponse.js";
import { StreamsGroupCoordinator } from "../broker/src/streams/coordinator.js";
import { StreamsRecordCodec } from "../broker/src/streams/records.js";
import { ROLES, tasksOf, resolveTopology } from "../broker/src/streams/tasks.js";
import type { Topology } from "../generated/StreamsGroupHeartbeatRequest.js";
import type { InternalTopics } from "../src/runtime/index.js";
import { loadSchemaFile } from "../generator/schema/load.js";
import config from "../kafka-wire.config.json" with { type: "json" };
import { ModelArbitraries } from "./support/arbitraries.js";
import { corpusIndex } from "./support/corpus.js";
import { describeShared, REPO_ROOT } from "./support/shared.js";
import { Sim, TEST_CONFIG } from "./support/streams.js";

export const RUNS = 300;
const MAX_COMMANDS = 30;
/**
 * Rounds (every live member heartbeats once, then 100 ms pass) the group gets to become stable
 * after the sequence: 10 for a crashed member's session to time out, and 15 for the rest.
 */
export const CONVERGENCE_ROUNDS = 25;

/** Session timeout 1 s = 10 rounds of 100 ms: a crashed member's tasks are free after that. */
const CONFIG = {
  ...TEST_CONFIG,
  "group.streams.session.timeout.ms": 1_000,
  "group.streams.num.standby.replicas": 1,
  "group.streams.num.warmup.replicas": 2,
  "group.streams.acceptable.recovery.lag": 10,
  "group.streams.min.task.offset.interval.ms": 100,
  "group.streams.task.offset.interval.ms": 100,
};

/** Topology epoch e: a stateful subtopology on orders; from epoch 2 on, a stateless one on payments too. */
function topology(epoch: number): Topology {
  const sub = (id: string, topic: string, changelog: string | null) => ({
    subtopologyId: id,
    sourceTopics: [topic],
    sourceTopicRegex: [],
    stateChangelogTopics:
      changelog === null ? [] : [{ name: changelog, partitions: 0, replicationFactor: 0, topicConfigs: [] }],
    repartitionSinkTopics: [],
    repartitionSourceTopics: [],
    copartitionGroups: [],
  });
  return {
    epoch,
    subtopologies:
      epoch >= 2
        ? [sub("0", "orders", "app-s-changelog"), sub("1", "payments", null)]
        : [sub("0", "orders", "app-s-changelog")],
  };
}

type Command =
  | { kind: "join"; process: number; static: boolean }
  | { kind: "leave"; who: number }
  | { kind: "crash"; who: number }
  | { kind: "bounce"; who: number }
  | { kind: "rejoin"; who: number; process: number }
  | { kind: "upgrade" }
  | { kind: "partitions"; topic: "orders" | "payments"; add: number }
  | { kind: "rounds"; n: number };

const command: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("join" as const),
      process: fc.integer({ min: 0, max: 2 }),
      static: fc.boolean(),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("leave" as const), who: fc.nat(9) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("crash" as const), who: fc.nat(9) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("bounce" as const), who: fc.nat(9) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("rejoin" as const),
      who: fc.nat(9),
      process: fc.integer({ min: 0, max: 2 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("upgrade" as const) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("partitions" as const),
      topic: fc.constantFrom("orders" as const, "payments" as const),
      add: fc.integer({ min: 1, max: 2 }),
    }),
  },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("rounds" as const), n: fc.integer({ min: 1, max: 3 }) }) },
);

/** Rejoins run so far (all sequences), and those of them on another process. */
const rejoins = { all: 0, moved: 0 };

/** Runs one sequence; returns the sim and how many rounds it took to converge at the end. */
function run(commands: readonly Command[]): { sim: Sim; rounds: number } {
  const sim = new Sim({ orders: 3, payments: 2 }, CONFIG);
  // Restored changelog positions per member and task (warm-ups and standbys catch up by 40 a report).
  const restored = new Map<string, Map<string, bigint>>();
  let next = 0;
  let epoch = 1;
  const statics = new Map<string, string>(); // member id -> instance id
  const offsetsOf =
    (id: string) =>
    (owned: { active: ReadonlySet<string>; standby: ReadonlySet<string>; warmup: ReadonlySet<string> }) => {
      const mine = restored.get(id) ?? new Map<string, bigint>();
      restored.set(id, mine);
      const offsets = [];
      const endOffsets = [];
      for (const r of ROLES)
        for (const k of owned[r]) {
          const [sub, p] = k.split("\u0000") as [string, string];
          const pos = r === "active" ? 100n : (mine.get(k) ?? 0n) + 40n > 100n ? 100n : (mine.get(k) ?? 0n) + 40n;
          mine.set(k, pos);
          offsets.push({ subtopologyId: sub, partition: Number(p), offset: pos });
          endOffsets.push({ subtopologyId: sub, partition: Number(p), offset: 100n });
        }
      return { offsets, endOffsets };
    };
  const live = () => [...sim.members.keys()].sort();
  const pick = (who: number) => {
    const ids = live();
    return ids.length === 0 ? undefined : ids[who % ids.length];
  };
  const join = (id: string, process: number, instanceId: string | null, t = topology(epoch)) =>
    sim.add({
      groupId: "app",
      memberId: id,
      processId: `p${process}`,
      topology: t,
      instanceId,
      taskOffsets: offsetsOf(id),
    });

  const epochs = { group: 0, assignment: 0, members: new Map<string, number>() };
  const check = () => {
    const g = sim.coordinator.group("app");
    if (g === undefined) return;
    expect(g.groupEpoch).toBeGreaterThanOrEqual(epochs.group);
    expect(g.assignmentEpoch).toBeGreaterThanOrEqual(epochs.assignment);
    epochs.group = g.groupEpoch;
    epochs.assignment = g.assignmentEpoch;
    for (const m of g.members.values()) {
      if (m.memberEpoch >= 0) {
        expect(m.memberEpoch).toBeGreaterThanOrEqual(epochs.members.get(m.memberId) ?? 0);
        epochs.members.set(m.memberId, m.memberEpoch);
      }
    }
    // No active task with two owners: coordinator view (assigned + pending revocation) and members' view.
    const coordinatorOwner = new Map<string, string>();
    for (const m of g.members.values())
      for (const t of [...m.assigned.active, ...m.pendingRevocation.active]) {
        expect(
          coordinatorOwner.get(t),
          `active task ${t} of ${m.memberId} and ${coordinatorOwner.get(t)}`,
        ).toBeUndefined();
        coordinatorOwner.set(t, m.memberId);
      }
    const memberOwner = new Map<string, string>();
    for (const [id, m] of sim.members)
      for (const t of m.owned.active) {
        expect(memberOwner.get(t), `members ${id} and ${memberOwner.get(t)} both run ${t}`).toBeUndefined();
        memberOwner.set(t, id);
      }
    // A process never holds a task as active and as standby or warm-up.
    const byProcess = new Map<string, { active: Set<string>; other: Set<string> }>();
    const targetByProcess = new Map<string, { active: Set<string>; other: Set<string> }>();
    for (const m of g.members.values()) {
      const p = byProcess.get(m.processId) ?? { active: new Set(), other: new Set() };
      byProcess.set(m.processId, p);
      for (const t of [...m.assigned.active, ...m.pendingRevocation.active]) p.active.add(t);
      for (const t of [
        ...m.assigned.standby,
        ...m.assigned.warmup,
        ...m.pendingRevocation.standby,
        ...m.pendingRevocation.warmup,
      ])
        p.other.add(t);
      const target = g.targetAssignment.get(m.memberId);
      if (target === undefined) continue;
      const tp = targetByProcess.get(m.processId) ?? { active: new Set(), other: new Set() };
      targetByProcess.set(m.processId, tp);
      for (const t of target.active) tp.active.add(t);
      for (const t of [...target.standby, ...target.warmup]) tp.other.add(t);
    }
    for (const [pid, p] of [...byProcess, ...targetByProcess])
      for (const t of p.active)
        expect(p.other.has(t), `process ${pid} has ${t} as active and standby/warm-up`).toBe(false);
  };
  // The current assignment is checked after every heartbeat, not only once a round: a task given to
  // a member in one heartbeat and taken from another member in a later one is a violation too.
  const heartbeat = sim.heartbeat.bind(sim);
  sim.heartbeat = (m) => {
    const result = heartbeat(m);
    check();
    return result;
  };
  const rounds = (n: number) => {
    for (let i = 0; i < n; i++) {
      sim.round();
      check();
    }
  };

  for (const c of commands) {
    switch (c.kind) {
      case "join": {
        const id = `m${next++}`;
        const instance = c.static ? `i${id}` : null;
        if (instance !== null) statics.set(id, instance);
        join(id, c.process, instance);
        break;
      }
      case "leave": {
        const id = pick(c.who);
        if (id !== undefined) sim.members.get(id)!.leave();
        break;
      }
      case "crash": {
        const id = pick(c.who);
        if (id !== undefined) sim.members.delete(id); // no leave: the session times out
        break;
      }
      case "bounce": {
        // A static member leaves with -2 and its instance rejoins under a new member id.
        const id =
          live().find((m, i, all) => statics.has(m) && i >= c.who % Math.max(all.length, 1)) ??
          live().find((m) => statics.has(m));
        if (id === undefined || sim.members.get(id)!.memberEpoch <= 0) break;
        const m = sim.members.get(id)!;
        m.staticLeave();
        sim.heartbeat(m);
        const nid = `m${next++}`;
        statics.set(nid, statics.get(id)!);
        join(nid, Number(m.options.processId.slice(1)), statics.get(id)!);
        break;
      }
      case "rejoin": {
        // The member was fenced (FENCED_MEMBER_EPOCH: the client dropped every task) and rejoins
        // with epoch 0 and the same member id, maybe from another process; the coordinator still
        // has its current assignment. A static member keeps its instance id, the client its
        // topology. Only members in the group, with the group's topology: a rejoin never upgrades
        // it (members not yet joined with an older one would be STREAMS_TOPOLOGY_FENCED for good),
        // and a client with an older topology is fenced by the coordinator (not what this tests).
        const groupTopology = sim.coordinator.group("app")?.topology?.epoch;
        const id = pick(c.who);
        const m = id === undefined ? undefined : sim.members.get(id)!;
        if (m === undefined || m.memberEpoch <= 0 || m.options.topology.epoch !== groupTopology) break;
        join(id!, c.process, statics.get(id!) ?? null, m.options.topology);
        rejoins.all++;
        if (m.options.processId !== `p${c.process}`) rejoins.moved++;
        break;
      }
      case "upgrade":
        // A rolling upgrade: members joining from now on bring the next topology epoch.
        epoch++;
        break;
      case "partitions": {
        const t = sim.topics.topics.get(c.topic)!;
        sim.topics.topics.set(c.topic, { ...t, partitions: t.partitions + c.add });
        // The changelog of the stateful subtopology must follow; the broker would be asked to
        // create it with the new count, but an existing topic is never resized: recreate it here.
        if (c.topic === "orders" && sim.topics.topics.has("app-s-changelog"))
          sim.topics.topics.set("app-s-changelog", {
            ...sim.topics.topics.get("app-s-changelog")!,
            partitions: t.partitions + c.add,
          });
        break;
      }
      case "rounds":
        rounds(c.n);
        break;
    }
  }
  // Convergence: bounded rounds until stable.
  let taken = 0;
  for (; taken < CONVERGENCE_ROUNDS; taken++) {
    if (sim.members.size === 0 || (sim.stable("app") && settled(sim))) break;
    rounds(1);
  }
  return { sim, rounds: taken };
}

/** Every member the coordinator has is alive (crashed ones timed out) or a static member that left (-2). */
const settled = (sim: Sim) =>
  [...(sim.coordinator.group("app")?.members.values() ?? [])].every(
    (m) => sim.members.has(m.memberId) || m.memberEpoch === -2,
  );

const expectConverged = (sim: Sim, rounds: number) => {
  expect(rounds).toBeLessThan(CONVERGENCE_ROUNDS);
  const g = sim.coordinator.group("app");
  if (g === undefined || sim.members.size === 0) return;
  // Once stable, every task of the topology has exactly one active owner.
  const resolved = resolveTopology(g.topology!, sim.topics);
  if (resolved.subtopologies === null) return;
  const owners = new Map<string, number>();
  for (const m of sim.members.values()) for (const t of m.owned.active) owners.set(t, (owners.get(t) ?? 0) + 1);
  // Members that left statically (-2) keep their tasks reserved; they are not in sim.members.
  for (const m of g.members.values())
    if (m.memberEpoch === -2) for (const t of m.assigned.active) owners.set(t, (owners.get(t) ?? 0) + 1);
  for (const t of tasksOf(resolved.subtopologies).tasks) expect(owners.get(t), `owners of ${t}`).toBe(1);
};

it(`${RUNS} random sequences: one owner per active task, standbys apart from actives, monotone epochs, convergence`, () => {
  let total = 0;
  let maxRounds = 0;
  fc.assert(
    fc.property(fc.array(command, { minLength: 5, maxLength: MAX_COMMANDS }), (commands) => {
      const { sim, rounds } = run(commands);
      expectConverged(sim, rounds);
      // Every frame re-encodes to the same bytes.
      for (const f of sim.frames) {
        expect(StreamsGroupHeartbeatRequest.encode(StreamsGroupHeartbeatRequest.decode(f.request, 0), 0)).toEqual(
          f.request,
        );
        expect(StreamsGroupHeartbeatResponse.encode(StreamsGroupHeartbeatResponse.decode(f.response, 0), 0)).toEqual(
          f.response,
        );
      }
      total += sim.heartbeats;
      maxRounds = Math.max(maxRounds, rounds);
    }),
    { numRuns: RUNS, seed: 1071 },
  );
  console.log(
    `streams properties: ${RUNS} runs, ${total} heartbeats (each checked), ${rejoins.all} rejoins (${rejoins.moved} on another process), converged within ${maxRounds} rounds at most`,
  );
});

describeShared("streams group records replay (Kafka's group-coordinator schemas)", "kafka-schemas", () => {
  it(`${RUNS / 3} random sequences: records decode back to what was written, and replaying them rebuilds the state`, async () => {
    const { internalTopics } = (await corpusIndex()) as unknown as { internalTopics: InternalTopics };
    const codec = new StreamsRecordCodec(internalTopics);
    let records = 0;
    fc.assert(
      fc.property(fc.array(command, { minLength: 5, maxLength: MAX_COMMANDS }), (commands) => {
        const { sim } = run(commands);
        const batches = sim.batches.map((b, i) => codec.batch(b, 1_000 + i));
        const all = new Uint8Array(batches.reduce((n, b) => n + b.length, 0));
        let at = 0;
        for (const b of batches) {
          all.set(b, at);
          at += b.length;
        }
        const decoded = codec.decode(all);
        // What was meant: the records as written, bigints and all.
        expect(decoded).toEqual(sim.batches.flat());
        records += decoded.length;
        const restarted = new StreamsGroupCoordinator({ config: CONFIG, topics: sim.topics, clock: () => sim.now });
        for (const r of decoded) restarted.replay(r);
        expect(restarted.snapshot()).toEqual(sim.coordinator.snapshot());
      }),
      { numRuns: RUNS / 3, seed: 848 },
    );
    console.log(`streams replay: ${RUNS / 3} runs, ${records} records decoded and replayed`);
  });
});

it(`${RUNS} arbitrary StreamsGroupHeartbeat requests (every field random) among a live group: answered, never thrown, the group intact`, () => {
  const spec = loadSchemaFile(path.join(REPO_ROOT, "schemas/StreamsGroupHeartbeatRequest.json"), {
    apiKeys: config.apiKeys,
  });
  const arb = new ModelArbitraries(spec, 0, {
    unknownTaggedFields: false,
  }).message() as unknown as fc.Arbitrary<StreamsGroupHeartbeatRequest>;
  let errors = 0;
  let accepted = 0;
  fc.assert(
    fc.property(fc.array(arb, { minLength: 1, maxLength: 8 }), fc.boolean(), (requests, sameGroup) => {
      const sim = new Sim({ orders: 3, payments: 2, "app-s-changelog": 3 }, CONFIG);
      for (const id of ["a", "b"]) sim.add({ groupId: "app", memberId: id, processId: id, topology: topology(1) });
      sim.round();
      for (const raw of requests) {
        // Half of the runs aim at the live group and its members' ids.
        let req = sameGroup
          ? { ...raw, groupId: "app", memberId: raw.memberId.length % 2 === 0 ? "a" : raw.memberId }
          : raw;
        // Every third one is made a well-formed join, its other fields (rack, tags, endpoint,
        // instance id, offsets, shutdown flag) left random: the accepted paths get random data too.
        if (raw.rebalanceTimeoutMs % 3 === 0)
          req = {
            ...req,
            groupId: req.groupId === "" ? "g" : req.groupId,
            memberId: req.memberId === "" ? "x" : req.memberId,
            memberEpoch: 0,
            instanceId: req.instanceId === "" ? null : req.instanceId,
            rackId: req.rackId === "" ? null : req.rackId,
            rebalanceTimeoutMs: 1_000,
            topology: topology(1),
            processId: req.processId === null || req.processId === "" ? "p" : req.processId,
            activeTasks: [],
            standbyTasks: [],
            warmupTasks: [],
          };
        const result = sim.coordinator.heartbeat(req);
        const bytes = StreamsGroupHeartbeatResponse.encode(result.response, 0);
        expect(StreamsGroupHeartbeatResponse.decode(bytes, 0)).toEqual(result.response);
        if (result.response.errorCode !== 0) errors++;
        else accepted++;
        sim.advance(10);
      }
      // Whatever those did, the group still converges for the members still heartbeating.
      for (let i = 0; i < CONVERGENCE_ROUNDS && !(sim.stable("app") && settled(sim)); i++) sim.round();
      expect(sim.stable("app") && settled(sim)).toBe(true);
    }),
    { numRuns: RUNS, seed: 511 },
  );
  console.log(`streams hostile requests: ${RUNS} runs, ${accepted} accepted, ${errors} answered with an error code`);
});
