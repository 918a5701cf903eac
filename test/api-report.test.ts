/**
 * The public surface of every entry point is what its committed API report (`api/*.api.md`,
 * made by API Extractor from the entry point's declarations) says, and nothing internal is in it.
 * When this fails after an intended change of the API, run `npm run api:report` and commit the
 * reports with the change.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import * as root from "../src/index.js";
import { apiReports, ENTRY_POINTS, UPDATE_COMMAND } from "../scripts/api-report.js";
import { REPO_ROOT } from "./support/shared.js";

describe("API reports (api/*.api.md)", () => {
  it("each entry point's report is current", { timeout: 180_000 }, () => {
    const results = apiReports(false);
    expect(results.map((r) => r.importPath)).toEqual(ENTRY_POINTS.map((e) => e.importPath));
    expect(results.flatMap((r) => r.problems.map((p) => `${r.file}: ${p}`))).toEqual([]);
    const stale = results.filter((r) => r.changed).map((r) => `${r.file} (${r.importPath})`);
    expect(stale, `the public API changed; run \`${UPDATE_COMMAND}\` and commit api/`).toEqual([]);
  });

  it("no internal helper is public", () => {
    const report = (name: string): string => readFileSync(path.join(REPO_ROOT, `api/${name}.api.md`), "utf8");
    // Used only inside the records module (decoding's codec lookup, the built-in gzip, a layout
    // constant, the compression package's name and error helper).
    const internals = [
      "codecFor",
      "missingCodecReason",
      "webGzip",
      "RECORD_BATCH_OVERHEAD",
      "tooLarge",
      "COMPRESSION_PACKAGE",
    ];
    for (const entry of ["index", "runtime", "records"]) {
      const text = report(entry);
      for (const name of internals)
        expect(text, `${name} in api/${entry}.api.md`).not.toMatch(new RegExp(`\\b${name}\\b`));
    }
    // The report lists what the entry point exports: the records entry does export decodeRecords.
    expect(report("records")).toMatch(/export function decodeRecords\(/);
  });

  it("the API docs (typedoc) cover every entry point, each module named after its import path", () => {
    const typedoc = JSON.parse(readFileSync(path.join(REPO_ROOT, "typedoc.json"), "utf8")) as { entryPoints: string[] };
    for (const entry of ENTRY_POINTS.filter((e) => !e.importPath.includes("(browser condition)"))) {
      expect(typedoc.entryPoints, entry.importPath).toContain(entry.source);
      const text = readFileSync(path.join(REPO_ROOT, entry.source), "utf8");
      const firstComment = text.slice(text.indexOf("/**"), text.indexOf("*/") + 2);
      expect(firstComment, entry.source).toContain(`@module ${entry.importPath}\n`);
    }
  });

  it("the package root exports every shipped codec by name", () => {
    const exported = root as Record<string, unknown>;
    for (const [name, codec] of Object.entries(root.messages)) expect(exported[name], name).toBe(codec);
  });
});
