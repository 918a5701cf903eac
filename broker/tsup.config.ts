/**
 * Build of `kafka-wire-broker` (`dist/index.js`, and the test runners' helpers `dist/vitest.js`
 * and `dist/node-test.js`; ESM, Node 20+): the broker's sources and the
 * parts of the library they use (`../src/records`, `../src/runtime`), bundled. Its dependencies
 * (kafka-wire-cli for the codec cache, kafka-wire-compression) and the optional peer vitest stay
 * external. `kafka/` is only
 * ever imported as types, so the build holds no code generated from Kafka's schemas.
 */

import { defineConfig } from "tsup";

export default defineConfig({
  entry: { index: "src/index.ts", vitest: "src/vitest.ts", "node-test": "src/node-test.ts" },
  format: ["esm"],
  platform: "node",
  target: "node20",
  dts: false,
  clean: true,
  // `node:test` exists only by that name: tsup would strip the prefix by default.
  removeNodeProtocol: false,
});
