/**
 * Builds assets/compression.js, the snappy, lz4 and zstd codecs apart from the page (see
 * src/compression.ts): an IIFE that sets `globalThis.kafkaWireInspectorCompression`. Runs after
 * vite.config.ts (it keeps dist/). Library mode inlines zstd.wasm as a data: URL where
 * @bokuweb/zstd-wasm names it (`new URL("./zstd.wasm", import.meta.url)`); a classic script has no
 * `import.meta`, so the page's URL stands in as that URL's base (a data: URL needs none, but an
 * invalid base would throw).
 */
import { defineConfig } from "vite";

export default defineConfig({
  define: { "import.meta.url": "document.baseURI" },
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
