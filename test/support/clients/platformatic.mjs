/**
 * The scenario of harness.ts (steps: scenario.mjs) with @platformatic/kafka 2.12.1, run as a
 * child process on Node.js 24 from test/runtimes (the package needs `Promise.withResolvers` and,
 * for zstd, `zlib.zstdCompressSync`, which Node.js 20 lacks). Argument: the Scenario as JSON;
 * prints the DriverResult as one JSON line. Codecs: all five. Headers are a Map in this client (no
 * repeated header keys). Transactions: `producer.beginTransaction()`, `addConsumer` and
 * `addOffset` for consume-transform-produce.
 */

import { platformatic } from "../platformatic-peer.mjs";
import { runScenario, transform, WAIT_MS } from "./scenario.mjs";

const { Admin, Consumer, Producer, stringDeserializers, stringSerializers } = platformatic;

const s = JSON.parse(process.argv[2]);
const READ_COMMITTED = 1;
const common = { bootstrapBrokers: s.bootstrap.split(","), timeout: 5000, retries: 3, retryDelay: 100 };
const open = [];

const text = (m) => ({ key: m.key, value: m.value, headers: [...m.headers] });
const toRecord = (topic, m) => ({ topic, key: m.key, value: m.value, headers: new Map(m.headers) });
const held = (c) => (c.assignments ?? []).reduce((n, a) => n + a.partitions.length, 0);

/** A group member that records what it reads and commits each record as it goes. */
async function member(groupId, topic) {
  const consumer = new Consumer({
    ...common,
    clientId: `platformatic-${groupId}`,
    groupId,
    groupProtocol: s.groupProtocol,
    deserializers: stringDeserializers,
    maxWaitTime: 100,
    sessionTimeout: 10000,
    rebalanceTimeout: 10000,
    heartbeatInterval: 300,
  });
  open.push(consumer);
  const stream = await consumer.consume({
    topics: [topic],
    mode: "committed",
    fallbackMode: "earliest",
    autocommit: false,
  });
  const got = [];
  stream.on("data", (m) => {
    got.push(text(m));
    m.commit().catch(() => {});
  });
  return {
    got,
    held: () => held(consumer),
    close: async () => {
      await stream.close();
      await consumer.close();
    },
  };
}

const admin = new Admin({ ...common, clientId: "platformatic-admin" });
open.push(admin);
const producer = new Producer({
  ...common,
  clientId: "platformatic-producer",
  serializers: stringSerializers,
  idempotent: true,
});
open.push(producer);

let transactional = null;
/** The transactional producer, made on first use. */
function txnProducer(txn) {
  if (transactional === null) {
    transactional = new Producer({
      ...common,
      clientId: "platformatic-transactional",
      serializers: stringSerializers,
      idempotent: true,
      transactionalId: txn.transactionalId,
    });
    open.push(transactional);
  }
  return transactional;
}

/** A consumer of the transactions steps (a classic group: they do not depend on the group protocol). */
function txnConsumer(groupId) {
  const consumer = new Consumer({
    ...common,
    clientId: `platformatic-${groupId}`,
    groupId,
    deserializers: stringDeserializers,
    maxWaitTime: 100,
    heartbeatInterval: 300,
  });
  open.push(consumer);
  return consumer;
}

await runScenario("platformatic", s, {
  async admin() {
    await admin.createTopics({ topics: [s.adminTopic], partitions: 2 });
    const metadata = await admin.metadata({ topics: [s.adminTopic] });
    const partitions = metadata.topics.get(s.adminTopic)?.partitionsCount;
    if (partitions !== 2) throw new Error(`metadata of ${s.adminTopic}: ${partitions} partitions`);
  },
  member,
  send: (messages, compression = "none") =>
    producer.send({ compression, messages: messages.map((m) => toRecord(s.topic, m)) }),
  transactions: {
    async run(topic, messages, commit) {
      const t = await txnProducer(s.txn).beginTransaction();
      await t.send({ messages: messages.map((m) => toRecord(topic, m)) });
      if (commit) await t.commit();
      else await t.abort();
    },
    async reader(groupId, topic) {
      const consumer = txnConsumer(groupId);
      const stream = await consumer.consume({
        topics: [topic],
        mode: "earliest",
        autocommit: false,
        isolationLevel: READ_COMMITTED,
      });
      const got = [];
      stream.on("data", (m) => got.push(text(m)));
      return { got, close: async () => (await stream.close(), await consumer.close()) };
    },
    async transformAll(txn, input) {
      const consumer = txnConsumer(txn.groupId);
      const stream = await consumer.consume({
        topics: [txn.topic],
        mode: "earliest",
        autocommit: false,
        isolationLevel: READ_COMMITTED,
      });
      const lastRecords = new Map();
      let done = 0;
      const timer = setTimeout(
        () => stream.destroy(new Error(`transformed ${done} of ${input} records in ${WAIT_MS} ms`)),
        WAIT_MS,
      );
      try {
        for await (const m of stream) {
          const t = await txnProducer(txn).beginTransaction();
          await t.send({ messages: [toRecord(txn.outTopic, transform(text(m)))] });
          await t.addConsumer(consumer);
          await t.addOffset(m);
          await t.commit();
          lastRecords.set(m.partition, Number(m.offset));
          if (++done >= input) break;
        }
      } finally {
        clearTimeout(timer);
      }
      await stream.close();
      await consumer.close();
      return lastRecords;
    },
    async offsets(groupId, topic) {
      const [group] = await admin.listConsumerGroupOffsets({ groups: [groupId] });
      const [ends] = await admin.listOffsets({
        topics: [{ name: topic, partitions: [0, 1].map((partitionIndex) => ({ partitionIndex, timestamp: -1n })) }],
      });
      return {
        committed: (group.topics.find((t) => t.name === topic)?.partitions ?? []).map((p) => ({
          partition: p.partitionIndex,
          offset: Number(p.committedOffset),
        })),
        endOffsets: ends.partitions.map((p) => ({ partition: p.partitionIndex, offset: Number(p.offset) })),
      };
    },
  },
  async close() {
    for (const c of open.reverse()) await c.close().catch(() => {});
  },
});
