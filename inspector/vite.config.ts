/**
 * Builds the page into dist/: one classic script (an IIFE, not an ES module) and a stylesheet,
 * linked relatively, so that dist/index.html opens from file:// (Chromium refuses module scripts
 * there) as well as from any static server.
 */
import { defineConfig, type Plugin } from "vite";

/** `<script type="module" crossorigin>` → `<script defer>`: the bundle is an IIFE. */
function classicScript(): Plugin {
  return {
    name: "kafka-wire-inspector:classic-script",
    enforce: "post",
    transformIndexHtml: (html) => html.replace(/<script type="module" crossorigin/g, "<script defer"),
  };
}

export default defineConfig({
  base: "./",
  plugins: [classicScript()],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
    modulePreload: false,
    rolldownOptions: { output: { format: "iife", codeSplitting: false } },
  },
});
