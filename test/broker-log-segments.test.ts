/**
 * The partition log's segments (broker/src/log.ts): batches are copied into shared buffers, the
 * buffers hold at most about 1.19× the bytes of the batches they carry, retention and the log
 * cleaner leave no segment held mostly by dropped batches.
 */

import { describe, expect, it } from "vitest";
import { PartitionLog } from "../broker/src/log.js";
import { decodeRecords, encodeRecordBatch, type RecordBatch } from "../src/records/index.js";

/** A magic-2 batch of `n` records of 100 bytes (about 70 + 108·n bytes), as a producer sends it (base offset 0). */
function batch(n: number, tag = 0): Uint8Array {
  const key = `${n}/${tag}`;
  let b = made.get(key);
  if (b === undefined) {
    const records = Array.from({ length: n }, (_, i) => ({ value: new Uint8Array(100).fill((tag + i) & 0xff) }));
    made.set(key, (b = encodeRecordBatch({ records }) as Uint8Array));
  }
  return b.slice();
}
const made = new Map<string, Uint8Array>();

/** The bytes of the distinct buffers the log's batches are views of. */
function held(log: PartitionLog): number {
  const buffers = new Set(log.batches.map((b) => b.bytes.buffer));
  return [...buffers].reduce((n, b) => n + b.byteLength, 0);
}

describe("PartitionLog segments", () => {
  it("stores each batch with the log's base offset and epoch, the rest as sent; many batches share one buffer", async () => {
    const log = new PartitionLog();
    const sent: Uint8Array[] = [];
    for (let i = 0; i < 2000; i++) {
      const raw = batch(10, i % 7);
      sent.push(raw.slice());
      log.appendRaw(raw, 9, 0n, 7);
      // The producer's bytes are not modified.
      if (!Buffer.from(raw).equals(sent[i]!)) expect.fail(`batch ${i} was modified`);
    }
    expect(log.logEndOffset).toBe(20_000n);
    // About 1,150 bytes a batch: 2.3 MB in segments of at most 1 MiB, so far fewer buffers than batches.
    expect(new Set(log.batches.map((b) => b.bytes.buffer)).size).toBeLessThan(200);
    for (const i of [0, 1, 999, 1999]) {
      const stored = log.batches[i]!.bytes;
      // Bytes 16.. (magic, CRC, attributes, records) as sent; the base offset (0..7) and epoch (12..15) set.
      expect(stored.subarray(16)).toEqual(sent[i]!.subarray(16));
      const b = (await decodeRecords(stored)).batches[0] as RecordBatch;
      expect([b.baseOffset, b.partitionLeaderEpoch, b.records.length]).toEqual([BigInt(i * 10), 7, 10]);
    }
  });

  it("holds at most 1.19× the batch bytes, for small and large batches and a mix", () => {
    for (const sizes of [[1], [10], [100], [1, 50, 3, 200, 7]]) {
      const log = new PartitionLog();
      for (let i = 0; i < 3000; i++) {
        const n = sizes[i % sizes.length]!;
        log.appendRaw(batch(n), n - 1, 0n, 0);
      }
      // SEGMENT_SHARE 8, SLOT_SHARE 16: 1 + 1/8 + 1/16.
      expect(held(log) / log.bytes).toBeLessThanOrEqual(1.1875);
    }
  });

  it("deleting every batch lets the open segment go; deleting a prefix frees whole segments", () => {
    const log = new PartitionLog();
    for (let i = 0; i < 3000; i++) log.appendRaw(batch(10), 9, 0n, 0);
    const before = held(log);
    log.deleteBefore(15_000n);
    expect(held(log)).toBeLessThan(before * 0.6);
    expect(held(log) / log.bytes).toBeLessThanOrEqual(1.1875 + 1 / 8); // plus the segment holding the log start
    log.deleteBefore(log.logEndOffset);
    expect(log.batches).toEqual([]);
    // The next batch starts a new buffer rather than filling the old open segment.
    log.appendRaw(batch(1), 0, 0n, 0);
    expect(log.batches[0]!.bytes.buffer.byteLength).toBe(log.batches[0]!.bytes.length);
  });

  it("repack after the cleaner removed most batches: the old segments are no longer held", () => {
    const log = new PartitionLog();
    for (let i = 0; i < 3000; i++) log.appendRaw(batch(10), 9, 0n, 0);
    // The cleaner's rewrite: every batch but each tenth removed.
    for (let i = log.batches.length - 1; i >= 0; i--) if (i % 10 !== 0) log.replace(i, null);
    expect(held(log) / log.bytes).toBeGreaterThan(5);
    const kept = log.batches.map((b) => b.bytes.slice());
    log.repack();
    expect(held(log) / log.bytes).toBeLessThanOrEqual(1.1875);
    expect(log.batches.map((b) => b.bytes)).toEqual(kept);
  });
});
