/**
 * A file of frames: one per line, as hex or base64 (`#` starts a comment), or the JSON lines of
 * `kafka-wire proxy --log jsonl` (proxy/src/log.ts). A response frame does not say what it
 * answers: it is paired with the request before it in the file that has its correlation id.
 * The proxy's log holds bodies as Kafka JSON, not bytes: each is encoded again with its codec
 * (the bytes of the same message, which may differ from the wire's only in unknown tagged
 * fields), and a body whose `records` the log summarised cannot be.
 */

import { isLosslessNumber, parse, stringify } from "lossless-json";
import { parseBytes } from "./bytes.js";
import { int32, isFrame, readsAsRequest, type Choice } from "./inspect.js";
import type { CodecSets } from "./codecs.js";
import type { SchemaSet } from "./sets.js";

/** One entry of the file: what the list shows and how to read its bytes. */
export interface FileEntry {
  /** 1-based line in the file. */
  readonly line: number;
  readonly label: string;
  /** Null when the line has nothing to decode (`error` says why). */
  readonly bytes: Uint8Array | null;
  readonly choice: Omit<Choice, "set">;
  readonly error?: string;
}

/** Lines beyond this are not read (a file of a day's traffic stays a bounded amount of work). */
export const MAX_ENTRIES = 5000;

/** True when the text has a JSON line (a proxy log): reading it needs the codecs. */
export function hasLogLines(text: string): boolean {
  return /^\s*\{/m.test(text);
}

/**
 * The entries of a file, in order, with responses paired to their requests. `codecs` (see
 * codecs.ts) encode a proxy log's JSON bodies; without them log lines say so.
 */
export function parseFile(text: string, set: SchemaSet, codecs: CodecSets | null = null): FileEntry[] {
  const entries: FileEntry[] = [];
  // correlation id -> the request that used it last (a client may reuse ids after they wrap).
  const requests = new Map<number, { apiKey: number; version: number; line: number }>();
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length && entries.length < MAX_ENTRIES; i++) {
    const line = lines[i]!.trim();
    if (line === "" || line.startsWith("#")) continue;
    entries.push(line.startsWith("{") ? logEntry(line, i + 1, set, codecs) : frameEntry(line, i + 1, set, requests));
  }
  return entries;
}

function frameEntry(
  text: string,
  line: number,
  set: SchemaSet,
  requests: Map<number, { apiKey: number; version: number; line: number }>,
): FileEntry {
  const parsed = parseBytes(text);
  if (parsed.bytes === undefined)
    return { line, label: `line ${line}: ${parsed.error}`, bytes: null, choice: { kind: "auto" }, error: parsed.error };
  const bytes = parsed.bytes;
  if (!isFrame(bytes))
    return {
      line,
      label: `line ${line}: ${bytes.length} bytes (a body: pick its message)`,
      bytes,
      choice: { kind: "body" },
    };
  const request = readsAsRequest(bytes, set);
  const name = (apiKey: number): string => set.protocol?.apis.get(apiKey)?.name ?? `api key ${apiKey}`;
  if (request !== null) {
    requests.set(request.correlationId, { ...request, line });
    return {
      line,
      label: `→ ${name(request.apiKey)} v${request.version} request · correlation id ${request.correlationId}`,
      bytes,
      choice: { kind: "request" },
    };
  }
  const correlationId = bytes.length >= 8 ? int32(bytes, 4) : -1;
  const paired = requests.get(correlationId);
  if (paired !== undefined) {
    requests.delete(correlationId);
    return {
      line,
      label: `← ${name(paired.apiKey)} v${paired.version} response · correlation id ${correlationId}`,
      bytes,
      choice: {
        kind: "response",
        apiKey: paired.apiKey,
        version: paired.version,
        notes: [`paired with the request on line ${paired.line} (correlation id ${correlationId})`],
      },
    };
  }
  return {
    line,
    label: `line ${line}: a frame that is no request of this set and answers none before it`,
    bytes,
    choice: { kind: "auto" },
  };
}

function logEntry(text: string, line: number, set: SchemaSet, codecs: CodecSets | null): FileEntry {
  let entry: Record<string, unknown>;
  try {
    entry = parse(text) as Record<string, unknown>;
  } catch (e) {
    const error = `not JSON: ${(e as Error).message}`;
    return { line, label: `line ${line}: ${error}`, bytes: null, choice: { kind: "auto" }, error };
  }
  const num = (v: unknown): number => Number(v);
  // An integer field of a proxy log line (proxy/src/log.ts), or null when it is missing or no integer.
  const int = (key: string): number | null => {
    const v = entry[key];
    const n = isLosslessNumber(v) || typeof v === "number" ? Number(v) : NaN;
    return Number.isSafeInteger(n) ? n : null;
  };
  const notLog = (why: string): FileEntry => {
    const error = `line ${line}: not a kafka-wire-proxy log entry (${why})`;
    return { line, label: error, bytes: null, choice: { kind: "auto" }, error };
  };
  if (typeof entry !== "object" || entry === null || Array.isArray(entry)) return notLog("not a JSON object");
  const direction = entry["direction"];
  if (direction === "connection") {
    const error = `connection ${num(entry["connection"])} ${String(entry["event"])}: ${String(entry["detail"])}`;
    return { line, label: error, bytes: null, choice: { kind: "auto" }, error };
  }
  if (direction !== "request" && direction !== "response")
    return notLog("no direction request, response or connection");
  for (const key of ["apiKey", "apiVersion", "correlationId"]) {
    if (int(key) === null) return notLog(`${key} is no integer`);
  }
  const apiKey = int("apiKey")!;
  const version = int("apiVersion")!;
  const arrow = direction === "request" ? "→" : "←";
  const label = `${arrow} ${String(entry["api"] ?? `api key ${apiKey}`)} v${version} ${direction} · correlation id ${num(entry["correlationId"])}`;
  const api = set.protocol?.apis.get(apiKey);
  const name = direction === "request" ? api?.request.name : api?.response.name;
  const all = set.id === "user" ? undefined : codecs?.[set.id];
  const codec = name === undefined || all == null ? undefined : all[name];
  const unread =
    entry["opaque"] === true
      ? `passed through unread${entry["error"] === undefined ? "" : `: ${String(entry["error"])}`}`
      : null;
  if (unread !== null || entry["body"] === undefined || codec === undefined) {
    const error =
      unread ??
      (set.id === "user"
        ? "schemas opened in the page have no codecs: the log's Kafka JSON cannot be encoded again"
        : all == null
          ? "the codecs (assets/codecs.js) did not load: the log's Kafka JSON cannot be encoded again"
          : codec === undefined
            ? `no ${direction} codec for api key ${apiKey} in this set`
            : "no body in the log");
    return { line, label, bytes: null, choice: { kind: "auto" }, error };
  }
  try {
    const body = codec.fromJson(stringify(entry["body"]) ?? "null", version);
    return {
      line,
      label,
      bytes: codec.encode(body, version),
      choice: {
        kind: "body",
        message: codec.name,
        version,
        notes: ["bytes encoded again from the log's Kafka JSON (the log holds no bytes)"],
      },
    };
  } catch (e) {
    const error = `cannot encode the log's JSON again${/records/.test(String(e)) ? " (its records are a summary)" : ""}: ${(e as Error).message}`;
    return { line, label, bytes: null, choice: { kind: "auto" }, error };
  }
}
