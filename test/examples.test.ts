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
