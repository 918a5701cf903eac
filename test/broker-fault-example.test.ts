/**
 * The README's example of a test that injects a fault and asserts that the application
 * recovered (README.md "Testing your application against a Kafka cluster", broker/README.md
 * "Faults on cue"): an application publishing with kafkajs survives two NOT_LEADER_OR_FOLLOWER
 * answers and a leader move. test/readme.test.ts checks that both READMEs quote the part between
 * the README markers as it is here, but for two lines: users import `kafka-wire-broker/vitest`
 * and give `kafka: "4.1.0"`; here the codecs come from ../shared.
 */

// README begin
import { Kafka, logLevel } from "kafkajs";
import { expect, it } from "vitest";
import { useCluster } from "../broker/src/vitest.js";
// README end
import { corpusIndex } from "./support/corpus.js";
import { describeShared } from "./support/shared.js";

/** The codecs generated from ../shared's schemas (users: `kafka: "4.1.0"`). */
const protocol = async () => (await corpusIndex()).protocol;

describeShared("README example: a test that injects a fault", "kafka-schemas", () => {
  // README begin
  const cluster = useCluster(async () => ({ protocol: await protocol(), brokers: 3, topics: { orders: 3 } }));

  /** The application under test: a publisher of orders, one message each, keyed by id. */
  async function orderPublisher() {
    const kafka = new Kafka({ brokers: cluster.bootstrap.split(","), logLevel: logLevel.NOTHING });
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    return {
      publish: async (ids: string[]) => {
        for (const id of ids) await producer.send({ topic: "orders", messages: [{ key: id, value: `order ${id}` }] });
      },
      close: () => producer.disconnect(),
    };
  }

  /** Every record's value in the topic, as the cluster stores them. */
  async function stored(): Promise<string[]> {
    const values: string[] = [];
    for (const p of [0, 1, 2]) {
      for (const r of (await cluster.inspect.records("orders", p)).records) values.push(r.value!.data);
    }
    return values.sort();
  }

  it("publishes every order once although the leader refuses twice", async () => {
    const app = await orderPublisher();
    cluster.fail({ apiKey: 0, errorCode: "NOT_LEADER_OR_FOLLOWER", times: 2 }); // Produce
    await app.publish(["a", "b", "c", "d"]);
    await app.close();
    expect(cluster.cluster.control.pending()).toEqual([]); // both faults were hit
    expect(await stored()).toEqual(["order a", "order b", "order c", "order d"]); // no duplicate from the retries
  });

  it("publishes every order across a leader move", async () => {
    const app = await orderPublisher();
    await app.publish(["a", "b"]);
    for (const p of [0, 1, 2]) {
      const { leader, replicas } = cluster.inspect.topic("orders")!.partitions[p]!;
      const follower = replicas.find((r) => r !== leader)!;
      cluster.moveLeader("orders", p, follower); // the leader epoch goes up, as on Kafka
    }
    await app.publish(["c", "d"]); // stale leaders: NOT_LEADER_OR_FOLLOWER, a metadata refresh, the new leaders
    await app.close();
    expect(await stored()).toEqual(["order a", "order b", "order c", "order d"]);
  });
  // README end
});
