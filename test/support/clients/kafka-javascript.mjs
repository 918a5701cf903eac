/**
 * The scenario of harness.ts (steps: scenario.mjs) with @confluentinc/kafka-javascript 1.10.1 (its
 * KafkaJS-compatible API, on librdkafka 2.15.1), run as a child process: the native addon runs
 * librdkafka's threads, which a killed process takes along. Arguments: the package's folder (the
 * cache folder of .ci/install-kafka-javascript.sh), then the Scenario as JSON; prints the
 * DriverResult as one JSON line. Codecs: all five (librdkafka's `compression.type`, one producer
 * per codec). Transactions: `producer.transaction()` and `sendOffsets({ consumer, topics })`;
 * consumers read `read_committed` (librdkafka's default).
 */

import { createRequire } from "node:module";
import path from "node:path";
import { runScenario, transform, until } from "./scenario.mjs";

const [pkg, json] = process.argv.slice(2);
const s = JSON.parse(json);
const { KafkaJS } = createRequire(path.join(pkg, "package.json"))(pkg);
const { Kafka, logLevel } = KafkaJS;
const open = [];

function toMessage(m) {
  const headers = {};
  for (const [k, v] of m.headers) {
    const prev = headers[k];
    headers[k] = prev === undefined ? v : [...(Array.isArray(prev) ? prev : [prev]), v];
  }
  return { key: m.key, value: m.value, headers };
}

function fromMessage(message) {
  const text = (b) => (b === null || b === undefined ? "" : b.toString());
  const headers = [];
  for (const [k, v] of Object.entries(message.headers ?? {})) {
    for (const one of Array.isArray(v) ? v : [v]) headers.push([k, text(one)]);
  }
  return { key: text(message.key), value: text(message.value), headers };
}

const kafka = new Kafka({
  kafkaJS: { clientId: "kafka-javascript-interop", brokers: s.bootstrap.split(","), logLevel: logLevel.NOTHING },
});
const groupConfig = (groupId, extra = {}) => ({
  kafkaJS: { groupId, fromBeginning: true, autoCommit: false, ...extra },
  "fetch.wait.max.ms": 100,
  ...(s.groupProtocol === "consumer"
    ? { "group.protocol": "consumer" }
    : { "session.timeout.ms": 10000, "heartbeat.interval.ms": 300 }),
});

/** A group member that records what it reads and commits each record's offset as it goes. */
async function member(groupId, topic) {
  const consumer = kafka.consumer(groupConfig(groupId));
  open.push(consumer);
  const got = [];
  await consumer.connect();
  await consumer.subscribe({ topics: [topic] });
  await consumer.run({
    eachMessage: async ({ topic, partition, message }) => {
      got.push(fromMessage(message));
      await consumer.commitOffsets([{ topic, partition, offset: String(Number(message.offset) + 1) }]);
    },
  });
  return { got, held: () => consumer.assignment().length, close: () => consumer.disconnect() };
}

const admin = kafka.admin();
open.push(admin);
const adminConnected = admin.connect();
// Awaited by the steps that need it (each fails on its own when it rejects).
adminConnected.catch(() => {});
const producers = new Map();
async function send(messages, codec = "none") {
  if (!producers.has(codec)) {
    const p = kafka.producer({ kafkaJS: { idempotent: true, acks: -1 }, "compression.type": codec, "linger.ms": 5 });
    open.push(p);
    await p.connect();
    producers.set(codec, p);
  }
  await producers.get(codec).send({ topic: s.topic, messages: messages.map(toMessage) });
}

let transactional = null;
/** The transactional producer, connected on first use. */
async function txnProducer(txn) {
  if (transactional === null) {
    transactional = kafka.producer({
      kafkaJS: { transactionalId: txn.transactionalId, idempotent: true, maxInFlightRequests: 1, acks: -1 },
    });
    open.push(transactional);
    await transactional.connect();
  }
  return transactional;
}

await runScenario("kafka-javascript", s, {
  async admin() {
    await adminConnected;
    const created = await admin.createTopics({ topics: [{ topic: s.adminTopic, numPartitions: 2 }] });
    if (!created) throw new Error(`createTopics returned false: ${s.adminTopic} existed already`);
    const [topic] = await admin.fetchTopicMetadata({ topics: [s.adminTopic] });
    if (topic?.partitions.length !== 2) throw new Error(`metadata of ${s.adminTopic}: ${JSON.stringify(topic)}`);
  },
  member,
  send,
  transactions: {
    async run(topic, messages, commit) {
      const t = await (await txnProducer(s.txn)).transaction();
      await t.send({ topic, messages: messages.map(toMessage) });
      if (commit) await t.commit();
      else await t.abort();
    },
    async reader(groupId, topic) {
      // A classic group: the transactions steps do not depend on the group protocol.
      const consumer = kafka.consumer({ kafkaJS: { groupId, fromBeginning: true } });
      open.push(consumer);
      const got = [];
      await consumer.connect();
      await consumer.subscribe({ topics: [topic] });
      await consumer.run({ eachMessage: async ({ message }) => void got.push(fromMessage(message)) });
      return { got, close: () => consumer.disconnect() };
    },
    async transformAll(txn, input) {
      const producer = await txnProducer(txn);
      const consumer = kafka.consumer({ kafkaJS: { groupId: txn.groupId, fromBeginning: true, autoCommit: false } });
      open.push(consumer);
      await consumer.connect();
      await consumer.subscribe({ topics: [txn.topic] });
      const lastRecords = new Map();
      let done = 0;
      let failure = null;
      await consumer.run({
        eachMessage: async ({ topic, partition, message }) => {
          try {
            const t = await producer.transaction();
            await t.send({ topic: txn.outTopic, messages: [toMessage(transform(fromMessage(message)))] });
            const offset = String(Number(message.offset) + 1);
            await t.sendOffsets({ consumer, topics: [{ topic, partitions: [{ partition, offset }] }] });
            await t.commit();
            lastRecords.set(partition, Number(message.offset));
            done++;
          } catch (e) {
            failure ??= e;
          }
        },
      });
      await until(
        () => done >= input || failure !== null,
        () => `transformed ${done} of ${input} records`,
      );
      await consumer.disconnect();
      if (failure !== null) throw failure;
      return lastRecords;
    },
    async offsets(groupId, topic) {
      await adminConnected;
      const [offsets] = await admin.fetchOffsets({ groupId, topics: [topic] });
      const ends = await admin.fetchTopicOffsets(topic);
      return {
        committed: offsets.partitions.map((p) => ({ partition: p.partition, offset: Number(p.offset) })),
        endOffsets: ends.map((p) => ({ partition: p.partition, offset: Number(p.high) })),
      };
    },
  },
  async close() {
    for (const c of open.reverse()) await c.disconnect().catch(() => {});
  },
});
