/**
 * The one place the runtime uses a platform's own fast path, and only after testing that it is
 * there and behaves: nothing is imported, so platforms without it (browsers) take the portable
 * Uint8Array code, which the runtime tests cover by loading the package with `Buffer` removed.
 * Internal: not exported from the package.
 */

/** `Buffer.prototype.latin1Slice` called on a plain Uint8Array view: one byte per UTF-16 unit. */
export type Latin1Slice = (this: Uint8Array, start: number, end: number) => string;

/**
 * Node's `Buffer#latin1Slice` (or a platform's look-alike of Node's Buffer), or null. Probed once,
 * on a view with a byte offset, so that a polyfill or a platform that reads such a view
 * differently is not used.
 */
export const latin1Slice: Latin1Slice | null = /*@__PURE__*/ probeLatin1Slice();

function probeLatin1Slice(): Latin1Slice | null {
  // All inside the try: on an odd platform even reading `Buffer` may throw.
  try {
    const f = (globalThis as { Buffer?: { prototype?: { latin1Slice?: unknown } } }).Buffer?.prototype?.latin1Slice;
    if (typeof f !== "function") return null;
    const slice = f as Latin1Slice;
    // "zKafka" with the view starting at "K": the result must honour the view's offset.
    const view = new Uint8Array(new Uint8Array([0x7a, 0x4b, 0x61, 0x66, 0x6b, 0x61]).buffer, 1, 5);
    return slice.call(view, 0, 5) === "Kafka" ? slice : null;
  } catch {
    return null;
  }
}
