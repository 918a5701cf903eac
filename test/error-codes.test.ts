/**
 * Kafka's error code table (src/error-codes.ts), its lookups, and `decode --explain-errors`.
 * Expected names and retriability come from Kafka's protocol guide ("Error Codes": code, name,
 * Retriable), written out by hand here.
 */

import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ERROR_CODES, errorCodeInfo, findErrorCodes } from "../src/index.js";
import { main } from "../cli/cli.js";
import { describeShared } from "./support/shared.js";

describe("errorCodeInfo", () => {
  it.each([
    [0, "NONE", false],
    [-1, "UNKNOWN_SERVER_ERROR", false],
    [1, "OFFSET_OUT_OF_RANGE", false],
    [3, "UNKNOWN_TOPIC_OR_PARTITION", true],
    [6, "NOT_LEADER_OR_FOLLOWER", true],
    [16, "NOT_COORDINATOR", true],
    [27, "REBALANCE_IN_PROGRESS", false],
    [35, "UNSUPPORTED_VERSION", false],
    [51, "CONCURRENT_TRANSACTIONS", true],
    [58, "SASL_AUTHENTICATION_FAILED", false],
    [99, "POSITION_OUT_OF_RANGE", false],
    [100, "UNKNOWN_TOPIC_ID", true],
    [113, "STALE_MEMBER_EPOCH", false],
    [133, "SHARE_SESSION_LIMIT_REACHED", true],
  ])("%i is %s (retriable: %s)", (code, name, retriable) => {
    const info = errorCodeInfo(code);
    expect(info).toMatchObject({ code, name, retriable, known: true });
    expect(info.description.length).toBeGreaterThan(0);
  });

  it("reports an unknown code as Kafka's client does (UNKNOWN_SERVER_ERROR, not retriable), keeping the code", () => {
    for (const code of [134, 32767, -2, -32768, 1.5, Number.NaN]) {
      const info = errorCodeInfo(code);
      expect(info).toMatchObject({ name: "UNKNOWN_SERVER_ERROR", retriable: false, known: false });
      expect(Object.is(info.code, code)).toBe(true);
      expect(info.description).toBe(`Unknown error code ${code}; handled as UNKNOWN_SERVER_ERROR.`);
    }
  });

  it("returns a new object each time (the table cannot be changed through it)", () => {
    const a = errorCodeInfo(3) as { name: string };
    a.name = "changed";
    expect(errorCodeInfo(3).name).toBe("UNKNOWN_TOPIC_OR_PARTITION");
    expect(Object.isFrozen(ERROR_CODES[0])).toBe(true);
  });
});

describe("ERROR_CODES", () => {
  it("has unique codes and names, in code order, with no gaps from -1 (Kafka numbers them consecutively)", () => {
    const codes = ERROR_CODES.map((e) => e.code);
    expect(new Set(codes).size).toBe(codes.length);
    expect(new Set(ERROR_CODES.map((e) => e.name)).size).toBe(codes.length);
    expect(codes).toEqual(codes.map((_, i) => i - 1));
  });

  it("holds int16 codes, Kafka-style names and one-sentence descriptions", () => {
    for (const e of ERROR_CODES) {
      expect(e.code >= -32768 && e.code <= 32767 && Number.isInteger(e.code)).toBe(true);
      expect(e.name).toMatch(/^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/);
      expect(e.description).toMatch(/^[A-Z].*\.$/);
      expect(e.description).not.toContain("\n");
    }
  });
});

describe("findErrorCodes", () => {
  it("finds errorCode and *ErrorCode fields at any depth, in field order, with their paths", () => {
    const message = {
      throttleTimeMs: 0,
      errorCode: 0,
      topics: [
        { name: "a", errorCode: 3, partitions: [{ partitionIndex: 0, errorCode: 6 }] },
        { name: "b", errorCode: 0, partitions: [] },
      ],
      topicConfigErrorCode: 29,
    };
    const found = findErrorCodes(message).map((f) => `${f.path}=${f.code}:${f.name}`);
    expect(found).toEqual([
      "errorCode=0:NONE",
      "topics[0].errorCode=3:UNKNOWN_TOPIC_OR_PARTITION",
      "topics[0].partitions[0].errorCode=6:NOT_LEADER_OR_FOLLOWER",
      "topics[1].errorCode=0:NONE",
      "topicConfigErrorCode=29:TOPIC_AUTHORIZATION_FAILED",
    ]);
  });

  it("ignores non-integer values and non-plain objects, ends on cycles and never changes its input", () => {
    const cyclic: Record<string, unknown> = { errorCode: 35, other: "errorCode", when: new Date(0) };
    cyclic["self"] = cyclic;
    cyclic["list"] = [cyclic, { errorCode: "3" }, { errorCode: 10n }];
    const before = Object.keys(cyclic);
    expect(findErrorCodes(cyclic).map((f) => f.path)).toEqual(["errorCode"]);
    expect(Object.keys(cyclic)).toEqual(before);
    expect(findErrorCodes(null)).toEqual([]);
    expect(findErrorCodes(7)).toEqual([]);
  });
});

describeShared("the error names Kafka's schemas mention", "kafka-schemas", (schemas) => {
  // Upper-snake words in the schema comments that are not error names.
  const NOT_ERRORS = new Set([
    "ALLOW_COMMENTS",
    "DELETE_PARTITION_FINISHED",
    "DELETE_PARTITION_MARKED",
    "DELETE_PARTITION_STARTED",
    "INCORRECTLY_PARTITIONED_TOPICS",
    "KIP_890",
    "MISSING_INTERNAL_TOPICS",
    "MISSING_SOURCE_TOPICS",
    "READ_COMMITTED",
    "READ_UNCOMMITTED",
    "SASL_AUTHENTICATE",
    "SHUTDOWN_APPLICATION",
    "STALE_TOPOLOGY",
  ]);

  it("are all in the table, spelled as Kafka spells them", () => {
    const mentioned = new Set<string>();
    for (const entry of readdirSync(schemas, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith(".json")) continue;
      const text = readFileSync(path.join(entry.parentPath, entry.name), "utf8");
      for (const m of text.matchAll(/\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/g)) mentioned.add(m[0]);
    }
    const names = new Set(ERROR_CODES.map((e) => e.name));
    const missing = [...mentioned].filter((n) => !NOT_ERRORS.has(n) && !names.has(n));
    expect(missing).toEqual([]);
    expect(mentioned.size - NOT_ERRORS.size).toBeGreaterThan(40);
  });
});

describe("kafka-wire decode --explain-errors", () => {
  /*
   * A StreamsGroupHeartbeatResponse v0 body worked out by hand from
   * schemas/StreamsGroupHeartbeatResponse.json (flexible: compact strings and arrays are an
   * unsigned varint of length + 1, 00 = null; the body ends with its tagged-field count):
   *   00000000 throttleTimeMs 0 | <code> errorCode | 00 errorMessage null | 01 memberId "" |
   *   ffffffff memberEpoch -1 | 00000000 currentAssignmentEpoch, heartbeatIntervalMs,
   *   acceptableRecoveryLag, taskOffsetIntervalMs (0 each) | 00 x5: status, activeTasks,
   *   standbyTasks, warmupTasks, partitionsByUserEndpoint all null | 00 tagged fields
   */
  const body = (codeHex: string): string =>
    "00000000" + codeHex + "00" + "01" + "ffffffff" + "00000000".repeat(4) + "00".repeat(5) + "00";
  const json = (errorCode: number): string =>
    JSON.stringify(
      {
        throttleTimeMs: 0,
        errorCode,
        errorMessage: null,
        memberId: "",
        memberEpoch: -1,
        currentAssignmentEpoch: 0,
        heartbeatIntervalMs: 0,
        acceptableRecoveryLag: 0,
        taskOffsetIntervalMs: 0,
        status: null,
        activeTasks: null,
        standbyTasks: null,
        warmupTasks: null,
        partitionsByUserEndpoint: null,
      },
      null,
      2,
    ) + "\n";

  async function decode(hex: string, ...flags: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    let stdout = "";
    let stderr = "";
    const code = await main(["decode", "StreamsGroupHeartbeatResponse", "0", hex, ...flags], {
      stdout: { write: (s: string) => (stdout += s) },
      stderr: { write: (s: string) => (stderr += s) },
      stdin: { isTTY: true, async *[Symbol.asyncIterator]() {} },
    });
    return { code, stdout, stderr };
  }

  it("names a non-zero errorCode on stderr and leaves Kafka's JSON on stdout unchanged", async () => {
    const plain = await decode(body("0023"));
    expect(plain).toEqual({ code: 0, stdout: json(35), stderr: "" });
    const explained = await decode(body("0023"), "--explain-errors");
    expect(explained.code).toBe(0);
    expect(explained.stdout).toBe(json(35));
    expect(explained.stderr).toBe(
      "errorCode: 35 UNSUPPORTED_VERSION (not retriable): The broker does not support this version of the API.\n",
    );
  });

  it("says when every error code is 0, and marks an unknown code", async () => {
    expect((await decode(body("0000"), "--explain-errors")).stderr).toBe(
      "no errors (1 error code field, all 0 NONE)\n",
    );
    expect((await decode(body("7fff"), "--explain-errors")).stderr).toBe(
      "errorCode: 32767 UNKNOWN_SERVER_ERROR (unknown code): Unknown error code 32767; handled as UNKNOWN_SERVER_ERROR.\n",
    );
  });
});
