/**
 * Base64 for Kafka's JSON form of `bytes` (standard alphabet, padded) and of `uuid` (Kafka's
 * `Uuid.toString()`: URL-safe alphabet, no padding, always 22 characters).
 */

const STD = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

function reverse(alphabet: string): Int8Array {
  const table = new Int8Array(128).fill(-1);
  for (let i = 0; i < alphabet.length; i++) table[alphabet.charCodeAt(i)] = i;
  return table;
}

const STD_REV = /*@__PURE__*/ reverse(STD);
const URL_REV = /*@__PURE__*/ reverse(URL);

function encode(bytes: Uint8Array, alphabet: string, pad: boolean): string {
  let out = "";
  const n = bytes.length;
  let i = 0;
  for (; i + 2 < n; i += 3) {
    const v = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out += alphabet[v >> 18]! + alphabet[(v >> 12) & 63]! + alphabet[(v >> 6) & 63]! + alphabet[v & 63]!;
  }
  if (i + 1 === n) {
    const v = bytes[i]! << 16;
    out += alphabet[v >> 18]! + alphabet[(v >> 12) & 63]! + (pad ? "==" : "");
  } else if (i + 2 === n) {
    const v = (bytes[i]! << 16) | (bytes[i + 1]! << 8);
    out += alphabet[v >> 18]! + alphabet[(v >> 12) & 63]! + alphabet[(v >> 6) & 63]! + (pad ? "=" : "");
  }
  return out;
}

/**
 * Decodes base64 text; returns null when it is not canonical (wrong alphabet, wrong padding, or
 * non-zero bits after the last byte), so that every accepted text encodes back to itself.
 */
function decode(text: string, table: Int8Array, pad: boolean): Uint8Array | null {
  let len = text.length;
  if (pad) {
    if (len % 4 !== 0) return null;
    if (len > 0 && text.charCodeAt(len - 1) === 61) len--;
    if (len > 0 && text.charCodeAt(len - 1) === 61) len--;
  }
  const rem = len % 4;
  if (rem === 1) return null;
  const out = new Uint8Array((len >> 2) * 3 + (rem === 0 ? 0 : rem - 1));
  let o = 0;
  let acc = 0;
  let bits = 0;
  for (let i = 0; i < len; i++) {
    const c = text.charCodeAt(i);
    const v = c < 128 ? table[c]! : -1;
    if (v < 0) return null;
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >> bits) & 0xff;
    }
  }
  if ((acc & ((1 << bits) - 1)) !== 0) return null;
  return out;
}

/** Standard base64 with padding, as Kafka's JsonConverter writes `bytes`. */
export function bytesToBase64(bytes: Uint8Array): string {
  return encode(bytes, STD, true);
}

/** Parses standard padded base64; null when the text is not canonical base64. */
export function base64ToBytes(text: string): Uint8Array | null {
  return decode(text, STD_REV, true);
}

const URL_CODES = /*@__PURE__*/ Array.from(URL, (c) => c.charCodeAt(0));
/** Reused for every uuid string: 22 character codes, one fromCharCode call, no allocation. */
const UUID_CODES: number[] = /*@__PURE__*/ new Array<number>(22).fill(0);

/**
 * Uuids already converted, both ways: a client sees the same few topic ids again and again (every
 * heartbeat's assignment, every metadata response, requests by name with the zero uuid), and
 * finding one here is cheaper than converting it, and allocates nothing. Direct-mapped, 1024
 * slots each way; a slot holds one uuid as its 16 bytes and its string, always a correct pair
 * (strings are immutable and the bytes are copies), so a hit returns exactly what converting
 * would. Bounded (about 100 KB in all) and invisible to callers.
 */
const SLOTS = 1024; // = 2^10: the top 10 bits of a 32-bit hash pick the slot
/** Decoding: slot → 16 bytes, and the string for them (undefined: empty). */
const decodedBytes = /*@__PURE__*/ new Uint8Array(SLOTS * 16);
const decodedText: (string | undefined)[] = /*@__PURE__*/ new Array<string | undefined>(SLOTS).fill(undefined);
/** Encoding: slot → a string known to be valid, and its 16 bytes. */
const encodedText: (string | undefined)[] = /*@__PURE__*/ new Array<string | undefined>(SLOTS).fill(undefined);
const encodedBytes = /*@__PURE__*/ new Uint8Array(SLOTS * 16);
let lastEncodedSlot = 0;

/** Kafka's `Uuid.toString()` of 16 bytes at `offset`: URL-safe base64 without padding, 22 characters. */
export function uuidToString(buf: Uint8Array, offset: number): string {
  // A multiplicative (Fibonacci) hash of four spread-out bytes: random (v4) uuids and
  // sequential or patterned test ids alike spread over the slots.
  const key = buf[offset]! | (buf[offset + 5]! << 8) | (buf[offset + 10]! << 16) | (buf[offset + 15]! << 24);
  const slot = Math.imul(key, 0x9e3779b1) >>> 22;
  const cached = decodedText[slot];
  // Sixteen plain compares rather than a loop (as in writeUuid); the four hashed bytes last.
  const d = decodedBytes;
  const b = slot * 16;
  if (
    cached !== undefined &&
    buf[offset + 1] === d[b + 1] &&
    buf[offset + 2] === d[b + 2] &&
    buf[offset + 3] === d[b + 3] &&
    buf[offset + 4] === d[b + 4] &&
    buf[offset + 6] === d[b + 6] &&
    buf[offset + 7] === d[b + 7] &&
    buf[offset + 8] === d[b + 8] &&
    buf[offset + 9] === d[b + 9] &&
    buf[offset + 11] === d[b + 11] &&
    buf[offset + 12] === d[b + 12] &&
    buf[offset + 13] === d[b + 13] &&
    buf[offset + 14] === d[b + 14] &&
    buf[offset] === d[b] &&
    buf[offset + 5] === d[b + 5] &&
    buf[offset + 10] === d[b + 10] &&
    buf[offset + 15] === d[b + 15]
  ) {
    return cached;
  }
  return uuidText(buf, offset, slot);
}

/** {@link uuidToString} for bytes not in their slot: converts them and remembers them there. */
function uuidText(buf: Uint8Array, offset: number, slot: number): string {
  const codes = UUID_CODES;
  let o = 0;
  for (let i = offset; i < offset + 15; i += 3) {
    const v = (buf[i]! << 16) | (buf[i + 1]! << 8) | buf[i + 2]!;
    codes[o++] = URL_CODES[v >> 18]!;
    codes[o++] = URL_CODES[(v >> 12) & 63]!;
    codes[o++] = URL_CODES[(v >> 6) & 63]!;
    codes[o++] = URL_CODES[v & 63]!;
  }
  const last = buf[offset + 15]!;
  codes[20] = URL_CODES[last >> 2]!;
  codes[21] = URL_CODES[(last & 3) << 4]!;
  const text = String.fromCharCode.apply(null, codes);
  for (let i = 0; i < 16; i++) decodedBytes[slot * 16 + i] = buf[offset + i]!;
  decodedText[slot] = text;
  return text;
}

/** The slot of a uuid string: a multiplicative hash of four spread-out characters (as for bytes). */
function textSlot(text: string): number {
  const key =
    text.charCodeAt(0) | (text.charCodeAt(7) << 8) | (text.charCodeAt(14) << 16) | (text.charCodeAt(21) << 24);
  return Math.imul(key, 0x9e3779b1) >>> 22;
}

/** Where a string is decoded before it is known to be valid: a rejected one must leave no trace. */
const scratch = /*@__PURE__*/ new Uint8Array(16);

/**
 * Writes the 16 bytes of a uuid in Kafka's string form at `offset` (no allocation); false, with
 * nothing written, when `text` is not exactly that form (22 URL-safe base64 characters whose last
 * one carries only two bits).
 */
export function writeUuid(buf: Uint8Array, offset: number, text: string): boolean {
  if (typeof text !== "string" || text.length !== 22) return false;
  // The slot used last, before hashing: requests by name repeat the zero uuid in every entry.
  let slot = lastEncodedSlot;
  if (encodedText[slot] !== text) {
    slot = textSlot(text);
    if (encodedText[slot] !== text) return convertUuid(buf, offset, text, slot);
    lastEncodedSlot = slot;
  }
  // Sixteen plain stores: a third faster than a loop here (12 vs 17 ns per uuid).
  const e = encodedBytes;
  const b = slot * 16;
  buf[offset] = e[b]!;
  buf[offset + 1] = e[b + 1]!;
  buf[offset + 2] = e[b + 2]!;
  buf[offset + 3] = e[b + 3]!;
  buf[offset + 4] = e[b + 4]!;
  buf[offset + 5] = e[b + 5]!;
  buf[offset + 6] = e[b + 6]!;
  buf[offset + 7] = e[b + 7]!;
  buf[offset + 8] = e[b + 8]!;
  buf[offset + 9] = e[b + 9]!;
  buf[offset + 10] = e[b + 10]!;
  buf[offset + 11] = e[b + 11]!;
  buf[offset + 12] = e[b + 12]!;
  buf[offset + 13] = e[b + 13]!;
  buf[offset + 14] = e[b + 14]!;
  buf[offset + 15] = e[b + 15]!;
  return true;
}

/** {@link writeUuid} for a string not in its slot: converts it, and remembers it there when valid. */
function convertUuid(buf: Uint8Array, offset: number, text: string, slot: number): boolean {
  const rev = URL_REV;
  const out = scratch;
  // One pass: valid sextets are 0..63, a character outside the alphabet maps to -1 and a
  // non-ASCII one keeps bits above 0x7f, so OR-ing them all leaves bits above 63 for any error.
  let bad = 0;
  let o = 0;
  for (let i = 0; i < 20; i += 4) {
    const c0 = text.charCodeAt(i);
    const c1 = text.charCodeAt(i + 1);
    const c2 = text.charCodeAt(i + 2);
    const c3 = text.charCodeAt(i + 3);
    const a = rev[c0 & 0x7f]!;
    const b = rev[c1 & 0x7f]!;
    const c = rev[c2 & 0x7f]!;
    const d = rev[c3 & 0x7f]!;
    bad |= a | b | c | d | ((c0 | c1 | c2 | c3) & ~0x7f);
    const v = (a << 18) | (b << 12) | (c << 6) | d;
    out[o++] = v >> 16;
    out[o++] = v >> 8;
    out[o++] = v;
  }
  const c20 = text.charCodeAt(20);
  const c21 = text.charCodeAt(21);
  const y = rev[c20 & 0x7f]!;
  const z = rev[c21 & 0x7f]!;
  bad |= y | z | ((c20 | c21) & ~0x7f);
  out[15] = (y << 2) | (z >> 4);
  // The last character carries two bits: its low four must be zero (canonical form).
  if ((bad & ~63) !== 0 || (z & 15) !== 0) return false;
  const base = slot * 16;
  for (let i = 0; i < 16; i++) {
    const b = out[i]!;
    buf[offset + i] = b;
    encodedBytes[base + i] = b;
  }
  encodedText[slot] = text;
  lastEncodedSlot = slot;
  return true;
}

/** The 16 bytes of a uuid in Kafka's string form; null when it is not exactly that form. */
export function uuidFromString(text: string): Uint8Array | null {
  const out = new Uint8Array(16);
  return writeUuid(out, 0, text) ? out : null;
}

/** Kafka's zero uuid, `Uuid.ZERO_UUID`. */
export const ZERO_UUID = "AAAAAAAAAAAAAAAAAAAAAA";
