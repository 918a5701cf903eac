/**
 * The records a streams group writes to __consumer_offsets for one join-to-stable sequence (two
 * members, two partitions), worked out by hand from the coordinator's rules; their bytes (two
 * records written out by hand from the schemas); every record decoding back through
 * `internalTopics` (the seed's for record type 19, Kafka's for the others); a restart from them.
 */

import { expect, it } from "vitest";
import { internalTopics as seedInternalTopics } from "../generated/internal-topics.js";
import { StreamsGroupCoordinator } from "../broker/src/streams/coordinator.js";
import { RECORD_NAMES, StreamsRecordCodec } from "../broker/src/streams/records.js";
import type { InternalTopics } from "../src/runtime/index.js";
import { corpusIndex } from "./support/corpus.js";
import { describeShared } from "./support/shared.js";
import { Sim, simpleTopology, TEST_CONFIG } from "./support/streams.js";

const hex = (b: Uint8Array | null) => (b === null ? null : Buffer.from(b).toString("hex"));

function joinToStable(): Sim {
  const sim = new Sim({ orders: 2 });
  const t = simpleTopology(1, [{ id: "0", topic: "orders" }]);
  sim.add({ groupId: "app", memberId: "a", processId: "p-a", topology: t });
  sim.add({ groupId: "app", memberId: "b", processId: "p-b", topology: t });
  sim.stabilize("app");
  return sim;
}

it("writes these records from the first join to a stable group of two", () => {
  const sim = joinToStable();
  const names = sim.batches.map((b) =>
    b.map(
      (r) =>
        `${RECORD_NAMES[r.recordType]}${"memberId" in r.key ? `(${r.key.memberId})` : ""}${r.value === null ? " tombstone" : ""}`,
    ),
  );
  // Round 1, a joins: the topology initializes the group; a's metadata; the partition metadata
  // of orders; group epoch 1; the target assignment (a: both tasks) at assignment epoch 1; a's
  // current assignment (epoch 1, both tasks).
  // Round 1, b joins: b's metadata; group epoch 2; the new target (a: 0:0, b: 0:1) at epoch 2;
  // b's current assignment (epoch 2, UNRELEASED_TASKS: a still has 0:1).
  // Round 2, a: must revoke 0:1 (UNREVOKED_TASKS at epoch 1). b: 0:1 not released: nothing.
  // Round 3, a reports it gave 0:1 up: epoch 2, STABLE. b: gets 0:1, epoch 2, STABLE.
  expect(names).toEqual([
    [
      "StreamsGroupTopology",
      "StreamsGroupMemberMetadata(a)",
      "StreamsGroupPartitionMetadata",
      "StreamsGroupMetadata",
      "StreamsGroupTargetAssignmentMember(a)",
      "StreamsGroupTargetAssignmentMetadata",
      "StreamsGroupCurrentMemberAssignment(a)",
    ],
    [
      "StreamsGroupMemberMetadata(b)",
      "StreamsGroupMetadata",
      "StreamsGroupTargetAssignmentMember(a)",
      "StreamsGroupTargetAssignmentMember(b)",
      "StreamsGroupTargetAssignmentMetadata",
      "StreamsGroupCurrentMemberAssignment(b)",
    ],
    ["StreamsGroupCurrentMemberAssignment(a)"],
    ["StreamsGroupCurrentMemberAssignment(a)"],
    ["StreamsGroupCurrentMemberAssignment(b)"],
  ]);
  const current = sim.batches
    .flat()
    .filter((r) => r.recordType === 22)
    .map((r) => [r.key.groupId, (r.key as { memberId: string }).memberId, r.value]);
  expect(
    current.map(([, m, v]) => [m, (v as { memberEpoch: number }).memberEpoch, (v as { state: number }).state]),
  ).toEqual([
    ["a", 1, 1], // STABLE
    ["b", 2, 3], // UNRELEASED_TASKS
    ["a", 1, 2], // UNREVOKED_TASKS
    ["a", 2, 1],
    ["b", 2, 1],
  ]);
});

it("writes the seed's member metadata value (record type 19) as the seed schema says, byte for byte", () => {
  const sim = joinToStable();
  const r = sim.batches[0]![1]!;
  const bytes = seedInternalTopics.encode("__consumer_offsets", {
    recordType: 19,
    key: r.key as never,
    valueVersion: 0,
    value: r.value as never,
  });
  // Key: int16 record type 19, then (version 0, not flexible) GroupId "app", MemberId "a" as int16-length strings.
  expect(hex(bytes.key)).toBe("0013" + "0003" + "617070" + "0001" + "61");
  // Value: int16 version 0, then the flexible v0 body: InstanceId null (00), RackId null (00),
  // ClientId "client-a" (length+1 = 09), ClientHost "/127.0.0.1" (0b), RebalanceTimeoutMs 60000
  // (0000ea60), TopologyId "1" (the topology epoch: 02 31), ProcessId "p-a" (04 702d61),
  // UserEndpoint {Host "", Port 0} (01 00000000, its tagged fields 00), ClientTags [] (01),
  // no tagged fields (00).
  expect(hex(bytes.value)).toBe(
    "0000" +
      "00" +
      "00" +
      "09" +
      Buffer.from("client-a").toString("hex") +
      "0b" +
      Buffer.from("/127.0.0.1").toString("hex") +
      "0000ea60" +
      "0231" +
      "04702d61" +
      "01" +
      "00000000" +
      "00" +
      "01" +
      "00",
  );
});

describeShared("streams records through Kafka's group-coordinator schemas", "kafka-schemas", () => {
  it("every record decodes back to what was written; group epoch bytes by hand; a restart rebuilds the state", async () => {
    const { internalTopics } = (await corpusIndex()) as unknown as { internalTopics: InternalTopics };
    const codec = new StreamsRecordCodec(internalTopics);
    const sim = joinToStable();
    const epoch = codec.encode(sim.batches[0]![3]!);
    // StreamsGroupMetadataKey: int16 17, GroupId "app"; value: int16 version 0, Epoch int32 1, no tagged fields.
    expect(hex(epoch.key)).toBe("0011" + "0003" + "617070");
    expect(hex(epoch.value)).toBe("0000" + "00000001" + "00");
    for (const r of sim.batches.flat()) {
      const { key, value } = codec.encode(r);
      // Record type 19 through the seed's internalTopics, the others through Kafka's.
      const through: InternalTopics =
        r.recordType === 19 ? (seedInternalTopics as unknown as InternalTopics) : internalTopics;
      const d = through.decode("__consumer_offsets", key, value);
      expect([d.recordType, d.key, d.value]).toEqual([r.recordType, r.key, r.value]);
      expect(JSON.parse(through.toJson("__consumer_offsets", d as never)).keySchema).toBe(
        `${RECORD_NAMES[r.recordType]}Key`,
      );
    }
    const batches = sim.batches.map((b, i) => codec.batch(b, 1_700_000_000_000 + i));
    const restarted = new StreamsGroupCoordinator({ config: TEST_CONFIG, topics: sim.topics, clock: () => sim.now });
    for (const b of batches) for (const r of codec.decode(b)) restarted.replay(r);
    expect(restarted.snapshot()).toEqual(sim.coordinator.snapshot());
    // And the restarted coordinator carries on: a's next heartbeat at its epoch is accepted.
    const a = restarted.heartbeat({ ...sim.members.get("a")!.nextRequest() });
    expect([a.response.errorCode, a.response.memberEpoch]).toEqual([0, 2]);
  });
});
