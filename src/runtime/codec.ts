/**
 * The codec object every generated message exports, built once here from the generated
 * per-message functions so that version checks, allocation and framing rules live in one place.
 */

import { setAsciiSizing } from "./ascii.js";
import { KafkaDecodeError, KafkaEncodeError } from "./errors.js";
import { parseJson } from "./json.js";
import { Reader, type DecodeOptions } from "./reader.js";
import { allocate } from "./pool.js";
import type { MessageTable } from "./table.js";
import { tableFromJson, tableToJson } from "./table-json.js";
import { Writer } from "./writer.js";
import type { MessageType, VersionRange } from "./wire.js";

/**
 * Encoder, decoder and JSON converter of one message, for every version it has.
 *
 * Versions are Kafka API versions (int16); a version outside `validVersions` is an
 * `UNSUPPORTED_VERSION` error on every method.
 */
export interface MessageCodec<T, K extends number | null = number | null> {
  /** The schema's name, e.g. `StreamsGroupHeartbeatRequest`. */
  readonly name: string;
  /**
   * The api key (int16; a literal type in generated codecs, e.g. `3` for MetadataRequest), or
   * null for non-API messages and for design drafts whose key is unassigned (`TBD`).
   */
  readonly apiKey: K;
  /** The schema's `"type"`: request, response, header, data, metadata, coordinator-key or coordinator-value. */
  readonly type: MessageType;
  /** The versions this codec encodes and decodes (the schema's `validVersions`). */
  readonly validVersions: VersionRange;
  /** Versions that use compact types and tagged fields (KIP-482); null when none. */
  readonly flexibleVersions: VersionRange | null;
  /**
   * The schema's `headerVersions` (requests and responses only): the header version of each
   * range of api versions, ranges ascending and together covering `validVersions`. Absent when
   * the schema has none: framing then derives the header version from `flexibleVersions`
   * (see `requestHeaderVersion` in the runtime's framing).
   */
  readonly headerVersions?: readonly HeaderVersionRange[];
  /**
   * The schema's `latestVersionUnstable` (requests only): `validVersions.highest` is still under
   * development, and a protocol leaves it out unless asked (`ProtocolDefinition.unstableVersions`).
   */
  readonly latestVersionUnstable?: boolean;
  /**
   * Encodes the message body (no size prefix, no header) into a new Uint8Array of exactly
   * `size(message, version)` bytes. Results of 65..4096 bytes are views into a shared 64 KiB
   * slab (as Node's pooled Buffers are): they never overlap, but `result.buffer` is larger than
   * the result, so do not transfer or detach it; use {@link encodeInto} for a buffer of your own.
   * @throws KafkaEncodeError with the field path when a value is out of range, null where not
   *   nullable, too long, or set to a non-default value in a field the version lacks.
   */
  encode(message: T, version: number): Uint8Array;
  /**
   * Encodes into `target` from `offset` (default 0); returns the offset after the last byte.
   * @throws KafkaEncodeError `BUFFER_TOO_SMALL` when the message does not fit (nothing is
   *   written then), or as {@link encode}.
   */
  encodeInto(message: T, version: number, target: Uint8Array, offset?: number): number;
  /**
   * Measures the message once and returns its size with a writer for it: for callers that put
   * several parts into one buffer (a frame's size prefix, header and body) without measuring twice.
   * The plan is valid while the message is unchanged.
   * @throws KafkaEncodeError as {@link encode}.
   */
  plan(message: T, version: number): EncodePlan;
  /** The exact encoded size in bytes. @throws KafkaEncodeError as {@link encode}. */
  size(message: T, version: number): number;
  /**
   * Decodes a message body. `bytes` and `records` fields are views into `bytes` (no copy): keep
   * `bytes` unchanged while you use them.
   * @throws KafkaDecodeError with the field path and byte offset when the bytes are not a valid
   *   message of this version, or when bytes remain after it (unless `allowTrailingBytes`).
   */
  decode(bytes: Uint8Array, version: number, options?: DecodeOptions): T;
  /**
   * Decodes one message at `offset` and returns it with the offset after its last byte
   * (for messages embedded in a larger buffer, e.g. after a header).
   */
  decodeFrom(
    bytes: Uint8Array,
    offset: number,
    end: number,
    version: number,
    options?: DecodeOptions,
  ): {
    /** The decoded message. */
    message: T;
    /** The offset after the message's last byte (where the next data starts). */
    offset: number;
  };
  /**
   * A new message from `init`: every field `init` omits, at any depth (structs, arrays of
   * structs), takes its schema default. Never mutates `init`; arrays of structs are copied,
   * other values (strings, bytes, arrays of primitives) are taken as they are. Values of the
   * wrong type are kept as they are, for encode to report with their path.
   */
  create(init?: Init<T>): T;
  /**
   * Kafka's JSON form (JsonConverter) of the message in `version`, as JSON text (a string, not an
   * object: int64 values are written as exact integers, which `JSON.parse` would round beyond
   * 2^53; parse it with a lossless parser, or pass it to `fromJson`, to keep them).
   * @throws KafkaEncodeError
   */
  toJson(message: T, version: number): string;
  /**
   * Reads Kafka's JSON form, from text (numbers kept exact) or an already parsed object.
   * @throws KafkaDecodeError `INVALID_JSON` with the field path.
   */
  fromJson(json: string | object, version: number): T;
}

/** One entry of a schema's `headerVersions`: api versions `lowest..highest` use header version `header`. */
export interface HeaderVersionRange extends VersionRange {
  /** The request (or response) header version of these api versions. */
  readonly header: number;
}

/** A measured message, ready to be written (see {@link MessageCodec.plan}). */
export interface EncodePlan {
  /** The encoded size in bytes. */
  readonly size: number;
  /**
   * Writes the message at `offset`; returns the offset after the last byte.
   * @throws KafkaEncodeError `BUFFER_TOO_SMALL` when `size` bytes do not fit there, or when a
   *   value is out of range (checked while writing).
   */
  writeTo(target: Uint8Array, offset: number): number;
}

/**
 * The init shape of a message or struct `T` (as protobuf-es's init shapes): every field
 * optional, at any depth: a struct field takes an `Init` of its struct, an array of structs an
 * array of them. Unknown tagged fields are taken as they are.
 */
export type Init<T> = {
  [P in keyof T]?: P extends "_unknownTaggedFields" ? T[P] : InitValue<T[P]>;
};

/**
 * The init shape of one field value (distributes over `| null`): arrays of structs may be
 * readonly (their elements are copied); other values are taken as they are.
 */
export type InitValue<V> = V extends readonly (infer E)[]
  ? E extends string | number | bigint | boolean | Uint8Array
    ? V
    : readonly InitValue<E>[]
  : V extends string | number | bigint | boolean | null | undefined | Uint8Array
    ? V
    : V extends object
      ? Init<V>
      : V;

/**
 * What a generated module hands to {@link defineMessage}.
 * @internal
 */
export interface MessageDefinition<T, K extends number | null = number | null> {
  readonly name: string;
  readonly apiKey: K;
  readonly type: MessageType;
  readonly validVersions: VersionRange;
  readonly flexibleVersions: VersionRange | null;
  /** See {@link MessageCodec.headerVersions}; omitted when the schema has none. */
  readonly headerVersions?: readonly HeaderVersionRange[];
  /** See {@link MessageCodec.latestVersionUnstable}; omitted when false. */
  readonly latestVersionUnstable?: boolean;
  size(message: T, version: number, lens: number[]): number;
  write(w: Writer, message: T, version: number): void;
  read(r: Reader, version: number): T;
  /** The struct of `init` with every omitted field at its default (at any depth). */
  create(init?: Init<T>): T;
  /**
   * The message's field table: Kafka's JSON form is interpreted from it (table-json.ts) unless
   * `toJson` and `fromJson` are given (code from generators before 0.2 passes those instead).
   */
  readonly fields?: MessageTable;
  toJson?(message: T, version: number): string;
  fromJson?(json: unknown, version: number): T;
}

/** The field table JSON is interpreted from. */
function tableOf(def: MessageDefinition<unknown>): MessageTable {
  if (def.fields === undefined) throw new Error(`the definition of ${def.name} has neither toJson/fromJson nor fields`);
  return def.fields;
}

function checkVersion(def: MessageDefinition<unknown>, version: number, decoding: boolean): void {
  const { lowest, highest } = def.validVersions;
  if (!Number.isInteger(version) || version < lowest || version > highest) {
    // A version from JSON or a command line may arrive as a string ("0"), which would otherwise
    // read as a missing version 0.
    const reason =
      typeof version === "number"
        ? `${def.name} has no version ${String(version)} (valid versions ${lowest}-${highest})`
        : `the version must be a number, got ${typeof version} ${JSON.stringify(version) ?? String(version)} (${def.name} has versions ${lowest}-${highest})`;
    throw decoding
      ? new KafkaDecodeError("UNSUPPORTED_VERSION", reason, -1)
      : new KafkaEncodeError("UNSUPPORTED_VERSION", reason, -1);
  }
}

/** The message itself must be an object (its fields' errors carry their own paths). */
function checkMessage(def: MessageDefinition<unknown>, message: unknown): void {
  if (typeof message !== "object" || message === null || Array.isArray(message)) {
    const got = message === null ? "null" : Array.isArray(message) ? "an array" : typeof message;
    throw new KafkaEncodeError("INVALID_VALUE", `a ${def.name} must be an object, got ${got}`, -1);
  }
}

/**
 * After the write pass: a message whose values change between measuring and writing (a getter,
 * a Proxy) is refused, and so is a write pass that did not consume exactly the lengths the size
 * pass recorded in `lens` (each must be read back in the order and under the conditions it was
 * measured). Two comparisons, whatever the message's size.
 */
function checkWritten(def: MessageDefinition<unknown>, w: Writer, size: number): void {
  if (w.pos !== size) {
    throw new KafkaEncodeError(
      "INVALID_VALUE",
      `${def.name} changed while it was being encoded (measured ${size} bytes, wrote ${w.pos})`,
      -1,
    );
  }
  if (w.li !== w.lens.length) {
    throw new KafkaEncodeError(
      "INVALID_VALUE",
      `internal error: ${def.name}'s write pass used ${w.li} of the ${w.lens.length} lengths its size pass recorded (the message changed while it was being encoded, or its size and write functions disagree)`,
      -1,
    );
  }
}

/** Kafka frames and lengths are int32: no message can be longer than 2^31-1 bytes. */
function checkSize(def: MessageDefinition<unknown>, size: number): number {
  if (size > 0x7fffffff) {
    throw new KafkaEncodeError("INVALID_LENGTH", `${def.name} would take ${size} bytes, more than 2^31-1`, -1);
  }
  return size;
}

/**
 * `encode`'s first try (see ascii.ts): every string measured by its `.length` and written as
 * ASCII. Null when a string is not ASCII or anything fails; the caller then encodes exactly, which
 * reports any error as the exact passes find it. Works with any generated code: only the runtime's
 * string functions change behaviour in this mode.
 */
function encodeAscii<T>(def: MessageDefinition<T>, message: T, version: number): Uint8Array | null {
  const was = setAsciiSizing(true);
  try {
    const lens: number[] = [];
    const size = def.size(message, version, lens);
    if (size > 0x7fffffff) return null; // refused by the exact pass, with its error
    const out = allocate(size);
    const w = new Writer(out, 0, lens, true);
    def.write(w, message, version);
    return w.pos === size && w.li === lens.length ? out : null;
  } catch {
    return null;
  } finally {
    setAsciiSizing(was);
  }
}

/**
 * The exact size pass: strings measured in UTF-8 bytes, their lengths recorded in `lens`. ASCII
 * sizing is switched off for it even inside an `encode`'s first try (a getter on the message may
 * call another codec).
 */
function measure<T>(def: MessageDefinition<T>, message: T, version: number, lens: number[]): number {
  const was = setAsciiSizing(false);
  try {
    return checkSize(def as MessageDefinition<unknown>, def.size(message, version, lens));
  } finally {
    setAsciiSizing(was);
  }
}

/**
 * Builds the public codec from a generated definition.
 * @internal
 */
export function defineMessage<T, K extends number | null = number | null>(
  def: MessageDefinition<T, K>,
): MessageCodec<T, K> {
  const untyped = def as MessageDefinition<unknown>;
  const codec: MessageCodec<T, K> = {
    name: def.name,
    apiKey: def.apiKey,
    type: def.type,
    validVersions: def.validVersions,
    flexibleVersions: def.flexibleVersions,
    ...(def.headerVersions === undefined ? {} : { headerVersions: def.headerVersions }),
    ...(def.latestVersionUnstable === true ? { latestVersionUnstable: true } : {}),
    encode(message, version) {
      checkVersion(untyped, version, false);
      checkMessage(untyped, message);
      const ascii = encodeAscii(def, message, version);
      if (ascii !== null) return ascii;
      const lens: number[] = [];
      const size = measure(def, message, version, lens);
      const out = allocate(size);
      const w = new Writer(out, 0, lens);
      def.write(w, message, version);
      checkWritten(untyped, w, size);
      return out;
    },
    encodeInto(message, version, target, offset = 0) {
      checkVersion(untyped, version, false);
      if (!(target instanceof Uint8Array)) {
        throw new KafkaEncodeError("INVALID_VALUE", "target must be a Uint8Array", -1);
      }
      if (!Number.isInteger(offset) || offset < 0 || offset > target.length) {
        throw new KafkaEncodeError(
          "BUFFER_TOO_SMALL",
          `offset ${offset} is outside the target of ${target.length} bytes`,
          offset,
        );
      }
      checkMessage(untyped, message);
      const lens: number[] = [];
      const size = measure(def, message, version, lens);
      if (target.length - offset < size) {
        throw new KafkaEncodeError(
          "BUFFER_TOO_SMALL",
          `message needs ${size} bytes, target has ${target.length - offset} after offset ${offset}`,
          offset,
        );
      }
      // A view of exactly the measured range: nothing outside it can be written.
      const w = new Writer(target.subarray(offset, offset + size), 0, lens);
      def.write(w, message, version);
      checkWritten(untyped, w, size);
      return offset + size;
    },
    plan(message, version) {
      checkVersion(untyped, version, false);
      checkMessage(untyped, message);
      const lens: number[] = [];
      const size = measure(def, message, version, lens);
      return {
        size,
        writeTo(target, offset) {
          if (
            !(target instanceof Uint8Array) ||
            !Number.isInteger(offset) ||
            offset < 0 ||
            target.length - offset < size
          ) {
            throw new KafkaEncodeError("BUFFER_TOO_SMALL", `message needs ${size} bytes at offset ${offset}`, offset);
          }
          const w = new Writer(target.subarray(offset, offset + size), 0, lens);
          def.write(w, message, version);
          checkWritten(untyped, w, size);
          return offset + size;
        },
      };
    },
    size(message, version) {
      checkVersion(untyped, version, false);
      checkMessage(untyped, message);
      return measure(def, message, version, []);
    },
    decode(bytes, version, options) {
      checkVersion(untyped, version, true);
      if (!(bytes instanceof Uint8Array)) {
        throw new KafkaDecodeError("INVALID_VALUE", "input must be a Uint8Array", -1);
      }
      const r = new Reader(bytes, 0, bytes.length, options ?? undefined);
      const message = def.read(r, version);
      if (r.pos !== r.end && options?.allowTrailingBytes !== true) {
        throw new KafkaDecodeError("TRAILING_BYTES", `${r.end - r.pos} bytes remain after the message`, r.pos);
      }
      return message;
    },
    decodeFrom(bytes, offset, end, version, options) {
      checkVersion(untyped, version, true);
      if (!(bytes instanceof Uint8Array)) {
        throw new KafkaDecodeError("INVALID_VALUE", "input must be a Uint8Array", -1);
      }
      if (!(Number.isInteger(offset) && Number.isInteger(end) && offset >= 0 && offset <= end && end <= bytes.length)) {
        throw new KafkaDecodeError(
          "INVALID_LENGTH",
          `range ${offset}..${end} is outside the input of ${bytes.length} bytes`,
          offset,
        );
      }
      const r = new Reader(bytes, offset, end, options ?? undefined);
      const message = def.read(r, version);
      return { message, offset: r.pos };
    },
    // null is no init, as undefined (property reads on it would throw).
    create: (init) => def.create(init === null ? undefined : init),
    toJson(message, version) {
      // The same checks as encode (ranges, types, nulls, versions), so that no JSON is written
      // for a message that could not go on the wire.
      const plan = codec.plan(message, version);
      plan.writeTo(allocate(plan.size), 0);
      return def.toJson !== undefined ? def.toJson(message, version) : tableToJson(tableOf(def), message, version);
    },
    fromJson(json, version) {
      checkVersion(untyped, version, true);
      const value = typeof json === "string" ? parseJson(json) : json;
      return def.fromJson !== undefined
        ? def.fromJson(value, version)
        : (tableFromJson(tableOf(def), value, version) as T);
    },
  };
  return Object.freeze(codec);
}

const OBJECT_PROTOTYPE = Object.prototype as Record<PropertyKey, unknown>;

/**
 * `init[key]` for a generated `create`, as an own property only: a value inherited from
 * `Object.prototype` (a polluted prototype, or a member such as `toString`) is undefined, so it
 * cannot stand in for an omitted field. The ownership check runs only when the value read is the
 * prototype's.
 * @internal
 */
export function ownField<T extends object, K extends keyof T>(init: T, key: K): T[K] | undefined {
  const value = init[key];
  return value === undefined || value !== OBJECT_PROTOTYPE[key as PropertyKey] || Object.hasOwn(init, key)
    ? value
    : undefined;
}

/**
 * A struct field's value for a generated `create`: an object goes through `create` (filling its
 * omitted fields); anything else (a wrong type) is kept as it is, for encode to report with its
 * path.
 * @internal
 */
export function initStruct<I extends object, T>(init: I, create: (init: I) => T): T {
  return typeof init === "object" && init !== null && !Array.isArray(init) ? create(init) : (init as unknown as T);
}

/**
 * An array-of-structs field's value for a generated `create`: a new array of created structs
 * (elements that are not objects are kept as they are); anything but an array, or an array
 * over 2^31-1 elements, is kept as it is.
 * @internal
 */
export function initStructs<I extends object, T>(init: readonly I[], create: (init: I) => T): T[] {
  // Longer than Kafka's int32 array count: kept for encode to refuse, never walked.
  if (!Array.isArray(init) || init.length > 0x7fffffff) return init as unknown as T[];
  const out = new Array<T>(init.length);
  for (let i = 0; i < init.length; i++) out[i] = initStruct(init[i] as I, create);
  return out;
}
