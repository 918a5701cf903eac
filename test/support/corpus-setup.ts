/**
 * vitest global setup: generates codecs for every schema of Apache Kafka in `../shared/kafka-schemas/`
 * once per test run, into a folder of its own under `.corpus/` (ignored by git; one per run, so
 * that concurrent runs never see each other's half-written files). Tests find it with
 * `inject("corpusDir")` (see corpus.ts); it is removed when the run ends.
 */

import { mkdir, rm } from "node:fs/promises";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { generate } from "../../generator/generate.js";
import { REPO_ROOT, sharedDir } from "./shared.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** The folder with the generated corpus codecs, or "" when ../shared/kafka-schemas is absent. */
    corpusDir: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const schemas = sharedDir("kafka-schemas");
  if (schemas === null) {
    // The corpus tests report the missing folder themselves (failing in CI).
    project.provide("corpusDir", "");
    return async () => {};
  }
  const out = path.join(REPO_ROOT, ".corpus", `run-${process.pid}-${Date.now()}`, "generated");
  await mkdir(out, { recursive: true });
  const runtime = path
    .relative(out, path.join(REPO_ROOT, "src", "codegen", "v1.js"))
    .split(path.sep)
    .join("/");
  const started = Date.now();
  const result = await generate({ schemas: [schemas], out, runtimeImport: runtime, cwd: REPO_ROOT });
  console.log(
    `generated ${result.messages.length} Kafka schemas into ${path.relative(REPO_ROOT, out)} in ${Date.now() - started} ms`,
  );
  project.provide("corpusDir", out);
  return async () => {
    await rm(path.dirname(out), { recursive: true, force: true });
  };
}
