/**
 * @confluentinc/kafka-javascript 1.10.1 (its KafkaJS-compatible API, on librdkafka 2.15.1) in the
 * soak (test/broker-soak.test.ts); arguments: the package's folder, then the JSON of peer.mjs.
 * Roles:
 * - `produce`: an idempotent producer (`enable.idempotence`, acks -1) sending `batch` numbered
 *   records every `intervalMs` until stopped (peer.mjs's `produceNumbered`).
 * - `member`: a KIP-848 consumer group member (`group.protocol=consumer`) reading from the
 *   earliest offset, auto-committing every 300 ms what it has handed over; emits
 *   `{ got: [[partition, offset, key]] }` and, when it changes, `{ held: [partitions] }`.
 */

import { createRequire } from "node:module";
import path from "node:path";
import { args, emit, finish, onStop, produceNumbered, reportHeld } from "./peer.mjs";

const pkg = process.argv[2];
const { KafkaJS } = createRequire(path.join(pkg, "package.json"))(pkg);
const { Kafka, logLevel } = KafkaJS;
const kafka = new Kafka({
  kafkaJS: {
    clientId: `soak-kafka-javascript-${args.role}`,
    brokers: args.bootstrap.split(","),
    logLevel: logLevel.NOTHING,
  },
});

if (args.role === "produce") await produce();
else if (args.role === "member") await member();
else throw new Error(`no role ${args.role}`);

async function produce() {
  const producer = kafka.producer({
    kafkaJS: { idempotent: true, acks: -1 },
    "linger.ms": 5,
    // A record not delivered within this is reported failed (librdkafka retries until then).
    "message.timeout.ms": 30000,
    "retry.backoff.ms": 50,
  });
  await producer.connect();
  const sent = await produceNumbered((batch) =>
    producer.send({ topic: args.topic, messages: batch.map((id) => ({ key: id, value: id })) }),
  );
  await producer.disconnect().catch(() => {});
  finish({ sent });
}

async function member() {
  const consumer = kafka.consumer({
    kafkaJS: { groupId: args.groupId, fromBeginning: true, autoCommit: true, autoCommitInterval: 300 },
    "group.protocol": "consumer",
    "fetch.wait.max.ms": 100,
  });
  await consumer.connect();
  await consumer.subscribe({ topics: [args.topic] });
  await consumer.run({
    eachBatch: async ({ batch }) => {
      emit({ got: batch.messages.map((m) => [batch.partition, Number(m.offset), m.key.toString()]) });
    },
  });
  const stopReporting = reportHeld(() => consumer.assignment().map((a) => a.partition));
  emit({ ready: true });
  onStop(async () => {
    stopReporting();
    await consumer.disconnect().catch(() => {});
    finish({});
  });
}
