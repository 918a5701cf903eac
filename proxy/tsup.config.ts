/**
 * Build of kafka-wire-proxy (`npm run build -w kafka-wire-proxy` → `proxy/dist/`): ESM + types,
 * Node 20+. The library's runtime and records are bundled in (as kafka-wire-cli bundles them):
 * the proxy takes its codecs (a generated index's `protocol`) from its caller and never relies on
 * `instanceof` across the two copies. lossless-json stays external.
 */
import { defineConfig } from "tsup";

export default defineConfig({
  entry: { index: "src/index.ts" },
  format: ["esm"],
  platform: "node",
  target: "node20",
  dts: true,
  clean: true,
  external: ["lossless-json"],
});
