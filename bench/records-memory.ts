/**
 * Heap cost of decoding hostile record sets (issue 17's memory class): small inputs that
 * decompress to the `maxDecompressedBytes` cap of minimal records.
 *
 *   node --expose-gc --import tsx bench/records-memory.ts            every case, each in a fresh process
 *   node --expose-gc --import tsx bench/records-memory.ts CASE MODE [MAX]  one case (see CASES), MODE "all" | "first",
 *                                      MAX the maxRecords option (default: decodeRecords' default)
 *
 * For each case it prints the input size, the decode time, the heap the decoded set retains
 * (after a full GC, the set still alive; heapUsed + arrayBuffers), the peak RSS growth and the
 * retained heap per record. "first" reads only the first record `dataRecords` yields (a consumer
 * that stops early); "all" reads every batch's `records` array.
 *
 * This is a program, not a test: nothing here asserts a number.
 */

import { execFileSync } from "node:child_process";
import { gzipSync } from "node:zlib";
import { codecs, initZstd } from "../compression/src/index.js";
import { crc32, crc32c } from "../src/records/crc.js";
import {
  dataRecords,
  decodeRecords,
  type LegacyBatch,
  type RecordBatch,
  type RecordSet,
} from "../src/records/index.js";

const MIB = 1024 * 1024;
/** Just under the default 64 MiB cap, so that strict decoding accepts the batch. */
const TARGET = 64 * MIB - 4096;

function be32(b: Uint8Array, p: number, v: number): void {
  new DataView(b.buffer, b.byteOffset).setInt32(p, v);
}

/** A magic-0 message (offset, size, crc, magic 0, attributes, key, value) at its own offset. */
function legacyMessage(offset: number, attributes: number, value: Uint8Array | null): Uint8Array {
  const size = 14 + (value?.length ?? 0);
  const m = new Uint8Array(12 + size);
  be32(m, 4, offset);
  be32(m, 8, size);
  m[16] = 0;
  m[17] = attributes;
  be32(m, 18, -1); // null key
  if (value === null) be32(m, 22, -1);
  else {
    be32(m, 22, value.length);
    m.set(value, 26);
  }
  be32(m, 12, crc32(m, 16, m.length));
  return m;
}

/** A magic-0 gzip wrapper whose inner messages are minimal (26 bytes, null key and value), all at offset 0 (strict accepts it: Kafka does not check magic-0 inner offsets). */
function legacyGzipWrapper(): { bytes: Uint8Array; records: number } {
  const n = Math.floor(TARGET / 26);
  const inner = new Uint8Array(n * 26);
  const one = legacyMessage(0, 0, null);
  for (let i = 0; i < n; i++) inner.set(one, i * 26);
  return { bytes: legacyMessage(n - 1, 1, gzipSync(inner, { level: 9 })), records: n };
}

/** A magic-2 batch header around `payload` (recordCount n, lastOffsetDelta last). */
function batch(payload: Uint8Array, attributes: number, n: number, last: number): Uint8Array {
  const b = new Uint8Array(61 + payload.length);
  be32(b, 8, b.length - 12);
  be32(b, 12, -1);
  b[16] = 2;
  b[21] = attributes >> 8;
  b[22] = attributes & 0xff;
  be32(b, 23, last);
  // base and max timestamp 0, producer id/epoch/sequence -1
  b.fill(0xff, 43, 57);
  be32(b, 57, n);
  b.set(payload, 61);
  be32(b, 17, crc32c(b, 21));
  return b;
}

/** zstd records of 7 bytes each, all offsetDelta 0 (lenient only: strict wants increasing deltas). */
async function zstdSameRecords(): Promise<{ bytes: Uint8Array; records: number }> {
  const n = Math.floor(TARGET / 7);
  const records = new Uint8Array(n * 7);
  const one = [12, 0, 0, 0, 1, 1, 0]; // length 6, attributes 0, tsDelta 0, offsetDelta 0, key/value null, 0 headers
  for (let i = 0; i < n; i++) records.set(one, i * 7);
  await initZstd();
  const payload = (await codecs.zstd!.compress(records, { level: 19, magic: 2 })) as Uint8Array;
  return { bytes: batch(payload, 4, n, 0), records: n };
}

/** zstd records with offset deltas 0..n-1 (what strict decoding accepts), null key and value. */
async function zstdStrictRecords(): Promise<{ bytes: Uint8Array; records: number }> {
  const parts: number[] = [];
  let n = 0;
  const zz = (v: number) => {
    let z = v * 2;
    while (z >= 0x80) {
      parts.push((z & 0x7f) | 0x80);
      z = Math.floor(z / 128);
    }
    parts.push(z);
  };
  const records = new Uint8Array(TARGET);
  let p = 0;
  for (;;) {
    parts.length = 0;
    parts.push(0, 0); // attributes, tsDelta 0
    zz(n);
    parts.push(1, 1, 0);
    if (p + parts.length + 1 > TARGET) break;
    records[p++] = parts.length * 2;
    records.set(parts, p);
    p += parts.length;
    n++;
  }
  await initZstd();
  const payload = (await codecs.zstd!.compress(records.subarray(0, p), { level: 19, magic: 2 })) as Uint8Array;
  return { bytes: batch(payload, 4, n, n - 1), records: n };
}

const CASES: Record<string, { make: () => Promise<{ bytes: Uint8Array; records: number }>; lenient: boolean }> = {
  "legacy-gzip": { make: async () => legacyGzipWrapper(), lenient: false },
  "zstd-lenient": { make: zstdSameRecords, lenient: true },
  "zstd-strict": { make: zstdStrictRecords, lenient: false },
};

async function measure(name: string, mode: string, maxRecords: number | undefined): Promise<void> {
  const c = CASES[name]!;
  const { bytes, records } = await c.make();
  const gc = (globalThis as { gc?: () => void }).gc!;
  gc();
  gc();
  const before = process.memoryUsage();
  const rssBefore = process.resourceUsage().maxRSS;
  const started = performance.now();
  let result: string;
  let set: RecordSet | undefined;
  try {
    set = (await decodeRecords(bytes, { codecs, lenient: c.lenient, maxRecords })) as RecordSet;
    const batches = set.batches as (RecordBatch | LegacyBatch)[];
    if (mode === "first") {
      result = `first offset ${dataRecords(set).next().value!.offset}`;
    } else {
      let count = 0;
      for (const b of batches) count += b.records.length;
      result = `${count} records`;
    }
  } catch (e) {
    result = `error ${(e as { code?: string }).code}: ${(e as Error).message.slice(0, 80)}`;
  }
  const ms = performance.now() - started;
  gc();
  gc();
  const after = process.memoryUsage();
  const retained = after.heapUsed + after.arrayBuffers - (before.heapUsed + before.arrayBuffers);
  const peak = (process.resourceUsage().maxRSS - rssBefore) / 1024;
  void set;
  console.log(
    [
      name.padEnd(13),
      `${mode}${maxRecords === undefined ? "" : ` maxRecords ${maxRecords}`}`.padEnd(6),
      `input ${(bytes.length / 1024).toFixed(1)} KB`,
      `${records} records`,
      `${ms.toFixed(0)} ms`,
      `retained ${(retained / MIB).toFixed(1)} MiB`,
      `(${(retained / records).toFixed(1)} B/record)`,
      `peak RSS +${peak.toFixed(0)} MiB`,
      `-> ${result}`,
    ].join("  "),
  );
  // Keep the set alive until after the measurement.
  if (set !== undefined && set.batches.length < 0) console.log(set);
}

const [name, mode, cap] = process.argv.slice(2);
if (name !== undefined) {
  await measure(name, mode ?? "all", cap === undefined ? undefined : Number(cap));
} else {
  for (const c of Object.keys(CASES)) {
    for (const args of [["all"], ["all", "Infinity"], ["first", "Infinity"]]) {
      const out = execFileSync(process.execPath, ["--expose-gc", "--import", "tsx", import.meta.filename, c, ...args], {
        encoding: "utf8",
      });
      process.stdout.write(out);
    }
  }
}
