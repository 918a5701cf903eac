/**
 * Build of the published package (`npm run build` → `dist/`):
 *
 * - library, ESM (`.js`) + CJS (`.cjs`) + types (`.d.ts` / `.d.cts`), code-split so that the
 *   runtime and each codec exist once and are shared by every entry:
 *   - `dist/index`            ← `src/index.ts` (package root: every codec + `messages` + errors)
 *   - `dist/runtime`          ← `src/runtime/index.ts` (`kafka-wire/runtime`)
 *   - `dist/records`          ← `src/records/index.ts` (`kafka-wire/records`: record batches)
 *   - `dist/messages/<Name>`  ← `generated/<Name>.ts` (`kafka-wire/messages/<Name>`: one codec
 *     and its struct types, without the other codecs)
 * - CLI, ESM only: `dist/cli.js` ← `src/cli.ts`, starting `#!/usr/bin/env node` (package `bin`).
 *   It bundles the generator (loaded lazily, in its own chunk) and imports the codecs from the
 *   library's `./index.js` at run time: the same specifier that finds `src/index.ts` next to
 *   `src/cli.ts` in the repository finds `dist/index.js` next to `dist/cli.js`.
 *
 * Dependencies (lossless-json, commander, prettier, ts-morph, jsonc-parser) stay external.
 * The library is built for the `neutral` platform, so a Node.js import (e.g. the generator's
 * `node:fs`) reaching it fails the build instead of shipping.
 */

import { readdirSync, rmSync } from "node:fs";
import path from "node:path";
import { defineConfig, type Options } from "tsup";

/** esbuild's plugin type, as tsup takes it (esbuild itself is only tsup's dependency). */
type EsbuildPlugin = NonNullable<Options["esbuildPlugins"]>[number];

/** `generated/<Name>.ts` → entry `messages/<Name>` (every generated module but the index). */
function messageEntries(): Record<string, string> {
  const entries: Record<string, string> = {};
  for (const file of readdirSync("generated").sort()) {
    if (file.endsWith(".ts") && !file.endsWith(".d.ts") && file !== "index.ts") {
      entries[`messages/${file.slice(0, -3)}`] = `generated/${file}`;
    }
  }
  if (Object.keys(entries).length === 0) throw new Error("generated/ has no codecs: run `npm run generate` first");
  return entries;
}

/** Keeps the CLI's `import("./index.js")` (the package root) external instead of bundling the codecs again. */
const packageRootExternal: EsbuildPlugin = {
  name: "kafka-wire-package-root-external",
  setup(build) {
    const cli = path.resolve("src/cli.ts");
    build.onResolve({ filter: /^\.\/index\.js$/ }, (args) =>
      path.resolve(args.importer) === cli ? { path: "./index.js", external: true } : undefined,
    );
  },
};

export default defineConfig((overrides): Options[] => {
  // Both builds write into dist/ concurrently, so clean once here rather than per build.
  if (overrides.watch === undefined || overrides.watch === false) rmSync("dist", { recursive: true, force: true });

  const library: Options = {
    entry: {
      index: "src/index.ts",
      runtime: "src/runtime/index.ts",
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

  const cli: Options = {
    entry: { cli: "src/cli.ts" },
    format: ["esm"],
    platform: "node",
    target: "node20",
    dts: false,
    splitting: true,
    clean: false,
    // The `#!/usr/bin/env node` line comes from src/cli.ts itself: esbuild keeps an entry's
    // hashbang, whereas a `banner` would also be stamped on the lazily loaded chunks.
    esbuildPlugins: [packageRootExternal],
  };

  return [library, cli];
});
