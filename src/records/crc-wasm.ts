/**
 * crc.ts's CRCs as WebAssembly, assembled here rather than shipped as a binary. Two functions:
 *
 * - `c(state, from, to)`: slicing-by-16 (crc.ts's step) over memory `[from, to)`. WebAssembly's
 *   loads have no bounds checks, and the step's sixteen lookups are xored as a tree with the four
 *   that depend on the running CRC last, so each step waits on one lookup rather than on a chain
 *   of fifteen xors.
 * - `s(state, chunks)`, where the platform has WebAssembly SIMD: sixteen CRCs at once, one per
 *   byte lane of a v128. A {@link CHUNK} of input is sixteen runs of {@link RUN} bytes; lane i
 *   folds run i, a byte a step, as the classic byte-at-a-time loop
 *   `c = T[(c ^ byte) & 0xff] ^ (c >>> 8)`, with the CRC's four bytes in four vectors and T split
 *   by nibbles: `T[x] = T[x & 15] ^ T[x & 0xf0]`, each half a 16-entry table per CRC byte, looked
 *   up for all sixteen lanes by one `i8x16.swizzle`. Sixteen loads and a 16×16 byte transpose
 *   put byte j of every run in one vector. Between chunks each lane skips the other fifteen
 *   runs (a fixed linear map of its CRC, by swizzles again); at the end the lanes' CRCs are
 *   joined in order with a fixed "append RUN zero bytes" table. There is no carry-less multiply
 *   in WebAssembly SIMD, so this is the widest table method it allows.
 *
 * `npm run bench` measures both against memcpy ("RecordBatch CRC-32C"); on this project's
 * 2-core CI machine (Node 20) the SIMD path folded about 4 GB/s counting the copy into memory,
 * the slicing one about 1.8.
 */

/** The slicing tables: crc.ts's sixteen 1 KiB tables, table k at k * 1024. */
const TABLES = 0;
/** The 8 nibble vectors of T: low nibble for CRC bytes 0–3, then high nibble for bytes 0–3. */
const NIBBLES = 16384;
/** The 32 vectors of the skip between chunks: source nibble q (0–7) to CRC byte k at (4q + k) * 16. */
const SKIP = NIBBLES + 128;
/** Four 1 KiB tables: byte k of a CRC to its CRC after RUN more zero bytes. */
const JOIN = 17408;
/** The sixteen lanes' CRCs, as i32s, after a fold. */
const LANES = JOIN + 4096;
/** Where the input goes: after the tables, in a memory of {@link PAGES} 64 KiB pages. */
const DATA = 32768;
const PAGES = 2;
/** The input is copied and folded in pieces of at most this many bytes (a multiple of CHUNK). */
const PIECE = PAGES * 65536 - DATA;
/** Bytes of each lane's run in a chunk. */
const RUN = 64;
/** Bytes the SIMD function folds at a time: sixteen runs. */
export const CHUNK = 16 * RUN;

const uleb = (n: number): number[] => {
  const out: number[] = [];
  do {
    const b = n & 0x7f;
    n >>>= 7;
    out.push(n === 0 ? b : b | 0x80);
  } while (n !== 0);
  return out;
};

const sleb = (n: number): number[] => {
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) return [...out, b];
    out.push(b | 0x80);
  }
};

/** A function body under construction; opcodes from the WebAssembly core spec (5.4) and its SIMD section. */
class Code {
  readonly b: number[] = [];
  op(...x: number[]): this {
    this.b.push(...x);
    return this;
  }
  get(l: number): this {
    return this.op(0x20, ...uleb(l));
  }
  set(l: number): this {
    return this.op(0x21, ...uleb(l));
  }
  i32(n: number): this {
    return this.op(0x41, ...sleb(n));
  }
  /** i32.load, i32.load8_u, i32.store: align 2^a, then the static offset. */
  load(offset: number): this {
    return this.op(0x28, 2, ...uleb(offset));
  }
  load8(offset: number): this {
    return this.op(0x2d, 0, ...uleb(offset));
  }
  simd(op: number, ...imm: number[]): this {
    return this.op(0xfd, ...uleb(op), ...imm);
  }
  vload(offset: number): this {
    return this.simd(0x00, 4, ...uleb(offset));
  }
  vstore(offset: number): this {
    return this.simd(0x0b, 4, ...uleb(offset));
  }
  splat8(byte: number): this {
    return this.simd(0x0c, ...new Array<number>(16).fill(byte));
  }
  shuffle(lanes: readonly number[]): this {
    return this.simd(0x0d, ...lanes);
  }
  swizzle(): this {
    return this.simd(0x0e);
  }
  vand(): this {
    return this.simd(0x4e);
  }
  vxor(): this {
    return this.simd(0x51);
  }
  /** i16x8.shr_u: with an and of 0x0f, each byte's high nibble. */
  shr16(): this {
    return this.simd(0x8d, 0x01);
  }
  /** The function's body entry: its locals (count, type) after the parameters, then the code. */
  body(locals: [number, number][]): number[] {
    const code = [locals.length, ...locals.flatMap(([n, t]) => [...uleb(n), t]), ...this.b, 0x0b];
    return [...uleb(code.length), ...code];
  }
}

const I32 = 0x7f;
const V128 = 0x7b;
const ADD = 0x6a;
const XOR = 0x73;
const AND = 0x71;
const SHL = 0x74;
const SHR_U = 0x76;
const LT_U = 0x49;
const EQZ = 0x45;
const BLOCK = [0x02, 0x40];
const LOOP = [0x03, 0x40];
const END = 0x0b;
const BR = 0x0c;
const BR_IF = 0x0d;

/** Byte interleaves (punpcklbw/punpckhbw), and the same of 16-bit halves. */
const LO8 = [0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23];
const HI8 = LO8.map((x) => x + 8);
const LO16 = [0, 1, 16, 17, 2, 3, 18, 19, 4, 5, 20, 21, 6, 7, 22, 23];
const HI16 = LO16.map((x) => x + 8);

/** `c(state, from, to)`: locals 0 state, 1 position, 2 end, 3–6 the four words of a step. */
function slicing(): number[] {
  const c = new Code();
  // Table t's entry for byte s of word w: ((w >>> 8s) & 0xff) * 4, as one shift and one and.
  const lookup = (w: number, s: number, t: number) => {
    c.get(w);
    if (s === 0) c.i32(2).op(SHL);
    else c.i32(8 * s - 2).op(SHR_U);
    c.i32(0x3fc)
      .op(AND)
      .load(TABLES + t * 1024);
  };
  // The four words of a step xored as a tree: words 1–3 first, word 0 (which holds the CRC) last.
  const word = (w: number) => {
    for (let s = 0; s < 4; s++) {
      lookup(3 + w, s, 15 - (w * 4 + s));
      if (s & 1) c.op(XOR);
    }
    c.op(XOR);
  };
  c.op(...BLOCK, ...LOOP);
  c.get(2).get(1).op(0x6b).i32(16).op(LT_U, BR_IF, 1);
  for (let w = 0; w < 4; w++) {
    c.get(1).load(w * 4);
    if (w === 0) c.get(0).op(XOR);
    c.set(3 + w);
  }
  word(1);
  word(2);
  word(3);
  c.op(XOR, XOR);
  word(0);
  c.op(XOR).set(0);
  c.get(1).i32(16).op(ADD).set(1);
  c.op(BR, 0, END, END);
  // The last bytes one at a time.
  c.op(...BLOCK, ...LOOP);
  c.get(1).get(2).op(0x4f, BR_IF, 1);
  c.get(0).get(1).load8(0).op(XOR).i32(2).op(SHL).i32(0x3fc).op(AND).load(TABLES);
  c.get(0).i32(8).op(SHR_U, XOR).set(0);
  c.get(1).i32(1).op(ADD).set(1);
  c.op(BR, 0, END, END);
  c.get(0);
  return c.body([[4, I32]]);
}

/** `s(state, chunks)`: locals 0 state, 1 chunks left, 2 chunk start, 3 position, 4 run end, then v128s. */
function lanes(): number[] {
  const c = new Code();
  let next = 5;
  const v128 = (n: number) => Array.from({ length: n }, () => next++);
  const crc = v128(4);
  const low = v128(4);
  const high = v128(4);
  const [mask, x, lo, hi] = v128(4) as [number, number, number, number];
  let rows = v128(16);
  let cols = v128(16);
  const nib = v128(8);
  for (let k = 0; k < 4; k++) {
    c.i32(0)
      .vload(NIBBLES + k * 16)
      .set(low[k]!);
    c.i32(0)
      .vload(NIBBLES + 64 + k * 16)
      .set(high[k]!);
  }
  c.splat8(0x0f).set(mask);
  // Lane 0 starts from the given CRC, the others from 0 (each run's own bytes; linearity joins them).
  for (let k = 0; k < 4; k++) {
    c.splat8(0).get(0);
    if (k > 0) c.i32(8 * k).op(SHR_U);
    c.simd(0x17, 0).set(crc[k]!);
  }
  c.i32(DATA).set(2);
  c.op(...BLOCK, ...LOOP);
  c.get(2).set(3);
  c.get(2).i32(RUN).op(ADD).set(4);
  c.op(...LOOP);
  for (let i = 0; i < 16; i++)
    c.get(3)
      .vload(i * RUN)
      .set(rows[i]!);
  // Four rounds of byte interleaving rotate a byte's 8-bit address (row, column) by 4: a transpose.
  for (let r = 0; r < 4; r++) {
    for (let i = 0; i < 8; i++) {
      c.get(rows[i]!)
        .get(rows[i + 8]!)
        .shuffle(LO8)
        .set(cols[2 * i]!);
      c.get(rows[i]!)
        .get(rows[i + 8]!)
        .shuffle(HI8)
        .set(cols[2 * i + 1]!);
    }
    [rows, cols] = [cols, rows];
  }
  for (let j = 0; j < 16; j++) {
    c.get(crc[0]!).get(rows[j]!).vxor().set(x);
    c.get(x).get(mask).vand().set(lo);
    c.get(x).i32(4).shr16().get(mask).vand().set(hi);
    // New CRC byte k = T[x] byte k ^ old byte k + 1.
    for (let k = 0; k < 4; k++) {
      c.get(low[k]!).get(lo).swizzle().get(high[k]!).get(hi).swizzle().vxor();
      if (k < 3) c.get(crc[k + 1]!).vxor();
    }
    for (let k = 3; k >= 0; k--) c.set(crc[k]!);
  }
  c.get(3).i32(16).op(ADD).set(3);
  c.get(3).get(4).op(LT_U, BR_IF, 0, END);
  c.get(2).i32(CHUNK).op(ADD).set(2);
  c.get(1).i32(-1).op(ADD).set(1);
  c.get(1).op(EQZ, BR_IF, 1);
  // Each lane skips the other fifteen runs: its CRC after 15 * RUN zero bytes, nibble by nibble.
  for (let k = 0; k < 4; k++) {
    c.get(crc[k]!)
      .get(mask)
      .vand()
      .set(nib[2 * k]!);
    c.get(crc[k]!)
      .i32(4)
      .shr16()
      .get(mask)
      .vand()
      .set(nib[2 * k + 1]!);
  }
  for (let k = 0; k < 4; k++) {
    for (let q = 0; q < 8; q++) {
      c.i32(0)
        .vload(SKIP + (q * 4 + k) * 16)
        .get(nib[q]!)
        .swizzle();
      if (q > 0) c.vxor();
    }
    c.set(crc[k]!);
  }
  c.op(BR, 0, END, END);
  // The lanes' CRCs as sixteen i32s: interleave bytes 0 and 1, 2 and 3, then those halves.
  const pairs = [
    [0, 1, LO8],
    [0, 1, HI8],
    [2, 3, LO8],
    [2, 3, HI8],
  ] as const;
  pairs.forEach(([a, b, pattern], i) => c.get(crc[a]!).get(crc[b]!).shuffle(pattern).set(rows[i]!));
  for (let i = 0; i < 4; i++) {
    c.i32(0)
      .get(rows[i >> 1]!)
      .get(rows[2 + (i >> 1)]!)
      .shuffle(i & 1 ? HI16 : LO16)
      .vstore(LANES + i * 16);
  }
  // Join in order: state = (state after RUN zero bytes) ^ lane i.
  c.i32(0).load(LANES).set(0);
  for (let i = 1; i < 16; i++) {
    for (let k = 0; k < 4; k++) {
      c.get(0);
      if (k === 0) c.i32(2).op(SHL);
      else c.i32(8 * k - 2).op(SHR_U);
      c.i32(0x3fc)
        .op(AND)
        .load(JOIN + k * 1024);
      if (k > 0) c.op(XOR);
    }
    c.i32(0)
      .load(LANES + i * 4)
      .op(XOR)
      .set(0);
  }
  c.get(0);
  return c.body([
    [3, I32],
    [next - 5, V128],
  ]);
}

function moduleBytes(simd: boolean): Uint8Array<ArrayBuffer> {
  const section = (id: number, content: number[]) => [id, ...uleb(content.length), ...content];
  const name = (s: string) => [s.length, ...Array.from(s, (ch) => ch.charCodeAt(0))];
  const bodies = simd ? [slicing(), lanes()] : [slicing()];
  return new Uint8Array([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    // Types: (i32, i32, i32) -> i32, (i32, i32) -> i32.
    ...section(1, [2, 0x60, 3, I32, I32, I32, 1, I32, 0x60, 2, I32, I32, 1, I32]),
    ...section(3, simd ? [2, 0, 1] : [1, 0]),
    ...section(5, [1, 0, PAGES]),
    ...section(7, [
      ...(simd ? [3] : [2]),
      ...[...name("m"), 0x02, 0],
      ...[...name("c"), 0x00, 0],
      ...(simd ? [...name("s"), 0x00, 1] : []),
    ]),
    ...section(10, [bodies.length, ...bodies.flat()]),
  ]);
}

/** The WebAssembly CRC of one table set. */
export interface WasmFold {
  /** A CRC over `buf[start..end)` continuing the inverted state `c`; returns the new inverted state. */
  readonly fold: (c: number, buf: Uint8Array, start: number, end: number) => number;
  /** Whether whole {@link CHUNK}s go through the SIMD lanes (false: slicing-by-16 throughout). */
  readonly simd: boolean;
}

/** The 32 images of single bits after `n` zero bytes: the linear map "append n zero bytes" to a CRC state. */
function zeros(t: Int32Array, n: number): Int32Array {
  const basis = new Int32Array(32);
  for (let i = 0; i < 32; i++) {
    let v = 1 << i;
    for (let k = 0; k < n; k++) v = (v >>> 8) ^ t[v & 0xff]!;
    basis[i] = v;
  }
  return basis;
}

const apply = (basis: Int32Array, v: number): number => {
  let r = 0;
  for (let i = 0; i < 32; i++) if ((v >>> i) & 1) r ^= basis[i]!;
  return r;
};

function instantiate(wasm: typeof WebAssembly, simd: boolean): WebAssembly.Instance | null {
  try {
    return new wasm.Instance(new wasm.Module(moduleBytes(simd)));
  } catch {
    return null;
  }
}

/**
 * The WebAssembly fold over `tables` (crc.ts's sixteen, 4096 entries), with the SIMD lanes unless
 * `lanes` is false or the platform refuses the SIMD module; null where WebAssembly is missing or
 * refused (a Content-Security-Policy without `wasm-unsafe-eval`).
 */
export function wasmFold(tables: Int32Array, lanes = true): WasmFold | null {
  const wasm = (globalThis as { WebAssembly?: typeof WebAssembly }).WebAssembly;
  if (wasm === undefined) return null;
  const withSimd = lanes ? instantiate(wasm, true) : null;
  const simd = withSimd !== null;
  const instance = withSimd ?? instantiate(wasm, false);
  if (instance === null) return null;
  const memory = new Uint8Array((instance.exports["m"] as WebAssembly.Memory).buffer);
  const slice = instance.exports["c"] as (c: number, from: number, to: number) => number;
  const fold16 = simd ? (instance.exports["s"] as (c: number, chunks: number) => number) : undefined;
  // WebAssembly memory is little-endian whatever the platform.
  const view = new DataView(memory.buffer);
  for (let i = 0; i < tables.length; i++) view.setInt32(TABLES + i * 4, tables[i]!, true);
  if (simd) {
    for (let k = 0; k < 4; k++) {
      for (let n = 0; n < 16; n++) {
        memory[NIBBLES + k * 16 + n] = tables[n]! >>> (8 * k);
        memory[NIBBLES + 64 + k * 16 + n] = tables[n << 4]! >>> (8 * k);
      }
    }
    const skip = zeros(tables, 15 * RUN);
    for (let q = 0; q < 8; q++)
      for (let k = 0; k < 4; k++)
        for (let n = 0; n < 16; n++) memory[SKIP + (q * 4 + k) * 16 + n] = apply(skip, n << (4 * q)) >>> (8 * k);
    const join = zeros(tables, RUN);
    for (let k = 0; k < 4; k++)
      for (let b = 0; b < 256; b++) view.setInt32(JOIN + k * 1024 + b * 4, apply(join, b << (8 * k)), true);
  }
  const fold = (c: number, buf: Uint8Array, start: number, end: number): number => {
    for (let p = start; p < end; p += PIECE) {
      const n = Math.min(PIECE, end - p);
      memory.set(p === 0 && n === buf.length ? buf : buf.subarray(p, p + n), DATA);
      const chunks = fold16 === undefined ? 0 : Math.floor(n / CHUNK);
      if (chunks > 0) c = fold16!(c, chunks);
      c = slice(c, DATA + chunks * CHUNK, DATA + n);
    }
    return c;
  };
  return { fold, simd };
}
