/**
 * Runs the example broker (broker.ts) on its own:
 *
 *   npx tsx examples/broker/main.ts --schemas ../shared/kafka-schemas [--port 9092] [--topic name:partitions]...
 *   npx tsx examples/broker/main.ts --generated <folder with a generated index.ts>
 *
 * With `--schemas`, the codecs of the APIs it handles (and the request/response headers) are
 * generated from Kafka's schema files by kafka-wire's generator into
 * `node_modules/.cache/kafka-wire-broker/<hash of the schema files>/`, once. It prints
 * `bootstrap=<host:port>` when it listens, one line per request with `--verbose`, and stops on
 * SIGINT, SIGTERM or when stdin closes.
 */

import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, rename, rm } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { codecs } from "kafka-wire-compression";
import { findSchemaFiles, generate } from "../../generator/generate.js";
import type { Protocol } from "../../src/runtime/index.js";
import { API_KEYS, startBroker } from "./broker.js";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** The schema files the broker needs: both headers and each handled API's request and response. */
const SCHEMA_NAMES = new Set([
  "RequestHeader",
  "ResponseHeader",
  ...Object.keys(API_KEYS).flatMap((api) => [`${api}Request`, `${api}Response`]),
]);

/** Generates (once per set of schema files) the codecs the broker needs; returns the folder. */
export async function generateBrokerCodecs(schemasDir: string): Promise<string> {
  const files = (await findSchemaFiles(schemasDir)).filter((f) => SCHEMA_NAMES.has(path.basename(f, ".json"))).sort();
  const found = new Set(files.map((f) => path.basename(f, ".json")));
  const missing = [...SCHEMA_NAMES].filter((n) => !found.has(n));
  if (missing.length > 0) throw new Error(`${schemasDir} lacks ${missing.join(", ")}`);
  const hash = createHash("sha256");
  hash.update(await readFile(path.join(REPO, "package.json")));
  for (const f of files) hash.update(path.basename(f)).update(await readFile(f));
  const out = path.join(REPO, "node_modules", ".cache", "kafka-wire-broker", hash.digest("hex").slice(0, 16));
  if (existsSync(path.join(out, "index.ts"))) return out;
  // Generate beside it and rename, so that a concurrent run never sees half-written files.
  const temp = `${out}.${process.pid}.tmp`;
  await mkdir(temp, { recursive: true });
  const runtimeImport = path
    .relative(out, path.join(REPO, "src", "codegen", "v1.js"))
    .split(path.sep)
    .join("/");
  await generate({ schemas: files, out: temp, runtimeImport, cwd: REPO });
  await rename(temp, out).catch(async (e: NodeJS.ErrnoException) => {
    await rm(temp, { recursive: true, force: true });
    if (!existsSync(path.join(out, "index.ts"))) throw e;
  });
  return out;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      schemas: { type: "string" },
      generated: { type: "string" },
      host: { type: "string", default: "127.0.0.1" },
      port: { type: "string", default: "0" },
      topic: { type: "string", multiple: true, default: [] },
      verbose: { type: "boolean", default: false },
    },
  });
  if ((values.schemas === undefined) === (values.generated === undefined)) {
    throw new Error("give either --schemas <Kafka's schema folder> or --generated <folder with a generated index.ts>");
  }
  const folder = values.generated ?? (await generateBrokerCodecs(values.schemas!));
  const { protocol } = (await import(pathToFileURL(path.join(folder, "index.ts")).href)) as { protocol?: Protocol };
  if (protocol === undefined)
    throw new Error(`${folder}/index.ts exports no protocol (RequestHeader and ResponseHeader are needed)`);
  const topics = values.topic.map((t) => {
    const [name, partitions] = t.split(":");
    return { name: name!, partitions: Number(partitions ?? 1) };
  });
  const broker = await startBroker({
    protocol,
    host: values.host,
    port: Number(values.port),
    topics,
    codecs,
    log: (line) => console.error(line),
    onExchange: values.verbose
      ? (e) =>
          console.error(
            `#${e.connection} ${protocol.apis.get(e.apiKey)?.name ?? e.apiKey} v${e.apiVersion}${e.error ? ` failed: ${e.error.message}` : ""}`,
          )
      : undefined,
  });
  console.log(`bootstrap=${broker.bootstrap}`);
  const stop = () => void broker.close().then(() => process.exit(0));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  process.stdin.once("end", stop).resume();
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((e: Error) => {
    console.error(e.message);
    process.exit(1);
  });
}
