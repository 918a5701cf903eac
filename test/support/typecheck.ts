/** Type-checks generated code the way a user's project would: `tsc --strict` on a folder. */

import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { REPO_ROOT } from "./shared.js";

const run = promisify(execFile);

/**
 * Runs this checkout's `tsc` (strict, noUncheckedIndexedAccess, NodeNext) over `include` inside
 * `dir`, with `kafka-wire/codegen/v1` resolving to this checkout's codegen interface. Returns tsc's output:
 * "" when the code compiles.
 */
export async function typecheck(dir: string, include: string): Promise<string> {
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
        paths: { "kafka-wire/codegen/v1": [path.join(REPO_ROOT, "src/codegen/v1.ts")] },
      },
      include: [include],
    }),
  );
  const tsc = path.join(REPO_ROOT, "node_modules", "typescript", "bin", "tsc");
  const result = await run(process.execPath, [tsc, "-p", dir], { maxBuffer: 16 << 20 }).catch(
    (e: { stdout: string }) => e,
  );
  return result.stdout;
}
