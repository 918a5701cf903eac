/**
 * The HTTP control's request targets (5b23e93): odd targets get a JSON 4xx
 * answer (or the route they normalize to), never a crash or a hang, and the server keeps serving.
 */

import http from "node:http";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startCluster, startControlServer, type ControlServer, type RunningCluster } from "../broker/src/index.js";
import type { Protocol } from "../src/runtime/index.js";
import { corpusIndex } from "./support/corpus.js";
import { describeShared } from "./support/shared.js";

describeShared("HTTP control request targets", "kafka-schemas", () => {
  let protocol: Protocol;
  let cluster: RunningCluster;
  let control: ControlServer;

  beforeAll(async () => {
    ({ protocol } = await corpusIndex());
    cluster = await startCluster({ protocol, brokers: 1, topics: { t: 1 } });
    control = await startControlServer(cluster);
  });
  afterAll(async () => {
    await control?.close();
    await cluster?.close();
  });

  /** The status and JSON body of a request with `target` sent as written. */
  const raw = (target: string, method = "GET"): Promise<{ status: number; body: Record<string, unknown> }> =>
    new Promise((resolve, reject) => {
      const req = http.request({ host: "127.0.0.1", port: control.port, path: target, method }, (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (text += c));
        res.on("end", () => resolve({ status: res.statusCode!, body: JSON.parse(text) as Record<string, unknown> }));
      });
      req.on("error", reject);
      req.end();
    });

  it("dot segments, encoded slashes, bad escapes, long paths and absolute forms are answered", async () => {
    const topics = await raw("/topics");
    expect(topics.status).toBe(200);
    // WHATWG URL resolves dot segments (also percent-encoded ones): /topics/.. is /.
    expect((await raw("/topics/..")).status).toBe(404);
    expect((await raw("/topics/%2e%2e/faults")).body).toEqual((await raw("/faults")).body);
    expect((await raw("/topics/t/..")).body).toEqual(topics.body);
    // An encoded slash stays inside the topic segment: topic "a/b", which does not exist.
    const slash = await raw("/topics/a%2Fb");
    expect(slash.status).toBe(404);
    expect(slash.body["error"]).toBe("no topic a/b");
    // A malformed escape is a bad request, not a crash.
    expect((await raw("/topics/%E0%A4%A")).status).toBe(400);
    const long = await raw(`/topics/${"x".repeat(8000)}`);
    expect(long.status).toBe(404);
    // The absolute form (RFC 9112 3.2.2) names the same route.
    expect((await raw(`http://127.0.0.1:${control.port}/topics`)).body).toEqual(topics.body);
    expect((await raw("*", "OPTIONS")).status).toBe(400);
    expect((await raw("//", "POST")).status).toBe(404);
    expect((await raw("/topics")).body).toEqual(topics.body);
  });
});
