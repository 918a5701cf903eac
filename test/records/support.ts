/**
 * Shared by the record tests: reading `../shared/golden/records/` vector files and describing
 * decoded batches in the vectors' JSON shape (int64 as decimal strings, bytes as standard base64).
 */

import { readFileSync } from "node:fs";
import path from "node:path";
import { batchFields } from "../../cli/commands/records.js";
import type { Compression, LegacyBatch, RecordBatch, RecordBatchInit } from "../../src/records/index.js";

/** One `records-<kind>.json` vector (README: "record-set vectors"). */
export interface RecordSetVector {
  readonly id: string;
  readonly kind: string;
  readonly hex: string;
  readonly expectedBatches: number;
  readonly validBytes: number;
  readonly truncatedBy?: number;
  readonly batches: Record<string, unknown>[];
  readonly note: string;
}

/** The `records-<kind>.json` files of record-set vectors (the README's table, without `invalid`). */
export const RECORD_SET_FILES = [
  "none",
  "gzip",
  "snappy",
  "lz4",
  "zstd",
  "transactional",
  "control",
  "compacted",
  "legacy",
  "cluster-metadata",
  "concat",
  "truncated-tail",
];

/** Reads a vector file: a JSON array with one vector per line. */
export function readVectors<T>(dir: string, file: string): T[] {
  return JSON.parse(readFileSync(path.join(dir, file), "utf8")) as T[];
}

export function fromHex(hex: string): Uint8Array {
  return new Uint8Array(Buffer.from(hex, "hex"));
}

export function b64(bytes: Uint8Array | null): string | null {
  return bytes === null ? null : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
}

/**
 * A decoded batch in the vectors' shape: the fields `kafka-wire records` prints with each record
 * (batchFields), plus what the vectors also list (`control.decoded` under `control` for KRaft
 * types when given).
 */
export function describeBatch(b: RecordBatch | LegacyBatch): Record<string, unknown> {
  if (b.magic !== 2) {
    return {
      ...batchFields(b),
      key: b64(b.key),
      value: b64(b.value),
      baseOffset: String(b.baseOffset),
      maxTimestamp: String(b.maxTimestamp),
      recordCount: b.recordCount,
      records: b.records.map((r) => ({
        offset: String(r.offset),
        magic: r.magic,
        crc: r.crc,
        attributes: r.attributes,
        timestampType: r.timestampType,
        timestamp: String(r.timestamp),
        key: b64(r.key),
        value: b64(r.value),
        headers: r.headers.map((h) => ({ key: h.key, value: b64(h.value) })),
      })),
    };
  }
  return {
    ...batchFields(b),
    deleteHorizonMs: b.deleteHorizonMs === null ? null : String(b.deleteHorizonMs),
    lastSequence: b.lastSequence,
    records: b.records.map((r) => {
      const out: Record<string, unknown> = {
        offset: String(r.offset),
        offsetDelta: r.offsetDelta,
        timestamp: String(r.timestamp),
        timestampDelta: String(r.timestampDelta),
        sequence: r.sequence,
        sizeInBytes: r.sizeInBytes,
        key: b64(r.key),
        value: b64(r.value),
        headers: r.headers.map((h) => ({ key: h.key, value: b64(h.value) })),
      };
      if (r.control !== undefined) {
        out["controlKeyVersion"] = r.control.keyVersion;
        out["controlTypeId"] = r.control.typeId;
        out["controlType"] = r.control.type;
        out["control"] = r.control.marker !== undefined ? { ...r.control.marker } : (r.control.decoded ?? null);
      }
      return out;
    }),
  };
}

/** A vector's batch description without cluster-metadata's `metadataRecord` (decoded by `internalTopics`: internal-topics.test.ts). */
export function expectedBatch(b: Record<string, unknown>): Record<string, unknown> {
  if (!Array.isArray(b["records"])) return b;
  return {
    ...b,
    records: (b["records"] as Record<string, unknown>[]).map((r) => {
      const { metadataRecord: _ignored, ...rest } = r;
      return rest;
    }),
  };
}

/** The encoder's input for a described magic-2 batch (the fields the README lists for byte-exact re-encoding). */
export function initFromDescription(b: Record<string, unknown>): RecordBatchInit {
  const records = b["records"] as Record<string, unknown>[];
  const bytes = (s: unknown) => (s === null ? null : new Uint8Array(Buffer.from(s as string, "base64")));
  return {
    baseOffset: BigInt(b["baseOffset"] as string),
    partitionLeaderEpoch: b["partitionLeaderEpoch"] as number,
    compression: b["compression"] as Compression,
    timestampType: b["timestampType"] as "CreateTime" | "LogAppendTime",
    isTransactional: b["isTransactional"] as boolean,
    isControl: b["isControl"] as boolean,
    hasDeleteHorizon: b["hasDeleteHorizon"] as boolean,
    lastOffsetDelta: b["lastOffsetDelta"] as number,
    baseTimestamp: BigInt(b["baseTimestamp"] as string),
    maxTimestamp: BigInt(b["maxTimestamp"] as string),
    producerId: BigInt(b["producerId"] as string),
    producerEpoch: b["producerEpoch"] as number,
    baseSequence: b["baseSequence"] as number,
    recordCount: b["recordCount"] as number,
    records: records.map((r) => ({
      offsetDelta: r["offsetDelta"] as number,
      timestampDelta: BigInt(r["timestampDelta"] as string),
      key: bytes(r["key"]),
      value: bytes(r["value"]),
      headers: (r["headers"] as { key: string; value: string | null }[]).map((h) => ({
        key: h.key,
        value: bytes(h.value),
      })),
    })),
  };
}
