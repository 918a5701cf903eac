/**
 * The cluster's control (control.ts, RunningCluster's fault methods) over HTTP, so that a test
 * suite in another language can drive it: JSON in, JSON out, loopback only.
 *
 *   POST /fail              {"apiKey":0,"errorCode":"NOT_LEADER_OR_FOLLOWER","times":2}
 *   POST /delay             {"apiKey":1,"ms":500}
 *   POST /drop              {"apiKey":1,"times":1,"node":2}
 *   POST /move-leader       {"topic":"orders","partition":0,"node":2}
 *   POST /move-coordinator  {"group":"g","node":3}
 *   POST /stop-broker       {"node":2}
 *   POST /start-broker      {"node":2}
 *   POST /reset             {}
 *   GET  /faults            the faults not used up yet
 *
 * Answers 200 `{"ok":true}` (GET /faults: `{"faults":[...]}`), 400 `{"error":"..."}` for a bad
 * body or a call the cluster refuses, 404 for another path. `intercept` needs code, so it is not
 * offered here.
 */

import http from "node:http";
import type { AddressInfo } from "node:net";
import type { RunningCluster } from "./cluster.js";

/** A request body larger than this is refused (413): every call's body is a few dozen bytes. */
const MAX_BODY_BYTES = 64 * 1024;

/** A running control server. */
export interface ControlServer {
  /** `http://127.0.0.1:P` */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

type Body = Record<string, unknown>;

const ROUTES: Record<string, (cluster: RunningCluster, body: Body) => unknown> = {
  "/fail": (c, b) => c.fail(b as never),
  "/delay": (c, b) => c.delay(b as never),
  "/drop": (c, b) => c.drop(b as never),
  "/move-leader": (c, b) => c.moveLeader(str(b, "topic"), int(b, "partition"), int(b, "node")),
  "/move-coordinator": (c, b) => c.moveCoordinator(str(b, "group"), int(b, "node")),
  "/stop-broker": (c, b) => c.stopBroker(int(b, "node")),
  "/start-broker": (c, b) => c.startBroker(int(b, "node")),
  "/reset": (c) => c.reset(),
};

function str(b: Body, field: string): string {
  const v = b[field];
  if (typeof v !== "string") throw new Error(`${field} must be a string`);
  return v;
}

function int(b: Body, field: string): number {
  const v = b[field];
  if (typeof v !== "number" || !Number.isInteger(v)) throw new Error(`${field} must be an integer`);
  return v;
}

/**
 * Serves `cluster`'s control on `127.0.0.1:port` (default: an ephemeral port); closed with the
 * returned server's `close()` (the cluster's `close()` does not close it).
 */
export async function startControlServer(
  cluster: RunningCluster,
  options: { port?: number } = {},
): Promise<ControlServer> {
  const server = http.createServer((req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    const path = (req.url ?? "/").split("?")[0]!;
    if (req.method === "GET" && path === "/faults") {
      send(200, { faults: cluster.cluster.control.pending() });
      return;
    }
    const route = ROUTES[path];
    if (route === undefined || req.method !== "POST") {
      send(404, { error: `no ${req.method} ${path}: POST ${Object.keys(ROUTES).join(", ")}; GET /faults` });
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        send(413, { error: `a control request body is at most ${MAX_BODY_BYTES} bytes` });
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => {
      if (size > MAX_BODY_BYTES) return;
      void (async () => {
        try {
          const text = Buffer.concat(chunks).toString("utf8").trim();
          const body: unknown = text === "" ? {} : JSON.parse(text);
          if (typeof body !== "object" || body === null || Array.isArray(body)) {
            throw new Error("the body must be a JSON object");
          }
          await route(cluster, body as Body);
          send(200, { ok: true });
        } catch (e) {
          send(400, { error: (e as Error).message });
        }
      })();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
