/**
 * Build of kafka-wire-compression (`npm run build -w compression` → `compression/dist/`): ESM +
 * CJS + types, for Node (`index`, with node:zlib gzip) and browsers (`index.browser`).
 * kafka-wire and the codec packages stay external.
 */
import { defineConfig } from "tsup";

export default defineConfig({
  entry: { index: "src/index.ts", "index.browser": "src/index.browser.ts" },
  format: ["esm", "cjs"],
  platform: "neutral",
  target: "es2022",
  dts: true,
  clean: true,
  external: ["kafka-wire", "node:zlib", "snappyjs", "lz4js", "@bokuweb/zstd-wasm"],
});
