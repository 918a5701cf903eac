/**
 * One partition's log: magic-2 record batches kept as the bytes producers sent, each with the
 * base offset the log assigned (`withBatchHeader`: baseOffset and partitionLeaderEpoch lie
 * outside the CRC, so the compressed payload and CRC are stored as they came).
 */

import { withBatchHeader, type RecordBatch } from "../../src/records/index.js";

/** A stored batch. */
export interface StoredBatch {
  readonly baseOffset: bigint;
  /** baseOffset + lastOffsetDelta. */
  readonly lastOffset: bigint;
  readonly maxTimestamp: bigint;
  /** The batch as a Fetch returns it. */
  readonly bytes: Uint8Array;
}

export class PartitionLog {
  readonly batches: StoredBatch[] = [];
  /** The offset the next batch gets (Kafka's log end offset; also the high watermark here). */
  logEndOffset = 0n;
  /** The first offset still readable (Kafka's log start offset; DeleteRecords and retention move it). */
  logStartOffset = 0n;
  /** Bytes held by the stored batches. */
  bytes = 0;
  private waiters = new Set<() => void>();

  /**
   * Appends decoded batches (as `decodeRecords` returned them), stamped with the leader epoch;
   * returns the first one's base offset.
   */
  append(batches: readonly RecordBatch[], leaderEpoch: number): bigint {
    const first = this.logEndOffset;
    for (const batch of batches) this.appendRaw(batch.raw, batch.lastOffsetDelta, batch.maxTimestamp, leaderEpoch);
    return first;
  }

  /**
   * Appends one batch's bytes (a producer's, or a control batch the broker wrote) at the log
   * end offset, stamped with the leader epoch; returns its base offset and wakes waiting Fetches.
   */
  appendRaw(raw: Uint8Array, lastOffsetDelta: number, maxTimestamp: bigint, leaderEpoch: number): bigint {
    const baseOffset = this.logEndOffset;
    const bytes = withBatchHeader(raw, { baseOffset, partitionLeaderEpoch: leaderEpoch });
    const stored = { baseOffset, lastOffset: baseOffset + BigInt(lastOffsetDelta), maxTimestamp, bytes };
    this.batches.push(stored);
    this.logEndOffset = stored.lastOffset + 1n;
    this.bytes += bytes.length;
    for (const wake of this.waiters) wake();
    this.waiters.clear();
    return baseOffset;
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

  /** The base offset of the first batch whose max timestamp is at least `timestamp` (ListOffsets), or null. */
  offsetForTimestamp(timestamp: bigint): { offset: bigint; timestamp: bigint } | null {
    for (const b of this.batches)
      if (b.maxTimestamp >= timestamp) return { offset: b.baseOffset, timestamp: b.maxTimestamp };
    return null;
  }

  /** The batch with the largest max timestamp (ListOffsets' MAX_TIMESTAMP, -3), or null when empty. */
  maxTimestamp(): { offset: bigint; timestamp: bigint } | null {
    let best: StoredBatch | null = null;
    for (const b of this.batches) if (best === null || b.maxTimestamp > best.maxTimestamp) best = b;
    return best === null ? null : { offset: best.baseOffset, timestamp: best.maxTimestamp };
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
    while (drop < this.batches.length && this.batches[drop]!.lastOffset < offset)
      freed += this.batches[drop++]!.bytes.length;
    this.batches.splice(0, drop);
    this.bytes -= freed;
    return freed;
  }

  /** Wakes every waiting Fetch (the log is going away). */
  close(): void {
    for (const wake of this.waiters) wake();
    this.waiters.clear();
  }

  /** Calls `wake` once, on the next append (a Fetch waiting for data). Returns a canceller. */
  onAppend(wake: () => void): () => void {
    this.waiters.add(wake);
    return () => this.waiters.delete(wake);
  }
}
