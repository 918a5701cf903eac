/**
 * `encode` tries every string as ASCII first (measured by `.length`, see src/runtime/ascii.ts) and
 * encodes again exactly when one is not. Whatever path a message takes, its bytes must be those
 * of the exact passes (`plan` + `writeTo` never take the ASCII path), and errors must be the ones
 * the exact passes report.
 */
import { describe, expect, it } from "vitest";
import { StreamsGroupHeartbeatRequest } from "../../generated/StreamsGroupHeartbeatRequest.js";
import { StreamsGroupMemberMetadataValue } from "../../generated/StreamsGroupMemberMetadataValue.js";
import { KafkaEncodeError } from "../../src/runtime/index.js";

function exact<T>(codec: { plan(m: T, v: number): { size: number; writeTo(t: Uint8Array, o: number): number } }, m: T) {
  const plan = codec.plan(m, 0);
  const out = new Uint8Array(plan.size);
  plan.writeTo(out, 0);
  return out;
}

const join = StreamsGroupHeartbeatRequest.create({
  groupId: "orders-app",
  memberId: "kz6pUbiSQ3a2dTqHn0bWbA",
  instanceId: "instance-1",
  clientTags: [
    { key: "zone", value: "eu-west-1a" },
    { key: "cluster", value: "prod-7" },
  ],
  topology: {
    epoch: 1,
    subtopologies: [
      {
        subtopologyId: "0",
        sourceTopics: ["orders"],
        sourceTopicRegex: [],
        stateChangelogTopics: [],
        repartitionSinkTopics: [],
        repartitionSourceTopics: [],
        copartitionGroups: [],
      },
    ],
  },
});

describe("encode's ASCII-first path", () => {
  it.each([
    ["all ASCII", "prod-7"],
    ["a 2-byte character (é) in the last string", "prod-é"],
    ["a 3-byte character (€)", "prod-€"],
    ["a surrogate pair (4 bytes)", "prod-😀"],
    ["DEL (0x7f, the last ASCII unit)", "prod-\u007f"],
    ["U+0080 (the first non-ASCII unit)", "prod-\u0080"],
    ["127 ASCII units (a 2-byte compact length)", "p".repeat(127)],
    ["126 units and one 2-byte character: the length prefix grows", `${"p".repeat(125)}é`],
  ])("writes the exact bytes with %s", (_name, value) => {
    const message = { ...join, clientTags: [join.clientTags![0]!, { key: "cluster", value }] };
    const bytes = StreamsGroupHeartbeatRequest.encode(message, 0);
    expect(bytes).toEqual(exact(StreamsGroupHeartbeatRequest, message));
    expect(StreamsGroupHeartbeatRequest.decode(bytes, 0).clientTags![1]!.value).toBe(value);
  });

  it("writes classic (int16-length) strings exactly too", () => {
    // StreamsGroupMemberMetadataValue is flexible; its strings are compact. A classic string is
    // covered through the corpus tests; here a non-ASCII value in the first and the last string.
    const m = StreamsGroupMemberMetadataValue.create({ clientId: "ä", clientHost: "/10.0.3.17", processId: "ü" });
    expect(StreamsGroupMemberMetadataValue.encode(m, 0)).toEqual(exact(StreamsGroupMemberMetadataValue, m));
  });

  it("reports the error the exact passes find first, not a later one", () => {
    // A lone surrogate (INVALID_STRING) in memberId, and a null where none is allowed later on.
    const message = { ...join, memberId: "a\ud800", clientTags: [{ key: "zone", value: null as unknown as string }] };
    let error: unknown;
    try {
      StreamsGroupHeartbeatRequest.encode(message, 0);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(KafkaEncodeError);
    expect((error as KafkaEncodeError).code).toBe("INVALID_STRING");
    expect((error as KafkaEncodeError).path).toBe("memberId");
  });

  it("is not left on by a codec called from inside another encode (a getter)", () => {
    const inner = StreamsGroupMemberMetadataValue.create({ clientId: "é", clientHost: "h", processId: "p" });
    let innerBytes: Uint8Array | undefined;
    const message = {
      ...join,
      get groupId(): string {
        innerBytes ??= StreamsGroupMemberMetadataValue.encode(inner, 0);
        return "orders-app";
      },
    };
    expect(StreamsGroupHeartbeatRequest.encode(message, 0)).toEqual(exact(StreamsGroupHeartbeatRequest, join));
    expect(innerBytes).toEqual(exact(StreamsGroupMemberMetadataValue, inner));
  });
});
