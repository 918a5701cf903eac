/**
 * The transaction coordinator, in memory (Kafka's `TransactionCoordinator` and
 * `TransactionMetadata`): transactional ids with their producer id and epoch, the partitions and
 * groups of the open transaction, and its end, which writes a COMMIT or ABORT marker (a control
 * batch) to every partition of the transaction and makes its offsets visible (commit) or drops
 * them (abort). A transaction open longer than its timeout is aborted and its producer fenced
 * (the epoch bumped), as Kafka does.
 *
 * Kafka moves through PrepareCommit/PrepareAbort while the markers are written; here they are
 * written at once, so a transaction goes from Ongoing straight to CompleteCommit/CompleteAbort.
 */

import { endTransactionMarker } from "../../src/records/index.js";
import type { Cluster } from "./cluster.js";
import { errorCode } from "./errors.js";

export type TxnState =
  "Empty" | "Ongoing" | "PrepareCommit" | "PrepareAbort" | "CompleteCommit" | "CompleteAbort" | "PrepareEpochFence";

/** A pending offset commit of a transaction (TxnOffsetCommit), applied at commit. */
export interface PendingOffset {
  readonly groupId: string;
  readonly topic: string;
  readonly partition: number;
  readonly offset: bigint;
  readonly leaderEpoch: number;
  readonly metadata: string | null;
}

export interface Transaction {
  readonly transactionalId: string;
  producerId: bigint;
  producerEpoch: number;
  /** The producer id before the last rotation (epoch exhausted), or -1 (Kafka's `previousProducerId`). */
  previousProducerId: bigint;
  timeoutMs: number;
  state: TxnState;
  /** "topic\0partition". */
  readonly partitions: Set<string>;
  readonly groups: Set<string>;
  /**
   * TxnOffsetCommit's offsets, committed by EndTxn: the last one of each group partition (by
   * "group\0topic\0partition"), as Kafka's coordinator keeps them, so that repeating a commit
   * replaces it rather than piling up.
   */
  readonly pendingOffsets: Map<string, PendingOffset>;
  startTimestamp: number;
  lastUpdate: number;
  timer: ReturnType<typeof setTimeout> | null;
}

/** The key of a group partition's offset in {@link Transaction.pendingOffsets}. */
export function pendingKey(groupId: string, topic: string, partition: number): string {
  return `${groupId}\0${topic}\0${partition}`;
}

/** Kafka's `transaction.max.timeout.ms` default. */
export const MAX_TRANSACTION_TIMEOUT_MS = 900_000;
/** The largest epoch before a new producer id is needed (Kafka: Short.MAX_VALUE - 1). */
const MAX_EPOCH = 32766;

/** An error name, or null for none. */
type Outcome = string | null;

export class TransactionCoordinator {
  readonly transactions = new Map<string, Transaction>();

  constructor(private readonly cluster: Cluster) {}

  /**
   * InitProducerId with a transactional id: a new producer id (epoch 0), or the epoch bumped
   * (KIP-98), aborting an open transaction first. A producer id and epoch given (KIP-360) are
   * accepted as Kafka's `TransactionCoordinator.isValidProducerId` does: when the transactional
   * id is new (its metadata just created, epoch -1: the producer recovers from
   * UNKNOWN_PRODUCER_ID, or a client that sends 0/0 instead of -1/-1), when the id is the current
   * one (its epoch the current one, or the one before a bump the producer did not learn of), or
   * when it is the previous id and its epoch exhausted (a retry after a rotation); else
   * PRODUCER_FENCED.
   */
  initProducer(
    transactionalId: string,
    timeoutMs: number,
    given: { producerId: bigint; producerEpoch: number },
  ): { error: Outcome; producerId: bigint; producerEpoch: number } {
    const fail = (error: string) => ({ error, producerId: -1n, producerEpoch: -1 });
    if (timeoutMs <= 0 || timeoutMs > MAX_TRANSACTION_TIMEOUT_MS) return fail("INVALID_TRANSACTION_TIMEOUT");
    let txn = this.transactions.get(transactionalId);
    if (txn === undefined) {
      txn = {
        transactionalId,
        producerId: this.cluster.nextProducerId++,
        producerEpoch: 0,
        previousProducerId: -1n,
        timeoutMs,
        state: "Empty",
        partitions: new Set(),
        groups: new Set(),
        pendingOffsets: new Map(),
        startTimestamp: -1,
        lastUpdate: Date.now(),
        timer: null,
      };
      this.transactions.set(transactionalId, txn);
      return { error: null, producerId: txn.producerId, producerEpoch: 0 };
    }
    if (given.producerId >= 0n) {
      if (given.producerId === txn.previousProducerId && given.producerEpoch >= MAX_EPOCH) {
        // A retry of the InitProducerId that rotated the id: answer the current id and epoch.
        if (txn.state === "Ongoing") this.complete(txn, false);
        txn.state = "Empty";
        txn.timeoutMs = timeoutMs;
        return { error: null, producerId: txn.producerId, producerEpoch: txn.producerEpoch };
      }
      if (given.producerId !== txn.producerId) return fail("PRODUCER_FENCED");
      // KIP-360: the producer's own epoch (or the one before a bump it did not learn of).
      if (given.producerEpoch !== txn.producerEpoch && given.producerEpoch !== txn.producerEpoch - 1) {
        return fail("PRODUCER_FENCED");
      }
    }
    // The epoch is bumped first, so that the markers of an open transaction fence its producer.
    this.bump(txn);
    if (txn.state === "Ongoing") this.complete(txn, false);
    txn.state = "Empty";
    txn.timeoutMs = timeoutMs;
    return { error: null, producerId: txn.producerId, producerEpoch: txn.producerEpoch };
  }

  /** The transaction of `transactionalId` if `producerId`/`producerEpoch` are its current ones, else the error. */
  verify(
    transactionalId: string,
    producerId: bigint,
    producerEpoch: number,
    apiVersion: number,
    fencedFrom = 2,
  ): Transaction | string {
    const txn = this.transactions.get(transactionalId);
    if (txn === undefined || txn.producerId !== producerId) return "INVALID_PRODUCER_ID_MAPPING";
    // PRODUCER_FENCED from the versions that know it; INVALID_PRODUCER_EPOCH before.
    if (txn.producerEpoch !== producerEpoch)
      return apiVersion >= fencedFrom ? "PRODUCER_FENCED" : "INVALID_PRODUCER_EPOCH";
    if (txn.state === "PrepareCommit" || txn.state === "PrepareAbort") return "CONCURRENT_TRANSACTIONS";
    return txn;
  }

  /** Adds partitions (AddPartitionsToTxn) or a group's offsets partition (AddOffsetsToTxn) to the open transaction. */
  begin(txn: Transaction): void {
    if (txn.state !== "Ongoing") {
      txn.state = "Ongoing";
      txn.startTimestamp = Date.now();
      // Kafka aborts a transaction that stays open past its timeout and bumps the epoch (fencing the producer).
      txn.timer = this.cluster.timer(txn.timeoutMs, () => {
        txn.timer = null;
        if (txn.state !== "Ongoing") return;
        this.cluster.log(`transaction ${txn.transactionalId} timed out after ${txn.timeoutMs} ms; aborting it`);
        this.bump(txn);
        this.complete(txn, false);
      });
    }
    txn.lastUpdate = Date.now();
  }

  /**
   * EndTxn: writes the markers and ends the transaction. A retry of the end already reached is
   * answered with success; another end, or an end without a transaction, is INVALID_TXN_STATE.
   * `bumpEpoch` (EndTxn v5+, KIP-890 part 2): the epoch goes up by one with the markers.
   */
  end(txn: Transaction, commit: boolean, bumpEpoch: boolean): Outcome {
    if (txn.state === "CompleteCommit" || txn.state === "CompleteAbort" || txn.state === "Empty") {
      if (txn.state === (commit ? "CompleteCommit" : "CompleteAbort")) return null;
      // KIP-890: an abort with nothing open is fine for a client that bumps epochs.
      if (txn.state !== "Empty" || commit || !bumpEpoch) return "INVALID_TXN_STATE";
    }
    if (bumpEpoch) this.bump(txn);
    if (txn.state === "Ongoing") this.complete(txn, commit);
    else txn.state = commit ? "CompleteCommit" : "CompleteAbort";
    return null;
  }

  private bump(txn: Transaction): void {
    if (txn.producerEpoch >= MAX_EPOCH) {
      txn.previousProducerId = txn.producerId;
      txn.producerId = this.cluster.nextProducerId++;
      txn.producerEpoch = 0;
    } else {
      txn.producerEpoch++;
    }
  }

  /** Writes a marker with the transaction's (current) epoch to each of its partitions; applies or drops its offsets. */
  private complete(txn: Transaction, commit: boolean): void {
    if (txn.timer !== null) this.cluster.clearTimer(txn.timer);
    txn.timer = null;
    const now = Date.now();
    for (const key of txn.partitions) {
      const [topic, index] = key.split("\0") as [string, string];
      const partition = this.cluster.partition(topic, Number(index));
      if (partition === undefined) continue; // deleted meanwhile
      const bytes = endTransactionMarker({
        type: commit ? "COMMIT" : "ABORT",
        producerId: txn.producerId,
        producerEpoch: txn.producerEpoch,
        coordinatorEpoch: 0,
        timestamp: now,
      });
      const offset = partition.log.appendRaw(bytes, 0, BigInt(now), partition.leaderEpoch);
      this.cluster.storedBytes += bytes.length;
      partition.producers.marker(txn.producerId, txn.producerEpoch, offset, commit, BigInt(now));
    }
    if (commit) {
      for (const o of txn.pendingOffsets.values()) {
        this.cluster.groups.commit(o.groupId, o.topic, o.partition, {
          offset: o.offset,
          leaderEpoch: o.leaderEpoch,
          metadata: o.metadata,
        });
      }
    }
    txn.pendingOffsets.clear();
    txn.partitions.clear();
    txn.groups.clear();
    txn.state = commit ? "CompleteCommit" : "CompleteAbort";
    txn.lastUpdate = now;
  }

  /** True when a transaction has offsets pending for the group's partition (OffsetFetch's UNSTABLE_OFFSET_COMMIT). */
  hasPendingOffset(groupId: string, topic: string, partition: number): boolean {
    for (const txn of this.transactions.values()) {
      if (txn.state !== "Ongoing") continue;
      if (txn.pendingOffsets.has(pendingKey(groupId, topic, partition))) return true;
    }
    return false;
  }

  /** The error code of an outcome. */
  static code(outcome: Outcome): number {
    return outcome === null ? 0 : errorCode(outcome);
  }
}
