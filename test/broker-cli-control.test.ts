/**
 * `kafka-wire broker --control-port`: the CLI serves the cluster's control over HTTP on
 * 127.0.0.1, prints its URL after the bootstrap, and a fault posted there is what a Kafka client
 * then gets from the brokers the CLI runs.
 */

import net from "node:net";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { expect, it } from "vitest";
import type { Protocol } from "../src/runtime/index.js";
import { startBrokerCli } from "./support/broker-cli.js";
import { corpusIndex } from "./support/corpus.js";
import { KafkaTestClient, recordBatch } from "./support/kcat.js";
import { describeShared, REPO_ROOT } from "./support/shared.js";

const NOT_LEADER_OR_FOLLOWER = 6;

/** A port nobody listens on now (the OS's pick, closed again). */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describeShared("kafka-wire broker --control-port", "kafka-schemas", (schemas) => {
  it("--help documents --control-port", () => {
    const help = spawnSync(
      process.execPath,
      ["--conditions=source", "--import", "tsx", path.join(REPO_ROOT, "cli/cli.ts"), "broker", "--help"],
      { encoding: "utf8", timeout: 60_000 },
    );
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/--control-port <port>\s+serve the cluster's fault control/);
  });

  it("--control-port P listens on 127.0.0.1:P and prints control=<url> after the bootstrap", async () => {
    const port = await freePort();
    const cli = await startBrokerCli(["--schemas", schemas, "--topic", "t:1", "--control-port", String(port)]);
    try {
      expect(cli.control).toBe(`http://127.0.0.1:${port}`);
      const faults = await fetch(`${cli.control}/faults`);
      expect(faults.status).toBe(200);
      expect(await faults.json()).toEqual({ faults: [] });
    } finally {
      expect(await cli.stop()).toBe(0);
    }
    // Closed with the broker: nothing listens there any more.
    await expect(fetch(`http://127.0.0.1:${port}/faults`)).rejects.toThrow();
  });

  it("--control-port 0 picks a free port; a fault posted there reaches a Kafka client; --request-log N keeps N", async () => {
    const { protocol } = (await corpusIndex()) as { protocol: Protocol };
    const cli = await startBrokerCli([
      "--schemas",
      schemas,
      "--topic",
      "orders:1",
      "--control-port",
      "0",
      "--request-log",
      "2",
    ]);
    try {
      expect(cli.control).toMatch(/^http:\/\/127\.0\.0\.1:(\d+)$/);
      expect(Number(/:(\d+)$/.exec(cli.control!)![1])).toBeGreaterThan(0);
      const posted = await fetch(`${cli.control}/fail`, {
        method: "POST",
        body: JSON.stringify({ apiKey: 0, errorCode: "NOT_LEADER_OR_FOLLOWER", times: 1 }),
      });
      expect(posted.status).toBe(200);
      expect(await posted.json()).toEqual({ ok: true });
      const [host, port] = cli.bootstrap.split(":") as [string, string];
      const client = await KafkaTestClient.connect(host, Number(port), protocol, { timeoutMs: 10_000 });
      try {
        const produce = async () =>
          (
            await client.call<{ responses: { partitionResponses: { errorCode: number }[] }[] }>(0, 9, {
              acks: -1,
              timeoutMs: 1000,
              topicData: [
                { name: "orders", partitionData: [{ index: 0, records: recordBatch(null, new Uint8Array([1]), 1n) }] },
              ],
            })
          ).body.responses[0]!.partitionResponses[0]!.errorCode;
        expect(await produce()).toBe(NOT_LEADER_OR_FOLLOWER);
        expect(await produce()).toBe(0);
      } finally {
        client.close();
      }
      // The newest 2 of the connection's requests (ApiVersions, Produce, Produce): both Produce.
      const log = (await (await fetch(`${cli.control}/log`)).json()) as {
        enabled: boolean;
        entries: { apiName: string; response: { responses: { partitionResponses: { errorCode: number }[] }[] } }[];
      };
      expect(log.enabled).toBe(true);
      expect(log.entries.map((e) => e.apiName)).toEqual(["Produce", "Produce"]);
      expect(log.entries.map((e) => e.response.responses[0]!.partitionResponses[0]!.errorCode)).toEqual([
        NOT_LEADER_OR_FOLLOWER,
        0,
      ]);
      const bad = await fetch(`${cli.control}/stop-broker`, { method: "POST", body: '{"node":9}' });
      expect(bad.status).toBe(400);
      expect(await bad.json()).toEqual({ error: "no node 9 (nodes 1)" });
    } finally {
      expect(await cli.stop()).toBe(0);
    }
  });

  it("a --control-port in use fails the command with the reason", async () => {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as net.AddressInfo).port;
    try {
      await expect(startBrokerCli(["--schemas", schemas, "--control-port", String(port)])).rejects.toThrow(
        /exited \(1\).*EADDRINUSE/s,
      );
    } finally {
      server.close();
    }
  });
});
