/**
 * A three-broker Kafka cluster in one call (kafka-wire-broker), a topic on it, and kafkajs
 * producing to and consuming from it: what an application's test does.
 *
 *   npx tsx examples/broker/main.ts --schemas ../shared/kafka-schemas/clients
 *   npx tsx examples/broker/main.ts --kafka 4.1.0
 *
 * The codecs come from kafka-wire-cli's codec cache (generated on the first run, then imported).
 */

import { parseArgs } from "node:util";
import { Kafka, logLevel } from "kafkajs";
import { startCluster } from "../../broker/src/index.js";

const { values } = parseArgs({ options: { schemas: { type: "string" }, kafka: { type: "string" } } });
const cluster = await startCluster({
  brokers: 3,
  topics: { orders: 6 },
  ...(values.kafka === undefined
    ? { schemas: values.schemas ?? "../shared/kafka-schemas/clients" }
    : { kafka: values.kafka }),
});
try {
  console.log(`bootstrap=${cluster.bootstrap}`);
  const kafka = new Kafka({ brokers: cluster.bootstrap.split(","), logLevel: logLevel.NOTHING });
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic: "orders", messages: [{ key: "order-1", value: "two coffees" }] });
  await producer.disconnect();
  const consumer = kafka.consumer({ groupId: "example", maxWaitTimeInMs: 100 });
  await consumer.connect();
  await consumer.subscribe({ topics: ["orders"], fromBeginning: true });
  await new Promise<void>((resolve) => {
    void consumer.run({
      eachMessage: async ({ partition, message }) => {
        console.log(`partition ${partition}: ${message.key} = ${message.value}`);
        resolve();
      },
    });
  });
  await consumer.disconnect();
} finally {
  await cluster.close();
}
