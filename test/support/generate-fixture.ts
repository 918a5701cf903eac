/** Codecs generated, for a test, from a folder of schemas written for it (test/fixtures/...). */

import { mkdir } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { generate } from "../../generator/generate.js";
import { REPO_ROOT } from "./shared.js";

/**
 * Generates the schemas of `schemas` into `out` (created; their imports point at this checkout's
 * src/codegen/v1.js) and imports the generated index. Returns it and the base names written.
 */
export async function generateFixture<T>(schemas: string, out: string): Promise<{ index: T; written: string[] }> {
  await mkdir(out, { recursive: true });
  const runtime = path
    .relative(out, path.join(REPO_ROOT, "src", "codegen", "v1.js"))
    .split(path.sep)
    .join("/");
  const result = await generate({ schemas: [schemas], out, runtimeImport: runtime, cwd: REPO_ROOT });
  const index = (await import(pathToFileURL(path.join(out, "index.ts")).href)) as T;
  return { index, written: result.files.map((f) => path.basename(f.path)) };
}
