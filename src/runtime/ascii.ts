/**
 * Optimistic string sizing for `encode` (see codec.ts). Nearly every string in a Kafka message is
 * ASCII, whose UTF-8 length is its `.length`: measuring it needs no pass over its characters, and
 * nothing needs recording for the write pass. So `encode` first runs its size pass with
 * {@link asciiSizing} on, where the size functions take each string's `.length`, and writes with
 * a Writer in ASCII mode, which stores one byte per UTF-16 unit and throws {@link NOT_ASCII} at
 * the first unit above 0x7f. Then (and on any error) the message is measured and written again
 * exactly, as before. Internal: not exported from the package.
 */

/**
 * Thrown by an ASCII-mode Writer at a string that is not ASCII: not an error but the codec's
 * signal to encode again exactly. One frozen object without a stack trace (it is thrown on the
 * ordinary path of every non-ASCII message); `withPath` passes it on untouched and it never
 * leaves the codec.
 */
export const NOT_ASCII: object = Object.freeze({ reason: "a string is not ASCII: encode the message exactly" });

/** Whether the size functions take a string's `.length` as its UTF-8 length (and record nothing). */
export let asciiSizing = false;

/** Sets {@link asciiSizing} for one pass; returns the previous value, to restore after it. */
export function setAsciiSizing(on: boolean): boolean {
  const was = asciiSizing;
  asciiSizing = on;
  return was;
}
