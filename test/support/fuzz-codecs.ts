/**
 * The fuzz target for compressed record sets (issue 17): record sets under every codec (none,
 * gzip, snappy raw and xerial-framed, lz4, zstd) go through `decodeRecords` in a child process,
 * so that the limits hold even against a decoder that never returns or exhausts its heap:
 * - a per-input time limit: no answer within {@link CodecFuzzLimits.hangMs} is a failure
 *   ("hang"), the child is killed and a new one started; below it, the in-process oracle's own
 *   bound (test/support/fuzz-records.ts: `msBase + msPerByte × bytes`) applies;
 * - a heap-growth limit, in two steps (V8 heap after a full GC, plus ArrayBuffers): the record
 *   set as `decodeRecords` returns it may hold at most `heapBase + heapPerByte × (input +
 *   decompressed bytes)` (what a decode costs before anyone reads a record: issue 17's class 3,
 *   every record built up front, fails here), and with every record read and kept, `perRecord`
 *   more for each record (the objects a consumer asked for); a child that dies at its
 *   `--max-old-space-size` is a failure ("crash");
 * - and everything the record-set oracle of fuzz-records.ts checks (typed errors only, in-range
 *   offsets, the cap, tiling, pass-through, records per byte, input left unmodified).
 *
 * Inputs: seeds, each as it is and mutated (fuzz.ts's mutations): Kafka's golden record sets
 * (../shared/golden/records), their uncompressed batches re-compressed under every codec, and the
 * hand-built hostile sets of hostile-records.ts (issue 17's classes 1–3). Runs are seeded with
 * fast-check; a failure prints the seed, the path and the input's hex, and replays with
 * `npm run fuzz:codecs -- --seed S --path P` or `-- --hex H`.
 *
 * No vitest here: the long-running fuzzer (fuzz/codecs.ts) imports this module under plain tsx.
 */

import { fork, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import fc from "fast-check";
import snappyjs from "snappyjs";
import { lz4CompressFrame, snappyCompressXerial, zstd } from "../../compression/src/index.js";
import { crc32c } from "../../src/records/crc.js";
import { applyMutations, mutationsArb, type FuzzVector } from "./fuzz.js";
import { recordSetSites, type RecordsCase, type RecordsFailure } from "./fuzz-records.js";
import { CODEC_ID, hostileCases, legacyGzipWrapper, tinyRecordsBatch } from "./hostile-records.js";

export interface CodecFuzzLimits {
  /** No answer from the child within this many ms is a hang (generous: the machine is shared). */
  readonly hangMs: number;
  /** Heap growth allowed for any input, bytes. */
  readonly heapBase: number;
  /** Heap growth allowed per input or decompressed byte. */
  readonly heapPerByte: number;
  /** Heap growth allowed per record read and kept, on top. */
  readonly perRecord: number;
  /** The child's V8 old-space limit (MB): a decode past it kills the child. */
  readonly childHeapMb: number;
}

/**
 * Measured: Kafka's golden record sets hold at most 1.5 bytes of heap per input and decompressed
 * byte with every record read; the class-3 inputs of issue 17 held 7–8 from `decodeRecords`
 * alone before the fix (213 bytes per legacy inner message of 26, 73 per magic-2 record of 9,
 * all built up front), and a magic-2 record read costs about 85 bytes after it. 4 per byte plus
 * 1 MiB, and 128 per record read, separate them.
 */
export const CODEC_FUZZ_LIMITS: CodecFuzzLimits = {
  hangMs: 10_000,
  heapBase: 1 << 20,
  heapPerByte: 4,
  perRecord: 128,
  childHeapMb: 512,
};

/** One seed record set and the mutation sites of its batch headers. */
export interface CodecSeed extends FuzzVector {
  /** Big seeds (class 3) are run as they are only: each decode takes a few hundred ms. */
  readonly big: boolean;
}

const seed = (bytes: Uint8Array, label: string, big = false): CodecSeed => ({
  bytes,
  sites: recordSetSites(bytes),
  label,
  big,
});

/** A magic-2 batch's header kept, its records section replaced by `payload` under `codec`. */
function rewrap(batch: Uint8Array, codec: number, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(61 + payload.length);
  out.set(batch.subarray(0, 61));
  out.set(payload, 61);
  const v = new DataView(out.buffer);
  v.setInt32(8, 49 + payload.length);
  v.setInt16(21, (v.getInt16(21) & ~7) | codec);
  v.setUint32(17, crc32c(out, 21));
  return out;
}

/**
 * The seeds: every golden record set (`records-*.json`), each uncompressed golden magic-2 batch
 * re-compressed as gzip, raw snappy (librdkafka's), xerial snappy (Kafka's), lz4 and zstd, and
 * the hostile sets. `dir` is ../shared/golden/records, or null (hostile seeds only).
 */
export async function codecSeeds(dir: string | null): Promise<CodecSeed[]> {
  const seeds: CodecSeed[] = [];
  if (dir !== null) {
    for (const file of readdirSync(dir)
      .filter((f) => f.startsWith("records-") && f.endsWith(".json"))
      .sort()) {
      for (const v of JSON.parse(readFileSync(path.join(dir, file), "utf8")) as { id: string; hex: string }[]) {
        const bytes = Uint8Array.from(Buffer.from(v.hex, "hex"));
        seeds.push(seed(bytes, v.id));
        // One uncompressed magic-2 batch: its records under every codec.
        const length = bytes.length >= 61 ? new DataView(bytes.buffer).getInt32(8) : -1;
        if (file === "records-none.json" && bytes[16] === 2 && length + 12 === bytes.length) {
          const records = bytes.subarray(61);
          const zstdBytes = (await zstd.compress(records, { level: 3, magic: 2 })) as Uint8Array;
          seeds.push(seed(rewrap(bytes, CODEC_ID.gzip, gzipSync(records)), `${v.id} as gzip`));
          seeds.push(seed(rewrap(bytes, CODEC_ID.snappy, snappyjs.compress(records)), `${v.id} as raw snappy`));
          seeds.push(seed(rewrap(bytes, CODEC_ID.snappy, snappyCompressXerial(records)), `${v.id} as xerial snappy`));
          seeds.push(seed(rewrap(bytes, CODEC_ID.lz4, lz4CompressFrame(records)), `${v.id} as lz4`));
          seeds.push(seed(rewrap(bytes, CODEC_ID.zstd, zstdBytes), `${v.id} as zstd`));
        }
      }
    }
  }
  for (const h of hostileCases()) seeds.push(seed(h.bytes, `hostile: ${h.name}`));
  const zstd3 = (b: Uint8Array) => zstd.compress(b, { level: 3, magic: 2 }) as Uint8Array;
  seeds.push(
    seed(
      legacyGzipWrapper(40_000, (b) => gzipSync(b)),
      "hostile: 40000 magic-0 messages in one gzip wrapper",
      true,
    ),
    seed(tinyRecordsBatch(CODEC_ID.zstd, 100_000, zstd3), "hostile: 100000 empty records, zstd", true),
    seed(
      tinyRecordsBatch(CODEC_ID.gzip, 100_000, (b) => gzipSync(b)),
      "hostile: 100000 empty records, gzip",
      true,
    ),
  );
  return seeds;
}

/** Options of one decode: every codec given (the oracle's `allCodecs`), strict or lenient, CRC checked or not. */
const optionsArb = fc.record({ lenient: fc.boolean(), verifyCrc: fc.boolean(), allCodecs: fc.constant(true) });

/** Mutated seeds (small ones), and now and then a seed as it is. */
export function codecCaseArb(seeds: readonly CodecSeed[]): fc.Arbitrary<RecordsCase> {
  const small = seeds.filter((s) => !s.big);
  return fc.constantFrom(...small).chain((s) =>
    fc
      .tuple(fc.oneof({ weight: 9, arbitrary: mutationsArb }, { weight: 1, arbitrary: fc.constant([]) }), optionsArb)
      .map(([mutations, options]) => ({
        bytes: mutations.length === 0 ? s.bytes : applyMutations(s, mutations),
        options,
        source: s.label,
      })),
  );
}

/** What the child measured for one input (see fuzz-codecs-child.ts). */
export interface ChildResult {
  readonly failures: RecordsFailure[];
  readonly decoded: boolean;
  readonly decodeGrowth: number;
  readonly readGrowth: number;
  readonly decompressed: number;
  readonly records: number;
  readonly ms: number;
}

export interface CodecFuzzStats {
  inputs: number;
  decoded: number;
  rejected: number;
  maxHeapGrowth: number;
  maxHeapLabel: string;
  maxMs: number;
  maxMsLabel: string;
  /** Failure kind → the shortest failing input. */
  readonly failures: Map<string, RecordsFailure>;
  /** Failure kind → how many inputs failed so, and the sources of the first 20. */
  readonly counts: Map<string, { n: number; sources: string[] }>;
}

export function newCodecFuzzStats(): CodecFuzzStats {
  return {
    inputs: 0,
    decoded: 0,
    rejected: 0,
    maxHeapGrowth: 0,
    maxHeapLabel: "",
    maxMs: 0,
    maxMsLabel: "",
    failures: new Map(),
    counts: new Map(),
  };
}

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), "fuzz-codecs-child.ts");
const hex = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("hex");

/** Runs cases in a child process, one at a time, restarting it after a hang or a crash. */
export class CodecFuzzRunner {
  #child: ChildProcess | null = null;
  #stderr = "";
  readonly limits: CodecFuzzLimits;

  readonly #codecsModule: string | undefined;

  /** `codecsModule`: a module whose `codecs` export replaces kafka-wire-compression's in the child (the target's own tests). */
  constructor(limits: CodecFuzzLimits = CODEC_FUZZ_LIMITS, codecsModule?: string) {
    this.limits = limits;
    this.#codecsModule = codecsModule;
  }

  async #start(): Promise<ChildProcess> {
    const child = fork(CHILD, [], {
      execArgv: ["--import", "tsx", "--expose-gc", `--max-old-space-size=${this.limits.childHeapMb}`],
      serialization: "advanced",
      stdio: ["ignore", "ignore", "pipe", "ipc"],
      env: { ...process.env, KAFKA_WIRE_FUZZ_CODECS: this.#codecsModule ?? "" },
    });
    this.#stderr = "";
    child.stderr!.on("data", (d: Buffer) => {
      this.#stderr = (this.#stderr + d.toString()).slice(-2000);
    });
    // The child says it is ready once the zstd module has loaded.
    await new Promise<void>((resolve, reject) => {
      child.once("message", () => resolve());
      child.once("exit", (code) => reject(new Error(`fuzz child exited (${code}) before starting: ${this.#stderr}`)));
    });
    child.removeAllListeners("exit");
    this.#child = child;
    return child;
  }

  /** Runs one case; returns its failures (none: it passed) and updates `stats`. */
  async check(c: RecordsCase, stats: CodecFuzzStats): Promise<RecordsFailure[]> {
    const child = this.#child ?? (await this.#start());
    stats.inputs++;
    const outcome = await new Promise<ChildResult | { kind: "hang" | "crash"; detail: string }>((resolve) => {
      const timer = setTimeout(() => {
        cleanup();
        child.kill("SIGKILL");
        resolve({ kind: "hang", detail: `no answer in ${this.limits.hangMs} ms for ${c.bytes.length} bytes` });
      }, this.limits.hangMs);
      const onMessage = (m: ChildResult) => {
        cleanup();
        resolve(m);
      };
      const onExit = (code: number | null, signal: string | null) => {
        cleanup();
        const line = this.#stderr.split("\n").find((l) => /heap|memory|Error/i.test(l)) ?? "";
        resolve({ kind: "crash", detail: `child died (${signal ?? code}): ${line.trim().slice(0, 200)}` });
      };
      const cleanup = () => {
        clearTimeout(timer);
        child.off("message", onMessage);
        child.off("exit", onExit);
      };
      child.on("message", onMessage);
      child.on("exit", onExit);
      child.send({ bytes: c.bytes, options: c.options, source: c.source });
    });
    const failures: RecordsFailure[] = [];
    const fail = (kind: string, detail: string) =>
      failures.push({ kind, detail, hex: hex(c.bytes), source: `${c.source} ${JSON.stringify(c.options)}` });
    if ("kind" in outcome) {
      this.#child = null;
      child.kill("SIGKILL");
      fail(outcome.kind, outcome.detail);
    } else {
      failures.push(...outcome.failures);
      if (outcome.decoded) stats.decoded++;
      else stats.rejected++;
      const mib = (n: number) => `${(n / 2 ** 20).toFixed(1)} MiB`;
      const what = `${c.bytes.length} bytes in and ${outcome.decompressed} decompressed`;
      const allowed = this.limits.heapBase + this.limits.heapPerByte * (c.bytes.length + outcome.decompressed);
      if (outcome.decodeGrowth > allowed) {
        fail(
          "heap growth (decode)",
          `${mib(outcome.decodeGrowth)} held by the set for ${what}; allowed ${mib(allowed)}`,
        );
      }
      const allowedRead = allowed + this.limits.perRecord * outcome.records;
      if (outcome.readGrowth > allowedRead) {
        fail(
          "heap growth (records read)",
          `${mib(outcome.readGrowth)} held with its ${outcome.records} records for ${what}; allowed ${mib(allowedRead)}`,
        );
      }
      if (outcome.readGrowth > stats.maxHeapGrowth) {
        stats.maxHeapGrowth = outcome.readGrowth;
        stats.maxHeapLabel = `${c.source}, ${c.bytes.length} bytes, ${outcome.records} records`;
      }
      if (outcome.ms > stats.maxMs) {
        stats.maxMs = outcome.ms;
        stats.maxMsLabel = `${c.source}, ${c.bytes.length} bytes`;
      }
    }
    for (const kind of new Set(failures.map((f) => f.kind))) {
      const count = stats.counts.get(kind) ?? { n: 0, sources: [] };
      count.n++;
      if (count.sources.length < 20) count.sources.push(c.source);
      stats.counts.set(kind, count);
    }
    for (const f of failures) {
      const old = stats.failures.get(f.kind);
      if (old === undefined || old.hex.length > f.hex.length) stats.failures.set(f.kind, f);
    }
    return failures;
  }

  /** Stops the child. */
  close(): void {
    this.#child?.kill("SIGKILL");
    this.#child = null;
  }
}

/**
 * Per failure kind: how many inputs failed so and which seeds they came from, then the shortest
 * input (hex cut at 600 characters).
 */
export function codecFuzzReport(stats: CodecFuzzStats): string {
  return [...stats.failures.values()]
    .map((f) => {
      const count = stats.counts.get(f.kind);
      const from = count === undefined ? "" : ` (${count.n} inputs, from: ${[...new Set(count.sources)].join("; ")})`;
      return `${f.kind}${from}\n  shortest: ${f.detail} [${f.source}] ${f.hex.length > 600 ? `${f.hex.slice(0, 600)}…` : f.hex}`;
    })
    .join("\n");
}

export function codecFuzzSummary(stats: CodecFuzzStats): string {
  return (
    `${stats.inputs} record sets, ${stats.decoded} decoded, ${stats.rejected} rejected, ${stats.failures.size} failure kinds; ` +
    `most heap held ${(stats.maxHeapGrowth / 2 ** 20).toFixed(2)} MiB (${stats.maxHeapLabel}), ` +
    `slowest ${stats.maxMs.toFixed(1)} ms (${stats.maxMsLabel})`
  );
}
