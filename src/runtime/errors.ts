/**
 * The error hierarchy of kafka-wire. Every failure of an encoder or decoder is a
 * {@link KafkaWireError}: a stable `code`, the field `path` inside the message and the byte
 * `offset` where it happened.
 */

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
  | "BUFFER_TOO_SMALL";

/**
 * A brand every kafka-wire error carries (its class name, under a registry-wide symbol), so that
 * `instanceof` works across copies of the library: the ESM and CommonJS builds loaded in one
 * process, or two installed versions. Plain prototype checks would fail there.
 */
const BRAND = Symbol.for("kafka-wire.error");

function brandOf(value: unknown): unknown {
  return typeof value === "object" && value !== null ? (value as { [BRAND]?: unknown })[BRAND] : undefined;
}

/** Base class of every error kafka-wire throws from encoding and decoding. */
export class KafkaWireError extends Error {
  /** True for any kafka-wire error, from this copy of the library or another (ESM/CJS, another version). */
  static override [Symbol.hasInstance](value: unknown): boolean {
    const brand = brandOf(value);
    return brand === "KafkaWireError" || brand === "KafkaDecodeError" || brand === "KafkaEncodeError";
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
    Object.defineProperty(this, BRAND, { value: this.name });
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
  /** True for a decode error from this copy of the library or another (ESM/CJS, another version). */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return brandOf(value) === "KafkaDecodeError";
  }

  /** Always `"KafkaDecodeError"`. */
  override get name(): string {
    return "KafkaDecodeError";
  }
}

/** Thrown by `encode`, `encodeInto`, `size` and `toJson`: the message cannot be written in this version. */
export class KafkaEncodeError extends KafkaWireError {
  /** True for an encode error from this copy of the library or another (ESM/CJS, another version). */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return brandOf(value) === "KafkaEncodeError";
  }

  /** Always `"KafkaEncodeError"`. */
  override get name(): string {
    return "KafkaEncodeError";
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
