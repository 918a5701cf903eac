/**
 * The cluster's control over HTTP (broker/src/http-control.ts): each call as curl would send it
 * (JSON over loopback), its effect checked with raw Kafka requests or the cluster's state, and
 * the errors a bad call gets.
 */

import http from "node:http";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startCluster, startControlServer, type ControlServer, type RunningCluster } from "../broker/src/index.js";
import type { Protocol } from "../src/runtime/index.js";
import { corpusIndex } from "./support/corpus.js";
import { KafkaTestClient, recordBatch } from "./support/kcat.js";
import { describeShared } from "./support/shared.js";

const NOT_LEADER_OR_FOLLOWER = 6;

describeShared("kafka-wire-broker: control over HTTP", "kafka-schemas", () => {
  let protocol: Protocol;
  let cluster: RunningCluster;
  let control: ControlServer;

  beforeAll(async () => {
    ({ protocol } = await corpusIndex());
    cluster = await startCluster({ protocol, brokers: 2, topics: { t: { assignments: [[1, 2]] } } });
    control = await startControlServer(cluster);
  });
  afterAll(async () => {
    await control?.close();
    await cluster?.close();
  });

  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${control.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it("listens on loopback only", () => {
    expect(control.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it("POST /fail: the next Produce gets the error; GET /faults lists it until then", async () => {
    expect(await post("/fail", { apiKey: 0, errorCode: "NOT_LEADER_OR_FOLLOWER", times: 1, partition: 0 })).toEqual({
      status: 200,
      body: { ok: true },
    });
    const faults = await (await fetch(`${control.url}/faults`)).json();
    expect(faults).toEqual({ faults: [{ kind: "fail", apiKey: 0, left: 1 }] });
    const node = cluster.nodes[0]!;
    const client = await KafkaTestClient.connect(node.host, node.port, protocol, { timeoutMs: 5000 });
    try {
      const produce = () =>
        client.call<{ responses: { partitionResponses: { errorCode: number }[] }[] }>(0, 9, {
          acks: -1,
          timeoutMs: 1000,
          topicData: [
            { name: "t", partitionData: [{ index: 0, records: recordBatch(null, new Uint8Array([1]), 1000n) }] },
          ],
        });
      expect((await produce()).body.responses[0]!.partitionResponses[0]!.errorCode).toBe(NOT_LEADER_OR_FOLLOWER);
      expect((await produce()).body.responses[0]!.partitionResponses[0]!.errorCode).toBe(0);
    } finally {
      client.close();
    }
    expect(await (await fetch(`${control.url}/faults`)).json()).toEqual({ faults: [] });
  });

  it("POST /move-leader, /stop-broker, /start-broker, /reset change the cluster", async () => {
    expect((await post("/move-leader", { topic: "t", partition: 0, node: 2 })).status).toBe(200);
    expect(cluster.cluster.partition("t", 0)).toMatchObject({ leader: 2, leaderEpoch: 1 });
    expect((await post("/stop-broker", { node: 2 })).status).toBe(200);
    expect(cluster.cluster.partition("t", 0)).toMatchObject({ leader: 1, leaderEpoch: 2 });
    expect((await post("/start-broker", { node: 2 })).status).toBe(200);
    expect(cluster.cluster.stopped.size).toBe(0);
    expect((await post("/reset", "")).status).toBe(200);
    expect(cluster.cluster.partition("t", 0)).toMatchObject({ leader: 1, leaderEpoch: 0 });
  });

  it("a bad call gets 400 with the cluster's reason; another path 404", async () => {
    expect(await post("/fail", { apiKey: 0, errorCode: "NO_SUCH_ERROR" })).toEqual({
      status: 400,
      body: { error: "no Kafka error code NO_SUCH_ERROR" },
    });
    expect((await post("/move-leader", { topic: "t", partition: "0", node: 2 })).body).toEqual({
      error: "partition must be an integer",
    });
    expect((await post("/delay", "{not json")).status).toBe(400);
    expect((await post("/delay", [1])).body).toEqual({ error: "the body must be a JSON object" });
    expect((await post("/nothing", {})).status).toBe(404);
    expect((await fetch(`${control.url}/fail`)).status).toBe(404); // GET
    expect(cluster.cluster.control.active).toBe(false);
  });

  it("empty path segments are dropped (//topics is /topics, as a base URL ending in / joined with /topics gives); an unknown path is named as sent", async () => {
    const get = async (path: string) => {
      const res = await fetch(`${control.url}${path}`);
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const topics = await get("/topics");
    expect(topics.status).toBe(200);
    expect(topics.body["topics"]).toEqual([expect.objectContaining({ name: "t" })]);
    for (const path of ["//topics", "/topics/", "///topics//"]) expect(await get(path), path).toEqual(topics);
    expect(await get("//topics//t?x=1")).toEqual(await get("/topics/t"));
    expect(await post("//reset", {})).toEqual({ status: 200, body: { ok: true } });
    const unknown = await get("//nothing/");
    expect(unknown.status).toBe(404);
    expect(unknown.body["error"]).toMatch(/^no GET \/\/nothing\/: POST \/fail, /);
    // A target that is no path (OPTIONS *'s form): 400 naming it, not a crash.
    const star = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request({ host: "127.0.0.1", port: control.port, path: "*" }, (res) => {
        let body = "";
        res.on("data", (chunk: Buffer) => (body += chunk.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on("error", reject);
      req.end();
    });
    expect(star.status).toBe(400);
    expect(JSON.parse(star.body)).toEqual({ error: expect.stringMatching(/^\* is no request path \(/) });
  });
});
