/**
 * `kafka-wire broker`: runs a Kafka cluster (kafka-wire-broker) until SIGINT, SIGTERM or the end
 * of stdin, printing its bootstrap address first (and, with --control-port, the URL of its HTTP control:
 * kafka-wire-broker's startControlServer).
 *
 * The broker package depends on this one (for the codec cache, `kafka-wire-cli/codecs`), so this
 * command imports it dynamically, by package name: the CLI has no dependency on it (an optional
 * peer), and without it installed the command says how to get it.
 */

import type { Command } from "commander";
import { loadSchemaSet } from "../codecs.js";

interface BrokerFlags {
  readonly brokers: string;
  readonly topic: string[];
  readonly port?: string;
  readonly controlPort?: string;
  readonly requestLog?: string;
  readonly host: string;
  readonly autoCreateTopics: boolean;
  readonly numPartitions: string;
  readonly schemas?: string[];
  readonly kafka?: string;
  readonly kafkaSource?: string;
  readonly kafkaMirror?: string;
  readonly cacheDir?: string;
  readonly verbose?: boolean;
  readonly user: string[];
}

/** `name:partitions` (partitions default 1), as `--topic` takes it. */
function parseTopic(text: string): [string, number] {
  const m = /^([^:]+)(?::(\d+))?$/.exec(text);
  if (m === null) throw new Error(`--topic takes name[:partitions], not "${text}"`);
  return [m[1]!, m[2] === undefined ? 1 : Number(m[2])];
}

function integer(name: string, text: string, min: number, max: number): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < min || n > max)
    throw new Error(`${name} takes an integer ${min}..${max}, not "${text}"`);
  return n;
}

async function brokerCommand(flags: BrokerFlags): Promise<void> {
  const brokers = integer("--brokers", flags.brokers, 1, 64);
  const topics = Object.fromEntries(flags.topic.map(parseTopic));
  const users: Record<string, string> = {};
  for (const u of flags.user) {
    const at = u.indexOf(":");
    if (at <= 0) throw new Error(`--user takes name:password, not "${u}"`);
    users[u.slice(0, at)] = u.slice(at + 1);
  }
  const firstPort = flags.port === undefined ? undefined : integer("--port", flags.port, 0, 65535);
  const controlPort =
    flags.controlPort === undefined ? undefined : integer("--control-port", flags.controlPort, 0, 65535);
  if (flags.schemas === undefined && flags.kafka === undefined && flags.kafkaSource === undefined) {
    throw new Error(
      "the broker needs Kafka's codecs: give --kafka <version> (e.g. 4.1.0) or --schemas <Kafka's message schema folder>",
    );
  }
  let mod: typeof import("kafka-wire-broker");
  try {
    mod = await import("kafka-wire-broker");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ERR_MODULE_NOT_FOUND") {
      throw new Error(
        "`kafka-wire broker` needs the kafka-wire-broker package: npm install --save-dev kafka-wire-broker",
      );
    }
    throw error;
  }
  const set = await loadSchemaSet({
    cwd: process.cwd(),
    ...(flags.schemas === undefined ? {} : { schemas: flags.schemas }),
    ...(flags.kafka === undefined ? {} : { kafka: flags.kafka }),
    ...(flags.kafkaSource === undefined ? {} : { kafkaSource: flags.kafkaSource }),
    ...(flags.kafkaMirror === undefined ? {} : { kafkaMirror: flags.kafkaMirror }),
    ...(flags.cacheDir === undefined ? {} : { cacheDir: flags.cacheDir }),
    onStatus: (line) => process.stderr.write(`${line}\n`),
  });
  const protocol = set.codecs.protocol;
  if (protocol === undefined) {
    throw new Error("the schema set has no RequestHeader/ResponseHeader schemas: give Kafka's clients message schemas");
  }
  const cluster = await mod.startCluster({
    protocol,
    brokers,
    topics,
    host: flags.host,
    autoCreateTopics: flags.autoCreateTopics,
    numPartitions: integer("--num-partitions", flags.numPartitions, 1, 1000),
    ...(flags.requestLog === undefined
      ? {}
      : { requestLog: { size: integer("--request-log", flags.requestLog, 1, 100_000) } }),
    ...(flags.user.length === 0 ? {} : { sasl: { users } }),
    // --port P: the brokers listen on P, P+1, ...
    ...(firstPort === undefined || firstPort === 0
      ? {}
      : { ports: Array.from({ length: brokers }, (_, i) => firstPort + i) }),
    log: (line) => process.stderr.write(`${line}\n`),
    ...(flags.verbose === true
      ? {
          onExchange: (e) =>
            process.stderr.write(
              `node ${e.nodeId} #${e.connection} ${protocol.apis.get(e.apiKey)?.name ?? e.apiKey} v${e.apiVersion}` +
                `${e.error === null ? "" : ` failed: ${e.error.message}`}\n`,
            ),
        }
      : {}),
  });
  // The control server listens on 127.0.0.1 whatever --host says (startControlServer is loopback only).
  let control: Awaited<ReturnType<typeof mod.startControlServer>> | undefined;
  try {
    if (controlPort !== undefined) control = await mod.startControlServer(cluster, { port: controlPort });
  } catch (error) {
    await cluster.close();
    throw error;
  }
  process.stdout.write(`bootstrap=${cluster.bootstrap}\n`);
  if (control !== undefined) process.stdout.write(`control=${control.url}\n`);
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      process.stdin.off("end", stop).off("close", stop).pause();
      resolve();
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
    process.stdin.once("end", stop).once("close", stop).resume();
  });
  await control?.close();
  await cluster.close();
  // stdin stays referenced by the event loop even when paused; the command is over.
  process.stdin.destroy();
}

/** Registers `broker` on the program. */
export function registerBroker(program: Command): void {
  program
    .command("broker")
    .description(
      "run an in-memory Kafka cluster on loopback for testing (kafka-wire-broker): prints bootstrap=<host:port,...> and runs until SIGINT, SIGTERM or stdin closes",
    )
    .option("--brokers <n>", "number of broker nodes, each with its own listener", "1")
    .option(
      "--topic <name:partitions>",
      "a topic to create at start (repeatable)",
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option("--port <port>", "the first broker's port; the others take the next ones (default: ephemeral ports)")
    .option(
      "--control-port <port>",
      "serve the cluster's fault control and inspection as JSON over HTTP on 127.0.0.1:<port> (0: a free port) and print control=<url> after the bootstrap",
    )
    .option(
      "--request-log <entries>",
      "keep the newest <entries> requests and responses as Kafka's JSON, served at <control>/log",
    )
    .option("--host <address>", "a loopback address to listen on", "127.0.0.1")
    .option("--no-auto-create-topics", "answer Metadata for unknown topics with UNKNOWN_TOPIC_OR_PARTITION")
    .option("--num-partitions <n>", "partitions of auto-created topics (Kafka's num.partitions)", "1")
    .option("--schemas <path...>", "Kafka's message schema files or folders (the codecs are generated and cached)")
    .option("--kafka <version>", "use the schemas of a Kafka release (downloaded and cached), e.g. 4.1.0")
    .option("--kafka-source <path>", "use the schemas of a local Kafka source archive (.tgz) or checkout")
    .option("--kafka-mirror <url>", "base URL holding <version>/kafka-<version>-src.tgz (default Apache's archive)")
    .option("--cache-dir <dir>", "cache folder (default $KAFKA_WIRE_CACHE_DIR, else ~/.cache/kafka-wire)")
    .option(
      "--user <name:password>",
      "require SASL (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512) and accept this user (repeatable)",
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option("--verbose", "print one line per request on stderr")
    .addHelpText(
      "after",
      "\nExamples:\n  kafka-wire broker --kafka 4.1.0 --brokers 3 --topic orders:6\n" +
        "  kafka-wire broker --schemas kafka/clients/src/main/resources/common/message --topic demo:2 --verbose\n" +
        "  kafka-wire broker --kafka 4.1.0 --topic orders:3 --control-port 0   # then: curl -X POST <control>/fail -d '{...}'\n\n" +
        "A test double, not a production broker: in memory, loopback only. See kafka-wire-broker's README\n" +
        "for the APIs and versions it serves.",
    )
    .action(async (flags: BrokerFlags) => {
      await brokerCommand(flags);
    });
}
