/**
 * Streams groups end to end: examples/streams-group.ts runs three StreamsGroupMember instances
 * over loopback against startCluster with the streams plugin (api keys 88 and 89 from the seed
 * codecs). Checked: the assignments at each step follow the rules (each task one active owner,
 * balanced, standbys never with their active task), epochs only grow, every frame re-encodes to
 * its bytes, the records in __consumer_offsets decode through internalTopics, a restarted
 * cluster rebuilds the same groups from them, and StreamsGroupDescribe answers over the wire.
 */

import { expect, it } from "vitest";
import { startCluster } from "../broker/src/index.js";
import { describeStreamsGroups, StreamsGroupMember } from "../broker/src/streams/member.js";
import { StreamsGroups } from "../broker/src/streams/plugin.js";
import { CONSUMER_OFFSETS, RECORD_NAMES } from "../broker/src/streams/records.js";
import type { InternalTopics, Protocol } from "../src/runtime/index.js";
import { CONFIG, runExample, TOPOLOGY } from "../examples/streams-group.js";
import { corpusIndex } from "./support/corpus.js";
import { describeShared } from "./support/shared.js";

describeShared("streams groups over kafka-wire-broker", "kafka-schemas", () => {
  it("three members join, one leaves: assignments, epochs, frames, records, restart, describe", async () => {
    const { protocol, internalTopics } = (await corpusIndex()) as unknown as {
      protocol: Protocol;
      internalTopics: InternalTopics;
    };
    const lines: string[] = [];
    const result = await runExample({ protocol, internalTopics }, (l) => lines.push(l));
    console.log(lines.join("\n"));

    const all = ["0:0", "0:1", "0:2", "0:3", "0:4", "0:5"];
    const key = (k: string) => k.replace("\u0000", ":");
    let lastGroupEpoch = 0;
    for (const step of result.steps) {
      expect(step.groupEpoch).toBeGreaterThanOrEqual(lastGroupEpoch);
      lastGroupEpoch = step.groupEpoch;
      expect(step.assignmentEpoch).toBe(step.groupEpoch);
      // Each task exactly one active owner; 6 tasks spread evenly (1, 2 or 3 members).
      const actives = step.members.flatMap((m) => [...m.tasks.active].map(key));
      expect(actives.sort()).toEqual(all);
      for (const m of step.members) {
        expect(m.memberEpoch).toBe(step.groupEpoch);
        expect(m.tasks.active.size).toBe(6 / step.members.length);
        // One member per process here: a standby is never on the process running the task.
        for (const t of m.tasks.standby) expect(m.tasks.active.has(t)).toBe(false);
        expect(m.tasks.warmup.size).toBe(0);
      }
      // num.standby.replicas = 1: with two or more processes, every task has one standby.
      if (step.members.length > 1)
        expect(step.members.flatMap((m) => [...m.tasks.standby].map(key)).sort()).toEqual(all);
    }
    expect(result.steps.map((s) => s.members.length)).toEqual([1, 2, 3, 2]);
    // The leave bumps the group epoch by one and the leaver's two tasks go to the others.
    const [, , three, after] = result.steps;
    expect(after!.groupEpoch).toBe(three!.groupEpoch + 1);
    for (const m of after!.members) {
      const before = three!.members.find((x) => x.id === m.id)!;
      for (const t of before.tasks.active) expect(m.tasks.active.has(t)).toBe(true); // sticky
    }

    // Every StreamsGroupHeartbeat frame, both ways, re-encodes to the same bytes.
    const heartbeats = result.exchanges.filter((e) => e.apiKey === 88);
    expect(heartbeats.length).toBeGreaterThan(10);
    for (const e of heartbeats) {
      expect(e.error).toBe(null);
      const d = result.protocol.decodeRequestFrame(e.request);
      expect(
        result.protocol.encodeRequestFrame(
          { apiKey: 88, apiVersion: 0, correlationId: d.header.correlationId, clientId: d.header.clientId },
          d.body,
        ),
      ).toEqual(e.request);
      const r = result.protocol.decodeResponseFrame(e.response!, 88, 0);
      expect(
        result.protocol.encodeResponseFrame(
          { apiKey: 88, apiVersion: 0, correlationId: d.header.correlationId },
          r.body,
        ),
      ).toEqual(e.response);
    }

    // The records decode through internalTopics (Kafka's for 17, 18, 20-23; the seed's for 19).
    const batches = [...result.consumerOffsets.values()].flat();
    const types = new Set<string>();
    for (const b of batches)
      for (const r of result.streams.codec.decode(b)) {
        types.add(RECORD_NAMES[r.recordType]!);
        expect(r.key.groupId).toBe("shop");
      }
    expect([...types].sort()).toEqual([
      "StreamsGroupCurrentMemberAssignment",
      "StreamsGroupMemberMetadata",
      "StreamsGroupMetadata",
      "StreamsGroupPartitionMetadata",
      "StreamsGroupTargetAssignmentMember",
      "StreamsGroupTargetAssignmentMetadata",
      "StreamsGroupTopology",
    ]);
    // All in the group's partition: abs("shop".hashCode()) % 50. By hand: 's' 115, 'h' 104,
    // 'o' 111, 'p' 112: ((115*31 + 104)*31 + 111)*31 + 112 = 3529462, and 3529462 % 50 = 12.
    expect([...result.consumerOffsets.keys()]).toEqual([12]);
    expect(internalTopics.schemasOf(CONSUMER_OFFSETS).some((s) => s.recordType === 23)).toBe(true);

    // A restart: a new cluster replaying those batches has the same groups.
    const restarted = new StreamsGroups({ internalTopics, config: CONFIG, restore: result.consumerOffsets });
    const cluster = await startCluster({
      protocol,
      topics: { orders: 6, "shop-counts-changelog": 6 },
      plugins: [restarted.plugin],
    });
    try {
      expect(restarted.coordinator.snapshot()).toEqual(result.streams.coordinator.snapshot());
      // ... and the same records in the same __consumer_offsets partitions (the leader epoch
      // stamped on the batches is the new cluster's).
      const records = (m: Map<number, Uint8Array[]>) =>
        [...m].map(([p, batches]) => [p, batches.flatMap((b) => restarted.codec.decode(b))]);
      expect(records(restarted.consumerOffsets())).toEqual(records(result.consumerOffsets));
      const node = cluster.nodes[0]!;
      const d = await describeStreamsGroups(node.host, node.port, {
        groupIds: ["shop", "none"],
        includeAuthorizedOperations: true,
      });
      expect(d.groups.map((g) => [g.groupId, g.errorCode])).toEqual([
        ["shop", 0],
        ["none", 69],
      ]);
      // Every member left at the end: an empty group at the last epoch.
      expect(d.groups[0]!.groupState).toBe("Empty");
      expect(d.groups[0]!.groupEpoch).toBe(result.streams.coordinator.group("shop")!.groupEpoch);
      expect(d.groups[0]!.topology!.epoch).toBe(1);
    } finally {
      await cluster.close();
    }
  }, 60_000);
  it("over the wire: a static member leaves (-2) and its instance rejoins with its tasks; a shutdown request stops every member", async () => {
    const { protocol, internalTopics } = (await corpusIndex()) as unknown as {
      protocol: Protocol;
      internalTopics: InternalTopics;
    };
    // Stateless here (no changelog), so tasks move at once.
    const topology = { ...TOPOLOGY, subtopologies: [{ ...TOPOLOGY.subtopologies[0]!, stateChangelogTopics: [] }] };
    const streams = new StreamsGroups({ internalTopics, config: CONFIG, tickMs: 100 });
    const cluster = await startCluster({ protocol, topics: { orders: 4 }, plugins: [streams.plugin] });
    const node = cluster.nodes[0]!;
    const member = (id: string, instanceId: string | null, processId = `p-${id}`) =>
      new StreamsGroupMember({
        host: node.host,
        port: node.port,
        groupId: "g",
        memberId: id,
        processId,
        instanceId,
        topology,
      });
    const until = async (what: string, f: () => boolean) => {
      for (let i = 0; i < 200 && !f(); i++) await new Promise((r) => setTimeout(r, 50));
      if (!f()) throw new Error(`not within 10 s: ${what}`);
    };
    const tasksOf = (m: StreamsGroupMember) => [...m.owned.active].sort().join(",");
    const a = member("a", "instance-a");
    const b = member("b", null);
    const live = [a, b];
    try {
      await a.start();
      await b.start();
      await until("two members with two tasks each", () => a.owned.active.size === 2 && b.owned.active.size === 2);
      const tasksOfA = tasksOf(a);
      const epoch = streams.coordinator.group("g")!.groupEpoch;
      await a.close({ static: true });
      expect(streams.coordinator.group("g")!.members.get("a")!.memberEpoch).toBe(-2);
      // a's tasks stay reserved for the instance: b does not get them.
      await new Promise((r) => setTimeout(r, 300));
      expect(b.owned.active.size).toBe(2);
      // The same instance restarting: a new member id, the same process id (Kafka Streams keeps it on disk).
      const a2 = member("a2", "instance-a", "p-a");
      live.push(a2);
      await a2.start();
      await until("the instance back with its tasks", () => tasksOf(a2) === tasksOfA);
      expect(streams.coordinator.group("g")!.members.has("a")).toBe(false);
      expect(streams.coordinator.group("g")!.groupEpoch).toBe(epoch); // a static rejoin is no new member
      // b asks for the application's shutdown as it leaves: a2 gets SHUTDOWN_APPLICATION and leaves too.
      await b.close({ shutdownApplication: true });
      await a2.done();
      expect(a2.protocol.left).toBe(true);
      expect(streams.coordinator.group("g")!.members.size).toBe(0);
    } finally {
      for (const m of live) m.destroy();
      await cluster.close();
    }
  }, 60_000);
});
