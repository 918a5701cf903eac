/**
 * Build of `kafka-wire-broker` (`dist/index.js`, ESM, Node 20+): the broker's sources and the
 * parts of the library they use (`../src/records`, `../src/runtime`), bundled. Its dependencies
 * (kafka-wire-cli for the codec cache, kafka-wire-compression) stay external. `kafka/` is only
 * ever imported as types, so the build holds no code generated from Kafka's schemas.
 */

import { defineConfig } from "tsup";

export default defineConfig({
  entry: { index: "src/index.ts" },
  format: ["esm"],
  platform: "node",
  target: "node20",
  dts: false,
  clean: true,
});
