/**
 * An opt-in log of every request and its response as Kafka's JSON (each codec's `toJson`, the
 * form of Kafka's request logger and JsonConverter), for a test to see what a client sent:
 * api key and name, version, correlation id, client id, node, connection and latency.
 *
 * Bounded: a ring of the newest `size` entries, and a request or response whose JSON is longer
 * than `maxJsonChars` is left out of its entry (`truncated`). Off by default; while off, a
 * request costs one boolean check (`enabled`, read in cluster.ts's request path).
 */

import type { Exchange } from "./cluster.js";
import type { Protocol } from "../../src/runtime/index.js";

/** One request and its answer. */
export interface RequestLogEntry {
  /** Counts up from 0 over the cluster's life (not reset): `since` for the next read. */
  readonly seq: number;
  /** When the request was taken up, ms since the epoch. */
  readonly time: number;
  /** The node that received it. */
  readonly node: number;
  /** The connection (0, 1, ... in the order the cluster accepted them). */
  readonly connection: number;
  readonly apiKey: number;
  /** Kafka's name of the API (`Produce`, `Fetch`, ...), or `api key N` for one the codecs lack. */
  readonly apiName: string;
  readonly apiVersion: number;
  readonly correlationId: number;
  /** The request header's client id (null when absent or the request did not decode). */
  readonly clientId: string | null;
  /** From taking the request up to its response encoded (ms, fractional). */
  readonly latencyMs: number;
  /** The request body as Kafka's JSON text, null when it did not decode (or was truncated). */
  readonly request: string | null;
  /** The response body as Kafka's JSON text, null when none was sent (or it was truncated). */
  readonly response: string | null;
  /** Why the connection was closed instead of answering, or null. */
  readonly error: string | null;
  /** True when the request's or response's JSON was longer than `maxJsonChars` and left out. */
  readonly truncated: boolean;
}

/** How the log is kept. */
export interface RequestLogOptions {
  /** Entries kept, the newest (1..100000, default 1000). */
  readonly size?: number;
  /**
   * A request's or response's JSON longer than this is left out (1..67108864 characters, default
   * 1048576), and so is one whose frame has more bytes than this (never converted). The log holds
   * at most `size` × 2 × `maxJsonChars` characters.
   */
  readonly maxJsonChars?: number;
}

const MAX_SIZE = 100_000;
const MAX_JSON_CHARS = 64 * 1024 * 1024;

function check(name: string, value: number, max: number): number {
  if (!Number.isInteger(value) || value < 1 || value > max) {
    throw new RangeError(`${name} must be an integer 1..${max}, not ${value}`);
  }
  return value;
}

export class RequestLog {
  /** True while the log records: the request path checks only this. */
  enabled = false;
  private size = 1000;
  private maxJsonChars = 1024 * 1024;
  private ring: RequestLogEntry[] = [];
  /** Where the oldest entry is once the ring is full. */
  private head = 0;
  private seq = 0;

  constructor(private readonly protocol: Protocol) {}

  /** Starts recording (again), with these bounds; entries beyond a smaller `size` are dropped, oldest first. */
  enable(options: RequestLogOptions = {}): void {
    const size = check("size", options.size ?? this.size, MAX_SIZE);
    const maxJsonChars = check("maxJsonChars", options.maxJsonChars ?? this.maxJsonChars, MAX_JSON_CHARS);
    const kept = this.entries().slice(-size);
    this.size = size;
    this.maxJsonChars = maxJsonChars;
    this.ring = kept;
    this.head = 0;
    this.enabled = true;
  }

  /** Stops recording; the entries stay until {@link clear}. */
  disable(): void {
    this.enabled = false;
  }

  /** Forgets every entry (`cluster.reset()`); recording stays as it was. */
  clear(): void {
    this.ring = [];
    this.head = 0;
  }

  /** The entries kept, oldest first; with `since`, only those whose `seq` is at least it; at most `limit`. */
  entries(options: { since?: number; limit?: number } = {}): RequestLogEntry[] {
    const all = [...this.ring.slice(this.head), ...this.ring.slice(0, this.head)];
    const since = options.since ?? 0;
    const from = all.findIndex((e) => e.seq >= since);
    const out = from < 0 ? [] : all.slice(from);
    return options.limit === undefined ? out : out.slice(0, options.limit);
  }

  /** @internal Answers a request through `answer`, timing it, and records the exchange. */
  async record(answer: () => Promise<Exchange>): Promise<Exchange> {
    const time = Date.now();
    const started = performance.now();
    const exchange = await answer();
    const latencyMs = performance.now() - started;
    let truncated = false;
    const fit = (json: string | null, tooLong = false): string | null => {
      if (tooLong || (json !== null && json.length > this.maxJsonChars)) {
        truncated = true;
        return null;
      }
      return json;
    };
    const api = this.protocol.apis.get(exchange.apiKey);
    const header = exchange.decoded?.header as { clientId?: string | null } | undefined;
    this.push({
      seq: this.seq++,
      time,
      node: exchange.nodeId,
      connection: exchange.connection,
      apiKey: exchange.apiKey,
      apiName: api?.name ?? `api key ${exchange.apiKey}`,
      apiVersion: exchange.apiVersion,
      correlationId: exchange.correlationId,
      clientId: header?.clientId ?? null,
      latencyMs,
      // A frame longer than the limit is left out unconverted: its JSON would be at least as long
      // for the bulky parts (bytes and records are base64, 4/3 of their size), and building it
      // first would allocate the whole text for one request.
      request: exchange.request.length > this.maxJsonChars ? fit(null, true) : fit(this.requestJson(exchange)),
      response:
        exchange.response !== null && exchange.response.length > this.maxJsonChars
          ? fit(null, true)
          : fit(this.responseJson(exchange)),
      error: exchange.error?.message ?? null,
      truncated,
    });
    return exchange;
  }

  private push(entry: RequestLogEntry): void {
    if (this.ring.length < this.size) {
      this.ring.push(entry);
      return;
    }
    this.ring[this.head] = entry;
    this.head = (this.head + 1) % this.size;
  }

  private requestJson(e: Exchange): string | null {
    if (e.decoded === null) return null;
    try {
      return e.decoded.api.request.toJson(e.decoded.body, e.apiVersion);
    } catch {
      return null;
    }
  }

  private responseJson(e: Exchange): string | null {
    if (e.response === null) return null;
    // A response to a request that did not decode is KIP-511's ApiVersions fallback: the v0 layout.
    const version = e.decoded === null ? 0 : e.apiVersion;
    try {
      const decoded = this.protocol.decodeResponseFrame(e.response, e.apiKey, version);
      return this.protocol.apis.get(e.apiKey)!.response.toJson(decoded.body, version);
    } catch {
      return null;
    }
  }
}
