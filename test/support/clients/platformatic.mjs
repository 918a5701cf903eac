/**
 * The scenario of harness.ts with @platformatic/kafka 2.12.1, run as a child process on Node.js 24
 * from test/runtimes (the package needs `Promise.withResolvers` and, for zstd,
 * `zlib.zstdCompressSync`, which Node.js 20 lacks). Argument: the Scenario as JSON; prints the
 * DriverResult as one JSON line. Codecs: all five. Headers are a Map in this client (no repeated
 * header keys). Transactions: `producer.beginTransaction()`, `addConsumer` and `addOffset` for
 * consume-transform-produce.
 */

import { platformatic } from "../platformatic-peer.mjs";

const { Admin, Consumer, Producer, stringDeserializers, stringSerializers } = platformatic;

const s = JSON.parse(process.argv[2]);
const WAIT_MS = 30_000;
const READ_COMMITTED = 1;
const deadline = setTimeout(() => {
  console.error(`platformatic driver: not done within ${s.timeoutMs} ms`);
  process.exit(2);
}, s.timeoutMs);

const steps = {};
const result = { steps };
const common = { bootstrapBrokers: s.bootstrap.split(","), timeout: 5000, retries: 3, retryDelay: 100 };
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

const text = (m) => ({ key: m.key, value: m.value, headers: [...m.headers] });
const toRecord = (topic, m) => ({ topic, key: m.key, value: m.value, headers: new Map(m.headers) });
const held = (c) => (c.assignments ?? []).reduce((n, a) => n + a.partitions.length, 0);

/** A group member that records what it reads and commits each record as it goes. */
async function member(groupId, topic, options = {}) {
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
    ...options,
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
    consumer,
    got,
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
const send = async (messages, compression = "none") =>
  producer.send({ compression, messages: messages.map((m) => toRecord(s.topic, m)) });

try {
  await step("admin", async () => {
    await admin.createTopics({ topics: [s.adminTopic], partitions: 2 });
    const metadata = await admin.metadata({ topics: [s.adminTopic] });
    const partitions = metadata.topics.get(s.adminTopic)?.partitionsCount;
    if (partitions !== 2) throw new Error(`metadata of ${s.adminTopic}: ${partitions} partitions`);
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
    await m2.close();
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
    await m1.close();
  });

  await step("resume", async () => {
    await send(s.phase3);
    const m3 = await member(s.groupId, s.topic);
    await until(
      () => m3.got.length >= s.phase3.length,
      () => `the new member read ${m3.got.length} of phase 3's ${s.phase3.length}`,
    );
    result.resume = { consumed: [...m3.got] };
    await m3.close();
  });

  if (s.txn !== undefined) await transactions(s.txn);
} finally {
  for (const c of open.reverse()) await c.close().catch(() => {});
  clearTimeout(deadline);
}
console.log(JSON.stringify(result));
process.exit(0);

/** The transactions and consume-transform-produce steps. */
async function transactions(txn) {
  const transactional = new Producer({
    ...common,
    clientId: "platformatic-transactional",
    serializers: stringSerializers,
    idempotent: true,
    transactionalId: txn.transactionalId,
  });
  open.push(transactional);
  const reader = async (groupId, topic) => {
    const consumer = new Consumer({
      ...common,
      clientId: `platformatic-${groupId}`,
      groupId,
      deserializers: stringDeserializers,
      maxWaitTime: 100,
      heartbeatInterval: 300,
    });
    open.push(consumer);
    const stream = await consumer.consume({
      topics: [topic],
      mode: "earliest",
      autocommit: false,
      isolationLevel: READ_COMMITTED,
    });
    const got = [];
    stream.on("data", (m) => got.push(text(m)));
    return { got, close: async () => (await stream.close(), await consumer.close()) };
  };

  await step("transactions", async () => {
    for (const [batch, commit] of [
      [txn.committed1, true],
      [txn.aborted, false],
      [txn.committed3, true],
    ]) {
      const t = await transactional.beginTransaction();
      await t.send({ messages: batch.map((m) => toRecord(txn.topic, m)) });
      if (commit) await t.commit();
      else await t.abort();
    }
    const r = await reader(`${txn.groupId}-reader`, txn.topic);
    const want = txn.committed1.length + txn.committed3.length;
    await until(
      () => r.got.length >= want,
      () => `read ${r.got.length} of ${want} committed records`,
    );
    // Records of the aborted transaction would come before transaction 3's: give a straggler time.
    await new Promise((res) => setTimeout(res, 300));
    result.txn = { readCommitted: [...r.got] };
    await r.close();
  });

  await step("consumeTransformProduce", async () => {
    if (!steps.transactions?.ok) throw new Error("not run: its input comes from the transactions step, which failed");
    const input = txn.committed1.length + txn.committed3.length;
    const consumer = new Consumer({
      ...common,
      clientId: "platformatic-ctp",
      groupId: txn.groupId,
      deserializers: stringDeserializers,
      maxWaitTime: 100,
      heartbeatInterval: 300,
    });
    open.push(consumer);
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
        const t = await transactional.beginTransaction();
        const out = text(m);
        await t.send({
          messages: [
            toRecord(txn.outTopic, {
              key: out.key,
              value: out.value.toUpperCase(),
              headers: [...out.headers, ["transformed", "yes"]],
            }),
          ],
        });
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
    const r = await reader(`${txn.groupId}-output-reader`, txn.outTopic);
    await until(
      () => r.got.length >= input,
      () => `read ${r.got.length} of ${input} transformed records`,
    );
    await r.close();
    const [group] = await admin.listConsumerGroupOffsets({ groups: [txn.groupId] });
    const [ends] = await admin.listOffsets({
      topics: [{ name: txn.topic, partitions: [0, 1].map((partitionIndex) => ({ partitionIndex, timestamp: -1n })) }],
    });
    result.ctp = {
      output: [...r.got],
      committed: (group.topics.find((t) => t.name === txn.topic)?.partitions ?? []).map((p) => ({
        partition: p.partitionIndex,
        offset: Number(p.committedOffset),
      })),
      lastRecords: [...lastRecords].map(([partition, offset]) => ({ partition, offset })),
      endOffsets: ends.partitions.map((p) => ({ partition: p.partitionIndex, offset: Number(p.offset) })),
    };
  });
}
