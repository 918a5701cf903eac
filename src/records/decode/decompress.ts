/** Running a batch's codec under the `maxDecompressedBytes` cap, synchronously or not. */

import { KafkaRecordsError } from "../../runtime/errors.js";
import { codecFor, missingCodecReason, type CompressionName, type MaybePromise } from "../codecs.js";
import type { BatchPosition, Context } from "./context.js";

/** A codec's failure as a KafkaRecordsError of the batch. */
function codecError(e: unknown, name: CompressionName, at: BatchPosition): KafkaRecordsError {
  if (e instanceof KafkaRecordsError) return e;
  const tooLarge = (e as { code?: unknown } | null)?.code === "DECOMPRESSED_TOO_LARGE";
  return at.error(
    tooLarge ? "DECOMPRESSED_TOO_LARGE" : "COMPRESSION_FAILED",
    `${name}: ${(e as Error)?.message ?? String(e)}`,
    0,
    e,
  );
}

/** What a codec returned, checked: bytes, within the cap. */
function checked(data: unknown, maxBytes: number): Uint8Array {
  if (!(data instanceof Uint8Array)) throw new Error(`the codec returned ${typeof data}, not a Uint8Array`);
  if (data.length > maxBytes) {
    throw Object.assign(new Error(`decompressed ${data.length} bytes, above the cap of ${maxBytes}`), {
      code: "DECOMPRESSED_TOO_LARGE",
    });
  }
  return data;
}

/**
 * Decompresses `payload` with the codec for `name`, then runs `then` on the result; returns a
 * Promise when the codec is asynchronous. A missing codec calls `missing` instead (the batch
 * keeps its header; its records throw).
 */
export function decompress(
  name: CompressionName,
  payload: Uint8Array,
  magic: 0 | 1 | 2,
  ctx: Context,
  at: BatchPosition,
  then: (data: Uint8Array) => void,
  missing: (e: KafkaRecordsError) => void,
): Promise<void> | undefined {
  const codec = codecFor(name, ctx.codecs);
  if (codec === undefined) {
    missing(at.error("UNSUPPORTED_COMPRESSION", missingCodecReason(name), 0));
    return undefined;
  }
  const maxBytes = ctx.maxBytes;
  let result: MaybePromise<Uint8Array>;
  try {
    result = codec.decompress(payload, { maxBytes, magic });
    if (!(result instanceof Promise)) result = checked(result, maxBytes);
  } catch (e) {
    throw codecError(e, name, at);
  }
  if (!(result instanceof Promise)) {
    then(result);
    return undefined;
  }
  return result.then(
    (data) => {
      let bytes: Uint8Array;
      try {
        bytes = checked(data, maxBytes);
      } catch (e) {
        throw codecError(e, name, at);
      }
      then(bytes);
    },
    (e) => {
      throw codecError(e, name, at);
    },
  );
}
