/**
 * The broker's connections read into reused slabs (broker/src/frame-reader.ts) where Node.js
 * allows it, else through 'data' events. Both paths carry kafkajs's produce and consume intact,
 * and a request handed to `onExchange`, or to a plugin's Produce handler, keeps its bytes after
 * the connection has read megabytes more (its slab is never written again).
 */
import { Kafka, logLevel } from "kafkajs";
import { afterEach, expect, it } from "vitest";
import { startCluster, type Exchange, type RunningCluster } from "../broker/src/index.js";
import { corpusIndex } from "./support/corpus.js";
import { describeShared } from "./support/shared.js";

/** 40 sends of 50 records of 1 KB (about 2 MB: the connection's slabs wrap many times). */
async function produceAndConsume(cluster: RunningCluster, topic: string): Promise<{ sent: string[]; got: string[] }> {
  const kafka = new Kafka({ brokers: cluster.bootstrap.split(","), logLevel: logLevel.NOTHING, clientId: "slab" });
  const producer = kafka.producer();
  await producer.connect();
  const sent: string[] = [];
  for (let s = 0; s < 40; s++) {
    const messages = Array.from({ length: 50 }, (_, i) => {
      const value = `${s}/${i}/`.padEnd(1000, String.fromCharCode(97 + ((s + i) % 26)));
      sent.push(value);
      return { key: String(i), value };
    });
    await producer.send({ topic, messages });
  }
  await producer.disconnect();
  const got: string[] = [];
  const consumer = kafka.consumer({ groupId: `g-${topic}` });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({ eachMessage: async ({ message }) => void got.push(message.value!.toString()) });
  for (let i = 0; i < 300 && got.length < sent.length; i++) await new Promise((r) => setTimeout(r, 50));
  await consumer.disconnect();
  return { sent, got };
}

describeShared("kafka-wire-broker: slab reads", "kafka-schemas", () => {
  let cluster: RunningCluster | undefined;
  afterEach(async () => {
    await cluster?.close();
    cluster = undefined;
  });

  it("kafkajs produces and consumes 2,000 records intact, with slab reads and with 'data' events", async () => {
    const { protocol } = await corpusIndex();
    for (const slabReads of [true, false]) {
      cluster = await startCluster({ protocol, topics: { t: 1 }, slabReads });
      const { sent, got } = await produceAndConsume(cluster, "t");
      expect(got.length, `slabReads ${slabReads}`).toBe(sent.length);
      expect(got).toEqual(sent);
      await cluster.close();
      cluster = undefined;
    }
  });

  it("a Produce request given to onExchange keeps its bytes while the connection reads megabytes more", async () => {
    const { protocol } = await corpusIndex();
    const kept: { request: Uint8Array; copy: Uint8Array }[] = [];
    const onExchange = (e: Exchange) => {
      if (e.apiKey === 0) kept.push({ request: e.request, copy: e.request.slice() });
    };
    cluster = await startCluster({ protocol, topics: { t: 1 }, onExchange });
    const { sent, got } = await produceAndConsume(cluster, "t");
    expect(got).toEqual(sent);
    expect(kept.length).toBeGreaterThanOrEqual(40);
    const changed = kept.filter((k) => !Buffer.from(k.request).equals(Buffer.from(k.copy))).length;
    expect(changed, "Produce requests whose bytes changed after onExchange saw them").toBe(0);
  });

  it("a plugin's Produce handler may keep views of its requests' record batches", async () => {
    const { protocol } = await corpusIndex();
    const kept: { records: Uint8Array; copy: Uint8Array }[] = [];
    // Wraps the core Produce handler, keeping every record set it is given (as a plugin may).
    const keeper = (c: RunningCluster["cluster"]) => {
      const core = c.handlers.get(0)!.handler;
      c.handlers.register(0, (req, ctx) => {
        for (const td of req.topicData)
          for (const pd of td.partitionData)
            if (pd.records !== null) kept.push({ records: pd.records, copy: pd.records.slice() });
        return core(req as never, ctx) as never;
      });
    };
    cluster = await startCluster({ protocol, topics: { t: 1 }, plugins: [keeper] });
    const { sent, got } = await produceAndConsume(cluster, "t");
    expect(got).toEqual(sent);
    expect(kept.length).toBeGreaterThanOrEqual(40);
    const changed = kept.filter((k) => !Buffer.from(k.records).equals(Buffer.from(k.copy))).length;
    expect(changed, "record sets whose bytes changed after the plugin's handler kept them").toBe(0);
  });
});
