/**
 * Hostile-input fuzzing of record sets (`decodeRecords`), shared by the CI fuzz test
 * (test/fuzz.test.ts) and the long-running fuzzer (fuzz/run.ts --records). Inputs: random bytes
 * and mutated golden record sets (every codec, legacy, control, compacted). The oracle, for one
 * input and one set of options:
 * - `decodeRecords` throws a {@link KafkaRecordsError} (a code, a string path, a byte offset
 *   inside the input) and nothing else; it never returns a Promise (the codecs here are
 *   synchronous once zstd's WebAssembly has loaded: callers `await initZstd()` first);
 * - on success: `validBytes + incompleteTail` is the input length, the batches' raw bytes tile
 *   `validBytes`, reading every batch's records throws nothing but `UNSUPPORTED_COMPRESSION`
 *   (for a codec left out on purpose), and `encodeRecords(batches)` gives back the valid bytes;
 *   a strictly decoded uncompressed magic-2 batch re-encodes from its fields to its exact bytes;
 * - every decompression stays within the cap (the codecs are wrapped to measure their output),
 *   and the records kept are at most one per 7 bytes of input and decompressed data;
 * - the input is not modified, and one decode takes at most `msBase + msPerByte × (input +
 *   decompressed bytes)` (per decompressed byte too: decompressors spend time per output byte,
 *   bounded by the cap).
 *
 * No vitest here: the long-running fuzzer imports this module under plain tsx.
 */

import fc from "fast-check";
import { codecs as allCodecs } from "../../compression/src/index.js";
import {
  decodeRecords,
  encodeRecordBatch,
  encodeRecords,
  KafkaRecordsError,
  type Codecs,
  type CompressionCodec,
  type CompressionName,
  type RecordBatch,
  type RecordSet,
} from "../../src/records/index.js";
import { applyMutations, mutationsArb, randomBytesArb, type FuzzVector, type Site } from "./fuzz.js";

/** The decompression cap of the fuzz run: small, so that bombs are found quickly. */
export const RECORDS_CAP = 1 << 20;

/** Options of one decode. */
export interface RecordsOptions {
  readonly lenient: boolean;
  readonly verifyCrc: boolean;
  /** False: only gzip is given, so other compressed batches decode their header only. */
  readonly allCodecs: boolean;
}

export interface RecordsCase {
  readonly bytes: Uint8Array;
  readonly options: RecordsOptions;
  readonly source: string;
}

export interface RecordsFailure {
  readonly kind: string;
  readonly detail: string;
  readonly hex: string;
  readonly source: string;
}

export class RecordsStats {
  inputs = 0;
  decoded = 0;
  rejected = 0;
  readonly failures = new Map<string, RecordsFailure>();
}

/** Integer fields of each magic-2 batch header in a golden set, as mutation sites. */
export function recordSetSites(bytes: Uint8Array): Site[] {
  const sites: Site[] = [];
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let p = 0; p + 61 <= bytes.length;) {
    const length = view.getInt32(p + 8);
    if (length < 14 || p + 12 + length > bytes.length) break;
    sites.push({ at: p + 8, width: 4, kind: "int32" }); // batchLength / legacy message size
    if (bytes[p + 16] === 2) {
      sites.push({ at: p + 21, width: 2, kind: "int16" }); // attributes
      sites.push({ at: p + 23, width: 4, kind: "int32" }); // lastOffsetDelta
      sites.push({ at: p + 57, width: 4, kind: "int32" }); // recordCount
    }
    p += 12 + length;
  }
  return sites;
}

export const recordsOptionsArb: fc.Arbitrary<RecordsOptions> = fc.record({
  lenient: fc.boolean(),
  // Half the inputs unchecked, so that mutations reach the records instead of failing the CRC check.
  verifyCrc: fc.boolean(),
  allCodecs: fc.boolean(),
});

export function randomRecordsCaseArb(maxLength = 200): fc.Arbitrary<RecordsCase> {
  return fc
    .tuple(randomBytesArb(maxLength), recordsOptionsArb)
    .map(([bytes, options]) => ({ bytes, options, source: "random bytes" }));
}

export function mutatedRecordsCaseArb(vector: FuzzVector): fc.Arbitrary<RecordsCase> {
  return fc.tuple(mutationsArb, recordsOptionsArb).map(([mutations, options]) => ({
    bytes: applyMutations(vector, mutations),
    options,
    source: vector.label,
  }));
}

export interface RecordsLimits {
  readonly msBase: number;
  readonly msPerByte: number;
}

export const RECORDS_LIMITS: RecordsLimits = { msBase: 1000, msPerByte: 0.02 };

/** Output bytes of the decompressions of one decode. */
const sum = (a: readonly number[]) => a.reduce((x, n) => x + n, 0);

/** The codecs of one decode (from `base`), wrapped to check every output against the cap. */
function measuredCodecs(base: Codecs, all: boolean, outputs: number[]): Codecs {
  const wrap = (c: CompressionCodec): CompressionCodec => ({
    compress: c.compress,
    decompress(data, options) {
      const out = c.decompress(data, options) as Uint8Array;
      outputs.push(out.length);
      return out;
    },
  });
  const names: CompressionName[] = all ? ["gzip", "snappy", "lz4", "zstd"] : ["gzip"];
  return Object.fromEntries(names.map((n) => [n, wrap(base[n]!)]));
}

function hex(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("hex");
}

/**
 * Runs one case through the oracle; records failures (by kind) in `stats`. `codecs`: those under
 * test (kafka-wire-compression's by default).
 */
export function checkRecordsCase(
  c: RecordsCase,
  stats: RecordsStats,
  limits: RecordsLimits = RECORDS_LIMITS,
  codecs: Codecs = allCodecs,
): void {
  stats.inputs++;
  const fail = (kind: string, detail: string) => {
    const old = stats.failures.get(kind);
    if (old === undefined || old.hex.length > c.bytes.length * 2) {
      stats.failures.set(kind, { kind, detail, hex: hex(c.bytes), source: c.source });
    }
  };
  const copy = c.bytes.slice();
  const outputs: number[] = [];
  const options = {
    codecs: measuredCodecs(codecs, c.options.allCodecs, outputs),
    lenient: c.options.lenient,
    verifyCrc: c.options.verifyCrc,
    maxDecompressedBytes: RECORDS_CAP,
  };
  const started = performance.now();
  let set: RecordSet | undefined;
  try {
    const result = decodeRecords(c.bytes, options);
    if (result instanceof Promise) {
      result.catch(() => undefined);
      fail("returned a Promise", "synchronous codecs only");
      return;
    }
    set = result;
  } catch (e) {
    if (!(e instanceof KafkaRecordsError)) {
      fail(`threw ${(e as Error)?.name ?? typeof e}`, String((e as Error)?.stack ?? e).slice(0, 500));
    } else if (
      typeof e.code !== "string" ||
      typeof e.path !== "string" ||
      !(e.offset >= 0 && e.offset <= c.bytes.length)
    ) {
      fail("error without a code, path or in-range offset", e.message);
    } else {
      stats.rejected++;
    }
  }
  const ms = performance.now() - started;
  const firstOutputs = sum(outputs);
  const bound = limits.msBase + limits.msPerByte * (c.bytes.length + firstOutputs);
  if (ms > bound) {
    // Timed twice more: only the fastest counts (a hang detector, not a benchmark).
    let best = ms;
    for (let i = 0; i < 2; i++) {
      const t = performance.now();
      try {
        decodeRecords(c.bytes, options);
      } catch {
        // measured only
      }
      best = Math.min(best, performance.now() - t);
    }
    if (best > limits.msBase + limits.msPerByte * c.bytes.length)
      fail("too slow", `${best.toFixed(1)} ms for ${c.bytes.length} bytes`);
  }
  for (const n of outputs) if (n > RECORDS_CAP) fail("decompressed past the cap", `${n} bytes`);
  if (hex(copy) !== hex(c.bytes)) fail("modified its input", "");
  if (set === undefined) return;
  stats.decoded++;
  try {
    if (set.validBytes + set.incompleteTail !== c.bytes.length)
      fail("validBytes + incompleteTail", `${set.validBytes} + ${set.incompleteTail}`);
    let tiled = 0;
    let records = 0;
    for (const b of set.batches) {
      if (b.byteOffset !== tiled) fail("batches do not tile the input", `${b.byteOffset} != ${tiled}`);
      tiled += b.raw.length;
      if (!b.recordsAvailable) {
        try {
          void b.records;
          fail("records of an undecodable batch", "no error");
        } catch (e) {
          if (!(e instanceof KafkaRecordsError) || e.code !== "UNSUPPORTED_COMPRESSION")
            fail("undecodable batch error", String(e));
        }
        continue;
      }
      for (const r of b.records) {
        records++;
        void r.offset;
        void r.timestamp;
        for (const h of r.headers) void h.key;
      }
      if (b.magic === 2 && b.compression === "none" && !c.options.lenient && c.options.verifyCrc) {
        const again = encodeRecordBatch(
          { ...(b as RecordBatch), records: (b as RecordBatch).records },
          { validation: "log" },
        ) as Uint8Array;
        if (hex(again) !== hex(b.raw)) fail("strict uncompressed batch does not re-encode to its bytes", "");
      }
    }
    if (tiled !== set.validBytes) fail("batches do not tile validBytes", `${tiled} != ${set.validBytes}`);
    const decompressed = firstOutputs;
    if (records > (c.bytes.length + decompressed) / 7 + 1) fail("more records than bytes allow", `${records}`);
    if (hex(encodeRecords(set.batches) as Uint8Array) !== hex(c.bytes.subarray(0, set.validBytes))) {
      fail("pass-through changed bytes", "");
    }
  } catch (e) {
    fail(`oracle step threw ${(e as Error)?.name}`, String((e as Error)?.stack ?? e).slice(0, 500));
  }
}
