/**
 * The error hierarchy of kafka-wire. Every failure of an encoder or decoder is a
 * {@link KafkaWireError}: a stable `code`, the field `path` inside the message and the byte
 * `offset` where it happened.
 */

import { NOT_ASCII } from "./ascii.js";

/** Stable error codes; match on these, not on message text. */
export type KafkaWireErrorCode =
  /** Fewer bytes remain than the field needs (a truncated or lying length). */
  | "BUFFER_UNDERFLOW"
  /** A length prefix is negative (other than the null marker) or larger than the bytes that remain. */
  | "INVALID_LENGTH"
  /** An unsigned varint longer than 5 bytes (varlong: 10) or above its type's range. */
  | "INVALID_VARINT"
  /** null in a field that is not nullable in this version. */
  | "NULL_NOT_ALLOWED"
  /** A field whose value is undefined (encode and toJson need every field; `create(init)` fills them). */
  | "MISSING_FIELD"
  /** A string over 32767 UTF-8 bytes (Kafka's limit in every version). */
  | "STRING_TOO_LONG"
  /** An integer outside its type's range, or not an integer. */
  | "INT_OUT_OF_RANGE"
  /** A value of the wrong JavaScript type (e.g. a number where int64 needs a bigint). */
  | "INVALID_VALUE"
  /** A string that is not valid UTF-16 (lone surrogate) or not valid UTF-8 (strict decoding). */
  | "INVALID_STRING"
  /** A uuid that is not 22 characters of Kafka's URL-safe base64. */
  | "INVALID_UUID"
  /** A version outside the message's validVersions. */
  | "UNSUPPORTED_VERSION"
  /** A non-default value in a field (or tagged field) that the requested version does not have. */
  | "FIELD_NOT_IN_VERSION"
  /** Bytes left after the message was decoded. */
  | "TRAILING_BYTES"
  /** A tagged field whose payload did not consume exactly its declared size. */
  | "TAGGED_FIELD_SIZE"
  /** Unknown tagged fields that collide with known tags or are not in ascending order. */
  | "INVALID_TAGGED_FIELDS"
  /** JSON input that does not match Kafka's JsonConverter format. */
  | "INVALID_JSON"
  /** The caller's target buffer is too small for encodeInto. */
  | "BUFFER_TOO_SMALL"
  /** A record batch or record that breaks Kafka's record format (framing, counts, sizes, attributes). */
  | "CORRUPT_RECORD"
  /** A record batch's CRC-32C (legacy message: CRC-32) does not match its bytes. */
  | "CRC_MISMATCH"
  /** A batch's compression codec is unknown, or no codec for it was passed in `codecs`. */
  | "UNSUPPORTED_COMPRESSION"
  /** A compressed payload that the codec cannot decompress (or compress) as given. */
  | "COMPRESSION_FAILED"
  /** Decompressed records larger than the `maxDecompressedBytes` cap (or than the size the format declares). */
  | "DECOMPRESSED_TOO_LARGE"
  /** A record set holding more records than the `maxRecords` cap of `decodeRecords` (default 1,000,000). */
  | "TOO_MANY_RECORDS"
  /** An internal-topic record (or topic) the schema set has no schemas for (`internalTopics`). */
  | "UNKNOWN_RECORD_TYPE";

/**
 * A brand every kafka-wire error carries under a registry-wide symbol: the names of its class and
 * of every ancestor up to {@link KafkaWireError} (`["KafkaRecordsError", "KafkaDecodeError",
 * "KafkaWireError"]`). `instanceof` checks it, so it works across copies of the library: the ESM
 * and CommonJS builds loaded in one process, or two installed versions, where plain prototype
 * checks fail.
 */
const BRAND = Symbol.for("kafka-wire.error");

function brandOf(value: unknown): unknown {
  return typeof value === "object" && value !== null ? (value as { [BRAND]?: unknown })[BRAND] : undefined;
}

/** A class's own name, from the `name` getter its prototype defines (a literal: minifiers keep it). */
function ownName(prototype: object): string | undefined {
  const getter = Object.getOwnPropertyDescriptor(prototype, "name")?.get;
  return getter === undefined ? undefined : String(getter.call(undefined));
}

/** Base class of every error kafka-wire throws from encoding and decoding. */
export class KafkaWireError extends Error {
  /**
   * True for an error of this class or a subclass, from this copy of the library or another
   * (ESM/CJS, another version): the brand names this class. Subclasses inherit this check.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    const name = ownName(this.prototype);
    // A subclass (of a user's) that names itself nothing of its own: the ordinary prototype check.
    if (name === undefined) return Function.prototype[Symbol.hasInstance].call(this, value);
    const chain = brandOf(value);
    return Array.isArray(chain) && chain.includes(name);
  }

  /** Stable machine-readable code. */
  readonly code: KafkaWireErrorCode;
  /** What went wrong, without the location. */
  readonly reason: string;
  /**
   * Field path inside the message, in the generated property names:
   * `topology.subtopologies[2].sourceTopics[0]`; "" for the message itself.
   */
  path: string;
  /** Byte offset in the input (decode) or output (encode) where the problem was found; -1 if none. */
  readonly offset: number;

  constructor(code: KafkaWireErrorCode, reason: string, offset: number, path = "", options?: { cause?: unknown }) {
    super(reason, options);
    this.code = code;
    this.reason = reason;
    this.offset = offset;
    this.path = path;
    this.message = this.describe();
    const chain: string[] = [];
    for (
      let p: object | null = Object.getPrototypeOf(this);
      p !== null && p !== Error.prototype;
      p = Object.getPrototypeOf(p)
    ) {
      const name = ownName(p);
      if (name !== undefined) chain.push(name);
    }
    Object.defineProperty(this, BRAND, { value: chain });
  }

  /** The class name, `"KafkaWireError"` (subclasses give their own), as stack traces and logs show it. */
  override get name(): string {
    return "KafkaWireError";
  }

  /**
   * Prepends a path segment (a property name, or `[i]` for an array element) as the error
   * travels up through the generated struct functions.
   * @internal
   */
  prependPath(segment: string): this {
    if (this.path === "") this.path = segment;
    else this.path = this.path.startsWith("[") ? segment + this.path : `${segment}.${this.path}`;
    this.message = this.describe();
    return this;
  }

  private describe(): string {
    const where = this.path === "" ? "" : ` at ${this.path}`;
    const at = this.offset >= 0 ? ` (byte offset ${this.offset})` : "";
    return `${this.reason}${where}${at}`;
  }
}

/** Thrown by `decode` and `fromJson`: the input bytes or JSON are not a valid message. */
export class KafkaDecodeError extends KafkaWireError {
  /** Always `"KafkaDecodeError"`. */
  override get name(): string {
    return "KafkaDecodeError";
  }
}

/** Thrown by `encode`, `encodeInto`, `size` and `toJson`: the message cannot be written in this version. */
export class KafkaEncodeError extends KafkaWireError {
  /** Always `"KafkaEncodeError"`. */
  override get name(): string {
    return "KafkaEncodeError";
  }
}

/**
 * A {@link KafkaDecodeError} inside a record set (`decodeRecords`): also says which batch.
 * `offset` is the byte offset in the record set; for a problem inside a compressed batch's
 * records it is the batch's own offset, and `reason` gives the position in the decompressed bytes.
 */
export class KafkaRecordsError extends KafkaDecodeError {
  /** The failing batch's base offset (a legacy entry's offset field), or null when the batch header itself is unreadable. */
  readonly baseOffset: bigint | null;
  /** Byte offset of the failing batch in the record set. */
  readonly batchOffset: number;

  constructor(
    code: KafkaWireErrorCode,
    reason: string,
    offset: number,
    path: string,
    baseOffset: bigint | null,
    batchOffset: number,
    options?: { cause?: unknown },
  ) {
    super(code, reason, offset, path, options);
    this.baseOffset = baseOffset;
    this.batchOffset = batchOffset;
  }

  /** Always `"KafkaRecordsError"`. */
  override get name(): string {
    return "KafkaRecordsError";
  }
}

/**
 * Adds a location to an error thrown inside a generated struct function. Errors that are not
 * ours (a TypeError from a value of the wrong shape) are wrapped, so callers only ever see
 * {@link KafkaWireError}s.
 * @internal
 */
export function withPath(
  error: unknown,
  field: string,
  index: number,
  offset: number,
  decoding: boolean,
): KafkaWireError {
  // Not an error: the codec's request to encode again exactly (see NOT_ASCII); passed on as it is.
  if (error === NOT_ASCII) return error as unknown as KafkaWireError;
  let e: KafkaWireError;
  if (error instanceof KafkaWireError) {
    e = error;
  } else {
    const detail = error instanceof Error ? error.message : String(error);
    e = decoding
      ? new KafkaDecodeError("INVALID_VALUE", `unexpected failure: ${detail}`, offset, "", { cause: error })
      : new KafkaEncodeError("INVALID_VALUE", `value has the wrong shape: ${detail}`, offset, "", { cause: error });
  }
  if (index >= 0) e.prependPath(`[${index}]`);
  if (field !== "") e.prependPath(field);
  return e;
}

/**
 * A non-default value in a field that `version` does not have (Kafka throws
 * `UnsupportedVersionException` here; only `ignorable` fields are silently dropped).
 * @internal
 */
export function fieldNotInVersion(field: string, version: number, value?: unknown): KafkaEncodeError {
  // Called as `fieldNotInVersion(name, version, v.name)` when the value is not its default;
  // undefined is not a value but a missing field (older generated code passes no value).
  if (arguments.length > 2 && value === undefined) {
    return new KafkaEncodeError("MISSING_FIELD", "the field is missing (undefined)", -1);
  }
  return new KafkaEncodeError(
    "FIELD_NOT_IN_VERSION",
    `${field} has a non-default value, but version ${version} does not have this field`,
    -1,
  );
}
