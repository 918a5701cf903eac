/**
 * Formatting on worker threads (generator/format-pool.ts) must give exactly what prettier gives
 * in-process, fail the way in-process formatting fails, and never leave a worker running.
 */
import { execFile } from "node:child_process";
import { readdir } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { format } from "prettier";
import { expect, it } from "vitest";
import { FORMAT_OPTIONS, formatTypeScriptFiles, POOL_THRESHOLD, workerCount } from "../../generator/format-pool.js";
import { renderCodecs } from "../../generator/generate.js";
import { describeShared, REPO_ROOT } from "../support/shared.js";

/** What prettier says about `text`, called directly. */
async function prettierError(text: string): Promise<string> {
  try {
    await format(text, FORMAT_OPTIONS);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("expected prettier to reject the text");
}

describeShared("formatting Kafka's schemas on workers", "kafka-schemas", (dir) => {
  it("gives each file exactly what prettier gives in-process", async () => {
    // Every 8th schema file (35 of them, and index.ts): enough for the pool, quick enough for a test.
    const all = (await readdir(dir, { recursive: true })).filter((f) => f.endsWith(".json")).sort();
    const schemas = all.filter((_, i) => i % 8 === 0).map((f) => path.join(dir, f));
    const emitted = await renderCodecs({ schemas, format: false });
    const jobs = [...emitted.files].map(([name, text]) => ({ name, text }));
    expect(jobs.length).toBeGreaterThanOrEqual(POOL_THRESHOLD);

    const formatted = await formatTypeScriptFiles(jobs, { workers: 2 });
    expect(formatted).toHaveLength(jobs.length);
    // Expected: prettier in this thread with its TypeScript parser; FORMAT_OPTIONS uses babel-ts
    // (faster), which must print generated code exactly the same.
    for (const [i, { name, text }] of jobs.entries()) {
      const expected = await format(text, { ...FORMAT_OPTIONS, parser: "typescript" });
      expect({ name, text: formatted[i] }).toEqual({ name, text: expected });
    }
  });
});

it("uses workers only for enough files to pay for starting them", () => {
  expect(workerCount(POOL_THRESHOLD - 1)).toBe(0);
  expect(workerCount(POOL_THRESHOLD)).toBe(Math.min(3, os.availableParallelism() - 1));
  expect(workerCount(10_000)).toBeLessThanOrEqual(3);
});

it("names the file prettier rejects, with prettier's message, on workers as in-process", async () => {
  const bad = "export const x = ;\n";
  const jobs = [
    { name: "A.ts", text: "export const a=1\n" },
    { name: "B.ts", text: "export function b( ){return 2}\n" },
    { name: "Bad.ts", text: bad },
    { name: "C.ts", text: "export type C={c:number}\n" },
  ];
  const expected = `cannot format Bad.ts: ${await prettierError(bad)}`;
  expect(expected).toMatch(/\(1:\d+\)/); // prettier gives the line and column
  await expect(formatTypeScriptFiles(jobs, { workers: 2, thisThread: false })).rejects.toThrow(expected);
  await expect(formatTypeScriptFiles(jobs, { workers: 0 })).rejects.toThrow(expected);
});

it("leaves no worker running after formatting or failing (the process exits by itself)", async () => {
  // A child process that formats on workers, once successfully and once failing, then returns
  // from its script: a live worker would keep it running until the timeout kills it.
  const pool = pathToFileURL(path.join(REPO_ROOT, "generator", "format-pool.ts")).href;
  const script = `
    import { formatTypeScriptFiles } from ${JSON.stringify(pool)};
    const jobs = Array.from({ length: 20 }, (_, i) => ({ name: "F" + i + ".ts", text: "export const f" + i + "=" + i }));
    const formatted = await formatTypeScriptFiles(jobs, { workers: 2 });
    const failure = await formatTypeScriptFiles([...jobs, { name: "Bad.ts", text: "let = ;" }], { workers: 2 }).catch((e) => e.message);
    console.log(JSON.stringify({ first: formatted[0], last: formatted[19], failure: failure.split("\\n")[0] }));
  `;
  const tsx = path.join(REPO_ROOT, "node_modules", "tsx", "dist", "loader.mjs");
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--import", pathToFileURL(tsx).href, "--input-type=module", "-e", script],
    { timeout: 50_000, killSignal: "SIGKILL" },
  );
  const result = JSON.parse(stdout) as { first: string; last: string; failure: string };
  expect(result.first).toBe("export const f0 = 0;\n");
  expect(result.last).toBe("export const f19 = 19;\n");
  expect(result.failure).toMatch(/^cannot format Bad\.ts: /);
});
