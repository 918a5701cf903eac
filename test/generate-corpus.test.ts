/**
 * `kafka-wire generate` on Apache Kafka's whole schema set, as a user runs it on a Kafka checkout:
 * default runtime import (`kafka-wire/codegen/v1`), then the output must compile under `tsc --strict`.
 */

import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { main } from "../cli/cli.js";
import { describeShared } from "./support/shared.js";
import { typecheck } from "./support/typecheck.js";

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
    // 280 schemas, index.ts and internal-topics.ts (the coordinator, metadata and KRaft control records).
    expect(files).toHaveLength(282);
    expect(files).toContain("index.ts");
    expect(files).toContain("internal-topics.ts");
    expect(stdout.text).toContain("FetchRequest.ts");
  });

  it("imports the codegen interface kafka-wire/codegen/v1 and compiles under tsc --strict", async () => {
    const fetch = await import("node:fs/promises").then((fs) =>
      fs.readFile(path.join(dir, "kafka", "FetchRequest.ts"), "utf8"),
    );
    expect(fetch).toContain('from "kafka-wire/codegen/v1"');
    expect(await typecheck(dir, "kafka")).toBe("");
  }, 180_000);
});
