/**
 * Build of the command-line package `kafka-wire-cli` (`cli/dist/cli.js`, ESM, Node 20+).
 *
 * It bundles the command (`cli/`), the generator (`../generator/`, loaded lazily in its own
 * chunk) and the library's shipped codecs (`../src/`, loaded only by decode/encode/list). Its npm
 * dependencies (commander, prettier, jsonc-parser, tar, lossless-json) stay external. The
 * `#!/usr/bin/env node` line comes from `cli.ts` itself: esbuild keeps an entry's hashbang,
 * whereas a `banner` would also be stamped on the lazily loaded chunks.
 */

import { rmSync } from "node:fs";
import { defineConfig, type Options } from "tsup";

export default defineConfig((overrides): Options => {
  if (overrides.watch === undefined || overrides.watch === false) rmSync("dist", { recursive: true, force: true });
  return {
    entry: { cli: "cli.ts" },
    format: ["esm"],
    platform: "node",
    target: "node20",
    dts: false,
    splitting: true,
    clean: false,
  };
});
