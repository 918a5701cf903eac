/** Type-checks generated code the way a strict user project would: `tsc` with every strict flag on a folder. */

import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { REPO_ROOT } from "./shared.js";

const run = promisify(execFile);

/**
 * The flags a strict project turns on, each of which generated code must compile under (issue
 * 11): `strict` and the stricter checks outside it.
 */
export const STRICT_FLAGS = {
  strict: true,
  noUncheckedIndexedAccess: true,
  exactOptionalPropertyTypes: true,
  noUnusedLocals: true,
  noUnusedParameters: true,
} as const;

/**
 * Runs this checkout's `tsc` (every flag of {@link STRICT_FLAGS}, NodeNext) over `include` inside
 * `dir`, with `kafka-wire/codegen/v1` and `kafka-wire/runtime` resolving to this checkout's
 * sources (`paths`, which tsx also reads). Returns tsc's output: "" when the code compiles.
 */
export async function typecheck(dir: string, include: string | readonly string[]): Promise<string> {
  await writeFile(
    path.join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        ...STRICT_FLAGS,
        noEmit: true,
        skipLibCheck: true,
        types: [],
        paths: {
          "kafka-wire/codegen/v1": [path.join(REPO_ROOT, "src/codegen/v1.ts")],
          "kafka-wire/runtime": [path.join(REPO_ROOT, "src/runtime/index.ts")],
        },
      },
      include: typeof include === "string" ? [include] : include,
    }),
  );
  const tsc = path.join(REPO_ROOT, "node_modules", "typescript", "bin", "tsc");
  const result = await run(process.execPath, [tsc, "-p", dir], { maxBuffer: 16 << 20 }).catch(
    (e: { stdout: string }) => e,
  );
  return result.stdout;
}
