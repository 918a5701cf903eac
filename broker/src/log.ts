/**
 * One partition's log: magic-2 record batches kept as the bytes producers sent, each with the
 * base offset the log assigned (`withBatchHeader`: baseOffset and partitionLeaderEpoch lie
 * outside the CRC, so the compressed payload and CRC are stored as they came).
 *
 * The batches are copied into segments, buffers that each hold many, as Kafka's log segments do:
 * one allocation for many batches instead of one each, which is what the garbage collector pays
 * for (a producer sending 10 KB batches would otherwise allocate 100 buffers a MB). In a cluster,
 * batches of up to 64 KiB go to its segment pool (segment-pool.ts: WebAssembly.Memory arenas
 * shared by every partition, out of V8's external-memory accounting); larger ones, and every batch
 * of a log without a pool, to segments of the log's own.
 */

import { decodeRecords, withBatchHeader, type Codecs, type RecordBatch } from "../../src/records/index.js";
import type { SegmentPool } from "./segment-pool.js";

/** Attribute bit 5 (byte 22 of the batch): a control batch. */
const isControl = (bytes: Uint8Array) => (bytes[22]! & 0x20) !== 0;

/** The offset and timestamp of each data record of a stored batch (none for a control batch). */
async function dataRecords(batch: StoredBatch, codecs?: Codecs): Promise<{ offset: bigint; timestamp: bigint }[]> {
  if (isControl(batch.bytes)) return [];
  const set = await decodeRecords(batch.bytes, codecs === undefined ? {} : { codecs });
  const b = set.batches[0] as RecordBatch | undefined;
  if (b === undefined || !b.recordsAvailable) return [];
  return b.records.map((r) => ({
    offset: b.baseOffset + BigInt(r.offsetDelta),
    // LogAppendTime: every record has the batch's max timestamp.
    timestamp: b.timestampType === "LogAppendTime" ? b.maxTimestamp : b.baseTimestamp + r.timestampDelta,
  }));
}

/** A stored batch. */
export interface StoredBatch {
  readonly baseOffset: bigint;
  /** baseOffset + lastOffsetDelta. */
  readonly lastOffset: bigint;
  readonly maxTimestamp: bigint;
  /** The batch as a Fetch returns it. */
  readonly bytes: Uint8Array;
}

/** The largest segment (bytes). */
const SEGMENT_MAX = 1 << 20;
/**
 * A new segment is an eighth of what the log holds (at most {@link SEGMENT_MAX}), and a batch goes
 * into one only when it is at most a sixteenth of it (else into a buffer of its own). So a full
 * segment leaves under a sixteenth of itself unused (a batch that did not fit in the rest), the
 * open one under an eighth of the log: the buffers hold at most 1 + 1/16 + 1/8 ≈ 1.19× the bytes
 * of their batches. A log under 128 KiB stores each batch of 1 KiB or more in its own buffer.
 */
const SEGMENT_SHARE = 8;
const SLOT_SHARE = 16;
const NO_SEGMENT = new Uint8Array(0);

export class PartitionLog {
  readonly batches: StoredBatch[] = [];
  /** The offset the next batch gets (Kafka's log end offset; also the high watermark here). */
  logEndOffset = 0n;
  /** The first offset still readable (Kafka's log start offset; DeleteRecords and retention move it). */
  logStartOffset = 0n;
  /** Bytes held by the stored batches. */
  bytes = 0;
  private waiters = new Set<() => void>();
  /** The open segment and how much of it is used. */
  private segment = NO_SEGMENT;
  private segmentUsed = 0;

  /**
   * `pool`: the cluster's segments, where batches of up to 64 KiB go (see segment-pool.ts); the
   * log's own segments hold the rest (and everything when there is no pool, or it is full).
   */
  constructor(private pool: SegmentPool | null = null) {}

  /**
   * Appends decoded batches (as `decodeRecords` returned them), stamped with the leader epoch
   * (and with `logAppendTime` as their timestamp when given); returns the first one's base offset.
   */
  append(batches: readonly RecordBatch[], leaderEpoch: number, logAppendTime?: bigint): bigint {
    const first = this.logEndOffset;
    for (const batch of batches) {
      this.appendRaw(batch.raw, batch.lastOffsetDelta, logAppendTime ?? batch.maxTimestamp, leaderEpoch, logAppendTime);
    }
    return first;
  }

  /**
   * Appends one batch's bytes (a producer's, or a control batch the broker wrote) at the log
   * end offset, stamped with the leader epoch; returns its base offset and wakes waiting Fetches.
   */
  appendRaw(
    raw: Uint8Array,
    lastOffsetDelta: number,
    maxTimestamp: bigint,
    leaderEpoch: number,
    logAppendTime?: bigint,
  ): bigint {
    const baseOffset = this.logEndOffset;
    // message.timestamp.type=LogAppendTime: the broker's clock as the batch's max timestamp,
    // the attribute set and the CRC recomputed (Kafka's LogValidator does the same).
    const slot = this.slot(raw.length);
    let bytes: Uint8Array;
    try {
      bytes = withBatchHeader(
        raw,
        {
          baseOffset,
          partitionLeaderEpoch: leaderEpoch,
          ...(logAppendTime === undefined
            ? {}
            : { maxTimestamp: { timestampType: "LogAppendTime", timestamp: logAppendTime } }),
        },
        slot,
      );
    } catch (e) {
      // Not stored: its room goes back.
      this.pool?.release(slot);
      throw e;
    }
    const stored = { baseOffset, lastOffset: baseOffset + BigInt(lastOffsetDelta), maxTimestamp, bytes };
    this.batches.push(stored);
    this.logEndOffset = stored.lastOffset + 1n;
    this.bytes += bytes.length;
    for (const wake of this.waiters) wake();
    this.waiters.clear();
    return baseOffset;
  }

  /** Room for a batch of `n` bytes: the open segment's next `n` bytes, a new segment's, or a buffer of its own. */
  private slot(n: number): Uint8Array {
    const pooled = this.pool?.alloc(n);
    if (pooled !== null && pooled !== undefined) return pooled;
    if (this.segment.length - this.segmentUsed < n) {
      const size = Math.min(SEGMENT_MAX, Math.floor(this.bytes / SEGMENT_SHARE));
      if (n > size / SLOT_SHARE) return new Uint8Array(n);
      this.segment = new Uint8Array(size);
      this.segmentUsed = 0;
    }
    const at = this.segmentUsed;
    this.segmentUsed += n;
    return this.segment.subarray(at, at + n);
  }

  /**
   * Copies the batches held in segments into new ones: after the log cleaner replaced or removed
   * batches, a segment may hold few live ones (it is freed only when none is left).
   */
  repack(): void {
    this.segment = NO_SEGMENT;
    this.segmentUsed = 0;
    for (let i = 0; i < this.batches.length; i++) {
      const b = this.batches[i]!;
      if (b.bytes.byteLength === b.bytes.buffer.byteLength) continue; // a buffer of its own
      // The pool's segments are the cluster's to compact (Cluster.compactSegments).
      if (this.pool?.owns(b.bytes) === true) continue;
      this.move(i);
    }
  }

  /** Copies batch `i` into new room (releasing its old bytes in the pool). */
  private move(i: number): void {
    const b = this.batches[i]!;
    const bytes = this.slot(b.bytes.length);
    bytes.set(b.bytes);
    this.pool?.release(b.bytes);
    this.batches[i] = { ...b, bytes };
  }

  /** Moves the batches held in the pool's `segments` to new room (the pool's compaction). */
  moveOutOf(segments: ReadonlySet<number>): void {
    const pool = this.pool;
    if (pool === null) return;
    for (let i = 0; i < this.batches.length; i++) {
      const bytes = this.batches[i]!.bytes;
      if (pool.owns(bytes) && segments.has(pool.segmentOf(bytes))) this.move(i);
    }
  }

  /**
   * Whole batches from the one holding `offset` up to `endOffset`, within `maxBytes` (but at least one batch, as
   * Kafka does since KIP-74, so that a batch larger than the limit still makes progress).
   */
  read(offset: bigint, maxBytes: number, endOffset: bigint = this.logEndOffset): Uint8Array[] {
    let lo = 0;
    let hi = this.batches.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.batches[mid]!.lastOffset < offset) lo = mid + 1;
      else hi = mid;
    }
    const out: Uint8Array[] = [];
    let size = 0;
    for (let i = lo; i < this.batches.length; i++) {
      // Up to `endOffset` (exclusive): the last stable offset for read_committed.
      if (this.batches[i]!.baseOffset >= endOffset) break;
      const b = this.batches[i]!.bytes;
      if (out.length > 0 && size + b.length > maxBytes) break;
      out.push(b);
      size += b.length;
    }
    return out;
  }

  /**
   * ListOffsets by timestamp: the first record (from the log start offset) whose timestamp is at
   * least `timestamp`, with its timestamp, or null. Kafka's `UnifiedLog.fetchOffsetByTimestamp`:
   * the batch is found by its max timestamp, then the record inside it.
   */
  async offsetForTimestamp(timestamp: bigint, codecs?: Codecs): Promise<{ offset: bigint; timestamp: bigint } | null> {
    for (const b of this.batches) {
      if (b.maxTimestamp < timestamp || b.lastOffset < this.logStartOffset) continue;
      for (const r of await dataRecords(b, codecs)) {
        if (r.offset >= this.logStartOffset && r.timestamp >= timestamp) return r;
      }
    }
    return null;
  }

  /**
   * OffsetForLeaderEpoch's answer for `requested` while the partition is at `currentEpoch`: the
   * largest epoch at most `requested` and the start offset of the next one (the log end offset
   * for the current epoch), as Kafka's `LeaderEpochFileCache.endOffsetFor`; [-1, -1] for an
   * undefined (-1) or future epoch. The epochs and their start offsets are those stamped on the
   * stored batches (an epoch in which nothing was appended has no entry, as in Kafka's cache,
   * which drops an epoch when the next one starts at the same offset); a requested epoch older
   * than every stored one gets the first stored epoch's start offset, as Kafka answers after
   * retention removed the older ones.
   */
  endOffsetForEpoch(requested: number, currentEpoch: number): [leaderEpoch: number, endOffset: bigint] {
    if (requested < 0 || requested > currentEpoch) return [-1, -1n];
    if (requested === currentEpoch) return [requested, this.logEndOffset];
    let floor = -1;
    for (const b of this.batches) {
      // partitionLeaderEpoch: bytes 12..15 of the batch (after baseOffset and batchLength).
      const epoch = new DataView(b.bytes.buffer, b.bytes.byteOffset + 12, 4).getInt32(0);
      // A batch holding the log start offset keeps offsets below it: its epoch starts at the log
      // start, as LeaderEpochFileCache.truncateFromStart moves the first entry there.
      const start = b.baseOffset < this.logStartOffset ? this.logStartOffset : b.baseOffset;
      if (epoch > requested) return floor < 0 ? [requested, start] : [floor, start];
      floor = epoch;
    }
    // Nothing appended after `requested`: the current epoch starts at the log end offset.
    return floor < 0 ? [requested, this.logEndOffset] : [floor, this.logEndOffset];
  }

  /** ListOffsets' MAX_TIMESTAMP (-3, KIP-734): the first record with the largest timestamp, or null when empty. */
  async maxTimestamp(codecs?: Codecs): Promise<{ offset: bigint; timestamp: bigint } | null> {
    let best: StoredBatch | null = null;
    for (const b of this.batches) {
      if (b.lastOffset < this.logStartOffset || isControl(b.bytes)) continue;
      if (best === null || b.maxTimestamp > best.maxTimestamp) best = b;
    }
    if (best === null) return null;
    for (const r of await dataRecords(best, codecs)) if (r.timestamp === best.maxTimestamp) return r;
    return { offset: best.baseOffset, timestamp: best.maxTimestamp };
  }

  /**
   * Moves the log start offset forward to `offset` (DeleteRecords, retention): batches wholly
   * before it are dropped; one holding it stays, as in Kafka, and reads skip to it. Returns the
   * bytes freed.
   */
  deleteBefore(offset: bigint): number {
    if (offset <= this.logStartOffset) return 0;
    this.logStartOffset = offset;
    let drop = 0;
    let freed = 0;
    while (drop < this.batches.length && this.batches[drop]!.lastOffset < offset) {
      const bytes = this.batches[drop++]!.bytes;
      freed += bytes.length;
      this.pool?.release(bytes);
    }
    this.batches.splice(0, drop);
    this.bytes -= freed;
    // Nothing left: the open segment goes too (a batch holding the log start stays, and its segment).
    if (this.batches.length === 0) {
      this.segment = NO_SEGMENT;
      this.segmentUsed = 0;
    }
    return freed;
  }

  /**
   * Replaces the stored batch at `index` with cleaned bytes (same base and last offset), or
   * removes it (null): the log cleaner's rewrite.
   */
  replace(index: number, bytes: Uint8Array | null): void {
    const old = this.batches[index]!;
    this.bytes -= old.bytes.length;
    this.pool?.release(old.bytes);
    if (bytes === null) {
      this.batches.splice(index, 1);
      return;
    }
    this.batches[index] = { ...old, bytes };
    this.bytes += bytes.length;
  }

  /** Wakes every waiting Fetch and gives its batches' room in the pool back (the log is going away). */
  close(): void {
    // Once: a closed log (its topic deleted) leaves the pool, and whatever still writes to it
    // (a request or the cleaner that was under way) uses buffers of its own.
    const pool = this.pool;
    this.pool = null;
    if (pool !== null) for (const b of this.batches) pool.release(b.bytes);
    for (const wake of this.waiters) wake();
    this.waiters.clear();
  }

  /** Calls `wake` once, on the next append (a Fetch waiting for data). Returns a canceller. */
  onAppend(wake: () => void): () => void {
    this.waiters.add(wake);
    return () => this.waiters.delete(wake);
  }
}
