/**
 * kafka-wire-proxy end to end, in one process: the example broker (examples/broker), the proxy
 * in front of it with the tenant filter (tenant.ts) and the JSON-lines log on stdout, and kafkajs
 * producing two records to `orders` and consuming them back through the proxy. The broker stores
 * them in `acme.orders`.
 *
 *   npx tsx examples/proxy/demo.ts --schemas ../shared/kafka-schemas/clients [--records]
 *   npx tsx examples/proxy/demo.ts --kafka 4.1.0
 *
 * The codecs come from the CLI's codec cache (cli/codecs.ts), generated on first use.
 */

import { parseArgs } from "node:util";
import { Kafka, logLevel } from "kafkajs";
import { loadSchemaSet } from "../../cli/codecs.js";
import { formatLogLine, startProxy } from "../../proxy/src/index.js";
import { startCluster } from "../../broker/src/index.js";
import { tenantTopics } from "./tenant.js";

const { values } = parseArgs({
  options: { schemas: { type: "string", multiple: true }, kafka: { type: "string" }, records: { type: "boolean" } },
});
if (values.schemas === undefined && values.kafka === undefined) {
  throw new Error("give --schemas <Kafka's schema folder> or --kafka <version>");
}
const { codecs } = await loadSchemaSet({
  cwd: process.cwd(),
  ...(values.schemas === undefined ? {} : { schemas: values.schemas }),
  ...(values.kafka === undefined ? {} : { kafka: values.kafka }),
  onStatus: (line) => console.error(line),
});
const protocol = codecs.protocol!;

const broker = await startCluster({
  protocol,
  topics: { "acme.orders": 1 },
  initialRebalanceDelayMs: 0,
});
const proxy = await startProxy({
  upstream: broker.bootstrap,
  protocol,
  filters: tenantTopics("acme."),
  log: (entry) => console.log(formatLogLine(entry)),
  records: values.records === true,
});
console.error(`broker ${broker.bootstrap}, proxy ${proxy.bootstrap}`);

const kafka = new Kafka({ clientId: "demo", brokers: [proxy.bootstrap], logLevel: logLevel.NOTHING });
try {
  const producer = kafka.producer({ allowAutoTopicCreation: false });
  await producer.connect();
  await producer.send({
    topic: "orders",
    messages: [
      { key: "o-1", value: "2 apples" },
      { key: "o-2", value: "1 pear" },
    ],
  });
  await producer.disconnect();

  const consumer = kafka.consumer({ groupId: "shop", maxWaitTimeInMs: 100 });
  await consumer.connect();
  await consumer.subscribe({ topics: ["orders"], fromBeginning: true });
  const seen: string[] = [];
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`consumed only ${seen.length} records in 30 s`)), 30_000);
    void consumer
      .run({
        eachMessage: async ({ topic, message }) => {
          seen.push(`${topic} ${message.key} ${message.value}`);
          if (seen.length === 2) {
            clearTimeout(timer);
            resolve();
          }
        },
      })
      .catch(reject);
  });
  await consumer.disconnect();
  console.error(`kafkajs consumed: ${seen.join("; ")}`);
} finally {
  await proxy.close();
  await broker.close();
}
