/**
 * What a partition knows about its producers, as Kafka's `ProducerStateManager` and
 * `ProducerAppendInfo` keep it: per producer id, the epoch and the metadata of its last five
 * batches (duplicates of those are answered with the original offset, without appending), the
 * first offset of its open transaction, and the aborted transactions Fetch reports to
 * read_committed consumers.
 */

/** Kafka's `ProducerStateEntry.NUM_BATCHES_TO_RETAIN`. */
export const BATCHES_TO_RETAIN = 5;

/** A batch the partition appended for a producer. */
export interface BatchMetadata {
  readonly firstSeq: number;
  readonly lastSeq: number;
  readonly firstOffset: bigint;
  readonly lastOffset: bigint;
  readonly timestamp: bigint;
}

/** One producer's state in a partition. */
export interface ProducerEntry {
  readonly producerId: bigint;
  epoch: number;
  /** The newest last: at most {@link BATCHES_TO_RETAIN}. */
  batches: BatchMetadata[];
  /** First offset of the producer's open transaction in this partition, or null. */
  txnFirstOffset: bigint | null;
  /** Last time the producer wrote (ms): DescribeProducers. */
  lastTimestamp: bigint;
  coordinatorEpoch: number;
}

/** An aborted transaction: what Fetch's `abortedTransactions` lists. */
export interface AbortedTxn {
  readonly producerId: bigint;
  readonly firstOffset: bigint;
  /** The offset of its ABORT marker. */
  readonly lastOffset: bigint;
}

/** The header fields of a batch that the checks read. */
export interface ProducerBatch {
  readonly producerId: bigint;
  readonly producerEpoch: number;
  readonly baseSequence: number;
  readonly lastSequence: number;
  readonly isTransactional: boolean;
  readonly maxTimestamp: bigint;
}

/** What to do with a batch: append it, answer with a duplicate's offset, or fail. */
export type SequenceCheck =
  | { readonly kind: "append" }
  | { readonly kind: "duplicate"; readonly firstOffset: bigint; readonly lastOffset: bigint }
  | {
      readonly kind: "error";
      readonly error: "INVALID_PRODUCER_EPOCH" | "OUT_OF_ORDER_SEQUENCE_NUMBER";
      readonly message: string;
    };

/** Kafka's `ProducerStateManager.inSequence`: the next sequence, wrapping at Integer.MAX_VALUE. */
function inSequence(last: number, next: number): boolean {
  return next === last + 1 || (next === 0 && last === 0x7fffffff);
}

export class ProducerStates {
  readonly producers = new Map<bigint, ProducerEntry>();
  /** Oldest first. */
  readonly aborted: AbortedTxn[] = [];

  /**
   * Checks a producer's batch as Kafka's `UnifiedLog.analyzeAndValidateProducerState` does: a
   * duplicate of one of the last five batches (same epoch and sequences); then the epoch (older:
   * INVALID_PRODUCER_EPOCH; newer: the sequence restarts at 0) and the sequence (the next one
   * after the last, else OUT_OF_ORDER_SEQUENCE_NUMBER).
   */
  check(batch: ProducerBatch): SequenceCheck {
    const entry = this.producers.get(batch.producerId);
    if (entry === undefined) {
      // No state for this producer (new, or its state is gone): the first batch starts at 0.
      if (batch.baseSequence !== 0) {
        return {
          kind: "error",
          error: "OUT_OF_ORDER_SEQUENCE_NUMBER",
          message: `Out of order sequence number for producer ${batch.producerId} with no existing state: ${batch.baseSequence} (expected 0)`,
        };
      }
      return { kind: "append" };
    }
    if (batch.producerEpoch < entry.epoch) {
      return {
        kind: "error",
        error: "INVALID_PRODUCER_EPOCH",
        message: `Epoch of producer ${batch.producerId} at offset is ${batch.producerEpoch}, which is smaller than the last seen epoch ${entry.epoch}`,
      };
    }
    if (batch.producerEpoch === entry.epoch) {
      const dup = entry.batches.find((b) => b.firstSeq === batch.baseSequence && b.lastSeq === batch.lastSequence);
      if (dup !== undefined) return { kind: "duplicate", firstOffset: dup.firstOffset, lastOffset: dup.lastOffset };
      const last = entry.batches.at(-1)?.lastSeq;
      if (last === undefined ? batch.baseSequence !== 0 : !inSequence(last, batch.baseSequence)) {
        return {
          kind: "error",
          error: "OUT_OF_ORDER_SEQUENCE_NUMBER",
          message: `Out of order sequence number for producer ${batch.producerId} at epoch ${batch.producerEpoch}: ${batch.baseSequence} (incoming seq. number), ${last ?? -1} (current end sequence number)`,
        };
      }
      return { kind: "append" };
    }
    // A new epoch: the sequence starts over.
    if (batch.baseSequence !== 0) {
      return {
        kind: "error",
        error: "OUT_OF_ORDER_SEQUENCE_NUMBER",
        message: `Invalid sequence number for new epoch of producer ${batch.producerId}: ${batch.producerEpoch} (request epoch), ${batch.baseSequence} (seq. number), ${entry.epoch} (current producer epoch)`,
      };
    }
    return { kind: "append" };
  }

  /** Records an appended batch (after {@link check} said `append`). */
  appended(batch: ProducerBatch, firstOffset: bigint, lastOffset: bigint): void {
    let entry = this.producers.get(batch.producerId);
    if (entry === undefined) {
      entry = {
        producerId: batch.producerId,
        epoch: batch.producerEpoch,
        batches: [],
        txnFirstOffset: null,
        lastTimestamp: -1n,
        coordinatorEpoch: -1,
      };
      this.producers.set(batch.producerId, entry);
    }
    if (batch.producerEpoch !== entry.epoch) {
      entry.epoch = batch.producerEpoch;
      entry.batches = [];
    }
    entry.batches.push({
      firstSeq: batch.baseSequence,
      lastSeq: batch.lastSequence,
      firstOffset,
      lastOffset,
      timestamp: batch.maxTimestamp,
    });
    if (entry.batches.length > BATCHES_TO_RETAIN) entry.batches.shift();
    entry.lastTimestamp = batch.maxTimestamp;
    if (batch.isTransactional && entry.txnFirstOffset === null) entry.txnFirstOffset = firstOffset;
  }

  /**
   * Records a transaction marker written at `offset` with `epoch` (Kafka's `appendEndTxnMarker`):
   * closes the producer's open transaction (an ABORT one joins {@link aborted}); a newer epoch
   * (KIP-890's bump, or a fencing abort) replaces the producer's epoch and clears its batches.
   */
  marker(producerId: bigint, epoch: number, offset: bigint, commit: boolean, timestamp: bigint): void {
    let entry = this.producers.get(producerId);
    if (entry === undefined) {
      entry = { producerId, epoch, batches: [], txnFirstOffset: null, lastTimestamp: timestamp, coordinatorEpoch: 0 };
      this.producers.set(producerId, entry);
    }
    if (epoch > entry.epoch) {
      entry.epoch = epoch;
      entry.batches = [];
    }
    if (entry.txnFirstOffset !== null && !commit) {
      this.aborted.push({ producerId, firstOffset: entry.txnFirstOffset, lastOffset: offset });
    }
    entry.txnFirstOffset = null;
    entry.coordinatorEpoch = 0;
    entry.lastTimestamp = timestamp;
  }

  /** The last stable offset: the first offset of the oldest open transaction, else `logEndOffset`. */
  lastStableOffset(logEndOffset: bigint): bigint {
    let lso = logEndOffset;
    for (const e of this.producers.values())
      if (e.txnFirstOffset !== null && e.txnFirstOffset < lso) lso = e.txnFirstOffset;
    return lso;
  }

  /** Aborted transactions overlapping `[from, to]` (Kafka's `collectAbortedTransactions`). */
  abortedBetween(from: bigint, to: bigint): AbortedTxn[] {
    return this.aborted.filter((a) => a.lastOffset >= from && a.firstOffset <= to);
  }

  /** Forgets what lies wholly before the log start offset (DeleteRecords, retention). */
  truncateBefore(logStartOffset: bigint): void {
    let drop = 0;
    while (drop < this.aborted.length && this.aborted[drop]!.lastOffset < logStartOffset) drop++;
    this.aborted.splice(0, drop);
  }
}
