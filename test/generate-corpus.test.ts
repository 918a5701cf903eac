/**
 * `kafka-wire generate` on Apache Kafka's whole schema set, as a user runs it on a Kafka checkout:
 * default runtime import (`kafka-wire/runtime`), then the output must compile under `tsc --strict`.
 */

import { execFile } from "node:child_process";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";
import { main } from "../src/cli.js";
import { describeShared, REPO_ROOT } from "./support/shared.js";

const run = promisify(execFile);

function sink() {
  let text = "";
  return {
    write: (s: string) => ((text += s), true),
    get text() {
      return text;
    },
  };
}

describeShared("kafka-wire generate on Kafka's schemas", "kafka-schemas", (schemas) => {
  let dir: string;
  const stdout = sink();
  const stderr = sink();
  let exitCode: number;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "kafka-wire-corpus-"));
    exitCode = await main(["generate", "--schemas", schemas, "--out", path.join(dir, "kafka")], {
      stdout,
      stderr,
      stdin: (async function* () {})(),
      cwd: dir,
    });
  }, 120_000);

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("generates one module per schema plus index.ts and lists what it wrote", async () => {
    expect(exitCode, stderr.text).toBe(0);
    const files = (await readdir(path.join(dir, "kafka"))).filter((f) => f.endsWith(".ts"));
    expect(files).toHaveLength(281);
    expect(files).toContain("index.ts");
    expect(stdout.text).toContain("FetchRequest.ts");
  });

  it("imports the runtime from kafka-wire/runtime and compiles under tsc --strict", async () => {
    const fetch = await import("node:fs/promises").then((fs) =>
      fs.readFile(path.join(dir, "kafka", "FetchRequest.ts"), "utf8"),
    );
    expect(fetch).toContain('from "kafka-wire/runtime"');
    // Resolve the package specifier to this checkout's runtime, as an installed package would.
    await writeFile(
      path.join(dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          noUncheckedIndexedAccess: true,
          noEmit: true,
          skipLibCheck: true,
          types: [],
          paths: { "kafka-wire/runtime": [path.join(REPO_ROOT, "src/runtime/index.ts")] },
        },
        include: ["kafka"],
      }),
    );
    const tsc = path.join(REPO_ROOT, "node_modules", "typescript", "bin", "tsc");
    const result = await run(process.execPath, [tsc, "-p", dir], { maxBuffer: 16 << 20 }).catch(
      (e: { stdout: string }) => e,
    );
    expect(result.stdout).toBe("");
  }, 180_000);
});
