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
  const out = new Uint8Array(((len >> 2) * 3) + (rem === 0 ? 0 : rem - 1));
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

/** Kafka's `Uuid.toString()` of 16 bytes at `offset`: URL-safe base64 without padding, 22 characters. */
export function uuidToString(buf: Uint8Array, offset: number): string {
  return encode(buf.subarray(offset, offset + 16), URL, false);
}

/** The 16 bytes of a uuid in Kafka's string form; null when it is not exactly that form. */
export function uuidFromString(text: string): Uint8Array | null {
  if (typeof text !== "string" || text.length !== 22) return null;
  return decode(text, URL_REV, false);
}

/** Kafka's zero uuid, `Uuid.ZERO_UUID`. */
export const ZERO_UUID = "AAAAAAAAAAAAAAAAAAAAAA";
