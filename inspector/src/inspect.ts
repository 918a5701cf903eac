/**
 * What the page shows for some bytes, without the DOM: the decoded tree, the byte span of each
 * node that has one, and the errors at their offsets. A frame is read step by step (size prefix,
 * header, body) rather than through `Protocol.decodeRequestFrame`, so that what decoded before an
 * error is still shown. Each part is decoded with `decodeWithSpans` (the runtime's interpreter of
 * the message's field table, equal to its generated decoder), which gives every field's bytes
 * and, on an error, what it read before it.
 */

import { decodeRecords, type RecordSet } from "../../src/records/index.js";
import { recordSpans } from "../../src/records/spans.js";
import {
  HEADER_VERSION_EXCEPTIONS,
  KafkaWireError,
  requestHeaderVersion,
  responseHeaderVersion,
  type MessageCodec,
} from "../../src/runtime/index.js";
import { decodeWithSpans, spansOf, type ByteSpan } from "../../src/runtime/spans.js";
import { toHex } from "./bytes.js";
import type { PageCodecs } from "./compression.js";
import { BATCH_FIELDS, DERIVED, pick, RECORD_FIELDS } from "./records.js";
import type { SchemaSet, SetMessage } from "./sets.js";

/** The bytes of one field: `path` names a tree node (`body.topics[0].name`). */
export interface Span {
  readonly path: string;
  /** Byte offset in the inspected bytes. */
  readonly offset: number;
  /** Number of bytes. */
  readonly length: number;
}

/** One node of the decoded tree. */
export interface TreeNode {
  /** Unique in the tree: `header`, `body.topics[0].partitions[1]`, `body.….records.batches[0]`. */
  readonly path: string;
  /** What the tree shows as its name (`topics`, `[0]`). */
  readonly name: string;
  /** The leaf's value, or a struct's or array's summary. */
  readonly value: string;
  readonly children: readonly TreeNode[];
}

/** A decode error where it happened. */
export interface Problem {
  /** The library's stable code (`BUFFER_UNDERFLOW`), or `ERROR` for anything else. */
  readonly code: string;
  /** The field path inside the message or record set (as the error gives it), "" for the message itself. */
  readonly path: string;
  /** Byte offset in the inspected bytes; -1 when the error has none. */
  readonly offset: number;
  /** What went wrong, without the location. */
  readonly reason: string;
  /** Which part was being decoded: `header`, `body`, `body.….records`. */
  readonly part: string;
}

/** Everything the page shows. */
export interface Inspection {
  readonly bytes: Uint8Array;
  /** One line: message, version, header version, correlation id. */
  readonly title: string;
  readonly tree: readonly TreeNode[];
  /** Every span known, in no particular order; a later span of the same path wins. */
  readonly spans: readonly Span[];
  readonly problems: readonly Problem[];
  /** What the reader should know (a guessed version, a pairing, a re-encoding). */
  readonly notes: readonly string[];
}

/** How to read the bytes. */
export type Kind = "auto" | "request" | "response" | "body";

/** The reader's choices (or a file entry's). */
export interface Choice {
  readonly kind: Kind;
  readonly set: SchemaSet;
  /** Body: the message name. */
  readonly message?: string | undefined;
  /** Response: the api key of the request it answers. */
  readonly apiKey?: number | undefined;
  /** The api (or message) version; undefined: the request header's, or (body) the highest that decodes. */
  readonly version?: number | undefined;
  /** Notes to show with the result (e.g. where a file entry's pairing came from). */
  readonly notes?: readonly string[];
}

/** The compressions kafka-wire/records cannot decompress without a codec passed to it. */
const NEEDS_CODEC: ReadonlySet<string> = new Set(["snappy", "lz4", "zstd"]);

/** Arrays longer than this show their first elements only (a Fetch of 100k partitions stays responsive). */
export const MAX_CHILDREN = 500;

/**
 * Reads `bytes` as `choice` says; never throws (errors become problems). `codecs` gives the
 * codecs for batches compressed with snappy, lz4 or zstd, asked for only when there is one.
 */
export async function inspect(
  bytes: Uint8Array,
  choice: Choice,
  codecs?: () => Promise<PageCodecs>,
): Promise<Inspection> {
  const b = new Builder(bytes);
  for (const n of choice.notes ?? []) b.notes.push(n);
  let kind = choice.kind;
  if (kind === "auto") kind = detect(bytes, choice);
  if (kind === "request") readRequest(b, choice);
  else if (kind === "response") readResponse(b, choice);
  else readBody(b, choice);
  await b.expandRecords(codecs);
  return b.result();
}

/**
 * A frame whose size prefix matches its length is a request when it decodes as one (its header
 * names an API of the set, and header and body use every byte); else a response when the reader
 * picked an API, else a request (to show why it is not one).
 */
export function detect(bytes: Uint8Array, choice: Choice): Exclude<Kind, "auto"> {
  if (!isFrame(bytes)) return "body";
  if (choice.apiKey === undefined || readsAsRequest(bytes, choice.set) !== null) return "request";
  return "response";
}

/** The api key, version and correlation id of a request frame that decodes completely, else null. */
export function readsAsRequest(
  bytes: Uint8Array,
  set: SchemaSet,
): { apiKey: number; version: number; correlationId: number } | null {
  const protocol = set.protocol;
  if (protocol === null || !isFrame(bytes) || bytes.length < 8) return null;
  const apiKey = int16(bytes, 4);
  const version = int16(bytes, 6);
  const api = protocol.apis.get(apiKey);
  if (api === undefined) return null;
  try {
    const header = decodePart(protocol.requestHeader, bytes, 4, requestHeaderVersion(codecView(api.request), version));
    const body = decodePart(api.request, bytes, header.end, version);
    const correlationId = (header.value as { correlationId: number }).correlationId;
    return body.end === bytes.length ? { apiKey, version, correlationId } : null;
  } catch {
    return null;
  }
}

/**
 * Decodes one part (a header or body) of `bytes` at `offset` with its field table; `end` is the
 * offset after it (trailing bytes are the caller's business: a header has its body after it).
 * @throws KafkaDecodeError as the message's generated decoder, with the spans read so far.
 */
function decodePart(
  m: SetMessage,
  bytes: Uint8Array,
  offset: number,
  version: number,
  records = false,
): { value: unknown; end: number; spans: readonly ByteSpan[] } {
  const d = decodeWithSpans(m.table, bytes.subarray(offset), version, {
    allowTrailingBytes: true,
    ...(records ? { recordSpans } : {}),
  });
  return { value: d.value, end: offset + (d.spans[0]?.length ?? 0), spans: d.spans };
}

/**
 * A message as the runtime's header-version functions see it: they read only its api key,
 * flexible versions and header versions, which a set's message has.
 */
function codecView(m: SetMessage): MessageCodec<unknown> {
  return m as unknown as MessageCodec<unknown>;
}

/** True when the first 4 bytes (int32) say how many bytes follow. */
export function isFrame(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && int32(bytes, 0) === bytes.length - 4;
}

function int16(b: Uint8Array, p: number): number {
  return ((b[p]! << 24) | (b[p + 1]! << 16)) >> 16;
}

export function int32(b: Uint8Array, p: number): number {
  return (b[p]! << 24) | (b[p + 1]! << 16) | (b[p + 2]! << 8) | b[p + 3]!;
}

function readRequest(b: Builder, choice: Choice): void {
  const { bytes } = b;
  const protocol = choice.set.protocol;
  if (!b.sizePrefix()) return;
  if (protocol === null) {
    b.problem("header", {
      code: "ERROR",
      path: "",
      offset: 4,
      reason: `${choice.set.label} has no RequestHeader: pick a body`,
    });
    return;
  }
  if (bytes.length < 8) {
    b.problem("header", {
      code: "BUFFER_UNDERFLOW",
      path: "requestApiVersion",
      offset: bytes.length,
      reason: "the header needs an api key and version",
    });
    return;
  }
  const apiKey = int16(bytes, 4);
  const version = choice.version ?? int16(bytes, 6);
  const api = protocol.apis.get(apiKey);
  if (api === undefined) {
    b.problem("header", {
      code: "UNSUPPORTED_VERSION",
      path: "requestApiKey",
      offset: 4,
      reason: `no API with api key ${apiKey} in ${choice.set.label}`,
    });
    return;
  }
  const headerVersion = requestHeaderVersion(codecView(api.request), version);
  const header = b.message("header", protocol.requestHeader, 4, headerVersion);
  b.title = `${api.request.name} v${version} · request header v${headerVersion}`;
  if (header === null) return;
  const correlationId = (header.message as { correlationId: number }).correlationId;
  b.title += ` · correlation id ${correlationId}`;
  b.message("body", api.request, header.offset, version);
}

function readResponse(b: Builder, choice: Choice): void {
  const protocol = choice.set.protocol;
  if (!b.sizePrefix()) return;
  const api = choice.apiKey === undefined ? undefined : protocol?.apis.get(choice.apiKey);
  if (protocol === null || api === undefined) {
    b.problem("header", {
      code: "ERROR",
      path: "",
      offset: -1,
      reason:
        "a response frame does not say what it answers: pick its API and version (or open a file with the request before it)",
    });
    return;
  }
  let version = choice.version ?? api.response.validVersions.highest;
  if (choice.version === undefined) b.notes.push(`no version chosen: read as the highest, v${version}`);
  const headerVersion = responseHeaderVersion(codecView(api.response), version);
  const header = b.message("header", protocol.responseHeader, 4, headerVersion);
  b.title = `${api.response.name} v${version} · response header v${headerVersion}`;
  if (header === null) return;
  if (
    api.apiKey === HEADER_VERSION_EXCEPTIONS.apiVersionsApiKey &&
    version > 0 &&
    !decodes(api.response, b.bytes, header.offset, version)
  ) {
    // KIP-511: a broker that does not support the requested ApiVersions version answers in the v0
    // layout with UNSUPPORTED_VERSION (as `decodeApiVersionsResponseFrame` reads it).
    if (decodes(api.response, b.bytes, header.offset, 0)) {
      b.notes.push(
        `does not decode as v${version}; read as v0, the layout of a broker's UNSUPPORTED_VERSION answer (KIP-511)`,
      );
      version = 0;
      b.title = `${api.response.name} v0 · response header v${headerVersion}`;
    }
  }
  b.title += ` · correlation id ${(header.message as { correlationId: number }).correlationId}`;
  b.message("body", api.response, header.offset, version);
}

/** True when `m` of `version` decodes every byte from `offset`. */
function decodes(m: SetMessage, bytes: Uint8Array, offset: number, version: number): boolean {
  try {
    return decodePart(m, bytes, offset, version).end === bytes.length;
  } catch {
    return false;
  }
}

/** `Choice.message` that asks to try every message of the set. */
export const DETECT_MESSAGE = "*";
/** Bodies larger than this are not tried against every message (each try may read all of it). */
export const MAX_DETECT_BYTES = 16 * 1024;
/** Candidates a detection lists. */
const MAX_CANDIDATES = 12;

/** Every message of the set (at the highest version that fits) that decodes every byte of `bytes`. */
export function detectMessages(bytes: Uint8Array, set: SchemaSet): { name: string; version: number }[] {
  const found: { name: string; version: number }[] = [];
  for (const m of set.messages.values()) {
    for (let v = m.validVersions.highest; v >= m.validVersions.lowest; v--) {
      if (!decodes(m, bytes, 0, v)) continue;
      found.push({ name: m.name, version: v });
      break;
    }
  }
  return found;
}

function readBody(b: Builder, choice: Choice): void {
  if (choice.message === DETECT_MESSAGE) {
    if (b.bytes.length > MAX_DETECT_BYTES) {
      b.problem("body", {
        code: "ERROR",
        path: "",
        offset: -1,
        reason: `over ${MAX_DETECT_BYTES} bytes: pick the message of this body`,
      });
      return;
    }
    const found = detectMessages(b.bytes, choice.set);
    if (found.length === 0) {
      b.problem("body", {
        code: "ERROR",
        path: "",
        offset: -1,
        reason: `no message of ${choice.set.label} decodes every byte`,
      });
      return;
    }
    const listed = found.slice(0, MAX_CANDIDATES).map((c) => `${c.name} v${c.version}`);
    const rest = found.length > MAX_CANDIDATES ? ` and ${found.length - MAX_CANDIDATES} more` : "";
    b.notes.push(
      `${found.length} message${found.length === 1 ? "" : "s"} decode every byte: ${listed.join(", ")}${rest}; shown: the first`,
    );
    choice = { ...choice, message: found[0]!.name, version: found[0]!.version };
  }
  const codec = choice.message === undefined ? undefined : choice.set.messages.get(choice.message);
  if (codec === undefined) {
    b.problem("body", {
      code: "ERROR",
      path: "",
      offset: -1,
      reason: isFrame(b.bytes)
        ? "pick how to read it: a request frame, a response frame (its API and version), or a body (its message)"
        : "not a size-prefixed frame: pick the message (and version) of this body",
    });
    return;
  }
  const { lowest, highest } = codec.validVersions;
  if (choice.version !== undefined) {
    b.title = `${codec.name} v${choice.version}`;
    b.message("body", codec, 0, choice.version);
    return;
  }
  // No version given: the highest that decodes the whole input; else the highest's error.
  for (let v = highest; v >= lowest; v--) {
    try {
      if (decodePart(codec, b.bytes, 0, v).end !== b.bytes.length) continue;
    } catch {
      continue;
    }
    b.title = `${codec.name} v${v}`;
    if (v !== highest || lowest !== highest)
      b.notes.push(`version detected: v${v} is the highest that decodes every byte`);
    b.message("body", codec, 0, v);
    return;
  }
  b.title = `${codec.name} v${highest}`;
  b.notes.push(`no version of ${codec.name} decodes these bytes; shown: v${highest}`);
  b.message("body", codec, 0, highest);
}

/** A `records` field waiting for `decodeRecords`. */
interface PendingRecords {
  readonly path: string;
  readonly view: Uint8Array;
  readonly children: TreeNode[];
}

class Builder {
  readonly tree: TreeNode[] = [];
  readonly spans: Span[] = [];
  readonly problems: Problem[] = [];
  readonly notes: string[] = [];
  readonly pending: PendingRecords[] = [];
  title = "";

  constructor(readonly bytes: Uint8Array) {}

  /** The size prefix node; false (with a problem) when it disagrees with the length. */
  sizePrefix(): boolean {
    const { bytes } = this;
    if (bytes.length < 4) {
      this.problem("size", {
        code: "BUFFER_UNDERFLOW",
        path: "",
        offset: 0,
        reason: `a frame needs a 4-byte size prefix, got ${bytes.length} bytes`,
      });
      return false;
    }
    const size = int32(bytes, 0);
    this.tree.push({ path: "size", name: "size", value: String(size), children: [] });
    this.spans.push({ path: "size", offset: 0, length: 4 });
    if (size !== bytes.length - 4) {
      this.problem("size", {
        code: "INVALID_LENGTH",
        path: "",
        offset: 0,
        reason: `size prefix says ${size} bytes, the frame has ${bytes.length - 4} after it`,
      });
      return false;
    }
    return true;
  }

  /**
   * Decodes one part (`header` or `body`) at `offset` (a body must use every byte left); adds its
   * node and spans, or what decoded before its error and the problem. Returns the decoded
   * message and the offset after it, or null on error.
   */
  message(
    part: "header" | "body",
    codec: SetMessage,
    offset: number,
    version: number,
  ): { message: unknown; offset: number } | null {
    const { bytes } = this;
    let r: { value: unknown; end: number; spans: readonly ByteSpan[] };
    try {
      r = decodePart(codec, bytes, offset, version, true);
    } catch (e) {
      const partial = spansOf(e) ?? [];
      this.addSpans(part, offset, partial);
      this.tree.push(partialTree(part, codec, version, partial));
      const p = errorProblem(e);
      // The interpreter's offsets are those of the part's bytes.
      this.problem(part, { ...p, offset: p.offset < 0 ? -1 : p.offset + offset });
      return null;
    }
    const node = this.node(part, part, r.value);
    this.tree.push({ ...node, value: `${codec.name} v${version} · ${r.end - offset} bytes` });
    this.spans.push({ path: part, offset, length: r.end - offset });
    this.addSpans(part, offset, r.spans);
    if (part === "body" && r.end !== bytes.length) {
      this.problem(part, {
        code: "TRAILING_BYTES",
        path: "",
        offset: r.end,
        reason: `${bytes.length - r.end} bytes remain after the body`,
      });
    }
    return { message: r.value, offset: r.end };
  }

  /**
   * The interpreter's spans of a part (offsets from `offset`, paths under `part`); the fields a
   * batch derives from a stored one get that field's bytes.
   */
  addSpans(part: string, offset: number, spans: readonly ByteSpan[]): void {
    const byPath = new Map(spans.map((s) => [s.path, s]));
    for (const s of spans) {
      const path = s.path === "" ? part : `${part}.${s.path}`;
      this.spans.push({ path, offset: offset + s.offset, length: s.length });
      if (s.kind !== "batch") continue;
      for (const [name, stored] of Object.entries(DERIVED)) {
        const from = byPath.get(`${s.path}.${stored}`);
        if (from !== undefined)
          this.spans.push({ path: `${path}.${name}`, offset: offset + from.offset, length: from.length });
      }
    }
  }

  problem(part: string, p: Omit<Problem, "part">): void {
    this.problems.push({ ...p, part });
  }

  /** The node of a decoded value; a `records` field waits for {@link expandRecords}. */
  node(path: string, name: string, value: unknown): TreeNode {
    if (value instanceof Uint8Array) {
      const children: TreeNode[] = [];
      if (name === "records" && value.length > 0) this.pending.push({ path, view: value, children });
      return { path, name, value: bytesSummary(value), children };
    }
    if (Array.isArray(value)) {
      const children: TreeNode[] = [];
      const n = Math.min(value.length, MAX_CHILDREN);
      for (let i = 0; i < n; i++) children.push(this.node(`${path}[${i}]`, `[${i}]`, value[i]));
      if (n < value.length) children.push(more(path, value.length - n));
      return { path, name, value: `[${value.length}]`, children };
    }
    if (typeof value === "object" && value !== null) {
      const children: TreeNode[] = [];
      for (const [k, v] of Object.entries(value)) {
        if (k === "_unknownTaggedFields" && Array.isArray(v) && v.length === 0) continue;
        children.push(this.node(path === "" ? k : `${path}.${k}`, k, v));
      }
      return { path, name, value: "", children };
    }
    return { path, name, value: scalar(value), children: [] };
  }

  /**
   * Decodes each `records` field (kafka-wire/records) into its node's children: batches
   * (`records[0]`), their header fields and records (`records[0].records[2].key`), as the
   * interpreter's record spans name them.
   */
  async expandRecords(codecs?: () => Promise<PageCodecs>): Promise<void> {
    let page: PageCodecs | undefined;
    for (const { path, view, children } of this.pending) {
      const base = view.byteOffset - this.bytes.byteOffset;
      let set: RecordSet;
      try {
        set = await decodeRecords(view);
        // Without their codec, batches keep their header: read again with the codecs if one needs them.
        if (codecs !== undefined && set.batches.some((batch) => NEEDS_CODEC.has(batch.compression))) {
          page ??= await codecs();
          set = await decodeRecords(view, { codecs: page.codecs });
        }
      } catch (e) {
        const p = errorProblem(e);
        this.problem(path, { ...p, offset: p.offset < 0 ? -1 : base + p.offset });
        continue;
      }
      set.batches.forEach((batch, i) => children.push(this.batchNode(`${path}[${i}]`, i, batch, base, page)));
      if (set.incompleteTail > 0) {
        const tail = `${path}.$incomplete`;
        children.push({
          path: tail,
          name: "incomplete",
          value: `${set.incompleteTail} bytes (a partial batch)`,
          children: [],
        });
      }
    }
  }

  batchNode(
    path: string,
    index: number,
    batch: RecordSet["batches"][number],
    base: number,
    page: PageCodecs | undefined,
  ): TreeNode {
    const children: TreeNode[] = [];
    const format = batch.magic === 2 ? 2 : "legacy";
    for (const [k, v] of Object.entries(pick(batch, BATCH_FIELDS[format])))
      children.push({ path: `${path}.${k}`, name: k, value: scalar(v), children: [] });
    let summary = `${batch.compression}`;
    try {
      const records = batch.records;
      summary = `${records.length} record${records.length === 1 ? "" : "s"}, ${summary}`;
      const list: TreeNode[] = [];
      const n = Math.min(records.length, MAX_CHILDREN);
      for (let i = 0; i < n; i++)
        list.push(this.node(`${path}.records[${i}]`, `[${i}]`, pick(records[i]!, RECORD_FIELDS[format])));
      if (n < records.length) list.push(more(`${path}.records`, records.length - n));
      children.push({ path: `${path}.records`, name: "records", value: `[${records.length}]`, children: list });
    } catch (e) {
      const p = errorProblem(e);
      // The library's reason names a package to install, which is no help in the page.
      const why = batch.compression === "none" ? undefined : page?.unavailable[batch.compression];
      const reason = why === undefined ? p.reason : `compressed with ${batch.compression}: not decodable here (${why})`;
      this.problem(path, { ...p, reason, offset: p.offset < 0 ? -1 : base + p.offset });
    }
    return { path, name: `[${index}]`, value: `baseOffset ${batch.baseOffset} · ${summary}`, children };
  }

  result(): Inspection {
    return {
      bytes: this.bytes,
      title: this.title,
      tree: this.tree,
      spans: this.spans,
      problems: this.problems,
      notes: this.notes,
    };
  }
}

/**
 * The tree of what decoded before an error, from the interpreter's spans (pre-order, with
 * depths): fields and elements, with the values of those without parts of their own; `$` parts
 * (lengths, markers, tagged-field sections) are left out.
 */
function partialTree(part: string, codec: SetMessage, version: number, spans: readonly ByteSpan[]): TreeNode {
  const root: TreeNode = {
    path: part,
    name: part,
    value: `${codec.name} v${version} · decoded up to the error`,
    children: [],
  };
  const stack: { depth: number; node: TreeNode }[] = [{ depth: 0, node: root }];
  for (const s of spans) {
    if (s.path === "" || s.path.includes("$")) continue;
    while (stack.length > 1 && stack[stack.length - 1]!.depth >= s.depth) stack.pop();
    const name = /(\[\d+\]|[^.[\]]+)$/.exec(s.path)?.[1] ?? s.path;
    const value = "value" in s ? scalar(s.value) : (s.type ?? "");
    const node: TreeNode = { path: `${part}.${s.path}`, name, value, children: [] };
    (stack[stack.length - 1]!.node.children as TreeNode[]).push(node);
    stack.push({ depth: s.depth, node });
  }
  return root;
}

function more(path: string, n: number): TreeNode {
  return { path: `${path}[…]`, name: "…", value: `${n} more not shown`, children: [] };
}

function bytesSummary(v: Uint8Array): string {
  const text = printable(v);
  return `${v.length} bytes${v.length === 0 ? "" : ` · ${toHex(v, 16)}`}${text === null ? "" : ` · "${text}"`}`;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** The bytes as text when they are short printable UTF-8, else null. */
function printable(v: Uint8Array): string | null {
  if (v.length === 0 || v.length > 64) return null;
  try {
    const s = utf8.decode(v);
    return /^[\P{C}]*$/u.test(s) ? s : null;
  } catch {
    return null;
  }
}

function scalar(v: unknown): string {
  if (typeof v === "string") return JSON.stringify(v);
  if (v instanceof Uint8Array) return bytesSummary(v);
  if (typeof v === "object" && v !== null)
    return JSON.stringify(v, (_k, x: unknown) => (typeof x === "bigint" ? String(x) : x));
  return String(v);
}

function errorProblem(e: unknown): Omit<Problem, "part"> {
  if (e instanceof KafkaWireError) return { code: e.code, path: e.path, offset: e.offset, reason: e.reason };
  return { code: "ERROR", path: "", offset: -1, reason: e instanceof Error ? e.message : String(e) };
}
