/**
 * @confluentinc/kafka-javascript 1.10.1 (its KafkaJS-compatible API, on librdkafka 2.15.1) in the
 * soak (test/broker-soak.test.ts); arguments: the package's folder, then the JSON of peer.mjs.
 * Roles:
 * - `produce`: an idempotent producer (`enable.idempotence`, acks -1) sending `batch` numbered
 *   records every `intervalMs` until stopped; `{ acked }` / `{ failed }` as kafkajs.mjs.
 * - `member`: a KIP-848 consumer group member (`group.protocol=consumer`) reading from the
 *   earliest offset, auto-committing every 300 ms what it has handed over; emits
 *   `{ got: [[partition, offset, key]] }` and, when it changes, `{ held: [partitions] }`.
 */

import { createRequire } from "node:module";
import path from "node:path";
import { args, describe, emit, finish, ids, onStop, sleep, stopped } from "./peer.mjs";

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
  emit({ ready: true });
  let n = 0;
  while (!stopped() && n < args.max) {
    const batch = ids(args.prefix, n, args.batch);
    n += batch.length;
    try {
      await producer.send({ topic: args.topic, messages: batch.map((id) => ({ key: id, value: id })) });
      emit({ acked: batch });
    } catch (e) {
      emit({ failed: batch, error: describe(e) });
    }
    await sleep(args.intervalMs);
  }
  await producer.disconnect().catch(() => {});
  finish({ sent: n });
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
  let held = "";
  const watch = setInterval(() => {
    const now = JSON.stringify(
      consumer
        .assignment()
        .map((a) => a.partition)
        .sort((a, b) => a - b),
    );
    if (now !== held) emit({ held: JSON.parse((held = now)) });
  }, 100);
  emit({ ready: true });
  onStop(async () => {
    clearInterval(watch);
    await consumer.disconnect().catch(() => {});
    finish({});
  });
}
