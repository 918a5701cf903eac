/**
 * Build of the library package `kafka-wire` (`npm run build` → `dist/`): ESM (`.js`) + CJS
 * (`.cjs`) + types (`.d.ts` / `.d.cts`), code-split so that the runtime and each codec exist
 * once and are shared by every entry:
 *
 * - `dist/index`            ← `src/index.ts` (package root: every codec + `messages` + errors)
 * - `dist/runtime`          ← `src/runtime/index.ts` (`kafka-wire/runtime`)
 * - `dist/codegen/v1`       ← `src/codegen/v1.ts` (`kafka-wire/codegen/v1`, what generated code imports)
 * - `dist/records`          ← `src/records/index.ts` (`kafka-wire/records`: record batches)
 * - `dist/messages/<Name>`  ← `generated/<Name>.ts` (`kafka-wire/messages/<Name>`: one codec
 *   and its struct types, without the other codecs)
 *
 * The command line is its own package (`cli/`, built by `cli/tsup.config.ts`). The library is
 * built for the `neutral` platform, so a Node.js import reaching it fails the build instead of
 * shipping; its one dependency (lossless-json) stays external.
 */

import { readdirSync, rmSync } from "node:fs";
import { defineConfig, type Options } from "tsup";

/** `generated/<Name>.ts` → entry `messages/<Name>` (every generated module but the index). */
function messageEntries(): Record<string, string> {
  const entries: Record<string, string> = {};
  for (const file of readdirSync("generated").sort()) {
    // internal-topics.ts is not a codec: the root index re-exports it.
    if (file.endsWith(".ts") && !file.endsWith(".d.ts") && file !== "index.ts" && file !== "internal-topics.ts") {
      entries[`messages/${file.slice(0, -3)}`] = `generated/${file}`;
    }
  }
  if (Object.keys(entries).length === 0) throw new Error("generated/ has no codecs: run `npm run generate` first");
  return entries;
}

export default defineConfig((overrides): Options => {
  if (overrides.watch === undefined || overrides.watch === false) rmSync("dist", { recursive: true, force: true });
  return {
    entry: {
      index: "src/index.ts",
      runtime: "src/runtime/index.ts",
      "codegen/v1": "src/codegen/v1.ts",
      records: "src/records/index.ts",
      ...messageEntries(),
    },
    format: ["esm", "cjs"],
    platform: "neutral",
    target: "es2022",
    dts: true,
    splitting: true,
    clean: false,
  };
});
