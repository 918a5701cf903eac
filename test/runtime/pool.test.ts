/** encode's output buffers: small results are carved from shared slabs, never overlapping. */

import { describe, expect, it } from "vitest";
import { allocate, POOLED_MAX } from "../../src/runtime/pool.js";

describe("allocate", () => {
  it("gives up to 64 bytes (V8's on-heap typed arrays) and above POOLED_MAX an ArrayBuffer of their own", () => {
    for (const size of [0, 1, 64, POOLED_MAX + 1, 100_000]) {
      const out = allocate(size);
      expect(out.length).toBe(size);
      expect(out.byteOffset).toBe(0);
      expect(out.buffer.byteLength).toBe(size);
    }
  });

  it("carves 65..POOLED_MAX bytes from a shared slab, 8-byte aligned and never overlapping", () => {
    const sizes = [
      65, 100, 4096, 777, 65, 3000, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096,
      4096, 4096,
    ];
    const results = sizes.map((size) => {
      const out = allocate(size);
      expect(out.length).toBe(size);
      expect(out.byteOffset % 8).toBe(0);
      return out;
    });
    // Over 64 KiB in all: at least two slabs were used.
    expect(new Set(results.map((r) => r.buffer)).size).toBeGreaterThan(1);
    // Fill each result with its own byte; none may have been overwritten by another.
    results.forEach((r, i) => r.fill(i + 1));
    results.forEach((r, i) => expect(r.every((b) => b === i + 1)).toBe(true));
  });

  it("hands out fresh zeroed bytes", () => {
    const a = allocate(200);
    expect(a.every((b) => b === 0)).toBe(true);
  });
});
