/**
 * The WebAssembly CRC: ranges outside the view. Before the WebAssembly step the
 * DataView over the view's own bytes threw a RangeError; the WebAssembly copy (subarray clamps)
 * then folded stale bytes of the previous call's input, and the Int32Array path read past the
 * view into the rest of its ArrayBuffer (a Buffer pool slice's neighbours).
 */

import { describe, expect, it } from "vitest";
import { crc32, crc32c } from "../../src/records/index.js";

describe("crc32c/crc32 over a range outside the view", () => {
  it("an end past the view is a RangeError, not a CRC of other memory", () => {
    const pool = new ArrayBuffer(4096);
    new Uint8Array(pool).fill(0xaa);
    const view = new Uint8Array(pool, 64, 100);
    for (const f of [crc32c, crc32]) {
      expect(() => f(view, 0, 200)).toThrow(RangeError);
      expect(() => f(new Uint8Array(300), 0, 400)).toThrow(RangeError);
      expect(() => f(view, -4, 50)).toThrow(RangeError);
    }
  });
});
