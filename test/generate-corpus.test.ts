/**
 * `kafka-wire generate` on Apache Kafka's whole schema set, as a user runs it on a Kafka checkout:
 * default runtime import (`kafka-wire/codegen/v1`), then the output must compile under `tsc` with
 * every strict flag (test/support/typecheck.ts), each of which is shown to be in force.
 */

import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { main } from "../cli/cli.js";
import { describeShared } from "./support/shared.js";
import { STRICT_FLAGS, typecheck } from "./support/typecheck.js";

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

  it("generates one module per schema plus index.ts, protocol.ts and internal-topics.ts and lists what it wrote", async () => {
    expect(exitCode, stderr.text).toBe(0);
    const files = (await readdir(path.join(dir, "kafka"))).filter((f) => f.endsWith(".ts"));
    // One module per schema (280), index.ts, protocol.ts and internal-topics.ts (the coordinator,
    // metadata and KRaft control records).
    expect(files).toHaveLength(283);
    expect(files).toContain("index.ts");
    expect(files).toContain("protocol.ts");
    expect(files).toContain("internal-topics.ts");
    expect(stdout.text).toContain("FetchRequest.ts");
  });

  it("imports the codegen interface kafka-wire/codegen/v1 and compiles under every strict flag", async () => {
    const fetch = await import("node:fs/promises").then((fs) =>
      fs.readFile(path.join(dir, "kafka", "FetchRequest.ts"), "utf8"),
    );
    expect(fetch).toContain('from "kafka-wire/codegen/v1"');
    expect(await typecheck(dir, "kafka")).toBe("");
  }, 180_000);
});

/**
 * One file per flag of STRICT_FLAGS that only that flag rejects (with its tsc error code), so
 * that the corpus check above is known to run with each of them in force.
 */
const VIOLATIONS: Readonly<Record<keyof typeof STRICT_FLAGS, { code: string; source: string }>> = {
  // strict (noImplicitAny): a parameter without a type.
  strict: { code: "TS7006", source: "export function f(x) { return x; }\n" },
  noUncheckedIndexedAccess: {
    code: "TS18048",
    source: "export function f(a: number[]): number { const x = a[0]; return x + 1; }\n",
  },
  exactOptionalPropertyTypes: {
    code: "TS2375",
    source: "interface O { x?: number }\nexport const o: O = { x: undefined };\n",
  },
  noUnusedLocals: { code: "TS6133", source: "export function f(): number { const unused = 1; return 2; }\n" },
  noUnusedParameters: { code: "TS6133", source: "export function f(unused: number): number { return 2; }\n" },
};

it("the typecheck runs with every strict flag in force: each one's violation is reported", async () => {
  const dir = await mkdtemp(path.join(tmpdir(), "kafka-wire-flags-"));
  try {
    await mkdir(path.join(dir, "src"));
    for (const [flag, { source }] of Object.entries(VIOLATIONS))
      await writeFile(path.join(dir, "src", `${flag}.ts`), source);
    const output = await typecheck(dir, "src");
    for (const [flag, { code }] of Object.entries(VIOLATIONS)) {
      expect(output, flag).toMatch(new RegExp(`src/${flag}\\.ts\\(\\d+,\\d+\\): error ${code}:`));
    }
    expect(output.match(/error TS\d+:/g)).toHaveLength(Object.keys(VIOLATIONS).length);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}, 60_000);
