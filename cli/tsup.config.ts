/**
 * Build of the command-line package `kafka-wire-cli` (`cli/dist/cli.js`, ESM, Node 20+).
 *
 * It bundles the command (`cli/`), the generator (`../generator/`, loaded lazily in its own
 * chunk) and the library's shipped codecs (`../src/`, loaded only by decode/encode/list), and
 * `dist/codegen-v1.js`, what the codecs of a user's schema set import. Its npm dependencies
 * (commander, jsonc-parser, tar, esbuild, lossless-json) stay external. The
 * `#!/usr/bin/env node` line comes from `cli.ts` itself: esbuild keeps an entry's hashbang,
 * whereas a `banner` would also be stamped on the lazily loaded chunks.
 */

import { rmSync } from "node:fs";
import { defineConfig, type Options } from "tsup";

export default defineConfig((overrides): Options => {
  if (overrides.watch === undefined || overrides.watch === false) rmSync("dist", { recursive: true, force: true });
  return {
    // codegen-v1: the runtime's codegen interface, for the codecs `--schemas`/`--kafka` compile
    // into the cache (they import it by file URL; see codecs.ts). It shares the runtime's chunk
    // with the shipped codecs, so every codec uses one copy of the runtime.
    // codecs: the codec cache, for kafka-wire-broker (`kafka-wire-cli/codecs`).
    entry: { cli: "cli.ts", "codegen-v1": "../src/codegen/v1.ts", codecs: "codecs.ts" },
    format: ["esm"],
    platform: "node",
    target: "node20",
    dts: false,
    splitting: true,
    clean: false,
    // Loaded by package name at run time (cli/commands/broker.ts). Without this, esbuild bundles
    // kafka-wire-broker whenever broker/dist exists (any build after the first), and fails on the
    // broker's own import of kafka-wire-cli/codecs, which this build has just cleaned.
    external: ["kafka-wire-broker"],
  };
});
