/**
 * The scenario of harness.ts with kafkajs 2.2.4, in this process. Codecs: none and gzip, the ones
 * kafkajs ships (snappy, lz4 and zstd need codec plugins it does not ship). Transactions: its
 * transactional producer (`producer.transaction()`, `sendOffsets`); its consumers read
 * `read_committed` by default.
 */

import { CompressionTypes, Kafka, logLevel, type Consumer, type IHeaders, type KafkaMessage } from "kafkajs";
import { step, transform, until, type Codec, type DriverResult, type Message, type Scenario } from "./harness.js";

export const KAFKAJS_CODECS: readonly Codec[] = ["none", "gzip"];

const COMPRESSION: Partial<Record<Codec, CompressionTypes>> = {
  none: CompressionTypes.None,
  gzip: CompressionTypes.GZIP,
};

const WAIT_MS = 30_000;

function toKafkajs(m: Message) {
  const headers: IHeaders = {};
  for (const [k, v] of m.headers) {
    const prev = headers[k];
    headers[k] = prev === undefined ? v : [...(Array.isArray(prev) ? prev : [prev]), v];
  }
  return { key: m.key, value: m.value, headers };
}

function fromKafkajs(message: KafkaMessage): Message {
  const text = (b: Buffer | string | null | undefined) => (b === null || b === undefined ? "" : b.toString());
  const headers: [string, string][] = [];
  for (const [k, v] of Object.entries(message.headers ?? {})) {
    for (const one of Array.isArray(v) ? v : [v]) headers.push([k, text(one)]);
  }
  return { key: text(message.key), value: text(message.value), headers };
}

export async function runKafkajs(s: Scenario): Promise<DriverResult> {
  const result: DriverResult = { steps: {} };
  const { steps } = result;
  const kafka = new Kafka({
    clientId: "kafkajs-interop",
    brokers: s.bootstrap.split(","),
    logLevel: logLevel.NOTHING,
    connectionTimeout: 3000,
    requestTimeout: 10_000,
    retry: { retries: 3, initialRetryTime: 100 },
  });
  const admin = kafka.admin();
  const open: { disconnect(): Promise<void> }[] = [admin];
  const consumerOptions = {
    maxWaitTimeInMs: 100,
    sessionTimeout: 10_000,
    rebalanceTimeout: 10_000,
    heartbeatInterval: 300,
  };
  /** A group member that records what it reads and commits each record's offset as it goes. */
  const member = async (groupId: string, topic: string, extra: { readUncommitted?: boolean } = {}) => {
    const consumer = kafka.consumer({ groupId, ...consumerOptions, ...extra });
    open.push(consumer);
    const got: Message[] = [];
    let assigned = 0;
    consumer.on(consumer.events.GROUP_JOIN, (e) => {
      assigned = Object.values(e.payload.memberAssignment).reduce((n, ps) => n + ps.length, 0);
    });
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachMessage: async ({ topic, partition, message }) => {
        got.push(fromKafkajs(message));
        await consumer.commitOffsets([{ topic, partition, offset: String(Number(message.offset) + 1) }]);
      },
    });
    return { consumer, got, assigned: () => assigned };
  };

  try {
    await admin.connect();
    await step(steps, "admin", async () => {
      const created = await admin.createTopics({
        topics: [{ topic: s.adminTopic, numPartitions: 2 }],
        waitForLeaders: true,
      });
      if (!created) throw new Error(`createTopics returned false: ${s.adminTopic} existed already`);
      const { topics } = await admin.fetchTopicMetadata({ topics: [s.adminTopic] });
      if (topics[0]?.partitions.length !== 2) throw new Error(`metadata of ${s.adminTopic}: ${JSON.stringify(topics)}`);
    });

    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
    open.push(producer);
    await producer.connect();
    const send = async (ms: readonly Message[], codec: Codec = "none") => {
      await producer.send({ topic: s.topic, compression: COMPRESSION[codec], acks: -1, messages: ms.map(toKafkajs) });
    };

    await step(steps, "group", async () => {
      const m1 = await member(s.groupId, s.topic);
      const m2 = await member(s.groupId, s.topic);
      await until(
        () => m1.assigned() > 0 && m2.assigned() > 0 && m1.assigned() + m2.assigned() === s.partitions,
        WAIT_MS,
        () => `the two members hold ${m1.assigned()} and ${m2.assigned()} partitions`,
      );
      await step(steps, "produce", async () => {
        for (const { codec, messages } of s.phase1) await send(messages, codec);
      });
      if (!steps.produce!.ok) throw new Error("phase 1 was not produced");
      const phase1 = s.phase1.reduce((n, p) => n + p.messages.length, 0);
      await until(
        () => new Set([...m1.got, ...m2.got].map((m) => JSON.stringify(m))).size === phase1,
        WAIT_MS,
        () => `the members read ${m1.got.length} and ${m2.got.length} of phase 1's ${phase1}`,
      );
      result.group = { phase1: [[...m1.got], [...m2.got]], phase2: [] };
      await m2.consumer.disconnect();
      await until(
        () => m1.assigned() === s.partitions,
        WAIT_MS,
        () => `member 1 holds ${m1.assigned()} partitions after member 2 left`,
      );
      const mark = m1.got.length;
      await send(s.phase2);
      await until(
        () => m1.got.length - mark >= s.phase2.length,
        WAIT_MS,
        () => `member 1 read ${m1.got.length - mark} of phase 2's ${s.phase2.length}`,
      );
      result.group.phase2 = m1.got.slice(mark);
      await m1.consumer.disconnect();
    });

    await step(steps, "resume", async () => {
      await send(s.phase3);
      const m3 = await member(s.groupId, s.topic);
      await until(
        () => m3.got.length >= s.phase3.length,
        WAIT_MS,
        () => `the new member read ${m3.got.length} of phase 3's ${s.phase3.length}`,
      );
      result.resume = { consumed: [...m3.got] };
      await m3.consumer.disconnect();
    });
    await producer.disconnect();

    const txn = s.txn;
    if (txn === undefined) return result;
    const transactional = kafka.producer({
      transactionalId: txn.transactionalId,
      idempotent: true,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: false,
    });
    open.push(transactional);
    await step(steps, "transactions", async () => {
      await transactional.connect();
      for (const [batch, commit] of [
        [txn.committed1, true],
        [txn.aborted, false],
        [txn.committed3, true],
      ] as const) {
        const t = await transactional.transaction();
        await t.send({ topic: txn.topic, acks: -1, messages: batch.map(toKafkajs) });
        if (commit) await t.commit();
        else await t.abort();
      }
      const reader = await readAll(kafka, open, `${txn.groupId}-reader`, txn.topic);
      await until(
        () => reader.got.length >= txn.committed1.length + txn.committed3.length,
        WAIT_MS,
        () => `read ${reader.got.length} committed records`,
      );
      // Records of the aborted transaction would come before transaction 3's: give a straggler time.
      await new Promise((r) => setTimeout(r, 300));
      result.txn = { readCommitted: [...reader.got] };
      await reader.consumer.disconnect();
    });

    await step(steps, "consumeTransformProduce", async () => {
      if (!steps.transactions?.ok) throw new Error("not run: its input comes from the transactions step, which failed");
      const input = txn.committed1.length + txn.committed3.length;
      const consumer = kafka.consumer({ groupId: txn.groupId, ...consumerOptions });
      open.push(consumer);
      await consumer.connect();
      await consumer.subscribe({ topics: [txn.topic], fromBeginning: true });
      const lastRecords = new Map<number, number>();
      let done = 0;
      let failure: Error | null = null;
      await consumer.run({
        autoCommit: false,
        eachMessage: async ({ partition, message }) => {
          try {
            const t = await transactional.transaction();
            await t.send({ topic: txn.outTopic, acks: -1, messages: [toKafkajs(transform(fromKafkajs(message)))] });
            const offset = String(Number(message.offset) + 1);
            await t.sendOffsets({
              consumerGroupId: txn.groupId,
              topics: [{ topic: txn.topic, partitions: [{ partition, offset }] }],
            });
            await t.commit();
            lastRecords.set(partition, Number(message.offset));
            done++;
          } catch (e) {
            failure ??= e as Error;
          }
        },
      });
      await until(
        () => done >= input || failure !== null,
        WAIT_MS,
        () => `transformed ${done} of ${input} records`,
      );
      await consumer.disconnect();
      if (failure !== null) throw failure;
      const output = await readAll(kafka, open, `${txn.groupId}-output-reader`, txn.outTopic);
      await until(
        () => output.got.length >= input,
        WAIT_MS,
        () => `read ${output.got.length} of ${input} transformed records`,
      );
      await output.consumer.disconnect();
      const [offsets] = await admin.fetchOffsets({ groupId: txn.groupId, topics: [txn.topic] });
      const ends = await admin.fetchTopicOffsets(txn.topic);
      result.ctp = {
        output: [...output.got],
        committed: offsets!.partitions.map((p) => ({ partition: p.partition, offset: Number(p.offset) })),
        lastRecords: [...lastRecords].map(([partition, offset]) => ({ partition, offset })),
        endOffsets: ends.map((p) => ({ partition: p.partition, offset: Number(p.high) })),
      };
    });
  } finally {
    for (const c of open.reverse()) await c.disconnect().catch(() => {});
  }
  return result;
}

/** A read_committed consumer of a whole topic (kafkajs's default isolation), in a group of its own. */
async function readAll(kafka: Kafka, open: { disconnect(): Promise<void> }[], groupId: string, topic: string) {
  const consumer: Consumer = kafka.consumer({ groupId, maxWaitTimeInMs: 100, heartbeatInterval: 300 });
  open.push(consumer);
  const got: Message[] = [];
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({ eachMessage: async ({ message }) => void got.push(fromKafkajs(message)) });
  return { consumer, got };
}
