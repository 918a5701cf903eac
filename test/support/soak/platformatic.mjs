/**
 * @platformatic/kafka 2.12.1 in the soak (test/broker-soak.test.ts), on Node.js 24 from
 * test/runtimes. Role `member`: a KIP-848 consumer group member (`groupProtocol: "consumer"`)
 * reading from the committed offsets (the earliest when none), auto-committing every 300 ms;
 * emits `{ got: [[partition, offset, key]] }`, when it changes `{ held: [partitions] }`, and
 * `{ restarted: n, error }` when its stream failed and was started again.
 */

import { platformatic } from "../platformatic-peer.mjs";
import { args, emit, finish, onStop, reportHeld } from "./peer.mjs";

const { Consumer, stringDeserializers } = platformatic;

if (args.role !== "member") throw new Error(`no role ${args.role}`);
const consumer = new Consumer({
  bootstrapBrokers: args.bootstrap.split(","),
  clientId: "soak-platformatic-member",
  groupId: args.groupId,
  groupProtocol: "consumer",
  deserializers: stringDeserializers,
  maxWaitTime: 100,
  timeout: 5000,
  retries: 10,
  retryDelay: 100,
});
/**
 * The stream, started again when it fails, as an application does: a Fetch that fails is retried
 * (`retries`) against the node it was sent to, whose leadership may have moved away (the retries
 * refresh the metadata but keep the node), and then the stream ends with the error; a new stream
 * routes by the new metadata and starts from the committed offsets.
 */
let stream = null;
let restarts = 0;
let stopping = false;
async function startStream() {
  const s = await consumer.consume({
    topics: [args.topic],
    mode: "committed",
    fallbackMode: "earliest",
    autocommit: 300,
  });
  stream = s;
  // Reported at once: autocommit may commit a record as soon as it is handed over, and a member
  // killed after that must not have it unreported.
  s.on("data", (m) => emit({ got: [[m.partition, Number(m.offset), m.key]] }));
  s.once("error", (e) => {
    emit({ restarted: ++restarts, error: `${e?.message}: ${causes(e).join("; ")}` });
    s.close().catch(() => {});
    if (!stopping)
      setTimeout(() => startStream().catch((f) => console.error(`platformatic member: ${f?.stack ?? f}`)), 100);
  });
}
await startStream();

/** The distinct errors inside a client error (MultipleErrors nest them). */
function causes(e, out = new Set()) {
  for (const inner of e?.errors ?? []) {
    out.add(`${inner?.message}${inner?.apiId ? ` (${inner.apiId})` : ""}`);
    causes(inner, out);
  }
  return [...out];
}
const stopReporting = reportHeld(() =>
  (consumer.assignments ?? []).flatMap((a) => (a.topic === args.topic ? a.partitions : [])),
);
emit({ ready: true });
onStop(async () => {
  stopping = true;
  stopReporting();
  await stream?.close().catch(() => {});
  await consumer.close().catch(() => {});
  finish({});
});
