/**
 * Output buffers for `encode`. A `new Uint8Array(n)` above 64 bytes costs V8 an off-heap
 * allocation of 0.3–0.8 µs on Node 20 — more than encoding most messages — so small results are
 * carved from shared 64 KiB slabs instead, as Node's own `Buffer.allocUnsafe` pool does.
 * Results never overlap and every byte of one is written by its encoder; results of at most 64
 * bytes (which V8 allocates cheaply on its heap) or more than {@link POOLED_MAX} bytes get an
 * ArrayBuffer of their own.
 */

/** Results up to this many bytes come from a slab. */
export const POOLED_MAX = 4096;
/** V8 keeps typed arrays up to this size on its own heap, where allocating them is cheap. */
const ON_HEAP_MAX = 64;
const SLAB_SIZE = 64 * 1024;

let slab = new Uint8Array(0);
let used = 0;

/**
 * `size` fresh bytes: a view into a shared slab for 65..4096 bytes (`byteOffset` may be non-zero
 * and `buffer` larger than the view), else a Uint8Array of its own.
 */
export function allocate(size: number): Uint8Array {
  if (size <= ON_HEAP_MAX || size > POOLED_MAX) return new Uint8Array(size);
  if (slab.length - used < size) {
    slab = new Uint8Array(SLAB_SIZE);
    used = 0;
  }
  const out = slab.subarray(used, used + size);
  // 8-byte alignment keeps every result's start aligned like a fresh buffer.
  used += (size + 7) & ~7;
  return out;
}
