/**
 * The cluster's segment pool (broker/src/segment-pool.ts): partition logs store their batches of
 * up to 64 KiB in 1 MiB segments of WebAssembly.Memory arenas; deletions free segments (reused
 * only after a quarantine, an arena all free dropped), the cluster moves batches out of sparse
 * segments so that the pool holds at most 1.1875 × the live bytes + two segments, a deleted topic
 * gives all its room back.
 */

import { Kafka, logLevel } from "kafkajs";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { startCluster, type RunningCluster } from "../broker/src/index.js";
import { PartitionLog } from "../broker/src/log.js";
import { POOLED_MAX, SEGMENT_BYTES, SegmentPool } from "../broker/src/segment-pool.js";
import { decodeRecords, encodeRecordBatch, type RecordBatch } from "../src/records/index.js";
import { corpusIndex } from "./support/corpus.js";
import { describeShared } from "./support/shared.js";

/** A magic-2 batch of `n` records of 100 bytes, each record's bytes tagged (base offset 0). */
function batch(n: number, tag: number): Uint8Array {
  const records = Array.from({ length: n }, (_, i) => ({ value: new Uint8Array(100).fill((tag + i) & 0xff) }));
  return encodeRecordBatch({ records }) as Uint8Array;
}

/** Appends a batch as the broker does (decoded strictly first). */
function append(log: PartitionLog, raw: Uint8Array): void {
  const set = decodeRecords(raw);
  if (set instanceof Promise) throw new Error("an uncompressed batch decodes synchronously");
  log.append(set.batches as RecordBatch[], 0);
}

/** Every record value of the log, as the first byte of each (what `batch` filled it with). */
async function values(log: PartitionLog): Promise<number[]> {
  const out: number[] = [];
  for (const b of log.batches) {
    const set = await decodeRecords(b.bytes);
    for (const r of (set.batches[0] as RecordBatch).records) out.push(r.value![0]!);
  }
  return out;
}

/** The pool's segments a log's batches lie in. */
const segmentsOf = (pool: SegmentPool, log: PartitionLog) =>
  new Set(log.batches.filter((b) => pool.owns(b.bytes)).map((b) => pool.segmentOf(b.bytes)));

describe("SegmentPool", () => {
  it("stores the batches of many logs one after another in shared segments of WebAssembly.Memory arenas", async () => {
    const pool = new SegmentPool(64 * SEGMENT_BYTES);
    const logs = Array.from({ length: 8 }, () => new PartitionLog(pool));
    const raw = batch(20, 1); // about 2.2 KB
    for (let i = 0; i < 800; i++) append(logs[i % 8]!, raw);
    const all = logs.flatMap((l) => l.batches);
    expect(all.every((b) => pool.owns(b.bytes))).toBe(true);
    expect(all[0]!.bytes.buffer.byteLength).toBe(16 * SEGMENT_BYTES); // an arena
    expect(pool.arenaBytes).toBe(16 * SEGMENT_BYTES);
    // 800 batches of ~2.2 KB: two segments, shared by all eight logs.
    const segments = new Set(all.map((b) => pool.segmentOf(b.bytes)));
    expect(segments.size).toBe(Math.ceil(800 / Math.floor(SEGMENT_BYTES / raw.length)));
    expect(pool.liveBytes).toBe(800 * raw.length);
    // Each stored batch is the producer's but for the base offset and leader epoch (bytes 0..7, 12..15).
    for (const l of logs) {
      l.batches.forEach((b, i) => {
        expect(b.baseOffset).toBe(BigInt(i * 20));
        expect(Buffer.from(b.bytes.subarray(16)).equals(Buffer.from(raw.subarray(16)))).toBe(true);
      });
    }
    expect(await values(logs[3]!)).toEqual(
      Array.from({ length: 100 }, () => Array.from({ length: 20 }, (_, i) => 1 + i)).flat(),
    );
  });

  it("a batch over 64 KiB gets a buffer of the log's own", () => {
    const pool = new SegmentPool(64 * SEGMENT_BYTES);
    const log = new PartitionLog(pool);
    const big = batch(Math.ceil(POOLED_MAX / 100) + 10, 2);
    expect(big.length).toBeGreaterThan(POOLED_MAX);
    append(log, big);
    expect(pool.owns(log.batches[0]!.bytes)).toBe(false);
    expect(pool.liveBytes).toBe(0);
  });

  it("deleting batches frees segments, reused only after the quarantine; a deleted log gives all its room back", () => {
    const pool = new SegmentPool(64 * SEGMENT_BYTES);
    const log = new PartitionLog(pool);
    const raw = batch(50, 3); // about 5.4 KB
    const perSegment = Math.floor(SEGMENT_BYTES / raw.length);
    for (let i = 0; i < 3 * perSegment; i++) append(log, raw);
    const first = pool.segmentOf(log.batches[0]!.bytes);
    // Drop the first segment's batches: it is empty, but a reader may still hold their views.
    const dropped = log.batches[perSegment - 1]!;
    log.deleteBefore(dropped.lastOffset + 1n);
    expect(segmentsOf(pool, log).has(first)).toBe(false);
    expect(pool.heldBytes).toBe(2 * SEGMENT_BYTES);
    for (let i = 0; i < 2 * perSegment; i++) append(log, raw);
    // New batches went to new segments, not into the one just emptied.
    expect(segmentsOf(pool, log).has(first)).toBe(false);
    // ... so the views of the deleted batches still read what they held.
    expect(Buffer.from(dropped.bytes.subarray(16)).equals(Buffer.from(raw.subarray(16)))).toBe(true);
    log.close();
    expect(pool.liveBytes).toBe(0);
    // Only the open segment (empty) is still held.
    expect(pool.heldBytes).toBe(SEGMENT_BYTES);
    // A closed log still stores (a request under way when its topic went), outside the pool.
    append(log, raw);
    expect(pool.owns(log.batches.at(-1)!.bytes)).toBe(false);
  });

  afterEach(() => vi.restoreAllMocks());

  it("an arena whose segments are all free after the quarantine is dropped", () => {
    const pool = new SegmentPool(256 * SEGMENT_BYTES);
    const log = new PartitionLog(pool);
    const raw = batch(500, 4); // about 54 KB
    // 20 MiB of batches: two arenas.
    while (pool.liveBytes < 20 * SEGMENT_BYTES) append(log, raw);
    expect(pool.arenaBytes).toBe(32 * SEGMENT_BYTES);
    log.deleteBefore(log.batches.at(-1)!.baseOffset);
    expect(pool.arenaBytes).toBe(32 * SEGMENT_BYTES); // in quarantine: still there
    const now = performance.now();
    vi.spyOn(performance, "now").mockReturnValue(now + 1500);
    // The next segment opened thaws the quarantine: the first arena, all free, goes.
    while (log.batches.length < 40) append(log, raw);
    expect(pool.arenaBytes).toBe(16 * SEGMENT_BYTES);
    expect(log.batches.every((b) => pool.owns(b.bytes))).toBe(true);
  });

  it("after deletions past the bound, moving the sparse segments' batches brings it back, the records intact", async () => {
    const pool = new SegmentPool(256 * SEGMENT_BYTES);
    const logs = Array.from({ length: 4 }, () => new PartitionLog(pool));
    // Interleaved: every segment holds batches of all four logs.
    for (let i = 0; i < 4000; i++) append(logs[i % 4]!, batch(10, i & 0xff));
    const before = await Promise.all(logs.map(values));
    // Retention on three logs: most of their batches go, leaving holes in every segment.
    for (const l of logs.slice(1)) l.deleteBefore(l.batches[900]!.baseOffset);
    expect(pool.heldBytes).toBeGreaterThan(1.1875 * pool.liveBytes + 2 * SEGMENT_BYTES);
    const sparse = pool.sparse()!;
    expect(sparse.size).toBeGreaterThan(0);
    for (const l of logs) l.moveOutOf(sparse);
    expect(pool.heldBytes).toBeLessThanOrEqual(1.1875 * pool.liveBytes + 2 * SEGMENT_BYTES);
    expect(pool.sparse()).toBeNull();
    for (const l of logs) for (const b of l.batches) expect(sparse.has(pool.segmentOf(b.bytes))).toBe(false);
    // The records read back as they were (the kept ones).
    expect(await values(logs[0]!)).toEqual(before[0]);
    for (let k = 1; k < 4; k++) expect(await values(logs[k]!)).toEqual(before[k]!.slice(900 * 10));
  });
});

describeShared(
  "SegmentPool in a cluster: a real client's records through retention and topic deletion",
  "kafka-schemas",
  () => {
    let cluster: RunningCluster;
    let kafka: Kafka;
    beforeAll(async () => {
      const { protocol } = await corpusIndex();
      cluster = await startCluster({
        protocol,
        brokers: 2,
        // About 512 KiB kept of each partition.
        topics: { kept: { partitions: 4, configs: { "retention.bytes": String(512 * 1024) } }, gone: 4 },
      });
      kafka = new Kafka({ brokers: cluster.bootstrap.split(","), logLevel: logLevel.NOTHING, clientId: "pool-test" });
    });
    afterAll(() => cluster?.close());

    it("holds at most 1.1875 × its live bytes + two segments as retention deletes; the kept records read back; a deleted topic frees its room", async () => {
      const pool = cluster.cluster.segments;
      const producer = kafka.producer();
      await producer.connect();
      const value = (i: number) => Buffer.alloc(1000, i & 0xff);
      // 8 MB to each topic, in batches of 100 records (about 100 KB a request, 25 KB a partition batch).
      for (let i = 0; i < 8000; i += 100) {
        for (const topic of ["kept", "gone"]) {
          await producer.send({
            topic,
            messages: Array.from({ length: 100 }, (_, k) => ({ key: String(i + k), value: value(i + k) })),
          });
        }
        expect(pool.heldBytes).toBeLessThanOrEqual(1.1875 * pool.liveBytes + 2 * SEGMENT_BYTES);
      }
      await producer.disconnect();
      const kept = cluster.cluster.topics.get("kept")!;
      for (const p of kept.partitions) {
        expect(p.log.bytes).toBeLessThanOrEqual(512 * 1024);
        expect(p.log.logStartOffset).toBeGreaterThan(0n);
      }
      expect(pool.liveBytes).toBeGreaterThan(8_000_000);
      // What a consumer reads of `kept`: each partition's last records, as produced.
      const consumer = kafka.consumer({ groupId: "pool-test" });
      await consumer.connect();
      await consumer.subscribe({ topic: "kept", fromBeginning: true });
      const expected = kept.partitions.reduce((n, p) => n + Number(p.log.logEndOffset - p.log.logStartOffset), 0);
      let seen = 0;
      let wrong = 0;
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`consumed ${seen} of ${expected}`)), 30_000);
        void consumer.run({
          eachMessage: async ({ message }) => {
            if (!message.value!.equals(value(Number(message.key!.toString())))) wrong++;
            if (++seen === expected) {
              clearTimeout(timer);
              resolve();
            }
          },
        });
      });
      await consumer.disconnect();
      expect(wrong).toBe(0);
      const admin = kafka.admin();
      await admin.connect();
      const before = pool.liveBytes;
      await admin.deleteTopics({ topics: ["gone"] });
      await admin.disconnect();
      expect(pool.liveBytes).toBeLessThan(before - 7_000_000);
      expect(pool.heldBytes).toBeLessThanOrEqual(1.1875 * pool.liveBytes + 2 * SEGMENT_BYTES);
    });
  },
);
