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
 *   POST /log               {"enabled":true,"size":1000}   the request log on (or off) with its bounds
 *   GET  /faults            the faults not used up yet
 *
 * and what the cluster holds (inspect.ts, request-log.ts), int64 values as exact JSON integers:
 *
 *   GET  /topics                                      {"topics":[...]}
 *   GET  /topics/T                                    one topic
 *   GET  /topics/T/partitions/P/records?offset=&limit=&maxBytes=   a page of records
 *   GET  /groups                                      {"groups":[...]} with members and offsets
 *   GET  /groups/G                                    one group
 *   GET  /producers                                   {"producers":[...]}
 *   GET  /transactions                                {"transactions":[...]}
 *   GET  /log?since=&limit=&maxBytes=                 {"enabled":..,"entries":[...]}
 *
 * Answers 200 `{"ok":true}` for a POST, 400 `{"error":"..."}` for a bad body or query or a call
 * the cluster refuses, 404 for another path or an unknown topic, partition or group. Empty path
 * segments are dropped (`//topics` and `/topics/` are `/topics`), as most HTTP servers do.
 * `intercept` needs code, so it is not offered here. Every answer is bounded: records and log
 * entries come a page at a time.
 */

import http from "node:http";
import type { AddressInfo } from "node:net";
import type { RunningCluster } from "./cluster.js";
import { jsonText, RawJson } from "./json-text.js";

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
  "/log": (c, b) => {
    const enabled = b["enabled"];
    if (typeof enabled !== "boolean") throw new Error("enabled must be true or false");
    if (!enabled) return c.cluster.requestLog.disable();
    c.cluster.requestLog.enable({
      ...(b["size"] === undefined ? {} : { size: int(b, "size") }),
      ...(b["maxJsonChars"] === undefined ? {} : { maxJsonChars: int(b, "maxJsonChars") }),
    });
  },
};

/** GET /log: entries per page (default 100) and characters of their JSON (at least one entry). */
const MAX_LOG_ENTRIES = 1000;
const MAX_LOG_CHARS = 16 * 1024 * 1024;

class NotFound extends Error {}

/** A query parameter as an integer in min..max, or `fallback` when absent. */
function queryInt(query: URLSearchParams, name: string, fallback: number, min: number, max: number): number {
  const text = query.get(name);
  if (text === null) return fallback;
  const n = Number(text);
  if (!/^-?\d+$/.test(text) || n < min || n > max) throw new Error(`${name} must be an integer ${min}..${max}`);
  return n;
}

/** The answer of a GET, as JSON text (int64 exact), or undefined for a path with no GET. */
async function get(cluster: RunningCluster, path: string, query: URLSearchParams): Promise<string | undefined> {
  const parts = path.split("/").slice(1).map(decodeURIComponent);
  const inspect = cluster.inspect;
  const found = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new NotFound(`no ${what}`);
    return value;
  };
  switch (parts[0]) {
    case "faults":
      return parts.length === 1 ? jsonText({ faults: cluster.cluster.control.pending() }) : undefined;
    case "topics":
      if (parts.length === 1) return jsonText({ topics: inspect.topics() });
      if (parts.length === 2) return jsonText(found(inspect.topic(parts[1]!), `topic ${parts[1]}`));
      if (parts.length === 5 && parts[2] === "partitions" && parts[4] === "records") {
        const partition = Number(parts[3]);
        if (!/^\d+$/.test(parts[3]!) || cluster.cluster.partition(parts[1]!, partition) === undefined) {
          throw new NotFound(`no partition ${parts[1]}-${parts[3]}`);
        }
        const offset = query.get("offset");
        if (offset !== null && !/^\d{1,19}$/.test(offset)) throw new Error("offset must be an integer 0 or more");
        return jsonText(
          await inspect.records(parts[1]!, partition, {
            ...(offset === null ? {} : { offset: BigInt(offset) }),
            limit: queryInt(query, "limit", 100, 1, 1000),
            maxBytes: queryInt(query, "maxBytes", 1024 * 1024, 1, 16 * 1024 * 1024),
          }),
        );
      }
      return undefined;
    case "groups":
      if (parts.length === 1) return jsonText({ groups: inspect.groups() });
      if (parts.length === 2) return jsonText(found(inspect.group(parts[1]!), `group ${parts[1]}`));
      return undefined;
    case "producers":
      return parts.length === 1 ? jsonText({ producers: inspect.producers() }) : undefined;
    case "transactions":
      return parts.length === 1 ? jsonText({ transactions: inspect.transactions() }) : undefined;
    case "log": {
      if (parts.length !== 1) return undefined;
      const limit = queryInt(query, "limit", 100, 1, MAX_LOG_ENTRIES);
      const maxChars = queryInt(query, "maxBytes", MAX_LOG_CHARS, 1, MAX_LOG_CHARS);
      const entries: string[] = [];
      let chars = 0;
      for (const e of cluster.requestLog({ since: queryInt(query, "since", 0, 0, Number.MAX_SAFE_INTEGER), limit })) {
        const text = jsonText({
          ...e,
          request: e.request === null ? null : new RawJson(e.request),
          response: e.response === null ? null : new RawJson(e.response),
        });
        if (entries.length > 0 && chars + text.length > maxChars) break;
        entries.push(text);
        chars += text.length;
      }
      return `{"enabled":${cluster.cluster.requestLog.enabled},"entries":[${entries.join(",")}]}`;
    }
    default:
      return undefined;
  }
}

/**
 * The route a request target names, and its query. A target is a path: `//topics` is not the
 * scheme-relative URL `new URL` would read it as (host `topics`, path `/`). Empty segments are
 * dropped (no route has one, and a topic name is never empty), so that a client joining a base
 * URL that ends in `/` with `/topics` reaches /topics; segments stay percent-encoded.
 */
function routeOf(target: string): { path: string; query: URLSearchParams } {
  const url = new URL(target.startsWith("/") ? `http://127.0.0.1${target}` : target);
  const segments = url.pathname.split("/").filter((s) => s !== "");
  return { path: `/${segments.join("/")}`, query: url.searchParams };
}

const GET_PATHS =
  "GET /faults, /topics, /topics/T, /topics/T/partitions/P/records, /groups, /groups/G, /producers, /transactions, /log";

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
    const sendText = (status: number, text: string) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(text);
    };
    const send = (status: number, body: unknown) => sendText(status, JSON.stringify(body));
    const target = req.url ?? "/";
    let route: { path: string; query: URLSearchParams };
    try {
      route = routeOf(target);
    } catch {
      send(400, { error: `${target} is no request path (a control path starts with /: ${GET_PATHS})` });
      return;
    }
    const { path, query } = route;
    // The path as the client sent it (an unknown one is named as written, not as normalized).
    const notFound = () =>
      send(404, {
        error: `no ${req.method} ${target.split("?")[0]}: POST ${Object.keys(ROUTES).join(", ")}; ${GET_PATHS}`,
      });
    if (req.method === "GET") {
      get(cluster, path, query).then(
        (text) => (text === undefined ? notFound() : sendText(200, text)),
        (e: Error) => send(e instanceof NotFound ? 404 : 400, { error: e.message }),
      );
      return;
    }
    const post = ROUTES[path];
    if (post === undefined || req.method !== "POST") {
      notFound();
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
          await post(cluster, body as Body);
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
