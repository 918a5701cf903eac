/**
 * kafka-wire-broker with SASL on: kafkajs 2.2.4 authenticates with PLAIN, SCRAM-SHA-256 and
 * SCRAM-SHA-512 (its own SCRAM client checks the server's signature, so a wrong server proof
 * fails too), produces and reads back; a wrong password is SASL_AUTHENTICATION_FAILED; a request
 * before authenticating closes the connection.
 */

import net from "node:net";
import { Kafka, logLevel, type SASLOptions } from "kafkajs";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startCluster, type RunningCluster } from "../broker/src/index.js";
import { corpusIndex } from "./support/corpus.js";
import { describeShared } from "./support/shared.js";

describeShared("kafka-wire-broker with SASL", "kafka-schemas", () => {
  let cluster: RunningCluster;

  beforeAll(async () => {
    const { protocol } = await corpusIndex();
    cluster = await startCluster({
      protocol,
      brokers: 2,
      topics: { secured: 2 },
      sasl: { users: { alice: "alice-secret", "b,o=b": "pw" } },
    });
  });

  afterAll(async () => {
    await cluster?.close();
  });

  const client = (sasl: SASLOptions) =>
    new Kafka({
      clientId: "sasl-test",
      brokers: cluster.bootstrap.split(","),
      sasl,
      logLevel: logLevel.NOTHING,
      retry: { retries: 0 },
    });

  for (const mechanism of ["plain", "scram-sha-256", "scram-sha-512"] as const) {
    it(`kafkajs authenticates with ${mechanism}, produces and reads the offsets`, async () => {
      const kafka = client({ mechanism, username: "alice", password: "alice-secret" } as SASLOptions);
      const producer = kafka.producer();
      await producer.connect();
      await producer.send({ topic: "secured", messages: [{ value: mechanism, partition: 0 }] });
      await producer.disconnect();
      const admin = kafka.admin();
      await admin.connect();
      try {
        const offsets = await admin.fetchTopicOffsets("secured");
        expect(Number(offsets.find((o) => o.partition === 0)!.high)).toBeGreaterThan(0);
      } finally {
        await admin.disconnect();
      }
    });

    it(`kafkajs with a wrong password (${mechanism}) is refused`, async () => {
      const admin = client({ mechanism, username: "alice", password: "wrong" } as SASLOptions).admin();
      await expect(admin.connect()).rejects.toThrow(/SASL|[Aa]uthentication/);
      await admin.disconnect();
    });
  }

  it("a user name with ',' and '=' (SCRAM's =2C and =3D) authenticates", async () => {
    const admin = client({ mechanism: "scram-sha-256", username: "b,o=b", password: "pw" }).admin();
    await admin.connect();
    await admin.disconnect();
  });

  it("closes a connection that sends Metadata before authenticating", async () => {
    const node = cluster.nodes[0]!;
    // Metadata v4 (request header v1): api key 0003, version 0004, correlation id 1, client id
    // null (ffff), topics null (ffffffff), allowAutoTopicCreation false (00).
    const request = Buffer.from("0000000f" + "0003" + "0004" + "00000001" + "ffff" + "ffffffff" + "00", "hex");
    expect(request.readInt32BE(0)).toBe(request.length - 4);
    const closed = await new Promise<{ closed: boolean; bytes: number }>((resolve) => {
      let bytes = 0;
      const socket = net.connect({ host: node.host, port: node.port }, () => socket.write(request));
      const timer = setTimeout(() => {
        socket.destroy();
        resolve({ closed: false, bytes });
      }, 3000);
      socket.on("data", (d: Buffer) => (bytes += d.length));
      socket.on("error", () => {});
      socket.on("close", () => {
        clearTimeout(timer);
        resolve({ closed: true, bytes });
      });
    });
    expect(closed).toEqual({ closed: true, bytes: 0 });
  });
});
