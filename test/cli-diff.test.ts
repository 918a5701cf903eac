/** `kafka-wire diff`: human and JSON reports, exit codes, syntax errors with file:line:column. */

import path from "node:path";
import { expect, it } from "vitest";
import { main } from "../cli/cli.js";
import { REPO_ROOT } from "./support/shared.js";

async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await main(argv, {
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (err += s) },
    stdin: (async function* () {})(),
    cwd: REPO_ROOT,
  });
  return { code, out, err };
}

const fixture = (name: string) => path.join("test/fixtures", name);

it("reports the KIP-1071 page's breaking changes to StreamsGroupHeartbeatRequest v0 and exits 1", async () => {
  const { code, out } = await run(
    "diff",
    fixture("diff/seed003-StreamsGroupHeartbeatRequest.json"),
    "schemas/StreamsGroupHeartbeatRequest.json",
  );
  expect(code).toBe(1);
  // Endpoint.Port went from int32 to uint16 between the page versions (see the two schema texts).
  expect(out).toMatch(/v0 BREAKING type-changed UserEndpoint\.Port: int32 → uint16/);
  expect(out).toMatch(/v0 BREAKING type-changed Topology: string → struct Topology/);
});

it("prints a stable JSON report with --json and exits 0 when nothing changed", async () => {
  const { code, out } = await run(
    "diff",
    "--json",
    "schemas/StreamsGroupHeartbeatRequest.json",
    "schemas/StreamsGroupHeartbeatRequest.json",
  );
  expect(code).toBe(0);
  const report = JSON.parse(out) as { format: number; breaking: number; compatible: number; changes: unknown[] };
  expect(report).toMatchObject({ format: 1, breaking: 0, compatible: 0, changes: [] });
});

it("stops at seed 002's syntax error with file:line:column", async () => {
  const { code, err } = await run(
    "diff",
    fixture("seed002-StreamsGroupHeartbeatResponse.json"),
    "schemas/StreamsGroupHeartbeatResponse.json",
  );
  expect(code).toBe(1);
  expect(err).toMatch(/seed002-StreamsGroupHeartbeatResponse\.json:85:1: expected ',' between array elements/);
});

it("refuses to compare two different messages", async () => {
  const { code, err } = await run(
    "diff",
    "schemas/StreamsGroupHeartbeatRequest.json",
    "schemas/StreamsGroupHeartbeatResponse.json",
  );
  expect(code).toBe(1);
  expect(err).toMatch(/^error: /);
});
