/**
 * Generates the TypeScript codecs of Apache Kafka's client messages into `broker/kafka/` (ignored
 * by git: the repository holds no copy of Kafka's schemas nor of code generated from them). The
 * broker's handlers take only their types from there (`import type`); at run time the codecs
 * come from the caller (`startCluster({ protocol })`) or from the CLI's codec cache.
 *
 *   npx tsx broker/scripts/kafka-types.ts                       # ../shared/kafka-schemas (default)
 *   npx tsx broker/scripts/kafka-types.ts --schemas <folder>    # any copy of Kafka's message schemas
 *   npx tsx broker/scripts/kafka-types.ts --kafka 4.1.0         # a release, downloaded and cached by the CLI
 *
 * The schema folder may also come from `$KAFKA_WIRE_BROKER_SCHEMAS`. Unchanged files are not
 * rewritten (the generator compares what it emits with each file), so running it again is cheap. With no schemas
 * available it says so and exits 0 when `--if-available` is given (an npm `prepare` on a clone
 * without ../shared must not fail the install), else 1.
 */

import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { generate } from "../../generator/generate.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "../..");
const out = path.join(repo, "broker", "kafka");

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      schemas: { type: "string" },
      kafka: { type: "string" },
      "if-available": { type: "boolean", default: false },
    },
  });
  let schemas = values.schemas ?? process.env["KAFKA_WIRE_BROKER_SCHEMAS"];
  let cleanup = async (): Promise<void> => {};
  if (values.kafka !== undefined) {
    const { resolveKafkaSchemas } = await import("../../cli/kafka-release.js");
    const release = await resolveKafkaSchemas({ version: values.kafka, cwd: process.cwd(), onStatus: console.error });
    cleanup = release.cleanup;
    schemas = release.folders.find((f) => f.label.includes("clients"))?.path ?? release.folders[0]?.path;
  }
  schemas ??= path.resolve(repo, "../shared/kafka-schemas/clients");
  if (!existsSync(schemas)) {
    console.error(
      `kafka-wire-broker: no Kafka schemas at ${schemas}, so broker/kafka/ (the handlers' types) is not generated; ` +
        "give --schemas <folder> or --kafka <version> (see broker/README.md)",
    );
    return values["if-available"] ? 0 : 1;
  }
  try {
    const started = Date.now();
    const result = await generate({
      schemas: [schemas],
      out,
      // The library's sources, relatively: this folder is only ever type-checked in the repository.
      runtimeImport: "../../src/codegen/v1.js",
      cwd: repo,
      command: "npx tsx broker/scripts/kafka-types.ts",
    });
    const written = result.files.filter((f) => f.status === "written").length;
    console.error(
      `kafka-wire-broker: broker/kafka/ has ${result.messages.length} messages of ${path.relative(process.cwd(), schemas) || "."} ` +
        `(${written} files written, ${Date.now() - started} ms)`,
    );
    return 0;
  } finally {
    await cleanup();
  }
}

main().then(
  (code) => (process.exitCode = code),
  (error: Error) => {
    console.error(`kafka-wire-broker: ${error.message}`);
    process.exitCode = 1;
  },
);
