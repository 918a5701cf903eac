/**
 * The field tables (`<Name>$fields`, generator/emit/table.ts) are emitted exactly as prettier
 * lays them out, so that an emitter that skips prettier can take them as they are: for the seed
 * schemas and for every schema of Apache Kafka (when ../shared is there).
 */

import path from "node:path";
import { format } from "prettier";
import { describe, expect, it } from "vitest";
import { FORMAT_OPTIONS } from "../../generator/format-pool.js";
import { renderCodecs } from "../../generator/generate.js";
import { describeShared, REPO_ROOT } from "../support/shared.js";

/** Each emitted (unformatted) module's table text: from its doc comment to the end. */
async function tables(schemas: string): Promise<Map<string, string>> {
  const { files } = await renderCodecs({ schemas: [schemas], format: false, cwd: REPO_ROOT });
  const out = new Map<string, string>();
  for (const [name, text] of files) {
    const at = text.indexOf("/**\n * The field table of ");
    if (at >= 0) out.set(name, text.slice(at));
  }
  return out;
}

async function expectPrettierLayout(found: Map<string, string>): Promise<void> {
  for (const [name, table] of found) expect(await format(table, FORMAT_OPTIONS), name).toBe(table);
}

describe("field tables", () => {
  it("are prettier's layout for the seed schemas", async () => {
    const found = await tables(path.join(REPO_ROOT, "schemas"));
    expect(found.size).toBe(6);
    await expectPrettierLayout(found);
  });
});

describeShared("field tables of Apache Kafka's schemas", "kafka-schemas", (dir) => {
  it("are prettier's layout for every schema (long rows broken as prettier breaks them)", async () => {
    const found = await tables(dir);
    expect(found.size).toBe(280);
    // Some rows do not fit the width: the test covers the broken layout too.
    expect([...found.values()].some((t) => /\n {6}\[\n/.test(t))).toBe(true);
    await expectPrettierLayout(found);
  }, 120_000);
});
