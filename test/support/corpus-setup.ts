/**
 * vitest global setup: generates codecs for every schema of Apache Kafka in `../shared/kafka-schemas/`
 * into `.corpus/` (ignored by git) once per test run, for the corpus tests to import.
 */

import { rm } from "node:fs/promises";
import path from "node:path";
import { generate } from "../../generator/generate.js";
import { CORPUS_OUT, CORPUS_RUNTIME_IMPORT } from "./corpus.js";
import { REPO_ROOT, sharedDir } from "./shared.js";

export default async function setup(): Promise<void> {
  const schemas = sharedDir("kafka-schemas");
  if (schemas === null) return; // the corpus tests report the missing folder themselves
  await rm(CORPUS_OUT, { recursive: true, force: true });
  const started = Date.now();
  const result = await generate({
    schemas: [schemas],
    out: CORPUS_OUT,
    runtimeImport: CORPUS_RUNTIME_IMPORT,
    cwd: REPO_ROOT,
  });
  console.log(`generated ${result.messages.length} Kafka schemas into ${path.relative(REPO_ROOT, CORPUS_OUT)} in ${Date.now() - started} ms`);
}
