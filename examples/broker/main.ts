/**
 * Runs the example broker (broker.ts) on its own:
 *
 *   npx tsx examples/broker/main.ts --schemas ../shared/kafka-schemas [--port 9092] [--topic name:partitions]...
 *   npx tsx examples/broker/main.ts --kafka 4.1.0 ...
 *   npx tsx examples/broker/main.ts --generated <folder with a generated index.ts> ...
 *
 * With `--schemas` or `--kafka`, the codecs come from the CLI's codec cache (cli/codecs.ts):
 * generated from the schema files once, then imported from the per-user cache folder. It prints
 * `bootstrap=<host:port>` when it listens, one line per request with `--verbose`, and stops on
 * SIGINT, SIGTERM or when stdin closes.
 */

import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { codecs } from "kafka-wire-compression";
import { loadSchemaSet } from "../../cli/codecs.js";
import type { Protocol } from "../../src/runtime/index.js";
import { startBroker } from "./broker.js";

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      schemas: { type: "string", multiple: true },
      kafka: { type: "string" },
      generated: { type: "string" },
      host: { type: "string", default: "127.0.0.1" },
      port: { type: "string", default: "0" },
      topic: { type: "string", multiple: true, default: [] },
      verbose: { type: "boolean", default: false },
    },
  });
  let protocol: Protocol | undefined;
  if (values.generated !== undefined) {
    ({ protocol } = (await import(pathToFileURL(path.join(path.resolve(values.generated), "index.ts")).href)) as {
      protocol?: Protocol;
    });
  } else if (values.schemas !== undefined || values.kafka !== undefined) {
    // The CLI's codec cache: generated once per schema set, then imported from the cache.
    const set = await loadSchemaSet({
      cwd: process.cwd(),
      ...(values.schemas === undefined ? {} : { schemas: values.schemas }),
      ...(values.kafka === undefined ? {} : { kafka: values.kafka }),
      onStatus: (line) => console.error(line),
    });
    protocol = set.codecs.protocol;
  } else {
    throw new Error(
      "give --schemas <Kafka's schema folder>, --kafka <version> or --generated <folder with a generated index.ts>",
    );
  }
  if (protocol === undefined)
    throw new Error("the codecs have no protocol (RequestHeader and ResponseHeader are needed)");
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
