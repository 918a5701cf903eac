/**
 * Build of kafka-wire-compression (`npm run build -w compression` → `compression/dist/`): ESM +
 * CJS + types, for Node (`index`, with node:zlib gzip) and browsers (`index.browser`).
 * kafka-wire and the codec packages stay external. @bokuweb/zstd-wasm's zstd.wasm is copied
 * beside the bundles: the browser build fetches `new URL("./zstd.wasm", import.meta.url)`, which
 * bundlers follow (the Node build reads the installed package's own copy).
 */
import { copyFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { defineConfig } from "tsup";

export default defineConfig({
  entry: { index: "src/index.ts", "index.browser": "src/index.browser.ts" },
  format: ["esm", "cjs"],
  platform: "neutral",
  target: "es2022",
  dts: true,
  clean: true,
  // import.meta.url in the CJS builds (zstd.wasm's location).
  shims: true,
  external: [
    "kafka-wire",
    "node:zlib",
    "node:fs/promises",
    "node:module",
    "node:path",
    "node:url",
    "snappyjs",
    "lz4js",
    "@bokuweb/zstd-wasm",
  ],
  async onSuccess() {
    const entry = createRequire(import.meta.url).resolve("@bokuweb/zstd-wasm");
    await copyFile(path.join(path.dirname(entry), "zstd.wasm"), "dist/zstd.wasm");
  },
});
