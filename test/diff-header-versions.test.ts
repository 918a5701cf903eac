/**
 * `diff` and header versions (KIP-1313's `headerVersions`, else Kafka's rule from
 * `flexibleVersions`), file by file and between two schema sets
 * (test/fixtures/diff/header-versions/{old,new}: each file's comment says what it changes).
 */

import path from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../cli/cli.js";
import {
  diffSchemaFiles,
  diffSchemaSets,
  diffSchemas,
  headerVersionAt,
  schemaSetDiffExitCode,
} from "../generator/diff/diff.js";
import { loadSchemas } from "../generator/generate.js";
import { loadSchema } from "../generator/schema/load.js";
import { REPO_ROOT } from "./support/shared.js";

const DIR = path.join(REPO_ROOT, "test/fixtures/diff/header-versions");
const pair = (name: string): [string, string] => [
  path.join(DIR, "old", `${name}.json`),
  path.join(DIR, "new", `${name}.json`),
];

/** A request or response schema text with the given keys (one int8 field). */
function schema(keys: Record<string, unknown>): string {
  return JSON.stringify({
    validVersions: "0-2",
    flexibleVersions: "1+",
    fields: [{ name: "Value", type: "int8", versions: "0+" }],
    ...keys,
  });
}

describe("diff: header versions", () => {
  it("a version moved to another request header is breaking, for that version only", () => {
    // old: from flexibleVersions "1+": v0 header 1, v1 header 2, v2 header 2; new: { "0-1": 1, "2+": 2 }.
    const report = diffSchemaFiles(...pair("EchoRequest"));
    expect(report.changes.map((c) => [c.kind, c.severity, c.versions, c.old, c.new])).toEqual([
      ["header-version-changed", "breaking", "1", "2", "1"],
    ]);
  });

  it("identical changes of consecutive versions are one entry", () => {
    // { "0+": 1 } → { "0-1": 1, "2+": 2 }: v2 and v3 go from response header 1 to 2.
    const report = diffSchemaFiles(...pair("EchoResponse"));
    expect(report.changes.map((c) => [c.kind, c.versions, c.old, c.new])).toEqual([
      ["header-version-changed", "2-3", "1", "2"],
    ]);
  });

  it("headerVersions that say what flexibleVersions gave are a compatible declaration", () => {
    const report = diffSchemaFiles(...pair("ProbeRequest"));
    expect(report.changes.map((c) => [c.kind, c.severity, c.versions])).toEqual([
      ["header-versions-declared", "compatible", "0-1"],
    ]);
    expect(report.breaking).toBe(0);
  });

  it("derives header versions as Kafka does without headerVersions, exceptions included", () => {
    const request = (apiKey: number) =>
      loadSchema(schema({ apiKey, type: "request", name: "XRequest" }), "XRequest.json");
    const response = (apiKey: number) =>
      loadSchema(schema({ apiKey, type: "response", name: "XResponse" }), "XResponse.json");
    // Flexible from v1: request header 1, 2, 2; response header 0, 1, 1.
    expect([0, 1, 2].map((v) => headerVersionAt(request(3), v))).toEqual([1, 2, 2]);
    expect([0, 1, 2].map((v) => headerVersionAt(response(3), v))).toEqual([0, 1, 1]);
    // ControlledShutdown (7) v0: request header 0; ApiVersions (18) responses: header 0 always.
    expect(headerVersionAt(request(7), 0)).toBe(0);
    expect([0, 1, 2].map((v) => headerVersionAt(response(18), v))).toEqual([0, 0, 0]);
  });

  it("without headerVersions on either side, a header change is part of the flexibleVersions entry", () => {
    const request = (flexible: string) =>
      loadSchema(schema({ apiKey: 3, type: "request", name: "XRequest", flexibleVersions: flexible }), "XRequest.json");
    // v1 stops being flexible: request header 2 → 1 (Kafka's rule), in the one breaking entry.
    const report = diffSchemas(request("1+"), request("2+"));
    expect(report.changes.map((c) => [c.kind, c.versions])).toEqual([["flexible-versions-changed", "1"]]);
    expect(report.changes[0]!.message).toMatch(/; the request header goes from v2 to v1$/);
  });

  it("a header's own schema has no header versions to compare", () => {
    const header = (flexible: string) =>
      loadSchema(schema({ type: "header", name: "RequestHeader", flexibleVersions: flexible }), "RequestHeader.json");
    const kinds = diffSchemas(header("1+"), header("2+")).changes.map((c) => c.kind);
    expect(kinds).not.toContain("header-version-changed");
  });
});

describe("diff between two schema sets", () => {
  it("diffs the messages both have, and lists those added and removed", async () => {
    const diff = diffSchemaSets(await loadSchemas([path.join(DIR, "old")]), await loadSchemas([path.join(DIR, "new")]));
    expect(diff.reports.map((r) => [r.name, r.breaking, r.compatible])).toEqual([
      ["EchoRequest", 1, 0],
      ["EchoResponse", 1, 0],
      ["ProbeRequest", 0, 1],
    ]);
    expect([diff.added, diff.removed, diff.unchanged]).toEqual([["ProbeResponse"], [], 0]);
    expect(schemaSetDiffExitCode(diff)).toBe(1);
    // The other way round ProbeResponse is removed: breaking.
    const back = diffSchemaSets(await loadSchemas([path.join(DIR, "new")]), await loadSchemas([path.join(DIR, "old")]));
    expect(back.removed).toEqual(["ProbeResponse"]);
  });

  it("kafka-wire diff <old folder> <new folder> prints each report and a summary, exit 1 when breaking", async () => {
    let out = "";
    const io = {
      stdout: { write: (s: string) => (out += s) },
      stderr: { write: () => true },
      stdin: (async function* () {})(),
      cwd: REPO_ROOT,
    };
    const code = await main(
      ["diff", "test/fixtures/diff/header-versions/old", "test/fixtures/diff/header-versions/new"],
      io,
    );
    expect(code).toBe(1);
    expect(out).toContain("v1 BREAKING header-version-changed EchoRequest: request header v2 → v1");
    expect(out).toContain("ProbeResponse: added");
    expect(out.trimEnd().split("\n").at(-1)).toBe(
      "3 changed, 1 added, 0 removed, 0 unchanged messages; 2 with breaking changes",
    );
    out = "";
    const mixed = await main(
      ["diff", "test/fixtures/diff/header-versions/old", "schemas/StreamsGroupHeartbeatRequest.json"],
      {
        ...io,
        stderr: { write: (s: string) => (out += s) },
      },
    );
    expect([mixed, out]).toEqual([1, "error: diff compares two schema files or two schema folders, not one of each\n"]);
  });
});
