/**
 * Property tests of the four seed messages (schemas/), with arbitraries derived from the
 * generator's schema model, against the committed generated/ codecs.
 */

import { readdirSync } from "node:fs";
import path from "node:path";
import { describe } from "vitest";
import { loadSchemaFile } from "../generator/schema/load.js";
import { messages } from "../generated/index.js";
import type { MessageCodec } from "../src/runtime/index.js";
import config from "../kafka-wire.config.json" with { type: "json" };
import { roundTripTests } from "./support/roundtrip.js";
import { REPO_ROOT } from "./support/shared.js";

const RUNS = Number(process.env["KAFKA_WIRE_RUNS"] ?? 300);
const schemaDir = path.join(REPO_ROOT, "schemas");

for (const file of readdirSync(schemaDir)
  .filter((f) => f.endsWith(".json"))
  .sort()) {
  const spec = loadSchemaFile(path.join(schemaDir, file), { apiKeys: config.apiKeys });
  describe(`${spec.name} properties`, () => {
    roundTripTests(spec, () => (messages as Record<string, MessageCodec<unknown>>)[spec.name]!, RUNS);
  });
}
