/**
 * Transaction APIs: InitProducerId (idempotent and transactional), AddPartitionsToTxn (v0–3
 * from clients, v4+ batched as brokers send it), AddOffsetsToTxn, TxnOffsetCommit, EndTxn
 * (KIP-890's epoch bump from v5), ListTransactions, DescribeTransactions and DescribeProducers.
 * Transactional ids are answered by their coordinator (FindCoordinator key type 1), the
 * offsets of TxnOffsetCommit by the group's coordinator; other nodes answer NOT_COORDINATOR.
 */

import type { Cluster } from "../cluster.js";
import { errorCode } from "../errors.js";
import { pendingKey, TransactionCoordinator, type Transaction } from "../transactions.js";
import type { RequestContext } from "../types.js";
import { COORDINATOR_TYPES, coordinatorPartition, isCoordinator } from "./coordinator.js";
import { leaderError } from "./core.js";
import { coordinatorError } from "./groups.js";

const NONE = 0;

/** NONE when `ctx.node` coordinates `transactionalId`, else NOT_COORDINATOR. */
function txnCoordinatorError(ctx: RequestContext, transactionalId: string): number {
  return isCoordinator(ctx.cluster, ctx.node, transactionalId, COORDINATOR_TYPES.TRANSACTION)
    ? NONE
    : errorCode("NOT_COORDINATOR");
}

export function registerTransactionHandlers(cluster: Cluster): void {
  const h = cluster.handlers;
  const txns = cluster.transactions;
  const code = TransactionCoordinator.code;

  h.register(22, (req, ctx) => {
    const reply = (errorCode: number, producerId = -1n, producerEpoch = -1) => ({
      throttleTimeMs: 0,
      errorCode,
      producerId,
      producerEpoch,
    });
    if (req.transactionalId !== null && req.transactionalId !== "") {
      const notCoordinator = txnCoordinatorError(ctx, req.transactionalId);
      if (notCoordinator !== NONE) return reply(notCoordinator);
      const r = txns.initProducer(req.transactionalId, req.transactionTimeoutMs, req);
      // PRODUCER_FENCED is known from v4; older clients get INVALID_PRODUCER_EPOCH.
      const error = r.error === "PRODUCER_FENCED" && ctx.apiVersion < 4 ? "INVALID_PRODUCER_EPOCH" : r.error;
      return reply(code(error), r.producerId, r.producerEpoch);
    }
    // An idempotent producer: a new id, or (KIP-360) its epoch bumped.
    if (req.producerId >= 0n) return reply(NONE, req.producerId, (req.producerEpoch + 1) & 0x7fff);
    return reply(NONE, cluster.nextProducerId++, 0);
  });

  /** Adds partitions to a transaction; the per-partition errors, as AddPartitionsToTxn answers them. */
  const addPartitions = (
    ctx: RequestContext,
    t: {
      transactionalId: string;
      producerId: bigint;
      producerEpoch: number;
      topics: { name: string; partitions: number[] }[];
    },
    verifyOnly: boolean,
  ) => {
    const all = (error: number) =>
      t.topics.map((topic) => ({
        name: topic.name,
        resultsByPartition: topic.partitions.map((partitionIndex) => ({ partitionIndex, partitionErrorCode: error })),
      }));
    const notCoordinator = txnCoordinatorError(ctx, t.transactionalId);
    if (notCoordinator !== NONE) return all(notCoordinator);
    const txn = txns.verify(t.transactionalId, t.producerId, t.producerEpoch, ctx.apiVersion);
    if (typeof txn === "string") return all(errorCode(txn));
    if (verifyOnly) {
      return t.topics.map((topic) => ({
        name: topic.name,
        resultsByPartition: topic.partitions.map((partitionIndex) => ({
          partitionIndex,
          partitionErrorCode:
            txn.state === "Ongoing" && txn.partitions.has(`${topic.name}\0${partitionIndex}`)
              ? NONE
              : errorCode("INVALID_TXN_STATE"),
        })),
      }));
    }
    // Unknown partitions fail the whole request: those get UNKNOWN_TOPIC_OR_PARTITION, the rest OPERATION_NOT_ATTEMPTED.
    const unknown = (name: string, p: number) => cluster.partition(name, p) === undefined;
    if (t.topics.some((topic) => topic.partitions.some((p) => unknown(topic.name, p)))) {
      return t.topics.map((topic) => ({
        name: topic.name,
        resultsByPartition: topic.partitions.map((partitionIndex) => ({
          partitionIndex,
          partitionErrorCode: errorCode(
            unknown(topic.name, partitionIndex) ? "UNKNOWN_TOPIC_OR_PARTITION" : "OPERATION_NOT_ATTEMPTED",
          ),
        })),
      }));
    }
    txns.begin(txn);
    for (const topic of t.topics) for (const p of topic.partitions) txn.partitions.add(`${topic.name}\0${p}`);
    return all(NONE);
  };

  h.register(24, (req, ctx) => {
    if (ctx.apiVersion <= 3) {
      return {
        throttleTimeMs: 0,
        resultsByTopicV3AndBelow: addPartitions(
          ctx,
          {
            transactionalId: req.v3AndBelowTransactionalId,
            producerId: req.v3AndBelowProducerId,
            producerEpoch: req.v3AndBelowProducerEpoch,
            topics: req.v3AndBelowTopics,
          },
          false,
        ),
      };
    }
    // v4+: the batched form brokers send to verify (or add) partitions of several transactions.
    return {
      throttleTimeMs: 0,
      errorCode: NONE,
      resultsByTransaction: req.transactions.map((t) => ({
        transactionalId: t.transactionalId,
        topicResults: addPartitions(ctx, t, t.verifyOnly),
      })),
    };
  });

  h.register(25, (req, ctx) => {
    const reply = (errorCode: number) => ({ throttleTimeMs: 0, errorCode });
    const notCoordinator = txnCoordinatorError(ctx, req.transactionalId);
    if (notCoordinator !== NONE) return reply(notCoordinator);
    const txn = txns.verify(req.transactionalId, req.producerId, req.producerEpoch, ctx.apiVersion);
    if (typeof txn === "string") return reply(errorCode(txn));
    // The group's offsets partition joins the transaction (it gets a marker at the end, as in Kafka).
    const offsets = cluster.topics.get("__consumer_offsets");
    txns.begin(txn);
    txn.groups.add(req.groupId);
    if (offsets !== undefined)
      txn.partitions.add(`__consumer_offsets\0${coordinatorPartition(req.groupId, offsets.partitions.length)}`);
    return reply(NONE);
  });

  h.register(28, (req, ctx) => {
    const all = (error: number) =>
      req.topics.map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: error })),
      }));
    const reply = (topics: ReturnType<typeof all>) => ({ throttleTimeMs: 0, topics });
    const notCoordinator = coordinatorError(ctx, req.groupId);
    if (notCoordinator !== NONE) return reply(all(notCoordinator));
    const txn = txns.transactions.get(req.transactionalId);
    if (txn === undefined || txn.producerId !== req.producerId)
      return reply(all(errorCode("INVALID_PRODUCER_ID_MAPPING")));
    if (txn.producerEpoch !== req.producerEpoch) {
      return reply(all(errorCode(ctx.apiVersion >= 2 ? "PRODUCER_FENCED" : "INVALID_PRODUCER_EPOCH")));
    }
    // v5 (KIP-890 part 2) adds the group implicitly; before, AddOffsetsToTxn must have.
    if (!txn.groups.has(req.groupId)) {
      if (ctx.apiVersion < 5) return reply(all(errorCode("INVALID_TXN_STATE")));
      txns.begin(txn);
      txn.groups.add(req.groupId);
    }
    // v3+ carries the member: checked as OffsetCommit's (generation -1: no member check).
    const member =
      ctx.apiVersion >= 3 && req.generationId >= 0
        ? cluster.groups.checkCommit(req.groupId, req.memberId, req.generationId)
        : NONE;
    if (member !== NONE) return reply(all(member));
    return reply(
      req.topics.map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p) => {
          if (cluster.partition(t.name, p.partitionIndex) === undefined) {
            return { partitionIndex: p.partitionIndex, errorCode: errorCode("UNKNOWN_TOPIC_OR_PARTITION") };
          }
          if ((p.committedMetadata?.length ?? 0) > cluster.config.maxOffsetMetadataBytes) {
            return { partitionIndex: p.partitionIndex, errorCode: errorCode("OFFSET_METADATA_TOO_LARGE") };
          }
          txn.pendingOffsets.set(pendingKey(req.groupId, t.name, p.partitionIndex), {
            groupId: req.groupId,
            topic: t.name,
            partition: p.partitionIndex,
            offset: p.committedOffset,
            leaderEpoch: p.committedLeaderEpoch,
            metadata: p.committedMetadata,
          });
          return { partitionIndex: p.partitionIndex, errorCode: NONE };
        }),
      })),
    );
  });

  h.register(26, (req, ctx) => {
    const reply = (errorCode: number, txn?: Transaction) => ({
      throttleTimeMs: 0,
      errorCode,
      producerId: txn?.producerId ?? -1n,
      producerEpoch: txn?.producerEpoch ?? -1,
    });
    const notCoordinator = txnCoordinatorError(ctx, req.transactionalId);
    if (notCoordinator !== NONE) return reply(notCoordinator);
    const bump = ctx.apiVersion >= 5;
    const txn = txns.verify(req.transactionalId, req.producerId, req.producerEpoch, ctx.apiVersion);
    if (typeof txn === "string") {
      // A retried EndTxn v5 after the bump: the previous epoch, and the end already reached.
      const known = txns.transactions.get(req.transactionalId);
      const retried =
        bump &&
        known !== undefined &&
        known.producerId === req.producerId &&
        known.producerEpoch === req.producerEpoch + 1 &&
        known.state === (req.committed ? "CompleteCommit" : "CompleteAbort");
      return retried ? reply(NONE, known) : reply(errorCode(txn));
    }
    const outcome = txns.end(txn, req.committed, bump);
    return reply(code(outcome), txn);
  });

  h.register(66, (req, ctx) => {
    const known = [
      "Empty",
      "Ongoing",
      "PrepareCommit",
      "PrepareAbort",
      "CompleteCommit",
      "CompleteAbort",
      "PrepareEpochFence",
    ];
    const now = Date.now();
    return {
      throttleTimeMs: 0,
      errorCode: NONE,
      unknownStateFilters: req.stateFilters.filter((s) => !known.includes(s)),
      transactionStates: [...txns.transactions.values()]
        .filter((t) => txnCoordinatorError(ctx, t.transactionalId) === NONE)
        .filter((t) => req.stateFilters.length === 0 || req.stateFilters.includes(t.state))
        .filter((t) => req.producerIdFilters.length === 0 || req.producerIdFilters.includes(t.producerId))
        // v1: only transactions open longer than durationFilter ms (-1: all).
        .filter(
          (t) =>
            req.durationFilter < 0n || (t.state === "Ongoing" && BigInt(now - t.startTimestamp) > req.durationFilter),
        )
        .map((t) => ({ transactionalId: t.transactionalId, producerId: t.producerId, transactionState: t.state })),
    };
  });

  h.register(65, (req, ctx) => ({
    throttleTimeMs: 0,
    transactionStates: req.transactionalIds.map((transactionalId) => {
      const empty = {
        errorCode: NONE,
        transactionalId,
        transactionState: "",
        transactionTimeoutMs: 0,
        transactionStartTimeMs: -1n,
        producerId: -1n,
        producerEpoch: -1,
        topics: [],
      };
      const notCoordinator = txnCoordinatorError(ctx, transactionalId);
      if (notCoordinator !== NONE) return { ...empty, errorCode: notCoordinator };
      const t = txns.transactions.get(transactionalId);
      if (t === undefined) return { ...empty, errorCode: errorCode("TRANSACTIONAL_ID_NOT_FOUND") };
      const byTopic = new Map<string, number[]>();
      for (const key of t.partitions) {
        const [topic, p] = key.split("\0") as [string, string];
        byTopic.set(topic, [...(byTopic.get(topic) ?? []), Number(p)]);
      }
      return {
        ...empty,
        transactionState: t.state,
        transactionTimeoutMs: t.timeoutMs,
        transactionStartTimeMs: BigInt(t.startTimestamp),
        producerId: t.producerId,
        producerEpoch: t.producerEpoch,
        topics: [...byTopic].map(([topic, partitions]) => ({ topic, partitions })),
      };
    }),
  }));

  h.register(61, (req, ctx) => ({
    throttleTimeMs: 0,
    topics: req.topics.map((t) => ({
      name: t.name,
      partitions: t.partitionIndexes.map((partitionIndex) => {
        const partition = cluster.partition(t.name, partitionIndex);
        const notLeader = leaderError(partition, ctx);
        if (notLeader !== NONE)
          return { partitionIndex, errorCode: notLeader, errorMessage: null, activeProducers: [] };
        return {
          partitionIndex,
          errorCode: NONE,
          errorMessage: null,
          activeProducers: [...partition!.producers.producers.values()].map((p) => ({
            producerId: p.producerId,
            producerEpoch: p.epoch,
            lastSequence: p.batches.at(-1)?.lastSeq ?? -1,
            lastTimestamp: p.lastTimestamp,
            coordinatorEpoch: p.coordinatorEpoch,
            currentTxnStartOffset: p.txnFirstOffset ?? -1n,
          })),
        };
      }),
    })),
  }));
}
