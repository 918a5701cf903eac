/**
 * Log compaction (`cleanup.policy=compact`) with `kafka-wire/records`, as Kafka's log cleaner
 * does it: every record whose key has a later record in the partition is removed; the active
 * segment (here: the last batch) is never cleaned; tombstones (null values) stay for
 * `delete.retention.ms` after their batch's timestamp; transactional and control batches are
 * kept as they are. A cleaned batch keeps its base offset, last offset delta and producer
 * fields (offset gaps are legal in a log), so offsets never move; a batch left without records
 * is dropped unless it is a producer's (Kafka keeps those for the producer state).
 */

import { decodeRecords, encodeRecordBatch, type RecordBatch } from "../../src/records/index.js";
import type { Cluster, Partition, Topic } from "./cluster.js";
import { topicConfig } from "./configs.js";

const keyText = (key: Uint8Array) => Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString("latin1");

/** Compacts every partition of `topic` when its cleanup.policy has `compact`. */
export async function compactTopic(cluster: Cluster, topic: Topic, now = Date.now()): Promise<void> {
  if (!(topicConfig(topic, "cleanup.policy") ?? "").split(",").includes("compact")) return;
  const deleteRetentionMs = BigInt(topicConfig(topic, "delete.retention.ms") ?? "86400000");
  for (const p of topic.partitions) await compactPartition(cluster, p, BigInt(now) - deleteRetentionMs);
}

/** The log end offset at each partition's last cleaning: a log nothing was appended to since is not cleaned again. */
const cleanedAt = new WeakMap<Partition, bigint>();

/**
 * Where a batch is now in the log, by its offsets: the segment pool's compaction replaces a
 * moved batch's entry (same offsets and bytes, other memory); -1 when it is gone.
 */
function indexOf(log: Partition["log"], batch: { baseOffset: bigint; lastOffset: bigint }): number {
  return log.batches.findIndex((b) => b.baseOffset === batch.baseOffset && b.lastOffset === batch.lastOffset);
}

async function compactPartition(cluster: Cluster, partition: Partition, tombstonesBefore: bigint): Promise<void> {
  const log = partition.log;
  // A snapshot: retention or DeleteRecords may remove batches while this awaits.
  const all = log.batches.slice();
  const stored = all.slice(0, -1);
  if (stored.length === 0 || cleanedAt.get(partition) === log.logEndOffset) return;
  cleanedAt.set(partition, log.logEndOffset);
  // The offset of each key's latest record, over the whole log (the active batch included).
  const decoded: (RecordBatch | null)[] = [];
  const latest = new Map<string, bigint>();
  for (const b of all) {
    const set = await decodeRecords(b.bytes, { codecs: cluster.codecs });
    const batch = set.batches[0] as RecordBatch;
    const usable = batch.magic === 2 && !batch.isControl && !batch.isTransactional && batch.recordsAvailable;
    decoded.push(usable ? batch : null);
    if (!usable) continue;
    for (const r of batch.records)
      if (r.key !== null) latest.set(keyText(r.key), batch.baseOffset + BigInt(r.offsetDelta));
  }
  let cleaned = false;
  for (let i = 0; i < stored.length; i++) {
    const batch = decoded[i];
    if (batch === null || batch === undefined) continue;
    const keep = batch.records.filter((r) => {
      if (r.key === null) return true;
      const offset = batch.baseOffset + BigInt(r.offsetDelta);
      if (latest.get(keyText(r.key)) !== offset) return false;
      return !(r.value === null && batch.baseTimestamp + r.timestampDelta < tombstonesBefore);
    });
    if (keep.length === batch.records.length) continue;
    const old = stored[i]!;
    if (keep.length === 0 && batch.producerId < 0n) {
      const at = indexOf(log, old);
      if (at >= 0) log.replace(at, null);
      cleaned = true;
      continue;
    }
    const bytes = await encodeRecordBatch(
      {
        baseOffset: batch.baseOffset,
        partitionLeaderEpoch: batch.partitionLeaderEpoch,
        compression: batch.compression,
        timestampType: batch.timestampType,
        lastOffsetDelta: batch.lastOffsetDelta,
        baseTimestamp: batch.baseTimestamp,
        maxTimestamp: batch.maxTimestamp,
        producerId: batch.producerId,
        producerEpoch: batch.producerEpoch,
        baseSequence: batch.baseSequence,
        records: keep.map((r) => ({
          offsetDelta: r.offsetDelta,
          timestampDelta: r.timestampDelta,
          key: r.key,
          value: r.value,
          headers: r.headers.map((h) => ({ key: h.key, value: h.value })),
        })),
      },
      { validation: "log", codecs: cluster.codecs },
    );
    // The log may have changed while this ran (DeleteRecords, retention): replace only what is still there.
    const at = indexOf(log, old);
    if (at >= 0) log.replace(at, bytes);
    cleaned = true;
  }
  // The replaced batches' old bytes are still held by the segments they share with kept ones.
  if (cleaned) log.repack();
  cluster.storedBytes = [...cluster.topics.values()].reduce(
    (n, t) => n + t.partitions.reduce((m, p) => m + p.log.bytes, 0),
    0,
  );
}
