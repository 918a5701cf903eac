/**
 * examples/proxy/typed.ts (typed filters on a generated protocol) compiles against codecs
 * generated from Kafka's schemas, with the repository's compiler options; the same file with one
 * misspelled body field does not.
 */

import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { expect, it } from "vitest";
import { CORPUS_OUT } from "./support/corpus.js";
import { describeShared, REPO_ROOT } from "./support/shared.js";

describeShared("typed proxy filters", "kafka-schemas", () => {
  it("examples/proxy/typed.ts compiles; a misspelled field in a typed filter does not", async () => {
    const dir = path.join(path.dirname(CORPUS_OUT), "proxy-typed");
    mkdirSync(dir, { recursive: true });
    const proxyIndex = path
      .relative(dir, path.join(REPO_ROOT, "proxy", "src", "index.js"))
      .split(path.sep)
      .join("/");
    const source = readFileSync(path.join(REPO_ROOT, "examples", "proxy", "typed.ts"), "utf8")
      .replace('from "kafka-wire-proxy"', `from "${proxyIndex}"`)
      .replace('from "./kafka/index.js"', 'from "../generated/index.js"');
    expect(source).toContain("req.body.acks === 0");
    writeFileSync(path.join(dir, "typed.ts"), source);
    writeFileSync(path.join(dir, "typo.ts"), source.replace("req.body.acks === 0", "req.body.ackz === 0"));
    writeFileSync(
      path.join(dir, "tsconfig.json"),
      JSON.stringify({ extends: path.join(REPO_ROOT, "tsconfig.json"), include: ["typed.ts", "typo.ts"] }),
    );
    const tsc = path.join(REPO_ROOT, "node_modules", "typescript", "bin", "tsc");
    const result = await promisify(execFile)(process.execPath, [tsc, "-p", dir], { maxBuffer: 16 << 20 }).catch(
      (e: { stdout: string }) => e,
    );
    const errors = result.stdout.split("\n").filter((l) => /error TS\d+/.test(l));
    expect(errors, result.stdout).toHaveLength(1);
    expect(errors[0]).toMatch(/typo\.ts.*Property 'ackz' does not exist on type 'ProduceRequest'/);
  }, 120_000);
});
