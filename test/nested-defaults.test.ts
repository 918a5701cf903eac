/**
 * `create(init)` with nested inits (issue 11, item 3), the exported struct factories, and
 * unknown JSON keys refused with a did-you-mean. Expected bytes are worked out by hand below
 * from schemas/StreamsGroupDescribeResponse.json (v0, flexible).
 */

import { describe, expect, it } from "vitest";
import { StreamsGroupDescribeResponse } from "../generated/index.js";
import {
  createAssignment,
  createDescribedGroup,
  createMember,
  createStreamsGroupDescribeResponse,
} from "../generated/StreamsGroupDescribeResponse.js";
import { KafkaDecodeError } from "../src/runtime/index.js";
import { toHex } from "./support/golden.js";

const Resp = StreamsGroupDescribeResponse;

describe("create(init): nested defaults", () => {
  // A public bug report's case: a group that omits AuthorizedOperations must take the schema
  // default -2147483648 (INT32_MIN, "authorized operations not requested"), not 0.
  //   throttleTimeMs 0            00 00 00 00
  //   groups: 1 (compact, 1 + 1)  02
  //     errorCode 0               00 00
  //     errorMessage null         00
  //     groupId "g"               02 67
  //     groupState ""             01
  //     groupEpoch 0              00 00 00 00
  //     assignmentEpoch 0         00 00 00 00
  //     topology null (struct)    ff
  //     members: empty            01
  //     authorizedOperations      80 00 00 00   (-2147483648)
  //     tagged fields: none       00
  //   tagged fields: none         00
  const expected = "00000000 02 0000 00 0267 01 00000000 00000000 ff 01 80000000 00 00".replace(/ /g, "");

  it("a group that omits authorizedOperations encodes it as -2147483648", () => {
    const message = Resp.create({ groups: [{ groupId: "g" }] });
    expect(message.groups[0]!.authorizedOperations).toBe(-2147483648);
    expect(toHex(Resp.encode(message, 0))).toBe(expected);
  });

  it("the exported factories give the same structs as create() at every depth", () => {
    expect(createStreamsGroupDescribeResponse({ groups: [{ groupId: "g" }] })).toEqual(
      Resp.create({ groups: [{ groupId: "g" }] }),
    );
    expect(createDescribedGroup({ groupId: "g" })).toEqual(Resp.create({ groups: [{ groupId: "g" }] }).groups[0]);
    // Two levels down: a member's assignment (a struct default) and its task lists.
    const member = createMember({ memberId: "m", assignment: { activeTasks: [{ subtopologyId: "s" }] } });
    expect(member.assignment).toEqual({
      activeTasks: [{ subtopologyId: "s", partitions: [] }],
      standbyTasks: [],
      warmupTasks: [],
    });
    expect(member.targetAssignment).toEqual(createAssignment());
    expect(member.clientTags).toEqual([]);
    expect(member.userEndpoint).toBeNull();
  });

  it("a nested init round-trips through encode and decode with every default filled", () => {
    const message = Resp.create({
      groups: [
        {
          groupId: "g",
          members: [{ memberId: "m", userEndpoint: { host: "h", port: 9092 } }],
          topology: { epoch: 1, subtopologies: [{ subtopologyId: "0", sourceTopics: ["in"] }] },
        },
      ],
    });
    const group = message.groups[0]!;
    expect(group.topology!.subtopologies![0]!.stateChangelogTopics).toEqual([]);
    expect(group.members[0]!.processId).toBe("");
    expect(Resp.decode(Resp.encode(message, 0), 0)).toEqual(message);
  });

  it("never mutates or shares the init's structs; explicit nulls and undefined are kept apart", () => {
    const init = { groups: [{ groupId: "g", topology: null, errorMessage: undefined }] } as const;
    const frozen = JSON.stringify(init);
    const message = Resp.create(init);
    expect(JSON.stringify(init)).toBe(frozen);
    expect(message.groups).not.toBe(init.groups);
    expect(message.groups[0]).not.toBe(init.groups[0]);
    expect(message.groups[0]!.topology).toBeNull();
    // undefined means "omitted": the default (null here) fills it.
    expect(message.groups[0]!.errorMessage).toBeNull();
    // A whole decoded message passes through unchanged (a deep copy).
    const decoded = Resp.decode(Resp.encode(message, 0), 0);
    expect(Resp.create(decoded)).toEqual(decoded);
  });

  it("keeps values of the wrong type for encode to report with their path", () => {
    const message = Resp.create({ groups: [{ groupId: "g", members: "nope" as never }, null as never] });
    expect(message.groups[0]!.members).toBe("nope");
    expect(() => Resp.encode(message, 0)).toThrow(/expected an array, got string .* at groups\[0\]\.members/);
    const nulls = Resp.create({ groups: [null as never] });
    expect(() => Resp.encode(nulls, 0)).toThrow(/null is not allowed .* at groups\[0\]/);
    expect(Resp.create(null as never)).toEqual(Resp.create());
  });
});

describe("fromJson: unknown keys", () => {
  const group = {
    errorCode: 0,
    errorMessage: null,
    groupId: "g",
    groupState: "",
    groupEpoch: 0,
    assignmentEpoch: 0,
    topology: null,
    members: [],
    authorizedOperations: 0,
  };
  const json = (g: object) => JSON.stringify({ throttleTimeMs: 0, groups: [group, g] });

  it("a misspelled key is INVALID_JSON at its struct's path, naming the closest field", () => {
    const { authorizedOperations, ...rest } = group;
    let error: unknown;
    try {
      Resp.fromJson(json({ ...rest, authorizedOperatons: authorizedOperations }), 0);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(KafkaDecodeError);
    const e = error as KafkaDecodeError;
    expect(e.code).toBe("INVALID_JSON");
    expect(e.path).toBe("groups[1]");
    expect(e.reason).toBe('unknown field "authorizedOperatons" (did you mean "authorizedOperations"?)');
  });

  it("suggests a field whose case differs, and nothing for a key close to no field", () => {
    expect(() => Resp.fromJson(json({ ...group, GroupId: "x" }), 0)).toThrow(
      'unknown field "GroupId" (did you mean "groupId"?) at groups[1]',
    );
    expect(() => Resp.fromJson(json({ ...group, somethingElse: 1 }), 0)).toThrow(
      /^unknown field "somethingElse" at groups\[1\]$/,
    );
    // At the top level the path is empty.
    expect(() => Resp.fromJson({ throttleTimeMs: 0, groups: [], grups: [] }, 0)).toThrow(
      /^unknown field "grups" \(did you mean "groups"\?\)$/,
    );
  });

  it("still reads JSON with only known keys (the toJson output)", () => {
    const message = Resp.create({ groups: [{ groupId: "g" }] });
    expect(Resp.fromJson(Resp.toJson(message, 0), 0)).toEqual(message);
  });
});
