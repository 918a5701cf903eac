/**
 * What the tree shows of record batches (kafka-wire/records): the fields of batches and records
 * (their getters: decoded records are lazy handles, not plain objects), and the spans of a
 * magic-2 batch header, whose layout is fixed.
 */

import type { Span } from "./inspect.js";

/**
 * The magic-2 batch header (protocol guide, "Record Batch"; Kafka's `DefaultRecordBatch`):
 * field, offset from the batch start, size in bytes. 61 bytes in all (`RECORD_BATCH_OVERHEAD`).
 */
const BATCH_HEADER: readonly (readonly [string, number, number])[] = [
  ["baseOffset", 0, 8],
  ["batchLength", 8, 4],
  ["partitionLeaderEpoch", 12, 4],
  ["magic", 16, 1],
  ["crc", 17, 4],
  ["attributes", 21, 2],
  ["lastOffsetDelta", 23, 4],
  ["baseTimestamp", 27, 8],
  ["maxTimestamp", 35, 8],
  ["producerId", 43, 8],
  ["producerEpoch", 51, 2],
  ["baseSequence", 53, 4],
  ["recordCount", 57, 4],
];

/** Fields the decoder derives from a stored one: they show the stored field's bytes. */
const DERIVED: Readonly<Record<string, string>> = {
  compression: "attributes",
  timestampType: "attributes",
  isTransactional: "attributes",
  isControl: "attributes",
  hasDeleteHorizon: "attributes",
  deleteHorizonMs: "baseTimestamp",
};

/** The spans of a magic-2 batch header's fields, the batch starting at `start`. */
export function batchFieldSpans(path: string, start: number): Span[] {
  const at = new Map(BATCH_HEADER.map(([name, offset, length]) => [name, { offset, length }]));
  const spans: Span[] = [];
  for (const [name, offset, length] of BATCH_HEADER)
    spans.push({ path: `${path}.${name}`, offset: start + offset, length });
  for (const [name, stored] of Object.entries(DERIVED)) {
    const s = at.get(stored)!;
    spans.push({ path: `${path}.${name}`, offset: start + s.offset, length: s.length });
  }
  return spans;
}

/** The header fields a batch shows, magic 2 (`RecordBatchHeader`) or legacy (`LegacyBatch`). */
export const BATCH_FIELDS = {
  2: [
    "baseOffset",
    "batchLength",
    "partitionLeaderEpoch",
    "magic",
    "crc",
    "attributes",
    "compression",
    "timestampType",
    "isTransactional",
    "isControl",
    "hasDeleteHorizon",
    "deleteHorizonMs",
    "lastOffsetDelta",
    "baseTimestamp",
    "maxTimestamp",
    "producerId",
    "producerEpoch",
    "baseSequence",
    "lastSequence",
    "recordCount",
    "nextOffset",
  ],
  legacy: [
    "offset",
    "messageSize",
    "magic",
    "crc",
    "attributes",
    "compression",
    "timestampType",
    "timestamp",
    "nextOffset",
  ],
} as const;

/** The fields a record shows (`DefaultRecord`, `LegacyRecord`). */
export const RECORD_FIELDS = {
  2: [
    "offset",
    "timestamp",
    "key",
    "value",
    "headers",
    "offsetDelta",
    "timestampDelta",
    "sequence",
    "attributes",
    "sizeInBytes",
    "control",
  ],
  legacy: ["offset", "timestamp", "key", "value", "magic", "crc", "attributes", "timestampType"],
} as const;

/** `names` of `source` that are defined, as a plain object (reads getters once). */
export function pick(source: object, names: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of names) {
    const v = (source as Record<string, unknown>)[k];
    if (v !== undefined) out[k] = v;
  }
  return out;
}
