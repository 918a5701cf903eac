/**
 * What the tree shows of record batches (kafka-wire/records): the fields of batches and records
 * (read through their getters: decoded records are lazy handles, not plain objects).
 */

/** Fields the decoder derives from a stored one: they show the stored field's bytes. */
export const DERIVED: Readonly<Record<string, string>> = {
  compression: "attributes",
  timestampType: "attributes",
  isTransactional: "attributes",
  isControl: "attributes",
  hasDeleteHorizon: "attributes",
  deleteHorizonMs: "baseTimestamp",
};

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
