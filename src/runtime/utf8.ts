/**
 * UTF-8 for Kafka strings, without Node's Buffer: short strings take a hand-written path (no
 * TextEncoder/TextDecoder call overhead), long ones the platform's encoder/decoder.
 */

import { KafkaDecodeError, KafkaEncodeError } from "./errors.js";

/** Below this many UTF-16 units a JavaScript loop beats a TextEncoder call. */
const SHORT_STRING = 32;

/** One reusable array per short length, for building ASCII strings without allocating. */
const SCRATCH: number[][] = /*@__PURE__*/ Array.from({ length: 64 }, (_, n) => new Array<number>(n).fill(0));

const encoder = /*@__PURE__*/ new TextEncoder();
const lenientDecoder = /*@__PURE__*/ new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });
const strictDecoder = /*@__PURE__*/ new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * The UTF-8 byte length of `s`.
 * @throws KafkaEncodeError `INVALID_STRING` for a lone surrogate: Java would write `?` and
 *   TextEncoder U+FFFD, neither of which is what the caller meant.
 */
export function utf8Length(s: string): number {
  const n = s.length;
  let bytes = n;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) {
      bytes += 1;
    } else if (c >= 0xd800 && c <= 0xdfff) {
      const next = i + 1 < n ? s.charCodeAt(i + 1) : 0;
      if (c > 0xdbff || next < 0xdc00 || next > 0xdfff) {
        throw new KafkaEncodeError(
          "INVALID_STRING",
          `lone surrogate U+${c.toString(16).toUpperCase()} at index ${i}`,
          -1,
        );
      }
      // A surrogate pair is two UTF-16 units and four UTF-8 bytes.
      bytes += 2;
      i++;
    } else {
      bytes += 2;
    }
  }
  return bytes;
}

/**
 * Writes `s` as UTF-8 at `offset`; the caller has checked it is well-formed and that
 * `byteLength` (from {@link utf8Length}) bytes fit. Returns the offset after the last byte.
 */
export function writeUtf8(buf: Uint8Array, offset: number, s: string, byteLength: number): number {
  const n = s.length;
  if (n === byteLength) {
    // ASCII only: one byte per unit.
    if (n < SHORT_STRING) {
      for (let i = 0; i < n; i++) buf[offset + i] = s.charCodeAt(i);
      return offset + n;
    }
  } else if (n < SHORT_STRING) {
    let p = offset;
    for (let i = 0; i < n; i++) {
      let c = s.charCodeAt(i);
      if (c < 0x80) {
        buf[p++] = c;
      } else if (c < 0x800) {
        buf[p++] = 0xc0 | (c >> 6);
        buf[p++] = 0x80 | (c & 0x3f);
      } else if (c >= 0xd800 && c <= 0xdbff) {
        c = 0x10000 + ((c - 0xd800) << 10) + (s.charCodeAt(++i) - 0xdc00);
        buf[p++] = 0xf0 | (c >> 18);
        buf[p++] = 0x80 | ((c >> 12) & 0x3f);
        buf[p++] = 0x80 | ((c >> 6) & 0x3f);
        buf[p++] = 0x80 | (c & 0x3f);
      } else {
        buf[p++] = 0xe0 | (c >> 12);
        buf[p++] = 0x80 | ((c >> 6) & 0x3f);
        buf[p++] = 0x80 | (c & 0x3f);
      }
    }
    return p;
  }
  encoder.encodeInto(s, buf.subarray(offset, offset + byteLength));
  return offset + byteLength;
}

const fromCharCode = String.fromCharCode;

/** Below this many bytes, an all-ASCII string is built without a TextDecoder call. */
const SHORT_ASCII = 64;

/**
 * Decodes `length` bytes at `offset`. Malformed sequences become U+FFFD, as Java's
 * `new String(bytes, UTF_8)` does, unless `strict`.
 * @throws KafkaDecodeError `INVALID_STRING` when `strict` and the bytes are not valid UTF-8.
 */
export function readUtf8(buf: Uint8Array, offset: number, length: number, strict: boolean): string {
  // Kept small, so that V8 inlines it into the Reader's string methods: each length class has a
  // function of its own.
  if (length <= 8) {
    const s = tinyAscii(buf, offset, length);
    if (s !== null) return s;
  } else if (length < SHORT_ASCII) {
    // ASCII (nearly every Kafka string) has one UTF-16 unit per byte: copied into a reused array
    // of the exact length while all bytes are tested at once, then one fromCharCode call. This
    // beats TextDecoder here, and inside whole messages also Node's Buffer#latin1Slice (which
    // wins alone from 24 bytes on, but made StreamsGroupHeartbeatRequest's join decode 11%
    // slower: measured, and not used).
    const codes = SCRATCH[length]!;
    let all = 0;
    for (let i = 0; i < length; i++) all |= codes[i] = buf[offset + i]!;
    if (all < 0x80) return fromCharCode.apply(null, codes);
  }
  return decodeUtf8(buf, offset, length, strict);
}

/**
 * The shortest strings (ids, "0".."9", short names) when ASCII, else null: one fromCharCode call
 * with a fixed number of arguments, after one test of all bytes at once.
 */
function tinyAscii(buf: Uint8Array, o: number, length: number): string | null {
  let all = 0;
  for (let i = 0; i < length; i++) all |= buf[o + i]!;
  if (all >= 0x80) return null;
  switch (length) {
    case 0:
      return "";
    case 1:
      return fromCharCode(buf[o]!);
    case 2:
      return fromCharCode(buf[o]!, buf[o + 1]!);
    case 3:
      return fromCharCode(buf[o]!, buf[o + 1]!, buf[o + 2]!);
    case 4:
      return fromCharCode(buf[o]!, buf[o + 1]!, buf[o + 2]!, buf[o + 3]!);
    case 5:
      return fromCharCode(buf[o]!, buf[o + 1]!, buf[o + 2]!, buf[o + 3]!, buf[o + 4]!);
    case 6:
      return fromCharCode(buf[o]!, buf[o + 1]!, buf[o + 2]!, buf[o + 3]!, buf[o + 4]!, buf[o + 5]!);
    case 7:
      return fromCharCode(buf[o]!, buf[o + 1]!, buf[o + 2]!, buf[o + 3]!, buf[o + 4]!, buf[o + 5]!, buf[o + 6]!);
    default:
      return fromCharCode(
        buf[o]!,
        buf[o + 1]!,
        buf[o + 2]!,
        buf[o + 3]!,
        buf[o + 4]!,
        buf[o + 5]!,
        buf[o + 6]!,
        buf[o + 7]!,
      );
  }
}

/** Any other string: the platform's decoder. */
function decodeUtf8(buf: Uint8Array, offset: number, length: number, strict: boolean): string {
  const bytes = buf.subarray(offset, offset + length);
  if (!strict) return lenientDecoder.decode(bytes);
  try {
    return strictDecoder.decode(bytes);
  } catch {
    throw new KafkaDecodeError("INVALID_STRING", "string is not valid UTF-8", offset);
  }
}
