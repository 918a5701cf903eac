/**
 * The scenario of harness.ts with @confluentinc/kafka-javascript 1.10.1 (its KafkaJS-compatible
 * API, on librdkafka 2.15.1), run as a child process: the native addon runs librdkafka's threads,
 * which a killed process takes along. Arguments: the package's folder (the cache folder of
 * .ci/install-kafka-javascript.sh), then the Scenario as JSON; prints the DriverResult as one JSON
 * line. Codecs: all five (librdkafka's `compression.type`, one producer per codec). Transactions:
 * `producer.transaction()` and `sendOffsets({ consumer, topics })`; consumers read
 * `read_committed` (librdkafka's default).
 */

import { createRequire } from "node:module";
import path from "node:path";

const [pkg, json] = process.argv.slice(2);
const s = JSON.parse(json);
const { KafkaJS } = createRequire(path.join(pkg, "package.json"))(pkg);
const { Kafka, logLevel } = KafkaJS;
const WAIT_MS = 30_000;
const deadline = setTimeout(() => {
  console.error(`kafka-javascript driver: not done within ${s.timeoutMs} ms`);
  process.exit(2);
}, s.timeoutMs);

const steps = {};
const result = { steps };
const open = [];

async function step(name, f) {
  try {
    await f();
    steps[name] = { ok: true };
  } catch (e) {
    steps[name] = { ok: false, error: e?.stack ?? String(e) };
  }
}

async function until(done, what) {
  const end = Date.now() + WAIT_MS;
  while (!done()) {
    if (Date.now() > end) throw new Error(`not within ${WAIT_MS} ms: ${what()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

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
const held = (c) => c.assignment().length;

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
  return { consumer, got };
}

const admin = kafka.admin();
open.push(admin);
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

try {
  await admin.connect();
  await step("admin", async () => {
    const created = await admin.createTopics({ topics: [{ topic: s.adminTopic, numPartitions: 2 }] });
    if (!created) throw new Error(`createTopics returned false: ${s.adminTopic} existed already`);
    const [topic] = await admin.fetchTopicMetadata({ topics: [s.adminTopic] });
    if (topic?.partitions.length !== 2) throw new Error(`metadata of ${s.adminTopic}: ${JSON.stringify(topic)}`);
  });

  await step("group", async () => {
    const m1 = await member(s.groupId, s.topic);
    const m2 = await member(s.groupId, s.topic);
    await until(
      () => held(m1.consumer) > 0 && held(m2.consumer) > 0 && held(m1.consumer) + held(m2.consumer) === s.partitions,
      () => `the members hold ${held(m1.consumer)} and ${held(m2.consumer)} partitions`,
    );
    await step("produce", async () => {
      for (const { codec, messages } of s.phase1) await send(messages, codec);
    });
    if (!steps.produce.ok) throw new Error("phase 1 was not produced");
    const phase1 = s.phase1.reduce((n, p) => n + p.messages.length, 0);
    await until(
      () => new Set([...m1.got, ...m2.got].map((m) => JSON.stringify(m))).size === phase1,
      () => `the members read ${m1.got.length} and ${m2.got.length} of phase 1's ${phase1}`,
    );
    result.group = { phase1: [[...m1.got], [...m2.got]], phase2: [] };
    await m2.consumer.disconnect();
    await until(
      () => held(m1.consumer) === s.partitions,
      () => `member 1 holds ${held(m1.consumer)} partitions after member 2 left`,
    );
    const mark = m1.got.length;
    await send(s.phase2);
    await until(
      () => m1.got.length - mark >= s.phase2.length,
      () => `member 1 read ${m1.got.length - mark} of phase 2's ${s.phase2.length}`,
    );
    result.group.phase2 = m1.got.slice(mark);
    await m1.consumer.disconnect();
  });

  await step("resume", async () => {
    await send(s.phase3);
    const m3 = await member(s.groupId, s.topic);
    await until(
      () => m3.got.length >= s.phase3.length,
      () => `the new member read ${m3.got.length} of phase 3's ${s.phase3.length}`,
    );
    await new Promise((r) => setTimeout(r, 300));
    result.resume = { consumed: [...m3.got] };
    await m3.consumer.disconnect();
  });

  if (s.txn !== undefined) await transactions(s.txn);
} finally {
  for (const c of open.reverse()) await c.disconnect().catch(() => {});
  clearTimeout(deadline);
}
console.log(JSON.stringify(result));
process.exit(0);

/** The transactions and consume-transform-produce steps (classic groups for their consumers). */
async function transactions(txn) {
  const transactional = kafka.producer({
    kafkaJS: { transactionalId: txn.transactionalId, idempotent: true, maxInFlightRequests: 1, acks: -1 },
  });
  open.push(transactional);
  const reader = async (groupId, topic) => {
    const consumer = kafka.consumer({ kafkaJS: { groupId, fromBeginning: true } });
    open.push(consumer);
    const got = [];
    await consumer.connect();
    await consumer.subscribe({ topics: [topic] });
    await consumer.run({ eachMessage: async ({ message }) => void got.push(fromMessage(message)) });
    return { consumer, got };
  };

  await step("transactions", async () => {
    await transactional.connect();
    for (const [batch, commit] of [
      [txn.committed1, true],
      [txn.aborted, false],
      [txn.committed3, true],
    ]) {
      const t = await transactional.transaction();
      await t.send({ topic: txn.topic, messages: batch.map(toMessage) });
      if (commit) await t.commit();
      else await t.abort();
    }
    const r = await reader(`${txn.groupId}-reader`, txn.topic);
    const want = txn.committed1.length + txn.committed3.length;
    await until(
      () => r.got.length >= want,
      () => `read ${r.got.length} of ${want} committed records`,
    );
    await new Promise((res) => setTimeout(res, 300));
    result.txn = { readCommitted: [...r.got] };
    await r.consumer.disconnect();
  });

  await step("consumeTransformProduce", async () => {
    if (!steps.transactions?.ok) throw new Error("not run: its input comes from the transactions step, which failed");
    const input = txn.committed1.length + txn.committed3.length;
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
          const t = await transactional.transaction();
          const m = fromMessage(message);
          await t.send({
            topic: txn.outTopic,
            messages: [
              toMessage({ key: m.key, value: m.value.toUpperCase(), headers: [...m.headers, ["transformed", "yes"]] }),
            ],
          });
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
    const r = await reader(`${txn.groupId}-output-reader`, txn.outTopic);
    await until(
      () => r.got.length >= input,
      () => `read ${r.got.length} of ${input} transformed records`,
    );
    await r.consumer.disconnect();
    const [offsets] = await admin.fetchOffsets({ groupId: txn.groupId, topics: [txn.topic] });
    const ends = await admin.fetchTopicOffsets(txn.topic);
    result.ctp = {
      output: [...r.got],
      committed: offsets.partitions.map((p) => ({ partition: p.partition, offset: Number(p.offset) })),
      lastRecords: [...lastRecords].map(([partition, offset]) => ({ partition, offset })),
      endOffsets: ends.map((p) => ({ partition: p.partition, offset: Number(p.high) })),
    };
  });
}
