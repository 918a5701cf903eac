/**
 * The child process of the codec fuzz target (fuzz-codecs.ts): runs with `--expose-gc` and a
 * `--max-old-space-size`, receives one record set at a time over IPC and answers with:
 * - the record-set oracle's failures (fuzz-records.ts `checkRecordsCase`, which also times the
 *   decode against its own bound);
 * - the heap held by the decoded set, first as `decodeRecords` returned it (no record read), then
 *   with every record of every batch read and kept: V8 heap used plus ArrayBuffers, after a full
 *   GC, minus the same before the decode (a precise
 *   measure; the GCs cost a few ms, so a first, cheap decode without them decides whether it is
 *   needed: below 256 KiB of growth with every record read, 1000 records and 64 KiB of input and output, that is the
 *   figure).
 * A decode that never returns never answers: the parent kills this process after its time limit.
 */

import { pathToFileURL } from "node:url";
import { codecs as ourCodecs, initZstd } from "../../compression/src/index.js";
import { decodeRecords, type Codecs, type CompressionCodec, type RecordSet } from "../../src/records/index.js";
import { checkRecordsCase, RECORDS_CAP, RecordsStats, type RecordsCase } from "./fuzz-records.js";

/**
 * The codecs under test: kafka-wire-compression's, or (for the target's own tests) the `codecs`
 * export of the module named by KAFKA_WIRE_FUZZ_CODECS.
 */
const override = process.env["KAFKA_WIRE_FUZZ_CODECS"];
const allCodecs: Codecs =
  override === undefined || override === ""
    ? ourCodecs
    : ((await import(pathToFileURL(override).href)) as { codecs: Codecs }).codecs;

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error("fuzz-codecs-child needs --expose-gc");

/** Codecs that add their output sizes to `sink.bytes`. */
function measured(sink: { bytes: number }): Codecs {
  const wrap = (c: CompressionCodec): CompressionCodec => ({
    compress: c.compress,
    decompress(data, options) {
      const out = c.decompress(data, options) as Uint8Array;
      sink.bytes += out.length;
      return out;
    },
  });
  return Object.fromEntries(Object.entries(allCodecs).map(([k, c]) => [k, wrap(c as CompressionCodec)])) as Codecs;
}

const used = () => {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};

interface Held {
  /** Heap held by the record set as decodeRecords returned it. */
  readonly decodeGrowth: number;
  /** Heap held with every record read and kept as well. */
  readonly readGrowth: number;
  readonly decompressed: number;
  readonly records: number;
}

/** Decodes, then reads and holds every record; what the heap held at each step. */
function hold(c: RecordsCase, precise: boolean): Held {
  const sink = { bytes: 0 };
  const options = {
    codecs: measured(sink),
    lenient: c.options.lenient,
    verifyCrc: c.options.verifyCrc,
    maxDecompressedBytes: RECORDS_CAP,
  };
  const measure = () => {
    if (precise) gc!();
    return used();
  };
  const before = measure();
  let set: RecordSet | null = null;
  let afterDecode = before;
  const kept: unknown[] = [];
  let records = 0;
  try {
    set = decodeRecords(c.bytes, options) as RecordSet;
    afterDecode = measure();
    for (const b of set.batches) {
      if (!b.recordsAvailable) continue;
      const rs = b.records as readonly unknown[];
      kept.push(rs);
      records += rs.length;
    }
  } catch {
    // Rejections are the oracle's business; what the failed decode left behind still counts.
    afterDecode = measure();
  }
  const afterRead = measure();
  // Keep `set` and `kept` alive past the measurements.
  if (set !== null && kept.length < 0) console.log(set, kept);
  return { decodeGrowth: afterDecode - before, readGrowth: afterRead - before, decompressed: sink.bytes, records };
}

await initZstd();
process.send!("ready");

process.on("message", (m: RecordsCase) => {
  const stats = new RecordsStats();
  const t = performance.now();
  checkRecordsCase(m, stats, undefined, allCodecs);
  const ms = performance.now() - t;
  let h = hold(m, false);
  if (h.readGrowth >= 256 * 1024 || h.records >= 1000 || m.bytes.length + h.decompressed >= 64 * 1024) {
    h = hold(m, true);
  }
  process.send!({
    failures: [...stats.failures.values()],
    decoded: stats.decoded > 0,
    decodeGrowth: Math.max(0, h.decodeGrowth),
    readGrowth: Math.max(0, h.readGrowth),
    decompressed: h.decompressed,
    records: h.records,
    ms,
  });
});
