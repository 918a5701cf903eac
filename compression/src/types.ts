/** The codec interface of `kafka-wire/records` (types only) and the cap error it expects. */
export type { CompressionCodec, Codecs, CompressOptions, DecompressOptions } from "kafka-wire/records";

/** The error `decodeRecords` reports as `DECOMPRESSED_TOO_LARGE`: output would exceed the cap. */
export function tooLarge(maxBytes: number, what = "decompressed data"): Error {
  return Object.assign(new Error(`${what} exceeds the cap of ${maxBytes} bytes`), { code: "DECOMPRESSED_TOO_LARGE" });
}
