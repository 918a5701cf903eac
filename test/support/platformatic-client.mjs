/**
 * @platformatic/kafka as a real client of the example broker (test/broker.test.ts), run as a
 * child process on Node.js 22/24 from test/runtimes (the package needs `Promise.withResolvers`
 * and, for zstd, `zlib.zstdCompressSync`, which Node.js 20 lacks).
 *
 * Argument: JSON { bootstrap, topic, partitions, groupId, groupProtocol, members, sends: [{ compression,
 * messages: [{ key, value, headers: [[k, v], ...] }] }], timeoutMs }, every message distinct.
 * `members` consumers join the group and wait until they share the topic's `partitions`, then each send is produced (one `send` each), then the
 * members consume until they have every message between them and commit. Prints one JSON line on
 * stdout: { consumed: [{ key, value, headers }] (each distinct message once), perMember: [count] }.
 */

import { platformatic } from "./platformatic-peer.mjs";

const { Consumer, Producer, stringDeserializers, stringSerializers } = platformatic;

const { bootstrap, topic, partitions, groupId, groupProtocol, members, sends, timeoutMs } = JSON.parse(process.argv[2]);
const deadline = setTimeout(() => {
  console.error(`platformatic client: not done within ${timeoutMs} ms`);
  process.exit(2);
}, timeoutMs);

const common = { bootstrapBrokers: [bootstrap], timeout: 5000, retries: 3, retryDelay: 100 };

// The group's members join first (consume() resolves once a member has joined), then the
// producer writes, so that every member has partitions when the messages arrive.
const consumers = Array.from(
  { length: members },
  (_, i) =>
    new Consumer({
      ...common,
      clientId: `platformatic-consumer-${i}`,
      groupId,
      groupProtocol,
      deserializers: stringDeserializers,
      maxWaitTime: 100,
      sessionTimeout: 10000,
      rebalanceTimeout: 10000,
      heartbeatInterval: 500,
    }),
);
const streams = await Promise.all(
  consumers.map((c) => c.consume({ topics: [topic], mode: "earliest", autocommit: false })),
);
// Every message once, whichever member read it (a rebalance may hand a partition over mid-read).
// Listening from the start: the streams flow as soon as they have records.
const expected = sends.reduce((n, s) => n + s.messages.length, 0);
const last = consumers.map(() => null);
const consumed = new Map();
const perMember = consumers.map(() => 0);
const all = new Promise((resolve) => {
  streams.forEach((stream, i) =>
    stream.on("data", (m) => {
      perMember[i]++;
      last[i] = m;
      const message = { key: m.key, value: m.value, headers: [...m.headers] };
      consumed.set(JSON.stringify(message), message);
      if (consumed.size === expected) resolve();
    }),
  );
});
// Until the group has settled: every member holds some of the topic's partitions, and together all.
const held = (c) => (c.assignments ?? []).reduce((n, a) => n + a.partitions.length, 0);
while (!consumers.every((c) => held(c) > 0) || consumers.reduce((n, c) => n + held(c), 0) !== partitions) {
  await new Promise((resolve) => setTimeout(resolve, 50));
}

const producer = new Producer({
  ...common,
  clientId: "platformatic-producer",
  serializers: stringSerializers,
  idempotent: true,
});
for (const { compression, messages } of sends) {
  await producer.send({
    compression,
    messages: messages.map((m) => ({ topic, key: m.key, value: m.value, headers: new Map(m.headers) })),
  });
}
await producer.close();

await all;
// Each member commits where it got to (OffsetCommit).
for (const m of last) if (m !== null) await m.commit();
for (const stream of streams) await stream.close();
for (const c of consumers) await c.close();
clearTimeout(deadline);
console.log(JSON.stringify({ consumed: [...consumed.values()], perMember }));
