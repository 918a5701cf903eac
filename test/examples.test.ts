/**
 * The example shipped for the README's quick start: bytes worked out by hand, field by field,
 * in StreamsGroupHeartbeatResponse v0 order (schemas/StreamsGroupHeartbeatResponse.json):
 *
 *   00000000  throttleTimeMs 0            0000      errorCode 0
 *   00        errorMessage null (compact) 046d2d31  memberId "m-1" (length 3 + 1 = 04)
 *   00000005  memberEpoch 5               00000005  currentAssignmentEpoch 5
 *   00001388  heartbeatIntervalMs 5000    00002710  acceptableRecoveryLag 10000
 *   0000ea60  taskOffsetIntervalMs 60000  00        status null
 *   02        activeTasks: 1 element (1 + 1), a TaskIds of
 *             0230 subtopologyId "0", 03 00000000 00000001 partitions [0, 1], 00 no tagged fields
 *   01        standbyTasks: empty (0 + 1)  00        warmupTasks null
 *   00        partitionsByUserEndpoint null
 *   00        no tagged fields
 */

import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import { StreamsGroupHeartbeatResponse } from "../generated/index.js";
import { canonicalJson, fromHex, toHex } from "./support/golden.js";
import { REPO_ROOT } from "./support/shared.js";

const hex = readFileSync(path.join(REPO_ROOT, "examples/StreamsGroupHeartbeatResponse.v0.hex"), "utf8").replace(
  /\s+/g,
  "",
);
const json = readFileSync(path.join(REPO_ROOT, "examples/StreamsGroupHeartbeatResponse.v0.json"), "utf8");

it("the shipped example decodes to the shipped JSON", () => {
  const message = StreamsGroupHeartbeatResponse.decode(fromHex(hex), 0);
  expect(message.memberId).toBe("m-1");
  expect(message.activeTasks).toEqual([{ subtopologyId: "0", partitions: [0, 1] }]);
  expect(canonicalJson(StreamsGroupHeartbeatResponse.toJson(message, 0))).toBe(canonicalJson(json));
});

it("the shipped JSON encodes to the shipped bytes", () => {
  expect(toHex(StreamsGroupHeartbeatResponse.encode(StreamsGroupHeartbeatResponse.fromJson(json, 0), 0))).toBe(hex);
});

it("examples/streams-member-metadata.ts prints the hand-worked member and the tombstone", () => {
  // The key and value bytes are worked out by hand in the example's comment; these are the values
  // written there, and the offsets follow from baseOffset 41.
  const out = execFileSync(process.execPath, ["--import", "tsx", "examples/streams-member-metadata.ts"], {
    cwd: REPO_ROOT,
    encoding: "utf8",
  });
  expect(
    out
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as unknown),
  ).toEqual([
    {
      offset: "41",
      groupId: "orders-app",
      memberId: "m-1",
      processId: "p-1",
      clientHost: "/10.0.0.7",
      userEndpoint: { host: "h", port: 8080 },
    },
    { offset: "42", groupId: "orders-app", memberId: "m-2", removed: true },
  ]);
});
