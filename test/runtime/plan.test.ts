/** codec.plan: measure once, write into a buffer shared with other parts. */

import { expect, it } from "vitest";
import { StreamsGroupHeartbeatResponse } from "../../generated/index.js";
import { KafkaEncodeError } from "../../src/runtime/index.js";
import { expectError, hex } from "./helpers.js";

const message = StreamsGroupHeartbeatResponse.create({ memberId: "m-1", memberEpoch: 5 });

it("writes the same bytes as encode, at an offset, and returns the end", () => {
  const plan = StreamsGroupHeartbeatResponse.plan(message, 0);
  const expected = StreamsGroupHeartbeatResponse.encode(message, 0);
  expect(plan.size).toBe(expected.length);
  const target = new Uint8Array(plan.size + 3);
  expect(plan.writeTo(target, 2)).toBe(2 + plan.size);
  expect(hex(target.subarray(2, 2 + plan.size))).toBe(hex(expected));
  expect(target[0]).toBe(0);
  expect(target[target.length - 1]).toBe(0);
});

it("refuses a target without room, writing nothing", () => {
  const plan = StreamsGroupHeartbeatResponse.plan(message, 0);
  const target = new Uint8Array(plan.size).fill(0xee);
  expectError(() => plan.writeTo(target, 1), KafkaEncodeError, "BUFFER_TOO_SMALL");
  expect(target.every((b) => b === 0xee)).toBe(true);
});
