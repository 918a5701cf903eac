/**
 * @platformatic/kafka as a real client of the example broker (test/broker.test.ts), run as a
 * child process on Node.js 22/24 from test/runtimes (the package needs `Promise.withResolvers`
 * and, for zstd, `zlib.zstdCompressSync`, which Node.js 20 lacks).
 *
 * Argument: JSON { bootstrap, topic, groupId, groupProtocol, compressions, messages, timeoutMs }
 * with messages [{ key, value, headers: [[k, v], ...] }]. Produces every message once under each
 * compression (one send each), then consumes the topic from the earliest offset in a consumer
 * group until it has every message, committing the last one. Prints one JSON line on stdout:
 * { consumed: [{ key, value, headers }] }.
 */

import { Consumer, Producer, stringDeserializers, stringSerializers } from "@platformatic/kafka";

const { bootstrap, topic, groupId, groupProtocol, compressions, messages, timeoutMs } = JSON.parse(process.argv[2]);
const deadline = setTimeout(() => {
  console.error(`platformatic client: not done within ${timeoutMs} ms`);
  process.exit(2);
}, timeoutMs);

const common = { bootstrapBrokers: [bootstrap], timeout: 5000, retries: 3, retryDelay: 100 };
const producer = new Producer({
  ...common,
  clientId: "platformatic-producer",
  serializers: stringSerializers,
  idempotent: true,
});
for (const compression of compressions) {
  await producer.send({
    compression,
    messages: messages.map((m) => ({ topic, key: m.key, value: m.value, headers: new Map(m.headers) })),
  });
}
await producer.close();

const consumer = new Consumer({
  ...common,
  clientId: "platformatic-consumer",
  groupId,
  groupProtocol,
  deserializers: stringDeserializers,
  maxWaitTime: 100,
  sessionTimeout: 10000,
  rebalanceTimeout: 10000,
  heartbeatInterval: 500,
});
const expected = messages.length * compressions.length;
const consumed = [];
const stream = await consumer.consume({ topics: [topic], mode: "earliest", autocommit: false });
for await (const m of stream) {
  consumed.push({ key: m.key, value: m.value, headers: [...m.headers] });
  if (consumed.length === expected) {
    await m.commit();
    break;
  }
}
await stream.close();
await consumer.close();
clearTimeout(deadline);
console.log(JSON.stringify({ consumed }));
