/**
 * The segment pool in a running cluster, against the cases a review found: reset copies nothing
 * and the arenas go back once free; the log cleaner keeps its pass when retention or the pool's
 * compaction changes the log while it awaits (each stored batch keeps its own records).
 */
import { Kafka, logLevel } from "kafkajs";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startCluster, type RunningCluster } from "../broker/src/index.js";
import { compactTopic } from "../broker/src/compaction.js";
import { SEGMENT_BYTES } from "../broker/src/segment-pool.js";
import { decodeRecords, encodeRecordBatch, type RecordBatch } from "../src/records/index.js";
import { corpusIndex } from "./support/corpus.js";
import { describeShared } from "./support/shared.js";
import type { PartitionLog } from "../broker/src/log.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function appendBatch(log: PartitionLog, records: { key: string; value: Uint8Array }[]) {
  const raw = encodeRecordBatch({
    records: records.map((r) => ({ key: Buffer.from(r.key), value: r.value })),
  }) as Uint8Array;
  const set = decodeRecords(raw);
  if (set instanceof Promise) throw new Error("sync");
  log.append(set.batches as RecordBatch[], 0);
}

describeShared("kafka-wire-broker: the segment pool in a cluster", "kafka-schemas", () => {
  let cluster: RunningCluster;
  let kafka: Kafka;
  beforeAll(async () => {
    const { protocol } = await corpusIndex();
    cluster = await startCluster({ protocol, topics: { a: 4, b: 4 } });
    kafka = new Kafka({ brokers: cluster.bootstrap.split(","), logLevel: logLevel.NOTHING, clientId: "pool-races" });
  });
  afterAll(() => cluster?.close());

  /**
   * A fresh cluster state with topic `cmp` (compacted: 11 batches of key k, the last one active)
   * whose batches share the pool's segments with those of `filler` (300 of 30 KB): deleting
   * filler's records leaves cmp's segments sparse.
   */
  async function interleaved() {
    const c = cluster.cluster;
    await cluster.reset();
    c.createTopic("cmp", { partitions: 1, configs: { "cleanup.policy": "compact" } });
    c.createTopic("filler", { partitions: 1 });
    const filler = c.topics.get("filler")!.partitions[0]!;
    const cmp = c.topics.get("cmp")!.partitions[0]!;
    for (let i = 0; i < 300; i++) {
      appendBatch(filler.log, [{ key: "f", value: new Uint8Array(30_000) }]);
      if (i % 30 === 0) appendBatch(cmp.log, [{ key: "k", value: new Uint8Array(100).fill(i) }]);
    }
    appendBatch(cmp.log, [{ key: "k", value: new Uint8Array(100).fill(255) }]);
    return { c, filler, cmp };
  }

  it("reset copies no batch and takes no new arena; the arenas go back once free", async () => {
    const pool = cluster.cluster.segments;
    const producer = kafka.producer();
    await producer.connect();
    for (let i = 0; i < 200; i++) {
      await producer.send({
        topic: i % 2 ? "a" : "b",
        messages: Array.from({ length: 200 }, (_, k) => ({ key: String(k), value: Buffer.alloc(1000, k) })),
      });
    }
    await producer.disconnect();
    const arenasFull = pool.arenaBytes;
    expect(arenasFull).toBeGreaterThanOrEqual(32 * SEGMENT_BYTES);
    const moved = { n: 0 };
    const proto = Object.getPrototypeOf(cluster.cluster.topics.get("a")!.partitions[0]!.log) as PartitionLog;
    const orig = proto.moveOutOf;
    proto.moveOutOf = function (this: PartitionLog, segments: ReadonlySet<number>) {
      const before = this.batches.map((b) => b.bytes);
      orig.call(this, segments);
      this.batches.forEach((b, i) => {
        if (b.bytes !== before[i]) moved.n += b.bytes.length;
      });
    };
    await cluster.reset();
    proto.moveOutOf = orig;
    expect(pool.liveBytes).toBe(0);
    expect(pool.heldBytes).toBeLessThanOrEqual(SEGMENT_BYTES);
    expect(moved.n, "reset copied batches of topics it was about to delete").toBe(0);
    await sleep(1500);
    // A small produce after the quarantine ended (what a next test does).
    const p2 = kafka.producer();
    await p2.connect();
    await p2.send({ topic: "a", messages: [{ value: "x" }] });
    await p2.disconnect();
    await sleep(1500);
    await cluster.cluster.compact();
    // Expected: every arena but the one holding the open segment dropped.
    expect(pool.arenaBytes).toBeLessThanOrEqual(16 * SEGMENT_BYTES);
  });

  it("the same cleaning, nothing interleaved, leaves 1 batch", async () => {
    const { c, cmp } = await interleaved();
    await compactTopic(c, c.topics.get("cmp")!);
    expect(cmp.log.batches.length).toBe(1);
  });

  it("retention during the cleaner's awaits: each stored batch keeps its own records", async () => {
    const c = cluster.cluster;
    await cluster.reset();
    c.createTopic("cmp2", { partitions: 1, configs: { "cleanup.policy": "compact" } });
    const p = c.topics.get("cmp2")!.partitions[0]!;
    for (let i = 0; i < 6; i++)
      appendBatch(p.log, [
        { key: "u" + i, value: new Uint8Array(10).fill(i) },
        { key: "dup", value: new Uint8Array(1) },
      ]);
    appendBatch(p.log, [{ key: "dup", value: new Uint8Array(1) }]);
    const run = compactTopic(c, c.topics.get("cmp2")!);
    c.deleteRecordsBefore(p, 2n); // retention/DeleteRecords drops batch 0 while the cleaner is at its first await
    await run;
    // Batch i (base offset 2i) held u<i> and dup: what is left of each is u<i>, under its own offset.
    for (const b of p.log.batches) {
      expect(new DataView(b.bytes.buffer, b.bytes.byteOffset).getBigInt64(0)).toBe(b.baseOffset);
      const rb = (await decodeRecords(b.bytes)).batches[0] as RecordBatch;
      const keys = rb.records.map((r) => Buffer.from(r.key!).toString());
      if (b.baseOffset < 12n) expect(keys).toEqual([`u${b.baseOffset / 2n}`]);
      else expect(keys).toEqual(["dup"]);
    }
    expect(p.log.batches.map((b) => b.baseOffset)).toEqual([2n, 4n, 6n, 8n, 10n, 12n]);
  });

  it("the pool moving batches during the cleaner's awaits: the pass still cleans", async () => {
    const { c, filler, cmp } = await interleaved();
    expect(cmp.log.batches.length).toBe(11);
    const run = compactTopic(c, c.topics.get("cmp")!);
    // While the cleaner is at its first await: DeleteRecords on filler (compactSegments moves cmp's batches).
    c.deleteRecordsBefore(filler, filler.log.logEndOffset);
    await run;
    // Expected like Kafka: only the last record of key k (the active batch) left.
    await compactTopic(c, c.topics.get("cmp")!); // not run again: nothing appended since
    expect(cmp.log.batches.length).toBe(1);
  });
});
