/**
 * Property tests over every message × version of Apache Kafka's schemas (754 message-versions),
 * with arbitraries derived from the schema model, against codecs generated at test time.
 * KAFKA_WIRE_CORPUS_RUNS sets the runs per version (default keeps CI within budget).
 */

import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe } from "vitest";
import { loadSchemaFile } from "../generator/schema/load.js";
import type { MessageCodec } from "../src/runtime/index.js";
import { corpusCodec } from "./support/corpus.js";
import { roundTripTests } from "./support/roundtrip.js";
import { describeShared } from "./support/shared.js";

const RUNS = Number(process.env["KAFKA_WIRE_CORPUS_RUNS"] ?? 25);

function schemaFiles(dir: string): string[] {
  return readdirSync(dir)
    .flatMap((name) => {
      const full = path.join(dir, name);
      return statSync(full).isDirectory() ? schemaFiles(full) : name.endsWith(".json") ? [full] : [];
    })
    .sort();
}

describeShared("properties of every Kafka message and version", "kafka-schemas", (dir) => {
  for (const file of schemaFiles(dir)) {
    const spec = loadSchemaFile(file);
    describe(spec.name, () => {
      let codec: MessageCodec<unknown>;
      beforeAll(async () => {
        codec = await corpusCodec(spec.name);
      });
      roundTripTests(spec, () => codec, RUNS);
    });
  }
});
