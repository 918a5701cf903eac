/** The codec interface of `kafka-wire/records` (types only) and the errors it expects. */
export type { CompressionCodec, Codecs, CompressOptions, DecompressOptions } from "kafka-wire/records";

/**
 * The error `decodeRecords` reports as `DECOMPRESSED_TOO_LARGE`: the output would exceed the cap
 * (or a size the format declares does).
 */
export function tooLarge(maxBytes: number, what = "decompressed data"): Error {
  return Object.assign(new Error(`${what} exceeds the cap of ${maxBytes} bytes`), { code: "DECOMPRESSED_TOO_LARGE" });
}

/**
 * A compressed payload that breaks its format, reported by `decodeRecords` as
 * `COMPRESSION_FAILED` (a `KafkaRecordsError` with this error as its `cause`). `offset` is the
 * byte in the compressed payload (the batch's bytes after its 61-byte header; a legacy wrapper's
 * value) where the problem is; the message names it too, since the records error's own offset is
 * the batch's.
 */
export class CorruptCompressedDataError extends Error {
  /** Always `"COMPRESSION_FAILED"`. */
  readonly code = "COMPRESSION_FAILED";
  /** Byte offset in the compressed payload. */
  readonly offset: number;

  constructor(reason: string, offset: number) {
    super(`${reason} (byte ${offset} of the compressed payload)`);
    this.offset = offset;
  }

  override get name(): string {
    return "CorruptCompressedDataError";
  }
}

/** Shorthand: throws a {@link CorruptCompressedDataError}. */
export function corrupt(reason: string, offset: number): never {
  throw new CorruptCompressedDataError(reason, offset);
}
