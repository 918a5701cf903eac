/**
 * `kafka-wire proxy`: runs kafka-wire-proxy (proxy/) in front of a Kafka cluster until SIGINT or
 * SIGTERM. The codecs come from `--kafka <version>` or `--schemas <dir>` (cli/codecs.ts'
 * `loadSchemaSet`, cached per user); the proxy package itself never loads the CLI or the
 * generator (imports go one way: this command -> kafka-wire-proxy -> the library), and it is
 * loaded only when this command runs.
 *
 * stdout: the protocol log (`--log jsonl`, one JSON object per line); stderr: status lines.
 */

import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Command } from "commander";

interface ProxyFlags {
  readonly upstream: string;
  readonly listen: string;
  readonly advertisedHost?: string;
  readonly log?: string;
  readonly records?: boolean;
  readonly filters?: string;
  readonly maxFrameSize?: string;
  readonly schemas?: readonly string[];
  readonly kafka?: string;
  readonly kafkaSource?: string;
  readonly kafkaMirror?: string;
  readonly cacheDir?: string;
}

/** Registers `kafka-wire proxy`. */
export function registerProxy(program: Command): void {
  program
    .command("proxy")
    .description(
      "run a Kafka proxy: clients connect to it, it forwards to the cluster, rewriting broker addresses to its own listeners; --log jsonl logs every request and response as Kafka JSON",
    )
    .requiredOption("--upstream <host:port>", "the cluster's bootstrap broker")
    .option(
      "--listen <host:port>",
      "the first listener (the bootstrap broker's); one more per broker, on ephemeral ports",
      "127.0.0.1:19092",
    )
    .option("--advertised-host <host>", "the host the proxy names for its listeners (default the listen host)")
    .option("--log <format>", "log every request and response on stdout: jsonl")
    .option("--records", "log the records inside Produce and Fetch (else a summary of each record batch)")
    .option(
      "--filters <module>",
      "a module whose default export is a Filters (or a function of the protocol returning one)",
    )
    .option("--max-frame-size <bytes>", "the largest frame accepted from either side (default 104857600)")
    .option(
      "--schemas <path...>",
      "codecs of these schema files or folders (Kafka's clients/src/main/resources/common/message)",
    )
    .option("--kafka <version>", "codecs of a Kafka release's schemas (downloaded and cached), e.g. 4.1.0")
    .option("--kafka-source <path>", "codecs of a local Kafka source archive (.tgz) or checkout")
    .option("--kafka-mirror <url>", "base URL holding <version>/kafka-<version>-src.tgz (default Apache's archive)")
    .option("--cache-dir <dir>", "cache folder (default $KAFKA_WIRE_CACHE_DIR, else ~/.cache/kafka-wire)")
    .addHelpText(
      "after",
      "\nWithout --schemas/--kafka every frame passes through unread (api key, version and correlation id logged)\n" +
        "and broker addresses are not rewritten, so clients reach the brokers directly after bootstrap.\n\n" +
        "Example:\n  kafka-wire proxy --upstream broker:9092 --listen 127.0.0.1:19092 --kafka 4.1.0 --log jsonl",
    )
    .action(async (flags: ProxyFlags) => {
      await runProxy(flags);
    });
}

async function runProxy(flags: ProxyFlags): Promise<void> {
  const status = (line: string): void => void process.stderr.write(`${line}\n`);
  if (flags.log !== undefined && flags.log !== "jsonl")
    throw new Error(`--log takes jsonl, got ${JSON.stringify(flags.log)}`);
  if (flags.records === true && flags.log === undefined) throw new Error("--records needs --log jsonl");
  let maxFrameSize: number | undefined;
  if (flags.maxFrameSize !== undefined) {
    maxFrameSize = Number(flags.maxFrameSize);
    if (!Number.isInteger(maxFrameSize) || maxFrameSize <= 0)
      throw new Error(`--max-frame-size must be a positive integer, got ${flags.maxFrameSize}`);
  }
  const cwd = process.cwd();
  const fromKafka = flags.kafka !== undefined || flags.kafkaSource !== undefined;
  if (fromKafka && flags.schemas !== undefined)
    throw new Error("--schemas cannot be combined with --kafka or --kafka-source");
  let protocol;
  if (fromKafka || flags.schemas !== undefined) {
    const { loadSchemaSet } = await import("../codecs.js");
    const loaded = await loadSchemaSet({
      cwd,
      ...(flags.schemas === undefined ? {} : { schemas: flags.schemas }),
      ...(flags.kafka === undefined ? {} : { kafka: flags.kafka }),
      ...(flags.kafkaSource === undefined ? {} : { kafkaSource: flags.kafkaSource }),
      ...(flags.kafkaMirror === undefined ? {} : { kafkaMirror: flags.kafkaMirror }),
      ...(flags.cacheDir === undefined ? {} : { cacheDir: flags.cacheDir }),
      onStatus: status,
    });
    protocol = loaded.codecs.protocol;
    if (protocol === undefined)
      throw new Error("the schema set has no RequestHeader and ResponseHeader schemas: the proxy cannot read frames");
  } else {
    status("no --schemas or --kafka: every frame passes through unread, and broker addresses are not rewritten");
  }
  const proxyModule = await import("../../proxy/src/index.js");
  let filters;
  if (flags.filters !== undefined) {
    if (protocol === undefined) throw new Error("--filters needs the codecs: give --schemas or --kafka");
    const mod = (await import(pathToFileURL(path.resolve(cwd, flags.filters)).href)) as { default?: unknown };
    const made = typeof mod.default === "function" ? (mod.default as (p: unknown) => unknown)(protocol) : mod.default;
    // By shape, not instanceof: the module may have its own copy of kafka-wire-proxy (the CLI bundles one).
    const shaped = made as { requests?: unknown; responses?: unknown } | null;
    if (
      typeof shaped !== "object" ||
      shaped === null ||
      !(shaped.requests instanceof Map) ||
      !(shaped.responses instanceof Map)
    ) {
      throw new Error(`${flags.filters}: its default export is not a Filters (or a function returning one)`);
    }
    filters = made as InstanceType<typeof proxyModule.Filters>;
  }
  let records: boolean | { codecs: unknown } | undefined;
  if (flags.records === true) {
    try {
      const { codecs } = await import("kafka-wire-compression");
      records = { codecs };
    } catch {
      records = true; // gzip still decodes (the platform's); snappy, lz4 and zstd batches show an error
    }
  }
  const out = process.stdout;
  const proxy = await proxyModule.startProxy({
    upstream: flags.upstream,
    listen: flags.listen,
    ...(flags.advertisedHost === undefined ? {} : { advertisedHost: flags.advertisedHost }),
    ...(protocol === undefined ? {} : { protocol }),
    ...(filters === undefined ? {} : { filters }),
    ...(flags.log === undefined ? {} : { log: (e) => void out.write(`${proxyModule.formatLogLine(e)}\n`) }),
    ...(records === undefined ? {} : { records: records as boolean }),
    ...(maxFrameSize === undefined ? {} : { maxFrameSize }),
  });
  status(`listening on ${proxy.bootstrap}, forwarding to ${flags.upstream}`);
  await new Promise<void>((resolve) => {
    const stop = (signal: string): void => {
      status(`${signal}: closing`);
      process.off("SIGINT", onInt);
      process.off("SIGTERM", onTerm);
      void proxy.close().then(resolve);
    };
    const onInt = (): void => stop("SIGINT");
    const onTerm = (): void => stop("SIGTERM");
    process.on("SIGINT", onInt);
    process.on("SIGTERM", onTerm);
  });
}
