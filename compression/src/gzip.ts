/**
 * Synchronous gzip over node:zlib (Node, Deno, Bun). Kafka writes one RFC 1952 member at
 * `compression.gzip.level` (default: zlib's 6). The browser build of this package has no gzip
 * codec: there, `kafka-wire/records` uses the platform's CompressionStream/DecompressionStream.
 */

import zlib from "node:zlib";
import { tooLarge, type CompressionCodec } from "./types.js";

function bytes(b: Buffer): Uint8Array {
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}

/** Kafka's gzip (compression.type=gzip), synchronous. */
export const gzip: CompressionCodec = {
  compress: (data, options) => bytes(zlib.gzipSync(data, options.level === undefined ? {} : { level: options.level })),
  decompress(data, options) {
    try {
      return bytes(zlib.gunzipSync(data, { maxOutputLength: Math.max(1, options.maxBytes) }));
    } catch (e) {
      if ((e as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") throw tooLarge(options.maxBytes);
      throw e;
    }
  },
};
