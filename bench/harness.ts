/**
 * The measuring loop. mitata's `bench()/run()` and tinybench both finish one task before starting
 * the next, so a CPU frequency change, a noisy neighbour or a GC of someone else's garbage lands on
 * one contender only. Here the contenders of one op run interleaved instead:
 *
 *   warm-up + calibration (mitata `measure`, per contender) → rounds A,B,C, B,C,A, C,A,B, …
 *
 * Each round times a fixed number of calls per contender (calibrated so one batch lasts about
 * `roundMs`), and the reported figure is the median over rounds of the per-call time. The round
 * order rotates so no contender always runs right after the same other one.
 *
 * Fairness details:
 * - Every call returns a number that is folded into a checksum printed at the end, so no result
 *   is dead code the JIT could drop. Decoders return a field read from deep inside the result.
 * - Each contender gets its own loop function (compiled from distinct source), so its call site
 *   is monomorphic and the operation can be inlined as it would be in real code, instead of all
 *   contenders sharing one megamorphic call site that would penalise the fastest ones most.
 * - No forced GC between batches: each contender pays for the scavenges its own allocation causes
 *   in its batch, and a scavenge costs in proportion to what survives, not to the garbage another
 *   contender left behind. (A forced full GC before each batch was tried and rejected: the code
 *   timed right after it ran 5-9× slower, presumably as V8 shrinks the young generation then.)
 */

import { measure } from "mitata";
import { GCProfiler, getHeapStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/** Whose code a contender runs: this checkout's, a peer's, an older kafka-wire's, or the memcpy floor. */
export type Role = "ours" | "peer" | "baseline" | "memcpy";

interface ContenderBase {
  /** "kafka-wire", "kafka-wire (baseline)", "@platformatic/kafka", "kafkajs" or "memcpy". */
  readonly name: string;
  readonly role: Role;
  /** Checks, before anything is timed, that this contender produces or accepts the op's bytes. */
  readonly verify: () => Promise<void>;
}

/** A synchronous API: one call is one operation; its return value goes into the checksum. */
export interface SyncContender extends ContenderBase {
  readonly run: () => number;
}

/**
 * An async API (kafkajs): every call is awaited by the timing loop before the next one starts, as
 * a caller of that API must. Not awaiting would be wrong, not merely flattering: kafkajs' Metadata
 * v6 decode finishes its work in a microtask after an internal `await`, which would then run after
 * the clock stopped.
 */
export interface AsyncContender extends ContenderBase {
  readonly runAsync: () => Promise<number>;
}

export type Contender = SyncContender | AsyncContender;

export interface Op {
  /** Unique name, matched by `--filter`, e.g. `MetadataResponse v12 decode (large: 100 topics × 10 partitions)`. */
  readonly name: string;
  readonly direction: "encode" | "decode";
  /** Size of the message body in bytes (the same bytes for every contender). */
  readonly bytes: number;
  readonly contenders: readonly Contender[];
  /** Peers that implement the message but cannot take part, with the reason (an "n/a" row). */
  readonly unsupported: readonly { readonly name: string; readonly reason: string }[];
  /** The project's target for kafka-wire vs @platformatic/kafka (a speed-up factor), if any. */
  readonly target?: number;
}

export interface Settings {
  /** Wall time of one contender's batch in one round. */
  readonly roundMs: number;
  readonly rounds: number;
  /** mitata warm-up/calibration budget per contender. */
  readonly warmupMs: number;
}

export interface ContenderResult {
  readonly name: string;
  readonly role: Role;
  /** Median over rounds of ns per call. */
  readonly ns: number;
  /** Interquartile range over rounds, as a fraction of the median (a noise indicator). */
  readonly spread: number;
  readonly callsPerRound: number;
  /** V8 heap bytes allocated per call (see {@link measureAllocation}); undefined until measured. */
  bytesPerCall?: number;
}

export interface OpResult {
  readonly op: Op;
  readonly results: readonly ContenderResult[];
}

let checksumValue = 0;
/** Sum (mod 2^32) of everything every contender returned; printed so that it is observably used. */
export function checksum(): number {
  return checksumValue >>> 0;
}

/** Adds another process's {@link checksum} (an op run in a child process). */
export function addToChecksum(value: number): void {
  checksumValue = (checksumValue + value) | 0;
}

type Loop = (run: () => number, n: number) => number;
type AsyncLoop = (run: () => Promise<number>, n: number) => Promise<number>;
const AsyncFunction = (async () => {}).constructor as new (...args: string[]) => AsyncLoop;

let loopId = 0;
/** A timing loop of its own per contender (see the module comment). */
function compileLoop(): Loop {
  // The comment makes every source text distinct, so V8's compilation cache cannot hand two
  // contenders the same function (and with it, shared type feedback).
  const body = `// loop ${++loopId}\nlet acc = 0;\nfor (let i = 0; i < n; i++) acc = (acc + run()) | 0;\nreturn acc;`;
  return new Function("run", "n", body) as Loop;
}

function compileAsyncLoop(): AsyncLoop {
  const body = `// loop ${++loopId}\nlet acc = 0;\nfor (let i = 0; i < n; i++) acc = (acc + (await run())) | 0;\nreturn acc;`;
  return new AsyncFunction("run", "n", body);
}

/** One timed batch of `calls` operations; resolves to ns per call. */
type Batch = (calls: number) => Promise<number>;

function makeBatch(c: Contender): Batch {
  if ("runAsync" in c) {
    const loop = compileAsyncLoop();
    return async (calls) => {
      const t0 = performance.now();
      const acc = await loop(c.runAsync, calls);
      const t1 = performance.now();
      checksumValue = (checksumValue + acc) | 0;
      return ((t1 - t0) * 1e6) / calls;
    };
  }
  const loop = compileLoop();
  return async (calls) => {
    const t0 = performance.now();
    const acc = loop(c.run, calls);
    const t1 = performance.now();
    checksumValue = (checksumValue + acc) | 0;
    return ((t1 - t0) * 1e6) / calls;
  };
}

/** The `q` quantile (0..1) of ascending `sorted`, interpolated between neighbours. */
export function quantile(sorted: readonly number[], q: number): number {
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

/**
 * Runs every contender of every op for about `ms` before any op is timed. The codecs share code
 * between messages (kafka-wire's and plt's Reader/Writer, kafkajs' Encoder/Decoder), and V8
 * optimises that code for the types it has seen so far; without this, the first ops would be timed
 * while the shared code had seen one message only and the later ones after it had seen them all,
 * so results would depend on the op order and on `--filter`. A real client also mixes messages.
 */
export async function prewarm(ops: readonly Op[], ms: number): Promise<void> {
  for (const op of ops) {
    for (const c of op.contenders) {
      const until = performance.now() + ms;
      while (performance.now() < until) {
        for (let i = 0; i < 16; i++)
          checksumValue = (checksumValue + ("runAsync" in c ? await c.runAsync() : c.run())) | 0;
      }
    }
  }
}

/** Warms up, calibrates and then times the op's contenders in interleaved rounds. */
export async function runOp(op: Op, settings: Settings): Promise<OpResult> {
  const states = [];
  for (const c of op.contenders) {
    // Warm-up and calibration: mitata's batched loop gets the code optimised before anything
    // counts and gives a first estimate of the per-call time, which sizes the batches.
    const stats = await measure("runAsync" in c ? c.runAsync : c.run, {
      gc: false, // mitata would otherwise force a GC (or, without --expose-gc, allocate 1 GiB) per call of measure
      min_cpu_time: settings.warmupMs * 1e6,
      min_samples: 8,
    });
    const batch = makeBatch(c);
    const calls = Math.max(1, Math.round((settings.roundMs * 1e6) / Math.max(stats.p50, 1)));
    await batch(Math.min(calls, 1000)); // warms the new loop function itself; not recorded
    states.push({ c, batch, calls, samples: [] as number[] });
  }
  for (let r = 0; r < settings.rounds; r++) {
    for (let k = 0; k < states.length; k++) {
      const s = states[(k + r) % states.length]!;
      s.samples.push(await s.batch(s.calls));
    }
  }
  const results = states.map(({ c, calls, samples }) => {
    const sorted = [...samples].sort((a, b) => a - b);
    const ns = quantile(sorted, 0.5);
    return {
      name: c.name,
      role: c.role,
      ns,
      spread: (quantile(sorted, 0.75) - quantile(sorted, 0.25)) / ns,
      callsPerRound: calls,
    };
  });
  return { op, results };
}

/** A full GC, for the allocation pass only (never before a timed batch; see the module comment). */
let fullGc: (() => void) | undefined;
function collectGarbage(): void {
  if (fullGc === undefined) {
    setFlagsFromString("--expose-gc");
    fullGc = runInNewContext("gc") as () => void;
  }
  fullGc();
}

/**
 * V8 heap bytes one call allocates, measured after the timing (so that the full GC it starts
 * with cannot disturb a timed batch): heap growth over up to 10^5 calls (fewer for slow ops, about
 * `ms` in all) plus what every GC during them freed, divided by the calls. Off-heap memory (the
 * ArrayBuffer behind a new Uint8Array) is not counted; kafka-wire's encoders take theirs from a
 * shared slab anyway.
 */
export async function measureAllocation(results: readonly OpResult[], ms: number): Promise<void> {
  for (const { op, results: rs } of results) {
    for (const r of rs) {
      const c = op.contenders.find((x) => x.name === r.name)!;
      const calls = Math.max(16, Math.min(100_000, Math.round((ms * 1e6) / Math.max(r.ns, 1))));
      collectGarbage();
      const profiler = new GCProfiler();
      profiler.start();
      const before = getHeapStatistics().used_heap_size;
      let acc = 0;
      if ("runAsync" in c) for (let i = 0; i < calls; i++) acc = (acc + (await c.runAsync())) | 0;
      else for (let i = 0; i < calls; i++) acc = (acc + c.run()) | 0;
      const after = getHeapStatistics().used_heap_size;
      const gcs = profiler.stop()?.statistics ?? [];
      checksumValue = (checksumValue + acc) | 0;
      let freed = 0;
      for (const g of gcs) freed += g.beforeGC.heapStatistics.usedHeapSize - g.afterGC.heapStatistics.usedHeapSize;
      r.bytesPerCall = Math.max(0, (after - before + freed) / calls);
    }
  }
}
