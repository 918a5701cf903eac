/**
 * kafkajs 2.2.4 in the soak (test/broker-soak.test.ts), one role per process (the JSON argument's
 * `role`):
 * - `produce`: an idempotent producer (`idempotent: true`, one request in flight, acks -1) that
 *   sends `batch` numbered records every `intervalMs` until stopped, each send to one partition
 *   (round-robin over `partitions`); emits `{ acked: [ids] }` when a send resolves and
 *   `{ failed: [ids] }` when it rejects (those ids are never sent again).
 *
 * One partition per send, because kafkajs 2.2.4 loses records of a send that spans brokers:
 * `sendMessages` keeps the brokers' responses across its retries and sends only to brokers
 * without one, so when a partition that failed (NOT_LEADER_OR_FOLLOWER) has moved to a broker
 * that had answered for the send's other partitions, its records are never sent again and the
 * send resolves (the soak found this: acknowledged keys in no Produce request at all; Kafka
 * would lose them the same way; tulios/kafkajs#1303, #1798).
 * - `transform`: consume-transform-produce with transactions: a classic group member that, for
 *   each batch it is handed, begins a transaction, sends each record's id to `outTopic`, adds the
 *   next offsets to the transaction (`sendOffsets`) and commits; a batch whose transaction fails
 *   is aborted and the partition sought back to its first record, so it is read again (and after
 *   a rebalance the committed offsets are where it starts). A fixed `transactionalId`: a restarted transformer fences the previous one.
 * - `read`: a `read_committed` reader of `topic` from the beginning (a fresh group), emitting
 *   `{ got: [[partition, offset, key]] }`.
 */

import kafkajs from "kafkajs";
import { args, describe, emit, finish, onStop, produceNumbered } from "./peer.mjs";

const { Kafka, logLevel } = kafkajs;
const kafka = new Kafka({
  clientId: `soak-kafkajs-${args.role}`,
  brokers: args.bootstrap.split(","),
  logLevel: logLevel.NOTHING,
  retry: { retries: 20, initialRetryTime: 50, maxRetryTime: 1000 },
  connectionTimeout: 3000,
  requestTimeout: 10000,
});

if (args.role === "produce") await produce();
else if (args.role === "transform") await transform();
else if (args.role === "read") await read();
else throw new Error(`no role ${args.role}`);

async function produce() {
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  const sent = await produceNumbered((batch, index) =>
    producer.send({
      topic: args.topic,
      acks: -1,
      messages: batch.map((id) => ({ key: id, value: id, partition: index % args.partitions })),
    }),
  );
  await producer.disconnect().catch(() => {});
  finish({ sent });
}

async function transform() {
  const producer = kafka.producer({
    transactionalId: args.transactionalId,
    idempotent: true,
    maxInFlightRequests: 1,
    transactionTimeout: 10000,
  });
  await producer.connect();
  const consumer = kafka.consumer({
    groupId: args.groupId,
    sessionTimeout: args.sessionTimeoutMs,
    rebalanceTimeout: args.sessionTimeoutMs,
    heartbeatInterval: 300,
    maxWaitTimeInMs: 100,
    readUncommitted: false,
  });
  await consumer.connect();
  await consumer.subscribe({ topic: args.topic, fromBeginning: true });
  let committed = 0;
  let aborted = 0;
  await consumer.run({
    autoCommit: false,
    eachBatchAutoResolve: false,
    eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale }) => {
      if (!isRunning() || isStale() || batch.messages.length === 0) return;
      const messages = batch.messages.slice(0, args.maxPerTransaction);
      const last = messages[messages.length - 1].offset;
      const txn = await producer.transaction();
      try {
        await txn.send({
          topic: args.outTopic,
          acks: -1,
          // The input partition's number (the output has as many): one broker per send (see above).
          messages: messages.map((m) => ({
            key: m.key,
            value: `${m.value}|${batch.partition}:${m.offset}`,
            partition: batch.partition,
          })),
        });
        await txn.sendOffsets({
          consumerGroupId: args.groupId,
          topics: [
            { topic: batch.topic, partitions: [{ partition: batch.partition, offset: String(Number(last) + 1) }] },
          ],
        });
        await txn.commit();
      } catch (e) {
        aborted++;
        emit({ aborted: messages.length, error: describe(e) });
        await txn.abort().catch((f) => {
          // The producer cannot go on (fenced, or its state lost): the test starts another.
          emit({ fatal: describe(f) });
          process.exit(3);
        });
        // Not resolved: read again from the first of them (kafkajs would otherwise go on past them).
        consumer.seek({ topic: batch.topic, partition: batch.partition, offset: messages[0].offset });
        return;
      }
      committed++;
      resolveOffset(last);
      emit({ transformed: messages.map((m) => m.key.toString()), partition: batch.partition, through: last });
      await heartbeat();
    },
  });
  emit({ ready: true });
  onStop(async () => {
    await consumer.disconnect().catch(() => {});
    await producer.disconnect().catch(() => {});
    finish({ committed, aborted });
  });
}

async function read() {
  const consumer = kafka.consumer({ groupId: args.groupId, maxWaitTimeInMs: 100, readUncommitted: false });
  await consumer.connect();
  await consumer.subscribe({ topic: args.topic, fromBeginning: true });
  await consumer.run({
    autoCommit: false,
    eachBatch: async ({ batch }) => {
      emit({ got: batch.messages.map((m) => [batch.partition, Number(m.offset), m.key.toString()]) });
    },
  });
  emit({ ready: true });
  onStop(async () => {
    await consumer.disconnect().catch(() => {});
    finish({});
  });
}
