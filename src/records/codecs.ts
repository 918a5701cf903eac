/**
 * Compression for record batches: the one small interface a codec implements, the codec ids of
 * the attributes field, and the core's only codec, gzip over the platform's
 * CompressionStream/DecompressionStream (Node ≥ 18, browsers, Deno, Bun). snappy, lz4, zstd and a
 * synchronous gzip come from the companion package `kafka-wire-compression`.
 */

/** A value or a Promise of it: a codec may be synchronous or asynchronous. */
export type MaybePromise<T> = T | Promise<T>;

/** Kafka's compression codecs by their `compression.type` names. */
export type CompressionName = "gzip" | "snappy" | "lz4" | "zstd";

/** What a batch's attributes say about compression (bits 0–2): the name, or `"none"`. */
export type Compression = "none" | CompressionName;

/** Codec ids of the attributes' bits 0–2, index = id (KIP-110 added zstd as 4). */
export const COMPRESSION_NAMES: readonly Compression[] = ["none", "gzip", "snappy", "lz4", "zstd"];

/** Options a codec's `compress` receives. */
export interface CompressOptions {
  /** Kafka's `compression.<codec>.level` (gzip 1–9, lz4 1–17, zstd -131072–22); undefined = the codec's default. */
  readonly level: number | undefined;
  /** The record format: 2 for record batches (0 and 1 are only read, never written). */
  readonly magic: 0 | 1 | 2;
}

/** Options a codec's `decompress` receives. */
export interface DecompressOptions {
  /**
   * The most bytes the output may have. A codec stops as soon as its output would grow past it
   * (and checks sizes the format declares, such as a zstd frame's content size, before
   * allocating) and throws an error whose `code` is `"DECOMPRESSED_TOO_LARGE"`.
   */
  readonly maxBytes: number;
  /** The record format of the batch: lz4 frames of magic 0 carry Kafka's historical wrong header checksum. */
  readonly magic: 0 | 1 | 2;
}

/**
 * One compression codec. Either method may return a Promise (an asynchronous codec makes
 * `decodeRecords`/`encodeRecordBatch` return a Promise). Any exception is reported as a
 * `KafkaRecordsError` (`COMPRESSION_FAILED`, or `DECOMPRESSED_TOO_LARGE` when the thrown error's
 * `code` says so) with the original as `cause`.
 */
export interface CompressionCodec {
  /** Compresses a batch's records section into the payload Kafka's readers expect. */
  compress(data: Uint8Array, options: CompressOptions): MaybePromise<Uint8Array>;
  /** Decompresses a batch's payload (or a legacy wrapper's value). */
  decompress(data: Uint8Array, options: DecompressOptions): MaybePromise<Uint8Array>;
}

/** The codecs to use, by name (`kafka-wire-compression` exports all four as `codecs`). */
export type Codecs = { readonly [K in CompressionName]?: CompressionCodec };

/** The package that brings the codecs the core lacks (named in errors). */
export const COMPRESSION_PACKAGE = "kafka-wire-compression";

/** The error a codec throws when its output would exceed `maxBytes` (structural: codecs need not import kafka-wire). */
export function tooLarge(maxBytes: number, what = "decompressed data"): Error {
  const e = new Error(`${what} exceeds the cap of ${maxBytes} bytes`) as Error & { code: string };
  e.code = "DECOMPRESSED_TOO_LARGE";
  return e;
}

async function collect(stream: ReadableStream<Uint8Array>, maxBytes: number): Promise<Uint8Array> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.length;
      if (total > maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw tooLarge(maxBytes);
      }
      chunks.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(total);
  let p = 0;
  for (const c of chunks) {
    out.set(c, p);
    p += c.length;
  }
  return out;
}

function pipe(data: Uint8Array, transform: ReadableWritablePair<Uint8Array, Uint8Array>, maxBytes: number) {
  const writer = transform.writable.getWriter();
  // Errors of the write side surface on the read side too; swallow them here to avoid an unhandled rejection.
  writer.write(data).catch(() => undefined);
  writer.close().catch(() => undefined);
  return collect(transform.readable, maxBytes);
}

/**
 * gzip over the platform's CompressionStream/DecompressionStream: asynchronous, no dependency.
 * It is the default gzip codec of `decodeRecords` and `encodeRecordBatch` where the platform has
 * the streams (every supported runtime does); pass `codecs.gzip` to replace it (e.g. with the
 * synchronous zlib one of `kafka-wire-compression`). `level` is ignored: the streams have a
 * fixed level.
 */
export const webGzip: CompressionCodec = {
  compress(data) {
    return pipe(data, new CompressionStream("gzip") as ReadableWritablePair<Uint8Array, Uint8Array>, Infinity);
  },
  decompress(data, options) {
    return pipe(
      data,
      new DecompressionStream("gzip") as ReadableWritablePair<Uint8Array, Uint8Array>,
      options.maxBytes,
    );
  },
};

/** The codec for `name`: the caller's, else the core's gzip where the platform has the streams. */
export function codecFor(name: CompressionName, codecs: Codecs | undefined): CompressionCodec | undefined {
  const own = codecs?.[name];
  if (own !== undefined) return own;
  if (name === "gzip" && typeof DecompressionStream === "function" && typeof CompressionStream === "function") {
    return webGzip;
  }
  return undefined;
}

/** Why a codec is missing, naming what to install. */
export function missingCodecReason(name: CompressionName): string {
  return `no ${name} codec: install ${COMPRESSION_PACKAGE} and pass its codecs (\`import { codecs } from "${COMPRESSION_PACKAGE}"\`, then \`{ codecs }\` as the options)`;
}
