/**
 * The proxy's protocol log: one entry per request, response and connection event, and its JSON
 * lines form (`kafka-wire proxy --log jsonl`).
 *
 * Bodies are Kafka JSON (each codec's `toJson`: Kafka's `MessageDataJsonConverter` shapes, int64
 * exact), except that each `records` field (Produce requests, Fetch and ShareFetch responses)
 * is a summary of its record batches, or with `records` its records, decoded through
 * `kafka-wire/records`, instead of base64.
 */

import { parse, stringify } from "lossless-json";
import { decodeRecords, type Codecs, type RecordSet } from "../../src/records/index.js";
import type { MessageCodec } from "../../src/runtime/index.js";

/** A request or response that went through the proxy. */
export interface MessageLogEntry {
  /** When the proxy handled it (ISO 8601). */
  time: string;
  /** Which client connection (0, 1, ... over all listeners). */
  connection: number;
  direction: "request" | "response";
  apiKey: number;
  /** Kafka's API name (`Produce`), or null when the codecs do not know the api key. */
  api: string | null;
  /** The version of the body (a response after ApiVersions' KIP-511 fallback: 0). */
  apiVersion: number;
  correlationId: number;
  /** Responses: milliseconds from the request's arrival at the proxy to the response's. */
  latencyMs?: number;
  /** Bytes forwarded, size prefix included. */
  size: number;
  /** Passed through unread: the codecs do not know the api key or version, or it did not decode (`error`). */
  opaque?: true;
  /** Why it did not decode. */
  error?: string;
  /** What changed it: `addresses`, `api versions`, `filter` (else it went out as it came in). */
  changed?: string;
  /** A filter answered it itself or closed the connection. */
  action?: string;
  /** The body as Kafka JSON text (absent when opaque). */
  body?: string;
}

/** A client connection opened or closed, or something its clients should know (`warning`). */
export interface ConnectionLogEntry {
  time: string;
  connection: number;
  direction: "connection";
  event: "open" | "close" | "warning";
  /** `client -> broker` when opened; why when closed; the warning. */
  detail: string;
}

export type LogEntry = MessageLogEntry | ConnectionLogEntry;

/** One JSON line (no newline): the entry's fields, `body` as a JSON value. */
export function formatLogLine(entry: LogEntry): string {
  const { body, ...rest } = entry as MessageLogEntry;
  const head = JSON.stringify(rest);
  return body === undefined ? head : `${head.slice(0, -1)},"body":${body}}`;
}

const RECORD_APIS = new Set(["ProduceRequest", "FetchResponse", "ShareFetchResponse"]);

/** A body as Kafka JSON text, its record sets summarised (or decoded with `records`). */
export async function bodyJson(
  codec: MessageCodec<unknown>,
  body: unknown,
  version: number,
  records: { readonly codecs?: Codecs } | null,
): Promise<string> {
  if (!RECORD_APIS.has(codec.name)) return codec.toJson(body, version);
  // The record sets leave as empty bytes (no base64 of megabytes to parse again), then the
  // summaries take their place.
  const json = codec.toJson(withoutRecords(body), version);
  const tree = parse(json) as unknown;
  await replaceRecords(body, tree, records);
  return stringify(tree) ?? json;
}

const EMPTY = new Uint8Array(0);

/** A copy of `value` with each `records` bytes field empty (objects copied only along those paths). */
function withoutRecords(value: unknown): unknown {
  if (typeof value !== "object" || value === null || value instanceof Uint8Array) return value;
  if (Array.isArray(value)) return value.map(withoutRecords);
  const out: Tree = {};
  for (const [k, v] of Object.entries(value as Tree))
    out[k] = k === "records" && v instanceof Uint8Array ? EMPTY : withoutRecords(v);
  return out;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Tree = Record<string, any>;

/** Walks the decoded body and its JSON tree together; each `records` bytes field becomes its summary. */
async function replaceRecords(
  body: unknown,
  tree: unknown,
  records: { readonly codecs?: Codecs } | null,
): Promise<void> {
  if (typeof body !== "object" || body === null || typeof tree !== "object" || tree === null) return;
  if (Array.isArray(body)) {
    for (let i = 0; i < body.length; i++) await replaceRecords(body[i], (tree as unknown[])[i], records);
    return;
  }
  for (const [k, v] of Object.entries(body as Tree)) {
    if (v instanceof Uint8Array) {
      if (k === "records") (tree as Tree)[k] = await recordSetJson(v, records);
    } else if (typeof v === "object" && v !== null) {
      await replaceRecords(v, (tree as Tree)[k], records);
    }
  }
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Bytes as text when they are UTF-8, else `{ "base64": … }`. */
function bytesJson(bytes: Uint8Array | null): unknown {
  if (bytes === null) return null;
  try {
    return utf8.decode(bytes);
  } catch {
    return { base64: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64") };
  }
}

/** A record set's batches (header facts), and with `records` each record. */
async function recordSetJson(bytes: Uint8Array, records: { readonly codecs?: Codecs } | null): Promise<unknown> {
  let set: RecordSet;
  try {
    // A summary trusts the CRCs (as a broker relaying them would); with `records` they are checked.
    set = await decodeRecords(bytes, {
      verifyCrc: records !== null,
      ...(records?.codecs ? { codecs: records.codecs } : {}),
    });
  } catch (e) {
    return { bytes: bytes.length, error: (e as Error).message };
  }
  const batches = set.batches.map((b) => {
    const head: Tree = {
      baseOffset: b.baseOffset,
      magic: b.magic,
      compression: b.compression,
    };
    if (b.magic === 2) {
      head["recordCount"] = b.recordCount;
      if (b.producerId >= 0n)
        Object.assign(head, { producerId: b.producerId, producerEpoch: b.producerEpoch, baseSequence: b.baseSequence });
      if (b.isTransactional) head["isTransactional"] = true;
      if (b.isControl) head["isControl"] = true;
    }
    if (records !== null) {
      try {
        head["records"] = b.records.map((r) => ({
          offset: r.offset,
          timestamp: r.timestamp,
          key: bytesJson(r.key),
          value: bytesJson(r.value),
          headers: r.headers.map((h) => ({ key: h.key, value: bytesJson(h.value) })),
        }));
      } catch (e) {
        head["recordsError"] = (e as Error).message;
      }
    }
    return head;
  });
  return { bytes: bytes.length, batches, ...(set.incompleteTail > 0 ? { incompleteTail: set.incompleteTail } : {}) };
}
