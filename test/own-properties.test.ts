/**
 * Issue 17, item 4: generated encoders read a struct's `_unknownTaggedFields` as an own property
 * only, so a polluted `Object.prototype` cannot add tagged fields to every struct of every
 * message (nor make every non-flexible encode fail). Expected bytes are the unpolluted encoding
 * of the same message, and a hand-worked tagged section for an own property.
 */

import { afterEach, describe, expect, it } from "vitest";
import { StreamsGroupHeartbeatResponse, StreamsGroupMemberMetadataKey } from "../generated/index.js";
import { toHex } from "./support/golden.js";

const proto = Object.prototype as { _unknownTaggedFields?: unknown };

afterEach(() => {
  delete proto._unknownTaggedFields;
});

describe("a polluted Object.prototype._unknownTaggedFields", () => {
  const message = StreamsGroupHeartbeatResponse.create({ memberId: "m", memberEpoch: 1 });

  it("adds no tagged field to a flexible message (every struct's tagged section stays empty)", () => {
    const clean = toHex(StreamsGroupHeartbeatResponse.encode(message, 0));
    proto._unknownTaggedFields = [{ tag: 99, data: new Uint8Array([1, 2, 3]) }];
    expect(toHex(StreamsGroupHeartbeatResponse.encode(message, 0))).toBe(clean);
    // create() does not copy the inherited value into an own property either.
    const created = StreamsGroupHeartbeatResponse.create({ memberId: "m", memberEpoch: 1 });
    expect(Object.hasOwn(created, "_unknownTaggedFields")).toBe(false);
    expect(toHex(StreamsGroupHeartbeatResponse.encode(created, 0))).toBe(clean);
  });

  it("does not make a non-flexible message fail with FIELD_NOT_IN_VERSION", () => {
    proto._unknownTaggedFields = [{ tag: 0, data: new Uint8Array(1) }];
    // GroupId "g" (int16 length 1 + 67), MemberId "m" (00 01 6d).
    expect(toHex(StreamsGroupMemberMetadataKey.encode({ groupId: "g", memberId: "m" }, 0))).toBe("0001670001" + "6d");
  });

  it("still writes an own _unknownTaggedFields", () => {
    const clean = StreamsGroupHeartbeatResponse.encode(message, 0);
    const own = { ...message, _unknownTaggedFields: [{ tag: 99, data: new Uint8Array([7]) }] };
    const bytes = toHex(StreamsGroupHeartbeatResponse.encode(own, 0));
    // The top-level tagged section is last: count 0 (00) becomes count 1, tag 99 (63), size 1 (01), data 07.
    expect(bytes).toBe(toHex(clean).slice(0, -2) + "01" + "63" + "01" + "07");
  });
});

describe("create() reads only own fields of its init", () => {
  const proto = Object.prototype as { memberId?: unknown; toString?: unknown };

  afterEach(() => {
    delete proto.memberId;
  });

  it("does not take an omitted field from a polluted Object.prototype", () => {
    proto.memberId = "evil";
    // memberId is omitted: its schema default, the empty string, not "evil".
    expect(StreamsGroupHeartbeatResponse.create({}).memberId).toBe("");
    // An own value equal to the polluted one is still the caller's.
    expect(StreamsGroupHeartbeatResponse.create({ memberId: "evil" }).memberId).toBe("evil");
    expect(StreamsGroupHeartbeatResponse.create({ memberId: "m" }).memberId).toBe("m");
  });
});
