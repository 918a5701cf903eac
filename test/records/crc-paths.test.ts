/**
 * Every path of the CRCs (src/records/crc.ts, crc-wasm.ts) against references that share no code
 * with them:
 * - published check values: the CRC catalogue's for "123456789" (CRC-32C 0xE3069283, CRC-32
 *   0xCBF43926) and RFC 3720's (iSCSI, B.4) CRC-32C vectors of 32 bytes;
 * - CRC-32C by its definition, a bit at a time, with no table;
 * - CRC-32 (the same WebAssembly code over the IEEE tables) against node:zlib's crc32.
 * The paths: the public functions (JavaScript below 256 bytes, WebAssembly above, SIMD lanes
 * from 1 KiB), the WebAssembly fold without SIMD, and the JavaScript loop alone (the module
 * loaded with WebAssembly missing). Lengths sit on every edge the code has: 0–64 bytes, the
 * 16-byte step, the 256-byte WebAssembly threshold, the 64-byte lane run, the 1 KiB chunk and the
 * 96 KiB piece copied at a time; views start at odd byte offsets of their buffer.
 */

import { crc32 as zlibCrc32 } from "node:zlib";
import { afterEach, describe, expect, it, vi } from "vitest";
import { buildTables, crc32, crc32c } from "../../src/records/crc.js";
import { CHUNK, wasmFold } from "../../src/records/crc-wasm.js";

/** CRC-32C by definition: reflected, polynomial 0x82F63B78, initial and final xor 0xFFFFFFFF. */
function bitwise(b: Uint8Array, polynomial = 0x82f63b78): number {
  let c = 0xffffffff;
  for (const x of b) {
    c ^= x;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ polynomial : c >>> 1;
  }
  return ~c >>> 0;
}

const ascii = (s: string) => Uint8Array.from(s, (ch) => ch.charCodeAt(0));
const range = (n: number, f: (i: number) => number) => Uint8Array.from({ length: n }, (_, i) => f(i));

/** RFC 3720 B.4, and the catalogue's check value. */
const VECTORS: [string, Uint8Array, number][] = [
  ["123456789", ascii("123456789"), 0xe3069283],
  ["32 bytes of zeros", new Uint8Array(32), 0x8a9136aa],
  ["32 bytes of 0xff", new Uint8Array(32).fill(0xff), 0x62a8ab43],
  ["32 ascending bytes 0..31", range(32, (i) => i), 0x46dd794e],
  ["32 descending bytes 31..0", range(32, (i) => 31 - i), 0x113fdb5c],
];

const PIECE = 96 * 1024;
/** The lengths: 0–64, then either side of each step, threshold, chunk and piece edge. */
const LENGTHS = [
  ...Array.from({ length: 65 }, (_, i) => i),
  ...[127, 128, 129, 255, 256, 257, 272, 1000],
  ...[1, 2, 3, 15, 16, 17].flatMap((k) => [k * CHUNK - 1, k * CHUNK, k * CHUNK + 1, k * CHUNK + 16, k * CHUNK + 63]),
  ...[PIECE - 1, PIECE, PIECE + 1, PIECE + CHUNK, 2 * PIECE + 17, 2 * PIECE + CHUNK - 1],
];

/** Pseudo-random bytes (xorshift32, fixed seed), so a failure reproduces. */
function noise(n: number, seed = 0x9e3779b9): Uint8Array {
  const out = new Uint8Array(n);
  let s = seed;
  for (let i = 0; i < n; i++) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    out[i] = s;
  }
  return out;
}

const BYTES = noise(2 * PIECE + 2 * CHUNK + 8);
/** A view of `n` bytes at byte offset `offset` of its own buffer. */
const at = (offset: number, n: number) => new Uint8Array(BYTES.buffer, offset, n);

type Crc = (buf: Uint8Array, start?: number, end?: number, crc?: number) => number;

/** The WebAssembly fold with or without SIMD lanes, as crc.ts calls it. */
function wasmCrc(polynomial: number, lanes: boolean): { crc: Crc; simd: boolean } {
  const w = wasmFold(buildTables(polynomial), lanes);
  if (w === null) throw new Error("no WebAssembly in this Node.js");
  return {
    crc: (buf, start = 0, end = buf.length, crc = 0) => ~w.fold(~crc, buf, start, end) >>> 0,
    simd: w.simd,
  };
}

describe("the paths report what they run", () => {
  it("Node.js 20 validates the SIMD module, and lanes: false gives the slicing one", () => {
    expect(wasmCrc(0x82f63b78, true).simd).toBe(true);
    expect(wasmCrc(0x82f63b78, false).simd).toBe(false);
  });
});

describe("check values on every path", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.resetModules();
  });

  const paths: [string, () => Promise<Crc>][] = [
    ["crc32c", async () => crc32c],
    ["WebAssembly, SIMD module", async () => wasmCrc(0x82f63b78, true).crc],
    ["WebAssembly, slicing module", async () => wasmCrc(0x82f63b78, false).crc],
    [
      "JavaScript (WebAssembly missing)",
      async () => {
        vi.resetModules();
        vi.stubGlobal("WebAssembly", undefined);
        return (await import("../../src/records/crc.js")).crc32c;
      },
    ],
  ];

  it.each(paths)("%s: the catalogue's and RFC 3720's vectors", async (_, load) => {
    const f = await load();
    for (const [, bytes, want] of VECTORS) expect(f(bytes)).toBe(want);
  });

  it.each(paths)("%s: every edge length at byte offsets 0–7 equals the bitwise definition", async (_, load) => {
    const f = await load();
    for (const n of LENGTHS) {
      const offset = n % 8;
      const view = at(offset, n);
      expect(f(view), `${n} bytes at offset ${offset}`).toBe(bitwise(view));
    }
  });

  it.each(paths)("%s: random ranges, and a CRC continued over two ranges equals one pass", async (_, load) => {
    const f = await load();
    const rnd = noise(64, 7);
    const view = at(3, BYTES.length - 8);
    for (let i = 0; i < 32; i += 2) {
      const start = (rnd[i]! * 131 + rnd[i + 1]!) % 3000;
      const end = Math.min(view.length, start + ((rnd[i]! << 10) | (rnd[i + 1]! << 2) | (i & 3)));
      const want = bitwise(view.subarray(start, end));
      expect(f(view, start, end), `[${start}, ${end})`).toBe(want);
      const mid = start + ((end - start) >> 1) + (i & 7);
      if (mid <= end) expect(f(view, mid, end, f(view, start, mid))).toBe(want);
    }
  });
});

describe("CRC-32 over the same code, against node:zlib", () => {
  it("every edge length at byte offsets 0–7, SIMD and slicing modules and the public function", () => {
    const simd = wasmCrc(0xedb88320, true).crc;
    const slicing = wasmCrc(0xedb88320, false).crc;
    for (const n of LENGTHS) {
      const view = at(n % 8, n);
      const want = zlibCrc32(view);
      expect(crc32(view), `${n} bytes`).toBe(want);
      expect(simd(view), `${n} bytes`).toBe(want);
      expect(slicing(view), `${n} bytes`).toBe(want);
    }
  });
});

describe("ranges outside the view are still RangeErrors on every size", () => {
  it("for inputs below and above each threshold", () => {
    for (const n of [10, 300, 5000, PIECE + 5]) {
      const view = at(1, n);
      for (const f of [crc32c, crc32]) {
        expect(() => f(view, 0, n + 1)).toThrow(RangeError);
        expect(() => f(view, -1, n)).toThrow(RangeError);
        expect(f(view, 0, n)).toBe(f(view));
      }
    }
  });
});
