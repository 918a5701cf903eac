/**
 * Builds assets/schemas.js, the generator's schema front end and table emitter for a user's
 * schema files (see src/user-schemas.ts): an IIFE that sets `globalThis.kafkaWireInspectorSchemas`.
 * The front end's two Node.js imports are replaced by what it uses of them. Runs after vite.config.ts.
 */
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

const shim = (name: string): string => fileURLToPath(new URL(`src/shims/${name}.ts`, import.meta.url));

export default defineConfig({
  resolve: { alias: { "node:fs": shim("node-fs"), "node:path": shim("node-path") } },
  build: {
    outDir: "dist/assets",
    emptyOutDir: false,
    target: "es2022",
    lib: {
      entry: "src/user-schemas.ts",
      formats: ["iife"],
      name: "kafkaWireInspectorSchemas",
      fileName: () => "schemas.js",
    },
  },
});
