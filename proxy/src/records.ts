/**
 * Rewriting the records inside Produce requests and Fetch responses, for filters: each record
 * goes through an edit that keeps it, replaces it (e.g. with a header added) or drops it, through
 * `kafka-wire/records`. A batch no edit changed keeps its own bytes (compressed payload and CRC);
 * a changed one is re-encoded with its header fields and compression.
 *
 * Produce: kept records are renumbered (offset deltas 0..n-1, as a producer writes them); a
 * batch left without records is left out. Dropping records from an idempotent or transactional
 * batch (producer id ≥ 0) would break the producer's sequence numbers, so it throws.
 * Fetch: offsets are kept, so a consumer's position still advances past dropped records (the
 * gaps are those of a compacted log); a batch left without records stays as an empty batch.
 */

import {
  decodeRecords,
  encodeRecords,
  type Codecs,
  type DefaultRecord,
  type LegacyBatch,
  type RecordBatch,
  type RecordBatchInit,
  type RecordInit,
} from "../../src/records/index.js";

/** Where a record is. */
export interface RecordPlace {
  /** The topic's name (empty when the message names topics by id only: Fetch v13+). */
  readonly topic: string;
  /** The topic id (base64, Kafka JSON's form), or the zero uuid. */
  readonly topicId: string | undefined;
  readonly partition: number;
  readonly batch: RecordBatch;
}

/** A record as an edit sees it: a plain object, so `{ ...record, headers: [...] }` is a record to write. */
export interface EditableRecord {
  /** Absolute offset (int64). */
  readonly offset: bigint;
  /** Milliseconds since the epoch (int64). */
  readonly timestamp: bigint;
  readonly key: Uint8Array | null;
  readonly value: Uint8Array | null;
  readonly headers: readonly { readonly key: string; readonly value: Uint8Array | null }[];
}

/**
 * Returns undefined to keep the record, null to drop it, or the record to write instead (its
 * offset and timestamp stay the original's).
 */
export type RecordEdit = (record: EditableRecord, place: RecordPlace) => RecordInit | null | undefined;

function editable(r: DefaultRecord): EditableRecord {
  return { offset: r.offset, timestamp: r.timestamp, key: r.key, value: r.value, headers: r.headers };
}

export interface RecordEditOptions {
  /** Codecs for compressed batches (`kafka-wire-compression`'s `codecs`; gzip is built in). */
  readonly codecs?: Codecs;
}

/** The shape of a Produce request body this needs (every version's). */
export interface ProduceBody {
  readonly topicData: readonly {
    readonly name?: string;
    readonly topicId?: string;
    readonly partitionData: readonly { readonly index: number; readonly records: Uint8Array | null }[];
  }[];
}

/** The shape of a Fetch response body this needs (every version's). */
export interface FetchBody {
  readonly responses: readonly {
    readonly topic?: string;
    readonly topicId?: string;
    readonly partitions: readonly { readonly partitionIndex: number; readonly records: Uint8Array | null }[];
  }[];
}

/** A copy of a Produce request body with its records edited (`body` is not changed). */
export async function editProduceRecords<B extends ProduceBody>(
  body: B,
  edit: RecordEdit,
  options: RecordEditOptions = {},
): Promise<B> {
  const topicData = await Promise.all(
    body.topicData.map(async (t) => ({
      ...t,
      partitionData: await Promise.all(
        t.partitionData.map(async (p) => ({
          ...p,
          records: await editRecordSet(
            p.records,
            edit,
            { topic: t.name ?? "", topicId: t.topicId, partition: p.index },
            "produce",
            options,
          ),
        })),
      ),
    })),
  );
  return { ...body, topicData };
}

/** A copy of a Fetch response body with its records edited (`body` is not changed). */
export async function editFetchRecords<B extends FetchBody>(
  body: B,
  edit: RecordEdit,
  options: RecordEditOptions = {},
): Promise<B> {
  const responses = await Promise.all(
    body.responses.map(async (t) => ({
      ...t,
      partitions: await Promise.all(
        t.partitions.map(async (p) => ({
          ...p,
          records: await editRecordSet(
            p.records,
            edit,
            { topic: t.topic ?? "", topicId: t.topicId, partition: p.partitionIndex },
            "fetch",
            options,
          ),
        })),
      ),
    })),
  );
  return { ...body, responses };
}

/**
 * One record set with its records edited: the same bytes when nothing changed. Legacy (magic
 * 0/1) and control batches are kept as they are; a trailing partial batch (a Fetch cut at its
 * max bytes) is dropped, as a consumer would ignore it.
 * @throws KafkaRecordsError when the set does not decode; Error for a drop in an idempotent Produce batch.
 */
export async function editRecordSet(
  records: Uint8Array | null,
  edit: RecordEdit,
  where: Omit<RecordPlace, "batch">,
  side: "produce" | "fetch",
  options: RecordEditOptions = {},
): Promise<Uint8Array | null> {
  if (records === null || records.length === 0) return records;
  const set = await decodeRecords(records, options.codecs === undefined ? {} : { codecs: options.codecs });
  let changed = set.incompleteTail > 0;
  const out: (RecordBatch | LegacyBatch | RecordBatchInit)[] = [];
  for (const batch of set.batches) {
    if (batch.magic !== 2 || batch.isControl) {
      out.push(batch);
      continue;
    }
    const place: RecordPlace = { ...where, batch };
    let batchChanged = false;
    const kept: RecordInit[] = [];
    for (const r of batch.records) {
      const result = edit(editable(r), place);
      if (result === undefined) {
        kept.push(initOf(r, r));
        continue;
      }
      batchChanged = true;
      if (result !== null) kept.push(initOf(result, r));
    }
    if (!batchChanged) {
      out.push(batch);
      continue;
    }
    changed = true;
    if (side === "produce") {
      if (kept.length !== batch.records.length && batch.producerId >= 0n) {
        throw new Error(
          `dropping records from a batch of producer id ${batch.producerId} (${where.topic}-${where.partition}) would break its sequence numbers`,
        );
      }
      if (kept.length === 0) continue;
    }
    out.push(rebuilt(batch, side === "produce" ? kept.map((r, i) => ({ ...r, offsetDelta: i })) : kept, side));
  }
  if (!changed) return records;
  return encodeRecords(out, {
    ...(options.codecs === undefined ? {} : { codecs: options.codecs }),
    validation: side === "produce" ? "producer" : "log",
  });
}

/** What to write for `record` in place of `original`: the original's offset and timestamp. */
function initOf(record: RecordInit, original: DefaultRecord): RecordInit {
  return {
    key: record.key ?? null,
    value: record.value ?? null,
    headers: record.headers ?? [],
    offsetDelta: original.offsetDelta,
    timestampDelta: original.timestampDelta,
  };
}

/** A batch init with `batch`'s header fields and these records. */
function rebuilt(batch: RecordBatch, records: RecordInit[], side: "produce" | "fetch"): RecordBatchInit {
  return {
    baseOffset: batch.baseOffset,
    partitionLeaderEpoch: batch.partitionLeaderEpoch,
    compression: batch.compression,
    timestampType: batch.timestampType,
    isTransactional: batch.isTransactional,
    baseTimestamp: batch.baseTimestamp,
    // LogAppendTime batches carry the broker's time in maxTimestamp; CreateTime ones follow their records.
    ...(batch.timestampType === "LogAppendTime" ? { maxTimestamp: batch.maxTimestamp } : {}),
    // A fetched batch keeps its offset range, so the consumer moves past every record it held.
    ...(side === "fetch" ? { lastOffsetDelta: batch.lastOffsetDelta } : {}),
    producerId: batch.producerId,
    producerEpoch: batch.producerEpoch,
    baseSequence: batch.baseSequence,
    records,
  };
}
