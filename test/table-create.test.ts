/**
 * The create interpreter (src/runtime/table-create.ts) after its per-struct shapes: what it keeps,
 * fills and refuses to read. Expected values are the schema defaults of
 * schemas/StreamsGroupDescribeResponse.json, worked out by hand.
 */

import { afterEach, describe, expect, it } from "vitest";
import { StreamsGroupDescribeResponse as Resp } from "../generated/index.js";

const proto = Object.prototype as Record<string, unknown>;

afterEach(() => {
  delete proto.groupId;
  delete proto.authorizedOperations;
});

describe("create(init) through field shapes", () => {
  it("a group with every field given keeps each value, in schema order, and the init is untouched", () => {
    const full = Resp.create({ groups: [{ groupId: "g" }] }).groups[0]!;
    const init = { ...full, groupId: "x", authorizedOperations: 5 };
    const before = JSON.stringify(init);
    const group = Resp.create({ groups: [init] }).groups[0]!;
    expect(Object.keys(group)).toEqual(Object.keys(full));
    expect(group.groupId).toBe("x");
    expect(group.authorizedOperations).toBe(5);
    expect(group).not.toBe(init);
    expect(JSON.stringify(init)).toBe(before);
  });

  it("omitted fields take their defaults: -2147483648, null, [] (a new array each time)", () => {
    const a = Resp.create({ groups: [{}] }).groups[0]!;
    const b = Resp.create({ groups: [{}] }).groups[0]!;
    expect(a.authorizedOperations).toBe(-2147483648);
    expect(a.topology).toBeNull();
    expect(a.members).toEqual([]);
    expect(a.members).not.toBe(b.members);
  });

  it("a getter that throws ends the call with its error", () => {
    const init = {
      get groupId(): string {
        throw new Error("boom");
      },
    };
    expect(() => Resp.create({ groups: [init] })).toThrow("boom");
  });

  it("a polluted Object.prototype neither fills an omitted field nor hides an own one", () => {
    proto.groupId = "evil";
    proto.authorizedOperations = 7;
    const group = Resp.create({ groups: [{}] }).groups[0]!;
    expect(group.groupId).toBe("");
    expect(group.authorizedOperations).toBe(-2147483648);
    expect(Resp.create({ groups: [{ groupId: "evil" }] }).groups[0]!.groupId).toBe("evil");
  });

  it("elements of an array of structs that are not objects are kept as they are, for encode to refuse", () => {
    const groups = [null, 3, "s", [1], { groupId: "g" }] as never[];
    const created = Resp.create({ groups });
    expect(created.groups.slice(0, 4)).toEqual([null, 3, "s", [1]]);
    expect(created.groups[4]!.groupId).toBe("g");
    expect(created.groups).not.toBe(groups);
  });

  it("own unknown tagged fields are kept, at the top and inside a struct", () => {
    const unknown = [{ tag: 99, data: new Uint8Array([1]) }];
    const created = Resp.create({ _unknownTaggedFields: unknown, groups: [{ _unknownTaggedFields: unknown }] });
    expect(created._unknownTaggedFields).toBe(unknown);
    expect(created.groups[0]!._unknownTaggedFields).toBe(unknown);
    expect(Object.hasOwn(Resp.create({}), "_unknownTaggedFields")).toBe(false);
  });
});
