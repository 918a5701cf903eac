/**
 * Builds assets/codecs.js, the generated codecs apart from the page (see src/codecs.ts): an IIFE
 * that sets `globalThis.kafkaWireInspectorCodecs`. Runs after vite.config.ts (it keeps dist/).
 */
import { defineConfig } from "vite";

export default defineConfig({
  build: {
    outDir: "dist/assets",
    emptyOutDir: false,
    target: "es2022",
    // One 1.5 MB script is what it is: it is loaded only for proxy logs.
    chunkSizeWarningLimit: 4096,
    lib: {
      entry: "src/codecs-entry.ts",
      formats: ["iife"],
      name: "kafkaWireInspectorCodecs",
      fileName: () => "codecs.js",
    },
  },
});
