/**
 * Pasted text to bytes: hex (any whitespace, `0x` prefixes, `:` or `-` separators) or base64
 * (standard or URL-safe, padding optional), and bytes back to hex for the view.
 */

/** What a pasted text was read as. */
export type Encoding = "hex" | "base64";

/** Bytes and how they were written; `error` says why the text is neither hex nor base64. */
export type ParsedBytes =
  | { readonly bytes: Uint8Array; readonly encoding: Encoding; readonly error?: undefined }
  | { readonly bytes?: undefined; readonly encoding?: undefined; readonly error: string };

const HEX = /^[0-9a-fA-F]*$/;
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/** Reads hex when the text is only hex digits (after removing separators) of even count, else base64. */
export function parseBytes(text: string): ParsedBytes {
  const compact = text.replace(/0x/gi, "").replace(/[\s:,-]/g, "");
  if (HEX.test(compact) && compact.length % 2 === 0) {
    const bytes = new Uint8Array(compact.length / 2);
    for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(compact.slice(2 * i, 2 * i + 2), 16);
    return { bytes, encoding: "hex" };
  }
  const b64 = text.replace(/\s/g, "");
  if (!BASE64.test(b64) || b64.replace(/=+$/, "").length % 4 === 1) {
    return { error: "neither hex (an even number of hex digits) nor base64" };
  }
  const standard = b64.replace(/-/g, "+").replace(/_/g, "/").replace(/=+$/, "");
  const binary = atob(standard + "=".repeat((4 - (standard.length % 4)) % 4));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return { bytes, encoding: "base64" };
}

/** Two lowercase hex digits per byte. */
export function byteHex(b: number): string {
  return (b < 16 ? "0" : "") + b.toString(16);
}

/** `bytes` as lowercase hex, cut after `max` bytes with "…". */
export function toHex(bytes: Uint8Array, max = Infinity): string {
  let s = "";
  const n = Math.min(bytes.length, max);
  for (let i = 0; i < n; i++) s += byteHex(bytes[i]!);
  return n < bytes.length ? s + "…" : s;
}
