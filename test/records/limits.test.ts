/**
 * Issue 17, items 2 and 3: the `maxRecords` cap (records bound memory, not only bytes), records
 * read from positions on access, and the places where Kafka's reader (or its broker) is stricter
 * than ours was. Inputs are built here byte by byte (legacy messages) or with encodeRecordBatch
 * (magic 2); every expected value is worked out by hand in the comments.
 */

import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { codecs } from "../../compression/src/index.js";
import {
  crc32,
  crc32c,
  dataRecords,
  decodeRecords,
  DEFAULT_MAX_RECORDS,
  encodeRecordBatch,
  KafkaRecordsError,
  type CompressionCodec,
  type LegacyBatch,
  type RecordBatch,
  type RecordSet,
} from "../../src/records/index.js";

const enc = new TextEncoder();
const text = (b: Uint8Array | null) => (b === null ? null : new TextDecoder().decode(b));

function decode(bytes: Uint8Array, options: Parameters<typeof decodeRecords>[1] = {}): RecordSet {
  return decodeRecords(bytes, { codecs, ...options }) as RecordSet;
}

function failure(f: () => unknown): KafkaRecordsError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(KafkaRecordsError);
    return e as KafkaRecordsError;
  }
  throw new Error("expected a KafkaRecordsError");
}

function batchOf(n: number, baseOffset = 0n): Uint8Array {
  const records = Array.from({ length: n }, (_, i) => ({ value: `v${i}`, timestamp: 1000 + i }));
  return encodeRecordBatch({ baseOffset, records }) as Uint8Array;
}

function concat(...parts: Uint8Array[]): Uint8Array {
  return new Uint8Array(Buffer.concat(parts));
}

/** Sets the header fields at `at` (int32 big-endian) and recomputes the CRC-32C (bytes 21..end). */
function patch32(batch: Uint8Array, at: number, value: number): Uint8Array {
  const b = batch.slice();
  new DataView(b.buffer).setInt32(at, value);
  new DataView(b.buffer).setUint32(17, crc32c(b, 21));
  return b;
}

/**
 * A legacy message: offset int64, size int32, crc int32, magic int8, attributes int8,
 * [timestamp int64 when magic 1], key (int32 length + bytes), value (int32 length + bytes).
 */
function legacy(offset: number, magic: 0 | 1, attributes: number, value: Uint8Array | null, timestamp = 0): Uint8Array {
  const size = (magic === 0 ? 14 : 22) + (value?.length ?? 0);
  const m = new Uint8Array(12 + size);
  const v = new DataView(m.buffer);
  v.setBigInt64(0, BigInt(offset));
  v.setInt32(8, size);
  m[16] = magic;
  m[17] = attributes;
  let q = 18;
  if (magic === 1) {
    v.setBigInt64(q, BigInt(timestamp));
    q += 8;
  }
  v.setInt32(q, -1); // null key
  v.setInt32(q + 4, value === null ? -1 : value.length);
  if (value !== null) m.set(value, q + 8);
  v.setUint32(12, crc32(m, 16, m.length));
  return m;
}

/** A gzip wrapper (attributes 1) of `magic` around `inner`. */
function wrapper(offset: number, magic: 0 | 1, inner: Uint8Array[], attributes = 1, timestamp = 0): Uint8Array {
  return legacy(offset, magic, attributes, new Uint8Array(gzipSync(concat(...inner))), timestamp);
}

/** A codec that counts its calls and must not be reached. */
function countingCodec(): CompressionCodec & { calls: number } {
  return {
    calls: 0,
    compress: (d) => d,
    decompress(d) {
      this.calls++;
      return d;
    },
  };
}

describe("maxRecords", () => {
  it("defaults to 1,000,000", () => {
    expect(DEFAULT_MAX_RECORDS).toBe(1_000_000);
  });

  it("counts the records of every batch of the set: 2 + 2 records pass a cap of 4, fail one of 3 at the second batch", () => {
    const a = batchOf(2);
    const b = batchOf(2, 2n);
    const set = concat(a, b);
    expect(decode(set, { maxRecords: 4 }).batches.map((x) => (x as RecordBatch).records.length)).toEqual([2, 2]);
    const e = failure(() => decode(set, { maxRecords: 3 }));
    expect(e.code).toBe("TOO_MANY_RECORDS");
    // The second batch starts right after the first (a.length bytes); its recordCount field is byte 57 of it.
    expect([e.path, e.batchOffset, e.offset, e.baseOffset]).toEqual(["batches[1]", a.length, a.length + 57, 2n]);
    expect(e.reason).toBe("4 records (this batch: 2) exceed the maxRecords cap of 3; a larger maxRecords reads them");
  });

  it("takes a compressed batch's recordCount before decompressing it", () => {
    // An "lz4" batch (attributes 3) whose payload is never looked at: recordCount 5 > cap 4.
    const codec = countingCodec();
    const fake = patch32(patch32(batchOf(1), 57, 5), 21, 3 << 16);
    // patch32 at 21 writes the int32 at bytes 21..24: attributes (int16) = 3, and the first two
    // bytes of lastOffsetDelta become 0, as they were (lastOffsetDelta 0 for one record).
    const e = failure(() => decodeRecords(fake, { codecs: { lz4: codec }, maxRecords: 4 }));
    expect([e.code, e.offset, codec.calls]).toEqual(["TOO_MANY_RECORDS", 57, 0]);
    // Within the cap the codec runs (and its output, the raw payload, then fails as records).
    failure(() => decodeRecords(fake, { codecs: { lz4: codec }, maxRecords: 5 }));
    expect(codec.calls).toBe(1);
  });

  it("stops the default cap from reading 1,000,001 records declared by a 70-byte batch", () => {
    const codec = countingCodec();
    const fake = patch32(patch32(batchOf(1), 57, 1_000_001), 21, 3 << 16);
    const e = failure(() => decodeRecords(fake, { codecs: { lz4: codec } }));
    expect([e.code, codec.calls]).toEqual(["TOO_MANY_RECORDS", 0]);
    expect(e.reason).toContain("1000001 records (this batch: 1000001) exceed the maxRecords cap of 1000000");
  });

  it("counts legacy inner messages as they are read, and uncompressed legacy entries as one each", () => {
    const inner = [legacy(0, 0, 0, enc.encode("a")), legacy(1, 0, 0, enc.encode("b")), legacy(2, 0, 0, null)];
    const w = wrapper(2, 0, inner);
    expect((decode(w, { maxRecords: 3 }).batches[0] as LegacyBatch).recordCount).toBe(3);
    const e = failure(() => decode(w, { maxRecords: 2 }));
    expect([e.code, e.path]).toEqual(["TOO_MANY_RECORDS", "batches[0].records[2]"]);
    // The third inner message starts at byte 27 + 27 = 54 of the decompressed records (two messages of 12 + 15 bytes).
    expect(e.reason).toBe(
      "over 2 records (this batch: over 2) exceed the maxRecords cap of 2; a larger maxRecords reads them (byte 54 of the decompressed records)",
    );
    const plain = concat(legacy(0, 0, 0, null), legacy(1, 0, 0, null));
    expect(failure(() => decode(plain, { maxRecords: 1 })).path).toBe("batches[1]");
  });

  it("refuses a cap that is not a whole number (Infinity switches it off)", () => {
    for (const bad of [-1, 1.5, Number.NaN, "5"]) {
      const e = failure(() => decode(batchOf(1), { maxRecords: bad as number }));
      expect(e.code).toBe("INVALID_VALUE");
    }
    expect(decode(batchOf(3), { maxRecords: Infinity }).batches).toHaveLength(1);
    expect(failure(() => decode(batchOf(1), { maxRecords: 0 })).code).toBe("TOO_MANY_RECORDS");
  });
});

describe("records read from their positions on access", () => {
  it("reads a lenient record with non-minimal varints and attributes as Kafka does", () => {
    // A record written by hand, lenient-only: length 12 as `8c 00` (non-minimal, 2 bytes),
    // attributes 5, timestampDelta 3 as `86 00`, offsetDelta 0, key "k" (length 1 = 02),
    // value "vv" as length `84 00` (2, non-minimal), 1 header: key "h" (02 68), value null (01).
    // Body: 05 | 86 00 | 00 | 02 6b | 84 00 76 76 | 02 02 68 01 = 1+2+1+2+4+4 = 14 bytes.
    const body = [0x05, 0x86, 0x00, 0x00, 0x02, 0x6b, 0x84, 0x00, 0x76, 0x76, 0x02, 0x02, 0x68, 0x01];
    const record = [0x9c, 0x00, ...body]; // length 14 = zigzag 28 = 0x1c, non-minimal as 9c 00
    const batch = encodeRecordBatch({ baseTimestamp: 100, records: [{ value: "x" }] }) as Uint8Array;
    const head = batch.slice(0, 61);
    const raw = concat(head, new Uint8Array(record));
    const v = new DataView(raw.buffer);
    v.setInt32(8, raw.length - 12);
    v.setUint32(17, crc32c(raw, 21));
    const r = (decode(raw, { lenient: true }).batches[0] as RecordBatch).records[0]!;
    expect(r.attributes).toBe(5);
    expect(r.sizeInBytes).toBe(16); // 2 length bytes + 14
    expect(r.timestampDelta).toBe(3n);
    expect(r.timestamp).toBe(103n); // baseTimestamp 100 + 3
    expect(text(r.key)).toBe("k");
    expect(text(r.value)).toBe("vv");
    expect(r.headers).toEqual([{ key: "h", value: null }]);
    expect(r.headers).toBe(r.headers);
    expect(failure(() => decode(raw)).code).toBe("INVALID_VARINT");
  });

  it("reads a timestamp delta beyond 2^53 again from the bytes, exactly", () => {
    // baseTimestamp 0, deltas 2^60 + 1 (not a double) and 5: timestamps are the deltas.
    const big = 2n ** 60n + 1n;
    const raw = encodeRecordBatch({
      baseTimestamp: 0,
      records: [{ timestampDelta: big }, { timestampDelta: 5 }],
    }) as Uint8Array;
    const rs = (decode(raw).batches[0] as RecordBatch).records;
    expect(rs.map((r) => [r.timestampDelta, r.timestamp])).toEqual([
      [big, big],
      [5n, 5n],
    ]);
  });

  it("gives the same records through `records` and `dataRecords`, the array made once", () => {
    const set = decode(concat(batchOf(3), batchOf(2, 3n)));
    const viaData = [...dataRecords(set)].map((r) => [r.offset, text(r.value)]);
    // Offsets 0..2, then 3..4; values v0..v2 and v0..v1.
    expect(viaData).toEqual([
      [0n, "v0"],
      [1n, "v1"],
      [2n, "v2"],
      [3n, "v0"],
      [4n, "v1"],
    ]);
    const b = set.batches[0] as RecordBatch;
    expect(b.records).toBe(b.records);
    expect([...dataRecords(set)].map((r) => r.offset)).toEqual([0n, 1n, 2n, 3n, 4n]);
  });
});

describe("where Kafka is stricter (issue 17 item 3)", () => {
  it("strict rejects an empty batch with a negative lastOffsetDelta; lenient reads it (nextOffset = baseOffset)", () => {
    // An empty batch (validation "log" allows it) of baseOffset 3, then lastOffsetDelta set to -1
    // (bytes 23..26): Kafka's reader accepts it, its broker refuses it on produce.
    const empty = encodeRecordBatch({ baseOffset: 3n, records: [] }, { validation: "log" }) as Uint8Array;
    const bad = patch32(empty, 23, -1);
    const e = failure(() => decode(bad));
    expect([e.code, e.offset, e.path]).toEqual(["CORRUPT_RECORD", 23, "batches[0]"]);
    const b = decode(bad, { lenient: true }).batches[0] as RecordBatch;
    expect([b.lastOffsetDelta, b.nextOffset, b.records.length]).toEqual([-1, 3n, 0]);
    // lastOffsetDelta 0 (what the encoder writes for an empty batch) is fine: nextOffset 4.
    expect((decode(empty).batches[0] as RecordBatch).nextOffset).toBe(4n);
  });

  it("rejects a magic-1 wrapper whose offset is below its last inner (relative) offset, as Kafka does", () => {
    // Inner relative offsets 0, 1, 2; the wrapper's absolute offset must be >= 2 (it is the last
    // inner one's). Wrapper offset 10: inner offsets 8, 9, 10. Wrapper offset 1: rejected.
    const inner = [0, 1, 2].map((o) => legacy(o, 1, 0, enc.encode(`m${o}`), 50 + o));
    const ok = decode(wrapper(10, 1, inner, 1, 99)).batches[0] as LegacyBatch;
    expect(ok.records.map((r) => r.offset)).toEqual([8n, 9n, 10n]);
    expect(ok.baseOffset).toBe(8n);
    for (const lenient of [false, true]) {
      const e = failure(() => decode(wrapper(1, 1, inner), { lenient }));
      expect([e.code, e.path]).toEqual(["CORRUPT_RECORD", "batches[0].records[2]"]);
    }
  });

  it("reads inner messages of another magic in lenient mode as Kafka's consumer does; strict rejects them", () => {
    // A magic-1 wrapper (offset 5, LogAppendTime = attributes 1 | 8, timestamp 77) holding a
    // magic-0 message (relative offset 0) and a magic-1 one (relative offset 1, stored ts 40).
    // Kafka: offsets 4 and 5 (relative to 5 - 1); the magic-0 record has no timestamp (-1,
    // NoTimestampType), the magic-1 one takes the wrapper's type and LogAppendTime timestamp 77.
    const w = wrapper(5, 1, [legacy(0, 0, 0, enc.encode("old")), legacy(1, 1, 0, enc.encode("new"), 40)], 1 | 8, 77);
    expect(failure(() => decode(w)).code).toBe("CORRUPT_RECORD");
    const rs = (decode(w, { lenient: true }).batches[0] as LegacyBatch).records;
    expect(rs.map((r) => [r.offset, r.magic, r.timestampType, r.timestamp, text(r.value)])).toEqual([
      [4n, 0, "NoTimestampType", -1n, "old"],
      [5n, 1, "LogAppendTime", 77n, "new"],
    ]);
  });

  it("gives a magic-1 inner message its wrapper's timestamp type (Kafka's LegacyRecord with a wrapper type)", () => {
    // CreateTime wrapper (attributes 1), inner message with attribute bit 3 (LogAppendTime) set:
    // Kafka reports the wrapper's CreateTime and the inner stored timestamp 40.
    const w = wrapper(0, 1, [legacy(0, 1, 8, enc.encode("x"), 40)], 1, 90);
    const r = (decode(w).batches[0] as LegacyBatch).records[0]!;
    expect([r.timestampType, r.timestamp, r.attributes]).toEqual(["CreateTime", 40n, 8]);
  });
});
