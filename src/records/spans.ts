/**
 * Byte spans inside a record set (what a Produce or Fetch `records` field holds): each batch,
 * its header fields, and in uncompressed magic-2 batches each record with its key, value and
 * headers; magic 0/1 entries with their fields. The set is first read by {@link decodeRecords}
 * (every check of it applies: CRCs, lengths, counts); only a set it accepts is walked here, so
 * the walk reads bytes already checked. Offsets are those of the input (a compressed batch's
 * records are in other bytes: the batch's compressed payload is one span).
 *
 * Layouts: the protocol guide's "Record Batch" and "Record" (KIP-98), and the legacy
 * "Message Sets" (magic 0 and 1).
 */

import type { ByteSpan, SpanKind } from "../runtime/spans.js";
import { decodeRecords } from "./decode.js";
import type { Codecs } from "./codecs.js";
import { RECORD_BATCH_OVERHEAD } from "./decode/context.js";
import { cursor, varint, varlong } from "./varint.js";

/** A magic-2 batch header: name, offset in the batch, size, type (the protocol guide's order). */
const BATCH_HEADER: readonly (readonly [string, number, number, string])[] = [
  ["baseOffset", 0, 8, "int64"],
  ["batchLength", 8, 4, "int32"],
  ["partitionLeaderEpoch", 12, 4, "int32"],
  ["magic", 16, 1, "int8"],
  ["crc", 17, 4, "uint32"],
  ["attributes", 21, 2, "int16"],
  ["lastOffsetDelta", 23, 4, "int32"],
  ["baseTimestamp", 27, 8, "int64"],
  ["maxTimestamp", 35, 8, "int64"],
  ["producerId", 43, 8, "int64"],
  ["producerEpoch", 51, 2, "int16"],
  ["baseSequence", 53, 4, "int32"],
  ["recordCount", 57, 4, "int32"],
];

/** Options of {@link recordSpans}. */
export interface RecordSpansOptions {
  /**
   * Codecs for checking compressed batches' records (synchronous ones; an asynchronous codec's
   * check is not waited for). Without, only the built-in gzip checks them, asynchronously.
   */
  readonly codecs?: Codecs;
}

/**
 * The spans of the record set `bytes[start..end)`: one `batch` span per batch (path `path[i]`,
 * depth `depth`) holding its header fields (`path[i].baseOffset` …), then for an uncompressed
 * magic-2 batch one `record` span per record (`path[i].records[k]`: `length`, `attributes`,
 * `timestampDelta`, `offsetDelta`, `key`, `value`, `headers` with `headers.$count` and
 * `headers[h]` of `key` and `value`), for a compressed one a `records` span of the compressed
 * bytes; magic 0/1 entries hold `offset`, `messageSize`, `crc`, `magic`, `attributes`,
 * `timestamp` (magic 1), `key`, `value`. A partial last batch (a Fetch cut by its size limit) is
 * a `batch` span `path.$incomplete`.
 *
 * A {@link RecordSpanner} for `decodeWithSpans`. Never throws: bytes that are no valid record set
 * (as `decodeRecords` reads them) give no spans.
 */
export function recordSpans(
  bytes: Uint8Array,
  start: number,
  end: number,
  path: string,
  depth: number,
  options: RecordSpansOptions = {},
): ByteSpan[] {
  const view = bytes.subarray(start, end);
  try {
    const set = decodeRecords(view, options.codecs === undefined ? {} : { codecs: options.codecs });
    // An asynchronous codec ran (the built-in gzip): the headers are checked, the compressed
    // records are not walked anyway (they are not in the input's bytes).
    if (set instanceof Promise) set.catch(() => undefined);
    return walk(view, start, path, depth);
  } catch {
    return [];
  }
}

class Spans {
  readonly out: ByteSpan[] = [];
  constructor(
    readonly buf: Uint8Array,
    /** Offset of `buf[0]` in the caller's input. */
    readonly base: number,
  ) {}

  add(path: string, kind: SpanKind, depth: number, at: number, length: number, type?: string, value?: unknown): void {
    const span: { -readonly [K in keyof ByteSpan]: ByteSpan[K] } = {
      path,
      offset: this.base + at,
      length,
      kind,
      depth,
    };
    if (type !== undefined) span.type = type;
    if (value !== undefined) span.value = value;
    this.out.push(span);
  }

  /** A fixed-size big-endian integer at `at`. */
  fixed(path: string, depth: number, at: number, size: number, type: string): void {
    const b = this.buf;
    const view = new DataView(b.buffer, b.byteOffset + at, size);
    const value =
      size === 8
        ? view.getBigInt64(0)
        : size === 4
          ? type === "uint32"
            ? view.getUint32(0)
            : view.getInt32(0)
          : size === 2
            ? view.getInt16(0)
            : view.getInt8(0);
    this.add(path, "field", depth, at, size, type, value);
  }

  /** A varint (or varlong) at `at`; returns its value, `cursor.next` is past it. */
  varint(
    path: string,
    depth: number,
    at: number,
    end: number,
    long = false,
    kind: SpanKind = "field",
  ): number | bigint {
    const value = long ? varlong(this.buf, at, end, false) : varint(this.buf, at, end, false);
    this.add(path, kind, depth, at, cursor.next - at, long ? "varlong" : "varint", value);
    return value;
  }

  /** Varint-length-prefixed bytes (null for a negative length) at `at`; returns the offset past them. */
  varBytes(path: string, depth: number, at: number, end: number): number {
    const n = varint(this.buf, at, end, false);
    const data = cursor.next;
    const past = n < 0 ? data : data + n;
    this.add(path, "field", depth, at, past - at, "varbytes", n < 0 ? null : this.buf.subarray(data, past));
    return past;
  }
}

function walk(buf: Uint8Array, base: number, path: string, depth: number): ByteSpan[] {
  const s = new Spans(buf, base);
  let pos = 0;
  for (let i = 0; pos < buf.length; i++) {
    const remaining = buf.length - pos;
    // decodeRecords accepted the set: what does not make a whole batch is its incomplete tail.
    const size = remaining >= 12 ? new DataView(buf.buffer, buf.byteOffset + pos + 8, 4).getInt32(0) : -1;
    if (remaining < 17 || size < 0 || remaining - 12 < size) {
      s.add(`${path}.$incomplete`, "batch", depth, pos, remaining, "incomplete");
      break;
    }
    const batchEnd = pos + 12 + size;
    const bp = `${path}[${i}]`;
    const magic = buf[pos + 16]!;
    s.add(bp, "batch", depth, pos, batchEnd - pos, `magic ${magic}`);
    if (magic === 2) batch(s, buf, pos, batchEnd, bp, depth + 1);
    else legacy(s, buf, pos, bp, depth + 1, magic);
    pos = batchEnd;
  }
  return s.out;
}

function batch(s: Spans, buf: Uint8Array, at: number, end: number, bp: string, depth: number): void {
  for (const [name, offset, size, type] of BATCH_HEADER) s.fixed(`${bp}.${name}`, depth, at + offset, size, type);
  const first = at + RECORD_BATCH_OVERHEAD;
  if (first === end) return;
  const compression = buf[at + 22]! & 7;
  if (compression !== 0) {
    s.add(`${bp}.records`, "field", depth, first, end - first, "compressed", buf.subarray(first, end));
    return;
  }
  let p = first;
  for (let k = 0; p < end; k++) {
    const rp = `${bp}.records[${k}]`;
    const length = varint(buf, p, end, false);
    const bodyEnd = cursor.next + length;
    s.add(rp, "record", depth, p, bodyEnd - p);
    const d = depth + 1;
    s.varint(`${rp}.length`, d, p, end);
    p = cursor.next;
    s.fixed(`${rp}.attributes`, d, p, 1, "int8");
    s.varint(`${rp}.timestampDelta`, d, p + 1, bodyEnd, true);
    s.varint(`${rp}.offsetDelta`, d, cursor.next, bodyEnd);
    p = s.varBytes(`${rp}.key`, d, cursor.next, bodyEnd);
    p = s.varBytes(`${rp}.value`, d, p, bodyEnd);
    const headersAt = p;
    const count = varint(buf, p, bodyEnd, false);
    s.add(`${rp}.headers`, "field", d, headersAt, bodyEnd - headersAt, "[]header");
    s.varint(`${rp}.headers.$count`, d + 1, headersAt, bodyEnd, false, "prefix");
    p = cursor.next;
    for (let h = 0; h < count; h++) {
      const hp = `${rp}.headers[${h}]`;
      const headerAt = p;
      const index = s.out.length;
      s.add(hp, "header", d + 1, headerAt, 0);
      p = s.varBytes(`${hp}.key`, d + 2, p, bodyEnd);
      p = s.varBytes(`${hp}.value`, d + 2, p, bodyEnd);
      // Its length is known once its key and value are read.
      s.out[index] = { ...s.out[index]!, length: p - headerAt };
    }
    p = bodyEnd;
  }
}

/** A magic 0/1 entry: offset, size, crc, magic, attributes, [timestamp], key and value with int32 lengths. */
function legacy(s: Spans, buf: Uint8Array, at: number, bp: string, depth: number, magic: number): void {
  s.fixed(`${bp}.offset`, depth, at, 8, "int64");
  s.fixed(`${bp}.messageSize`, depth, at + 8, 4, "int32");
  s.fixed(`${bp}.crc`, depth, at + 12, 4, "uint32");
  s.fixed(`${bp}.magic`, depth, at + 16, 1, "int8");
  s.fixed(`${bp}.attributes`, depth, at + 17, 1, "int8");
  let p = at + 18;
  if (magic === 1) {
    s.fixed(`${bp}.timestamp`, depth, p, 8, "int64");
    p += 8;
  }
  for (const name of ["key", "value"]) {
    const n = new DataView(buf.buffer, buf.byteOffset + p, 4).getInt32(0);
    const past = n < 0 ? p + 4 : p + 4 + n;
    s.add(`${bp}.${name}`, "field", depth, p, past - p, "bytes", n < 0 ? null : buf.subarray(p + 4, past));
    p = past;
  }
}
