/**
 * @platformatic/kafka 2.12.1 in the soak (test/broker-soak.test.ts), on Node.js 24 from
 * test/runtimes. Role `member`: a KIP-848 consumer group member (`groupProtocol: "consumer"`)
 * reading from the committed offsets (the earliest when none), auto-committing every 300 ms;
 * emits `{ got: [[partition, offset, key]] }` and, when it changes, `{ held: [partitions] }`.
 */

import { Consumer, stringDeserializers } from "@platformatic/kafka";
import { args, emit, finish, onStop, reportHeld } from "./peer.mjs";

if (args.role !== "member") throw new Error(`no role ${args.role}`);
const consumer = new Consumer({
  bootstrapBrokers: args.bootstrap.split(","),
  clientId: "soak-platformatic-member",
  groupId: args.groupId,
  groupProtocol: "consumer",
  deserializers: stringDeserializers,
  maxWaitTime: 100,
  timeout: 5000,
  retries: 200,
  retryDelay: 100,
});
const stream = await consumer.consume({
  topics: [args.topic],
  mode: "committed",
  fallbackMode: "earliest",
  autocommit: 300,
});
// Reported at once: autocommit may commit a record as soon as it is handed over, and a member
// killed after that must not have it unreported.
stream.on("data", (m) => emit({ got: [[m.partition, Number(m.offset), m.key]] }));
stream.on("error", (e) => console.error(`platformatic member: ${e?.stack ?? e}`));
const stopReporting = reportHeld(() =>
  (consumer.assignments ?? []).flatMap((a) => (a.topic === args.topic ? a.partitions : [])),
);
emit({ ready: true });
onStop(async () => {
  stopReporting();
  await stream.close().catch(() => {});
  await consumer.close().catch(() => {});
  finish({});
});
