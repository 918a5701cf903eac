/**
 * Hostile-input fuzzing shared by the CI property test (test/fuzz.test.ts) and the long-running
 * fuzzer (fuzz/run.ts): targets (message × version, with Kafka's golden vectors), input
 * arbitraries (random bytes, mutated golden vectors) and the oracle every decode must satisfy.
 *
 * The oracle, for one input and one message version:
 * - `decode` either throws a {@link KafkaDecodeError} (with a code, a string path, an offset
 *   inside the input, and no foreign `cause`), or returns a value `v`;
 * - for a value: `size(v)` and `encode(v)` do not throw and agree, `decode(encode(v))` deep-equals
 *   `v`, and `toJson(v)` does not throw;
 * - the input bytes are never modified;
 * - one decode takes at most `msBase + msPerByte × input length` (a hang detector, not a
 *   benchmark: a decode over the bound is timed twice more and only the fastest counts);
 * - the decoded value holds at most `unitsBase + unitsPerByte × input length` units (one per
 *   object, per property, per array element and per string character; views of the input count
 *   0, copied bytes their length): the allocation a decode keeps is proportional to its input;
 * - the V8 heap plus external memory (ArrayBuffers) does not grow by more than `heapBase +
 *   heapPerByte × input length` during one decode, whether it succeeds or throws.
 *
 * No vitest here: the long-running fuzzer imports this module under plain tsx.
 */

import v8 from "node:v8";
import fc from "fast-check";
import {
  KafkaDecodeError,
  KafkaEncodeError,
  KafkaWireError,
  Reader,
  type DecodeOptions,
  type MessageCodec,
} from "../../src/runtime/index.js";
import { fromHex, toHex, type GoldenVector } from "./golden.js";

// ---------------------------------------------------------------------------------------------
// Targets
// ---------------------------------------------------------------------------------------------

/** Where a length (or other integer) prefix starts in a golden vector, found by decoding it. */
export interface Site {
  readonly at: number;
  /** Bytes the prefix takes in the vector (1..5 for an unsigned varint). */
  readonly width: number;
  readonly kind: "uvarint" | "int8" | "int16" | "int32";
}

/** One golden vector of a target, with the positions of its integer prefixes. */
export interface FuzzVector {
  readonly bytes: Uint8Array;
  readonly sites: readonly Site[];
  /** `#index (kind)` from the vector file. */
  readonly label: string;
}

/** One message version to fuzz. */
export interface FuzzTarget {
  /** `Name vN`. */
  readonly label: string;
  readonly name: string;
  readonly codec: MessageCodec<unknown>;
  readonly version: number;
  readonly vectors: readonly FuzzVector[];
  /** One of the four seed messages (committed generated/ codecs), fuzzed more heavily. */
  readonly seed: boolean;
}

type Patched = "uvarint" | "int8" | "int16" | "int32";
const PATCHED: readonly Patched[] = ["uvarint", "int8", "int16", "int32"];

/**
 * The positions of every unsigned varint (lengths, tag counts, tags, tag sizes), int8 (nullable
 * struct markers), int16 (classic string lengths) and int32 (classic bytes and array lengths)
 * that decoding `bytes` reads, found by wrapping the Reader's methods for the duration of one
 * decode. Non-length integers are included too: replacing them with extremes is just as useful.
 */
export function findSites(codec: MessageCodec<unknown>, version: number, bytes: Uint8Array): Site[] {
  const proto = Reader.prototype as unknown as Record<Patched, (this: Reader) => unknown>;
  const saved = PATCHED.map((m) => [m, proto[m]] as const);
  const sites = new Map<number, Site>();
  for (const [kind, original] of saved) {
    proto[kind] = function (this: Reader) {
      const at = this.pos;
      const result = original.call(this);
      if (!sites.has(at)) sites.set(at, { at, width: this.pos - at, kind });
      return result;
    };
  }
  try {
    codec.decode(bytes, version);
  } catch {
    // The golden tests report vectors that do not decode; the sites read so far still serve.
  } finally {
    for (const [kind, original] of saved) proto[kind] = original;
  }
  return [...sites.values()].sort((a, b) => a.at - b.at);
}

/**
 * The targets of one message: every version in `validVersions`, each with its golden vectors
 * (a version without vectors still gets random bytes).
 */
export function messageTargets(
  name: string,
  codec: MessageCodec<unknown>,
  vectors: readonly GoldenVector[],
  seed: boolean,
): FuzzTarget[] {
  const out: FuzzTarget[] = [];
  for (let version = codec.validVersions.lowest; version <= codec.validVersions.highest; version++) {
    const own = vectors
      .filter((v) => v.version === version)
      .map((v) => {
        const bytes = fromHex(v.hex);
        return { bytes, sites: findSites(codec, version, bytes), label: `#${v.index} (${v.kind})` };
      });
    out.push({ label: `${name} v${version}`, name, codec, version, vectors: own, seed });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Inputs
// ---------------------------------------------------------------------------------------------

/** Bytes that matter in Kafka's encodings: null/empty markers, varint boundaries, sign bits. */
const INTERESTING_BYTES = [0x00, 0x01, 0x02, 0x7f, 0x80, 0x81, 0xfe, 0xff] as const;

const byteArb: fc.Arbitrary<number> = fc.oneof(
  { arbitrary: fc.integer({ min: 0, max: 255 }), weight: 3 },
  { arbitrary: fc.constantFrom(...INTERESTING_BYTES), weight: 2 },
);

/** (a) Random byte strings, biased towards the bytes Kafka's encodings give meaning to. */
export function randomBytesArb(maxLength = 64): fc.Arbitrary<Uint8Array> {
  return fc.array(byteArb, { maxLength }).map((a) => Uint8Array.from(a));
}

/** Replacement values for an integer prefix, by the prefix's kind, as hex. */
export const EXTREMES: Readonly<Record<Site["kind"], readonly string[]>> = {
  uvarint: [
    "ffffffff0f", // 2^32-1: the largest unsigned varint
    "808080808001", // six bytes: longer than any unsigned varint may be
    "ffffffff1f", // five bytes above 2^32-1
    "ffffffff07", // 2^31-1
    "8080808008", // 2^31: compact length 2^31-1
    "8180808008", // 2^31+1: compact length 2^31, above any Kafka length
    "00", // null (compact) / zero
    "01", // empty (compact) / one
    "02",
    "7f",
    "8001", // 128: a two-byte varint
    "ff7f", // 16383
    "8000", // non-minimal zero
    "8080808000", // non-minimal zero in five bytes
    "80", // a varint cut short by what follows
  ],
  int32: ["7fffffff", "ffffffff", "fffffffe", "80000000", "00000000", "00000001", "0000ffff", "00010000"],
  int16: ["7fff", "ffff", "fffe", "8000", "0000", "0001", "00ff"],
  int8: ["00", "01", "7f", "80", "ff", "fe"],
};

const ALL_EXTREMES: readonly string[] = [...new Set(Object.values(EXTREMES).flat())];

/** One edit of a golden vector. Positions are reduced modulo the (current) length. */
export type Mutation =
  | { readonly op: "flip"; readonly at: number; readonly bit: number }
  | { readonly op: "set"; readonly at: number; readonly value: number }
  | { readonly op: "truncate"; readonly at: number }
  | { readonly op: "insert"; readonly at: number; readonly data: readonly number[] }
  | { readonly op: "delete"; readonly at: number; readonly count: number }
  | { readonly op: "duplicate"; readonly from: number; readonly count: number; readonly at: number }
  | { readonly op: "extreme"; readonly at: number; readonly value: number; readonly overwrite: boolean }
  /** Replace the integer prefix at one of the vector's sites with an extreme value. */
  | { readonly op: "site"; readonly site: number; readonly value: number; readonly anyKind: boolean };

const pos = fc.nat({ max: 1 << 20 });

export const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  {
    arbitrary: fc.record({ op: fc.constant("flip" as const), at: pos, bit: fc.integer({ min: 0, max: 7 }) }),
    weight: 3,
  },
  { arbitrary: fc.record({ op: fc.constant("set" as const), at: pos, value: byteArb }), weight: 3 },
  { arbitrary: fc.record({ op: fc.constant("truncate" as const), at: pos }), weight: 2 },
  {
    arbitrary: fc.record({
      op: fc.constant("insert" as const),
      at: pos,
      data: fc.array(byteArb, { minLength: 1, maxLength: 8 }),
    }),
    weight: 2,
  },
  {
    arbitrary: fc.record({ op: fc.constant("delete" as const), at: pos, count: fc.integer({ min: 1, max: 8 }) }),
    weight: 1,
  },
  {
    arbitrary: fc.record({
      op: fc.constant("duplicate" as const),
      from: pos,
      count: fc.integer({ min: 1, max: 64 }),
      at: pos,
    }),
    weight: 1,
  },
  {
    arbitrary: fc.record({ op: fc.constant("extreme" as const), at: pos, value: fc.nat(), overwrite: fc.boolean() }),
    weight: 2,
  },
  {
    arbitrary: fc.record({ op: fc.constant("site" as const), site: fc.nat(), value: fc.nat(), anyKind: fc.boolean() }),
    weight: 6,
  },
);

/** One to four mutations. */
export const mutationsArb: fc.Arbitrary<readonly Mutation[]> = fc.array(mutationArb, { minLength: 1, maxLength: 4 });

function splice(b: Uint8Array, at: number, remove: number, insert: Uint8Array): Uint8Array {
  const out = new Uint8Array(b.length - remove + insert.length);
  out.set(b.subarray(0, at), 0);
  out.set(insert, at);
  out.set(b.subarray(at + remove), at + insert.length);
  return out;
}

/**
 * Applies `mutations` to a copy of `vector.bytes` (never to the vector itself). Site replacements
 * go first, from the last site to the first, while the sites still point at their prefixes.
 */
export function applyMutations(vector: FuzzVector, mutations: readonly Mutation[]): Uint8Array {
  let b: Uint8Array = vector.bytes.slice();
  const sites = vector.sites;
  const siteEdits = mutations
    .filter((m): m is Extract<Mutation, { op: "site" }> => m.op === "site")
    .filter(() => sites.length > 0)
    .map((m) => ({ site: sites[m.site % sites.length]!, m }));
  const done = new Set<number>();
  for (const { site, m } of siteEdits.sort((x, y) => y.site.at - x.site.at)) {
    if (done.has(site.at)) continue;
    done.add(site.at);
    const list = m.anyKind ? ALL_EXTREMES : EXTREMES[site.kind];
    b = splice(b, site.at, site.width, fromHex(list[m.value % list.length]!));
  }
  for (const m of mutations) {
    const n = b.length;
    switch (m.op) {
      case "site":
        break;
      case "flip":
        if (n > 0) b[m.at % n] = b[m.at % n]! ^ (1 << m.bit);
        break;
      case "set":
        if (n > 0) b[m.at % n] = m.value;
        break;
      case "truncate":
        b = b.slice(0, m.at % (n + 1));
        break;
      case "insert":
        b = splice(b, m.at % (n + 1), 0, Uint8Array.from(m.data));
        break;
      case "delete": {
        const at = m.at % (n + 1);
        b = splice(b, at, Math.min(m.count, n - at), new Uint8Array(0));
        break;
      }
      case "duplicate": {
        if (n === 0) break;
        const from = m.from % n;
        const slice = b.slice(from, Math.min(n, from + m.count));
        b = splice(b, m.at % (n + 1), 0, slice);
        break;
      }
      case "extreme": {
        const value = fromHex(ALL_EXTREMES[m.value % ALL_EXTREMES.length]!);
        const at = m.at % (n + 1);
        b = splice(b, at, m.overwrite ? Math.min(value.length, n - at) : 0, value);
        break;
      }
    }
  }
  return b;
}

/** Decode options: mostly the defaults, sometimes any combination of the four flags. */
export const optionsArb: fc.Arbitrary<DecodeOptions> = fc.oneof(
  { arbitrary: fc.constant({}), weight: 4 },
  {
    arbitrary: fc.record({
      allowTrailingBytes: fc.boolean(),
      strictUtf8: fc.boolean(),
      strictBool: fc.boolean(),
      lenientTaggedFields: fc.boolean(),
    }),
    weight: 1,
  },
);

/** One input for one target. */
export interface FuzzCase {
  readonly input: Uint8Array;
  readonly options: DecodeOptions;
  /** How the input was made: `random` or `<vector label> + <mutations>`. */
  readonly origin: string;
}

function describeMutations(ms: readonly Mutation[]): string {
  return ms.map((m) => JSON.stringify(m)).join(" ");
}

/** (a) Random bytes for a target. */
export function randomCaseArb(maxLength = 64): fc.Arbitrary<FuzzCase> {
  return fc
    .record({ input: randomBytesArb(maxLength), options: optionsArb })
    .map(({ input, options }) => ({ input, options, origin: "random bytes" }));
}

/** (b) Mutations of one golden vector. */
export function mutationCaseArb(vector: FuzzVector): fc.Arbitrary<FuzzCase> {
  return fc.record({ ms: mutationsArb, options: optionsArb }).map(({ ms, options }) => ({
    input: applyMutations(vector, ms),
    options,
    origin: `vector ${vector.label} mutated by ${describeMutations(ms)}`,
  }));
}

/** Either kind of input for a target: mutations of its vectors (when it has some) or random bytes. */
export function caseArb(target: FuzzTarget): fc.Arbitrary<FuzzCase> {
  if (target.vectors.length === 0) return randomCaseArb();
  return fc.oneof(
    { arbitrary: randomCaseArb(), weight: 1 },
    {
      arbitrary: fc.nat({ max: target.vectors.length - 1 }).chain((i) => mutationCaseArb(target.vectors[i]!)),
      weight: 3,
    },
  );
}

// ---------------------------------------------------------------------------------------------
// The oracle
// ---------------------------------------------------------------------------------------------

export interface FuzzLimits {
  /** Time bound of one decode: msBase + msPerByte × input length. */
  readonly msBase: number;
  readonly msPerByte: number;
  /** Size bound of one decoded value, in units (see {@link valueUnits}). */
  readonly unitsBase: number;
  readonly unitsPerByte: number;
  /** Bound on the growth of V8 heap + external memory during one decode, in bytes. */
  readonly heapBase: number;
  readonly heapPerByte: number;
}

/**
 * 50 ms + 1 µs per byte: generous, it only catches hangs. 32 units per input byte: the largest
 * ratio measured over the golden vectors and 10^6 fuzzed inputs is about 5 (a 1-byte flexible
 * struct decodes to an object with a property for every field, defaults included), so 32 leaves
 * room while still catching any length that allocates more than its bytes justify. 16 MiB of
 * heap growth: any single decode of these inputs (at most a few hundred KiB) that allocates that
 * much is a bug.
 */
export const DEFAULT_LIMITS: FuzzLimits = {
  msBase: 50,
  msPerByte: 0.001,
  unitsBase: 512,
  unitsPerByte: 32,
  heapBase: 16 * 1024 * 1024,
  heapPerByte: 1024,
};

/** A broken promise of the oracle. */
export interface FuzzFailure {
  /** What was broken, e.g. `decode threw a foreign error`. */
  readonly kind: string;
  readonly detail: string;
  readonly target: string;
  readonly options: DecodeOptions;
  readonly origin: string;
  readonly hex: string;
}

/** Counts across a run. */
export class FuzzStats {
  inputs = 0;
  decoded = 0;
  rejected = 0;
  inputBytes = 0;
  readonly codes = new Map<string, number>();
  maxDecodeMs = 0;
  maxDecodeMsLabel = "";
  /** Largest units / input length seen on a decoded value of at least 16 bytes. */
  maxUnitsPerByte = 0;
  maxHeapGrowth = 0;
  /** Failures by kind and error code: the shortest input of each is kept. */
  readonly failures = new Map<string, FuzzFailure & { count: number }>();

  record(f: FuzzFailure, key: string): void {
    const previous = this.failures.get(key);
    if (previous === undefined) this.failures.set(key, { ...f, count: 1 });
    else if (f.hex.length < previous.hex.length) this.failures.set(key, { ...f, count: previous.count + 1 });
    else previous.count++;
  }

  /** One line: inputs, decoded/rejected, the commonest error codes, the worst time and size. */
  summary(): string {
    const codes = [...this.codes.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 6)
      .map(([c, n]) => `${c} ${n}`)
      .join(", ");
    return (
      `${this.inputs} inputs (${this.inputBytes} bytes): ${this.decoded} decoded, ${this.rejected} rejected [${codes}]; ` +
      `slowest decode ${this.maxDecodeMs.toFixed(2)} ms (${this.maxDecodeMsLabel}), ` +
      `largest value ${this.maxUnitsPerByte.toFixed(1)} units/byte, largest heap growth ${(this.maxHeapGrowth / 1024).toFixed(0)} KiB; ` +
      `${this.failures.size} failure classes`
    );
  }

  /** Every failure class, one paragraph each. */
  report(): string {
    return [...this.failures.values()]
      .map((f) => formatFailure(f) + (f.count > 1 ? `\n  (${f.count} inputs)` : ""))
      .join("\n");
  }
}

export function formatFailure(f: FuzzFailure): string {
  return `${f.kind}: ${f.target} options ${JSON.stringify(f.options)}\n  ${f.detail}\n  input (${f.hex.length / 2} bytes): ${f.hex}\n  from ${f.origin}`;
}

function heapNow(): number {
  const h = v8.getHeapStatistics();
  return h.used_heap_size + h.external_memory;
}

/**
 * Units of a decoded value: 1 per object or array, 1 per property or element, the length of
 * each string, 0 for a Uint8Array that views `input`'s buffer and the length of any other.
 */
export function valueUnits(v: unknown, input: Uint8Array): number {
  if (v === null || typeof v !== "object") return typeof v === "string" ? v.length : 0;
  if (v instanceof Uint8Array) return v.buffer === input.buffer ? 0 : v.length;
  let n = 1;
  if (Array.isArray(v)) {
    for (const e of v) n += 1 + valueUnits(e, input);
    return n;
  }
  for (const key of Object.keys(v)) n += 1 + valueUnits((v as Record<string, unknown>)[key], input);
  return n;
}

/** Deep equality for decoded values: numbers by Object.is (NaN, -0), bytes by content, key sets must match. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (a instanceof Uint8Array || b instanceof Uint8Array) {
    if (!(a instanceof Uint8Array && b instanceof Uint8Array) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
  }
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (const k of ka) {
    if (!Object.prototype.hasOwnProperty.call(b, k)) return false;
    if (!deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return true;
}

function errorText(e: unknown): string {
  if (e instanceof KafkaWireError) return `${e.name} ${e.code} at "${e.path}" offset ${e.offset}: ${e.reason}`;
  if (e instanceof Error) return `${e.name}: ${e.message}`;
  return String(e);
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Outcome of one input: the failure (null when every promise held) and whether it decoded. */
export interface CheckResult {
  readonly failure: FuzzFailure | null;
  /** A key that groups failures of the same cause. */
  readonly key: string;
  readonly decoded: boolean;
}

/**
 * Runs the oracle on one input. Never throws: a broken promise comes back as a failure. With
 * `lenientTaggedFields`, re-encoding a value whose unknown tags repeat or descend may fail with
 * `INVALID_TAGGED_FIELDS` (the value keeps them as read; Kafka's own writer refuses them too).
 */
export function checkCase(
  target: FuzzTarget,
  c: FuzzCase,
  stats: FuzzStats,
  limits: FuzzLimits = DEFAULT_LIMITS,
): CheckResult {
  const { codec, version } = target;
  const input = c.input;
  const original = input.slice();
  stats.inputs++;
  stats.inputBytes += input.length;
  const fail = (kind: string, detail: string, code = ""): CheckResult => {
    const failure: FuzzFailure = {
      kind,
      detail,
      target: target.label,
      options: c.options,
      origin: c.origin,
      hex: toHex(original),
    };
    const key = `${kind} | ${code}`;
    stats.record(failure, key);
    return { failure, key, decoded: false };
  };

  const timeBound = limits.msBase + limits.msPerByte * input.length;
  const heapBound = limits.heapBase + limits.heapPerByte * input.length;
  let value: unknown;
  let error: unknown;
  let threw = false;
  const heap0 = heapNow();
  const t0 = performance.now();
  try {
    value = codec.decode(input, version, c.options);
  } catch (e) {
    threw = true;
    error = e;
  }
  let ms = performance.now() - t0;
  const heapGrowth = heapNow() - heap0;
  if (heapGrowth > stats.maxHeapGrowth) stats.maxHeapGrowth = heapGrowth;
  if (ms > timeBound || heapGrowth > heapBound) {
    // Timing and heap figures are noisy (GC, JIT): measure twice more, keep the best.
    let bestHeap = heapGrowth;
    for (let i = 0; i < 2; i++) {
      const h = heapNow();
      const t = performance.now();
      try {
        codec.decode(input, version, c.options);
      } catch {
        // measured only
      }
      ms = Math.min(ms, performance.now() - t);
      bestHeap = Math.min(bestHeap, heapNow() - h);
    }
    if (ms > timeBound)
      return fail(
        "decode too slow",
        `${ms.toFixed(1)} ms for ${input.length} bytes (bound ${timeBound.toFixed(1)} ms)`,
      );
    if (bestHeap > heapBound) {
      return fail(
        "decode allocated too much",
        `heap grew by ${bestHeap} bytes for ${input.length} input bytes (bound ${heapBound})`,
      );
    }
  }
  if (ms > stats.maxDecodeMs) {
    stats.maxDecodeMs = ms;
    stats.maxDecodeMsLabel = `${target.label}, ${input.length} bytes`;
  }
  if (!sameBytes(input, original)) return fail("decode modified its input", "input bytes differ after decode");

  if (threw) {
    if (!(error instanceof KafkaDecodeError)) {
      return fail(
        "decode threw something other than a KafkaDecodeError",
        errorText(error),
        error instanceof Error ? error.name : typeof error,
      );
    }
    if (error.cause !== undefined) {
      // withPath wraps a foreign exception (a TypeError, a RangeError) as INVALID_VALUE.
      return fail(
        "decode hit an unexpected exception (wrapped)",
        `${errorText(error)}; cause: ${errorText(error.cause)}`,
        error.code,
      );
    }
    if (!(Number.isInteger(error.offset) && error.offset >= 0 && error.offset <= input.length)) {
      return fail("decode error offset outside the input", errorText(error), error.code);
    }
    if (typeof error.path !== "string") return fail("decode error without a path", errorText(error), error.code);
    stats.rejected++;
    stats.codes.set(error.code, (stats.codes.get(error.code) ?? 0) + 1);
    return { failure: null, key: "", decoded: false };
  }

  stats.decoded++;
  const units = valueUnits(value, input);
  const unitBound = limits.unitsBase + limits.unitsPerByte * input.length;
  if (input.length >= 16) stats.maxUnitsPerByte = Math.max(stats.maxUnitsPerByte, units / input.length);
  if (units > unitBound)
    return fail("decoded value too large", `${units} units from ${input.length} bytes (bound ${unitBound})`);

  let encoded: Uint8Array;
  try {
    encoded = codec.encode(value, version);
  } catch (e) {
    const allowed =
      c.options.lenientTaggedFields === true && e instanceof KafkaEncodeError && e.code === "INVALID_TAGGED_FIELDS";
    if (allowed) return { failure: null, key: "", decoded: true };
    return fail("decoded value does not re-encode", errorText(e), e instanceof KafkaWireError ? e.code : "");
  }
  try {
    const size = codec.size(value, version);
    if (size !== encoded.length)
      return fail("size disagrees with encode", `size ${size}, encoded ${encoded.length} bytes`);
  } catch (e) {
    return fail("size threw on a decoded value", errorText(e));
  }
  let again: unknown;
  try {
    again = codec.decode(encoded, version);
  } catch (e) {
    return fail(
      "re-encoded bytes do not decode",
      `${errorText(e)}; re-encoded ${toHex(encoded)}`,
      e instanceof KafkaWireError ? e.code : "",
    );
  }
  if (!deepEqual(again, value)) return fail("decode(encode(v)) differs from v", `re-encoded ${toHex(encoded)}`);
  try {
    codec.toJson(value, version);
  } catch (e) {
    return fail("toJson threw on a decoded value", errorText(e), e instanceof KafkaWireError ? e.code : "");
  }
  if (!sameBytes(input, original))
    return fail("encode modified the decoded input", "input bytes differ after re-encoding");
  return { failure: null, key: "", decoded: true };
}
