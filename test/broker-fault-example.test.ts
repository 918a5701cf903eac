/**
 * The README's example of a test that injects a fault (README.md "Testing your application
 * against a Kafka cluster", broker/README.md "Faults on cue"): an application publishing with
 * kafkajs survives two NOT_LEADER_OR_FOLLOWER answers and a leader move. Users import
 * `kafka-wire-broker` and give `kafka: "4.1.0"`; here the codecs come from ../shared.
 */

import { Kafka, logLevel } from "kafkajs";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { startCluster, type RunningCluster } from "../broker/src/index.js";
import { corpusIndex } from "./support/corpus.js";
import { describeShared } from "./support/shared.js";

/** The application under test: a publisher of orders, one message each, keyed by id. */
async function orderPublisher(kafka: Kafka) {
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  return {
    async publish(ids: string[]): Promise<void> {
      for (const id of ids) await producer.send({ topic: "orders", messages: [{ key: id, value: `order ${id}` }] });
    },
    close: () => producer.disconnect(),
  };
}

describeShared("README example: a test that injects a fault", "kafka-schemas", () => {
  let cluster: RunningCluster;
  let kafka: Kafka;

  beforeAll(async () => {
    const { protocol } = await corpusIndex(); // users: startCluster({ kafka: "4.1.0", ... })
    cluster = await startCluster({ protocol, brokers: 3, topics: { orders: 3 } });
    kafka = new Kafka({ brokers: cluster.bootstrap.split(","), logLevel: logLevel.NOTHING });
  });
  afterEach(() => cluster.reset()); // topics as at the start, faults gone
  afterAll(() => cluster.close());

  /** How many records the topic holds, as a client sees it (the high watermarks). */
  async function stored(): Promise<number> {
    const admin = kafka.admin();
    await admin.connect();
    try {
      return (await admin.fetchTopicOffsets("orders")).reduce((n, p) => n + Number(p.high), 0);
    } finally {
      await admin.disconnect();
    }
  }

  it("publishes every order although the leader refuses twice", async () => {
    const app = await orderPublisher(kafka);
    cluster.fail({ apiKey: 0, errorCode: "NOT_LEADER_OR_FOLLOWER", times: 2 }); // Produce
    await app.publish(["a", "b", "c", "d"]);
    await app.close();
    expect(cluster.cluster.control.pending()).toEqual([]); // both faults were hit
    expect(await stored()).toBe(4); // each order once: the retries stored no duplicate
  });

  it("publishes every order across a leader move", async () => {
    const app = await orderPublisher(kafka);
    await app.publish(["a", "b"]);
    for (const p of [0, 1, 2]) {
      const { leader, replicas } = cluster.cluster.partition("orders", p)!;
      const follower = replicas.find((r) => r !== leader)!;
      cluster.moveLeader("orders", p, follower); // the leader epoch goes up, as on Kafka
    }
    await app.publish(["c", "d"]); // its leaders are stale: NOT_LEADER_OR_FOLLOWER, a metadata refresh, the new leaders
    await app.close();
    expect(await stored()).toBe(4);
  });
});
