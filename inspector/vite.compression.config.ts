/**
 * Builds assets/compression.js, the snappy, lz4 and zstd codecs apart from the page (see
 * src/compression.ts): an IIFE that sets `globalThis.kafkaWireInspectorCompression`. Runs after
 * vite.config.ts (it keeps dist/). @bokuweb/zstd-wasm's zstd.wasm is inlined as the data: URL
 * `ZSTD_WASM_URL`, which src/compression-entry.ts gives `initZstd`. A classic script has no
 * `import.meta`: the page's URL stands in as its URL (zstd-browser.ts's default, beside the
 * module, is never used here, but an invalid base would throw).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { defineConfig } from "vite";

/** zstd.wasm beside the package's Node entry (its `exports` name no other file). */
const zstdWasm = path.join(path.dirname(createRequire(import.meta.url).resolve("@bokuweb/zstd-wasm")), "zstd.wasm");

export default defineConfig({
  define: {
    "import.meta.url": "document.baseURI",
    ZSTD_WASM_URL: JSON.stringify(`data:application/wasm;base64,${readFileSync(zstdWasm).toString("base64")}`),
  },
  build: {
    outDir: "dist/assets",
    emptyOutDir: false,
    target: "es2022",
    lib: {
      entry: "src/compression-entry.ts",
      formats: ["iife"],
      name: "kafkaWireInspectorCompression",
      fileName: () => "compression.js",
    },
  },
});
