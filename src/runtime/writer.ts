/**
 * Encoding: a size pass, then one write pass into one pre-sized Uint8Array.
 *
 * The size pass (the `size*` functions) measures every string once and records its UTF-8 length
 * in a `lens` queue, as Kafka's `ObjectSerializationCache` does; the write pass ({@link Writer})
 * consumes the queue in the same order. Tagged-field and struct payload sizes go in the same
 * queue (reserved with {@link reserveLen}) because they are written before the payload.
 *
 * Wire formats are those of the Kafka protocol guide ("Protocol Primitive Types") and KIP-482
 * (compact types and tagged fields).
 */

import { asciiSizing, NOT_ASCII } from "./ascii.js";
import { KafkaEncodeError } from "./errors.js";
import { writeUuid } from "./base64.js";
import { utf8Length, writeUtf8 } from "./utf8.js";
import { MAX_STRING_BYTES, type UnknownTaggedField } from "./wire.js";

function rangeError(type: string, v: unknown, offset: number): KafkaEncodeError {
  // int64 and uvarlong take a bigint, every other type a number: a value of the right type is
  // out of range, anything else is the wrong type.
  const expected = type === "int64" || type === "uvarlong" ? "bigint" : "number";
  if (v === undefined) return missingField(offset);
  if (typeof v === expected) {
    return new KafkaEncodeError("INT_OUT_OF_RANGE", `${shown(String(v))} is not a valid ${type}`, offset);
  }
  return new KafkaEncodeError("INVALID_VALUE", `expected a ${expected} for ${type}, got ${describe(v)}`, offset);
}

/** Longest part of a string (or number text) an error message quotes; longer values are cut with "…". */
const SHOWN_CHARS = 40;

function shown(text: string): string {
  return text.length <= SHOWN_CHARS ? text : `${text.slice(0, SHOWN_CHARS)}…`;
}

/** {@link describe} of a number given as its decimal text (a JSON number read losslessly). */
export function describeNumber(text: string): string {
  return `number ${shown(text)}`;
}

/**
 * A short description of a value for error messages: its type and, for scalars, the value itself
 * (strings quoted and cut after 40 characters): `number 3000000000`, `string "abc"`,
 * `boolean true`, `an array (3 elements)`, `a Uint8Array (2 bytes)`, `object`, `null`.
 */
export function describe(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return `an array (${v.length} elements)`;
  if (v instanceof Uint8Array) return `a Uint8Array (${v.length} bytes)`;
  switch (typeof v) {
    case "string": {
      const text = JSON.stringify(v.length <= SHOWN_CHARS ? v : v.slice(0, SHOWN_CHARS));
      return v.length <= SHOWN_CHARS ? `string ${text}` : `string ${text.slice(0, -1)}…" (${v.length} characters)`;
    }
    case "number":
      return describeNumber(String(v));
    case "boolean":
      return `boolean ${String(v)}`;
    case "bigint":
      return `bigint ${shown(v.toString())}`;
    default:
      return typeof v;
  }
}

/** Bytes an unsigned varint of `v` (0..2^32-1) takes: 1..5. */
export function uvarintSize(v: number): number {
  if (v < 0x80) return 1;
  if (v < 0x4000) return 2;
  if (v < 0x200000) return 3;
  if (v < 0x10000000) return 4;
  return 5;
}

/**
 * The null-check every non-nullable field gets in the size pass: null is `NULL_NOT_ALLOWED`,
 * undefined (no default parameter here: it would turn undefined into null) {@link missingField}.
 */
export function nullNotAllowed(value: null | undefined): KafkaEncodeError {
  return value === undefined
    ? missingField()
    : new KafkaEncodeError("NULL_NOT_ALLOWED", "null is not allowed in this field in this version", -1);
}

/** A field whose value is undefined: the message lacks it (`create(init)` fills every field). */
export function missingField(offset = -1): KafkaEncodeError {
  return new KafkaEncodeError("MISSING_FIELD", "the field is missing (undefined)", offset);
}

function checkedUtf8Length(s: unknown): number {
  if (typeof s !== "string") throw new KafkaEncodeError("INVALID_VALUE", `expected a string, got ${describe(s)}`, -1);
  const len = utf8Length(s);
  if (len > MAX_STRING_BYTES) {
    throw new KafkaEncodeError(
      "STRING_TOO_LONG",
      `string of ${len} UTF-8 bytes is longer than Kafka's limit of ${MAX_STRING_BYTES}`,
      -1,
    );
  }
  return len;
}

/**
 * Size of a non-nullable compact string (flexible versions); records its UTF-8 length in `lens`
 * (in encode's ASCII-first pass, see ascii.ts: takes its `.length` and records nothing).
 */
export function sizeCompactString(s: string, lens: number[]): number {
  if (asciiSizing && typeof s === "string" && s.length <= MAX_STRING_BYTES) {
    const n = s.length;
    return n < 0x7f ? n + 1 : uvarintSize(n + 1) + n;
  }
  if (s == null) throw nullNotAllowed(s);
  const len = checkedUtf8Length(s);
  lens.push(len);
  return uvarintSize(len + 1) + len;
}

/** Size of a nullable compact string: null is one byte and records nothing. */
export function sizeCompactNullableString(s: string | null, lens: number[]): number {
  if (s === null) return 1;
  return sizeCompactString(s, lens);
}

/** Size of a classic string (int16 length prefix); records its UTF-8 length in `lens` (as `sizeCompactString`). */
export function sizeString(s: string, lens: number[]): number {
  if (asciiSizing && typeof s === "string" && s.length <= MAX_STRING_BYTES) return 2 + s.length;
  if (s == null) throw nullNotAllowed(s);
  const len = checkedUtf8Length(s);
  lens.push(len);
  return 2 + len;
}

/** Size of a classic nullable string: null is `ffff`. */
export function sizeNullableString(s: string | null, lens: number[]): number {
  if (s === null) return 2;
  return sizeString(s, lens);
}

function checkBytes(b: unknown): Uint8Array {
  if (!(b instanceof Uint8Array)) {
    if (b == null) throw nullNotAllowed(b);
    throw new KafkaEncodeError("INVALID_VALUE", `expected a Uint8Array, got ${describe(b)}`, -1);
  }
  return b;
}

/** Size of compact bytes (or records): unsigned varint length+1, then the bytes. */
export function sizeCompactBytes(b: Uint8Array): number {
  const n = checkBytes(b).length;
  return uvarintSize(n + 1) + n;
}

/** Size of nullable compact bytes. */
export function sizeCompactNullableBytes(b: Uint8Array | null): number {
  return b === null ? 1 : sizeCompactBytes(b);
}

/** Size of classic bytes (or records): int32 length, then the bytes. */
export function sizeBytes(b: Uint8Array): number {
  return 4 + checkBytes(b).length;
}

/** Size of nullable classic bytes: null is `ffffffff`. */
export function sizeNullableBytes(b: Uint8Array | null): number {
  return b === null ? 4 : sizeBytes(b);
}

/** Checks an array field's value; returns its length (at most 2^31-1, Kafka's int32 array count). */
export function arrayLength(a: readonly unknown[]): number {
  if (!Array.isArray(a)) {
    if (a == null) throw nullNotAllowed(a);
    throw new KafkaEncodeError("INVALID_VALUE", `expected an array, got ${describe(a)}`, -1);
  }
  if (a.length > 0x7fffffff) {
    throw new KafkaEncodeError("INVALID_LENGTH", `array of ${a.length} elements is longer than 2^31-1`, -1);
  }
  return a.length;
}

/** Size of a classic array's length prefix (an int32: 4), after checking the value as {@link arrayLength} does. */
export function sizeArrayPrefix(a: readonly unknown[]): number {
  arrayLength(a);
  return 4;
}

/** Size of a compact array's length prefix (an unsigned varint of length+1), after checking the value as {@link arrayLength} does. */
export function sizeCompactArrayPrefix(a: readonly unknown[]): number {
  return uvarintSize(arrayLength(a) + 1);
}

/** Size of a compact array's length prefix. */
export function sizeCompactArrayLength(n: number): number {
  return uvarintSize(n + 1);
}

/** Checks a struct field's value is an object. */
export function checkStruct(v: unknown): void {
  if (typeof v !== "object" || v === null || Array.isArray(v) || v instanceof Uint8Array) {
    if (v == null) throw nullNotAllowed(v);
    throw new KafkaEncodeError("INVALID_VALUE", `expected an object, got ${describe(v)}`, -1);
  }
}

/**
 * Unknown tagged fields on a struct written in a version that has no tagged fields: an error, as
 * in Kafka ("Tagged fields were set, but version N of this message does not support them").
 */
export function checkNoTaggedFields(fields: readonly UnknownTaggedField[] | undefined, version: number): void {
  if (fields !== undefined && fields.length > 0) {
    throw new KafkaEncodeError(
      "FIELD_NOT_IN_VERSION",
      `${fields.length} unknown tagged field(s) set, but version ${version} has no tagged fields`,
      -1,
    );
  }
}

const NO_TAGS: readonly number[] = [];

/**
 * Size of the tagged-field section of a struct that has no known tagged fields: the count and
 * its unknown tagged fields (checked as {@link sizeUnknownTaggedFields} does).
 */
export function sizeUnknownTaggedSection(v: { readonly _unknownTaggedFields?: UnknownTaggedField[] }): number {
  const unknown = ownUnknownTaggedFields(v);
  return unknown === undefined ? 1 : sizeUnknownTaggedFields(unknown, NO_TAGS) + uvarintSize(unknown.length);
}

/** Writes what {@link sizeUnknownTaggedSection} measured: the count, then each unknown tagged field. */
export function writeUnknownTaggedSection(
  w: Writer,
  v: { readonly _unknownTaggedFields?: UnknownTaggedField[] },
): void {
  const unknown = ownUnknownTaggedFields(v);
  if (unknown === undefined) {
    w.uvarint(0);
    return;
  }
  w.uvarint(unknown.length);
  w.unknownTaggedFields(unknown, 0, Infinity);
}

/** Reserves a slot in `lens` for a size known only after measuring what follows. */
export function reserveLen(lens: number[]): number {
  return lens.push(0) - 1;
}

/**
 * A struct's `_unknownTaggedFields`, read as an own property only: one inherited from a prototype
 * (a polluted `Object.prototype`) is none, so it cannot add tagged fields to every struct. The
 * ownership check runs only when the property read finds something.
 */
export function ownUnknownTaggedFields(v: {
  readonly _unknownTaggedFields?: UnknownTaggedField[];
}): UnknownTaggedField[] | undefined {
  const fields = v._unknownTaggedFields;
  return fields === undefined || Object.hasOwn(v, "_unknownTaggedFields") ? fields : undefined;
}

/**
 * Size of the unknown tagged fields (tag, size, data each); checks that they are in ascending
 * order and do not reuse a known tag of this struct.
 */
export function sizeUnknownTaggedFields(fields: readonly UnknownTaggedField[], knownTags: readonly number[]): number {
  if (!Array.isArray(fields))
    throw new KafkaEncodeError(
      "INVALID_VALUE",
      `expected an array of unknown tagged fields, got ${describe(fields)}`,
      -1,
    );
  let size = 0;
  let previous = -1;
  for (const f of fields) {
    const tag = f?.tag;
    if (typeof tag !== "number" || tag >>> 0 !== tag || tag > 0x7fffffff || !(f.data instanceof Uint8Array)) {
      throw new KafkaEncodeError(
        "INVALID_TAGGED_FIELDS",
        "an unknown tagged field needs an integer tag 0..2^31-1 and Uint8Array data",
        -1,
      );
    }
    if (tag <= previous || knownTags.includes(tag)) {
      throw new KafkaEncodeError(
        "INVALID_TAGGED_FIELDS",
        `unknown tagged field ${tag} is out of ascending order or reuses a known tag`,
        -1,
      );
    }
    previous = tag;
    size += uvarintSize(tag) + uvarintSize(f.data.length) + f.data.length;
  }
  return size;
}

/**
 * Writes into one Uint8Array from `pos` on. Every method checks its value's range (the size
 * pass has already checked shapes and lengths) and advances `pos`.
 */
export class Writer {
  /** The output bytes: the whole target, of which this writer fills `pos` onwards. */
  readonly buf: Uint8Array;
  /** Created on the first 64-bit write: most messages have none, and a DataView costs an allocation. */
  private dataView: DataView | undefined;
  /** Offset in `buf` of the next byte to write. */
  pos: number;
  /** UTF-8 lengths and payload sizes recorded by the size pass, consumed in order. */
  readonly lens: number[];
  /** Index in `lens` of the next recorded length. */
  li = 0;
  /**
   * ASCII mode (see ascii.ts): strings were measured by `.length` and recorded nothing; each is
   * written one byte per UTF-16 unit, and one with a unit above 0x7f throws `NOT_ASCII`.
   */
  readonly ascii: boolean;

  constructor(buf: Uint8Array, offset: number, lens: number[], ascii = false) {
    this.buf = buf;
    this.pos = offset;
    this.lens = lens;
    this.ascii = ascii;
  }

  /** ASCII mode: `s`'s units at `p`, one byte each; returns the offset after them. @throws NOT_ASCII */
  private asciiAt(p: number, s: string): number {
    const buf = this.buf;
    const n = s.length;
    // OR-ing every unit tests them all with one branch; a non-ASCII unit's truncated byte is
    // harmless, since the message is then written again.
    let all = 0;
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      all |= c;
      buf[p + i] = c;
    }
    if (all > 0x7f) throw NOT_ASCII;
    return p + n;
  }

  private view(): DataView {
    return (this.dataView ??= new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength));
  }

  /** The next recorded length. */
  nextLen(): number {
    return this.lens[this.li++]!;
  }

  /** An int8 (-128..127), 1 byte. @throws KafkaEncodeError `INT_OUT_OF_RANGE`, or `INVALID_VALUE` for a non-number. */
  int8(v: number): void {
    if ((v << 24) >> 24 !== v) throw rangeError("int8", v, this.pos);
    this.buf[this.pos++] = v;
  }

  /** An int16 (-32768..32767), 2 bytes big-endian. @throws KafkaEncodeError `INT_OUT_OF_RANGE`, or `INVALID_VALUE` for a non-number. */
  int16(v: number): void {
    if ((v << 16) >> 16 !== v) throw rangeError("int16", v, this.pos);
    this.buf[this.pos++] = v >> 8;
    this.buf[this.pos++] = v;
  }

  /** A uint16 (0..65535), 2 bytes big-endian. @throws KafkaEncodeError `INT_OUT_OF_RANGE`, or `INVALID_VALUE` for a non-number. */
  uint16(v: number): void {
    if ((v & 0xffff) !== v) throw rangeError("uint16", v, this.pos);
    this.buf[this.pos++] = v >> 8;
    this.buf[this.pos++] = v;
  }

  /** An int32 (-2^31..2^31-1), 4 bytes big-endian. @throws KafkaEncodeError `INT_OUT_OF_RANGE`, or `INVALID_VALUE` for a non-number. */
  int32(v: number): void {
    if ((v | 0) !== v) throw rangeError("int32", v, this.pos);
    const p = this.pos;
    this.buf[p] = v >> 24;
    this.buf[p + 1] = v >> 16;
    this.buf[p + 2] = v >> 8;
    this.buf[p + 3] = v;
    this.pos = p + 4;
  }

  /** A uint32 (0..2^32-1), 4 bytes big-endian. @throws KafkaEncodeError `INT_OUT_OF_RANGE`, or `INVALID_VALUE` for a non-number. */
  uint32(v: number): void {
    if (v >>> 0 !== v) throw rangeError("uint32", v, this.pos);
    const p = this.pos;
    this.buf[p] = v >>> 24;
    this.buf[p + 1] = v >>> 16;
    this.buf[p + 2] = v >>> 8;
    this.buf[p + 3] = v;
    this.pos = p + 4;
  }

  /** An int64 (a bigint in -2^63..2^63-1), 8 bytes big-endian. @throws KafkaEncodeError `INT_OUT_OF_RANGE`, or `INVALID_VALUE` for a non-bigint. */
  int64(v: bigint): void {
    if (typeof v !== "bigint" || BigInt.asIntN(64, v) !== v) throw rangeError("int64", v, this.pos);
    this.view().setBigInt64(this.pos, v);
    this.pos += 8;
  }

  /** A float64 (IEEE 754 double, NaN and infinities included), 8 bytes big-endian. @throws KafkaEncodeError `INVALID_VALUE` for a non-number. */
  float64(v: number): void {
    if (typeof v !== "number") throw rangeError("float64", v, this.pos);
    this.view().setFloat64(this.pos, v);
    this.pos += 8;
  }

  /** A bool: 1 byte, 0 or 1. @throws KafkaEncodeError `INVALID_VALUE` for a non-boolean. */
  bool(v: boolean): void {
    if (typeof v !== "boolean") {
      if (v === undefined) throw missingField(this.pos);
      throw new KafkaEncodeError("INVALID_VALUE", `expected a boolean, got ${describe(v)}`, this.pos);
    }
    this.buf[this.pos++] = v ? 1 : 0;
  }

  /**
   * The elements of an int32 array (its length prefix is written by the caller), each
   * range-checked; one tight loop instead of a call per element.
   * @throws KafkaEncodeError `INT_OUT_OF_RANGE` / `INVALID_VALUE` at path `[i]`.
   */
  int32Array(a: readonly number[]): void {
    const buf = this.buf;
    let p = this.pos;
    for (let i = 0; i < a.length; i++, p += 4) {
      const v = a[i]!;
      if ((v | 0) !== v) {
        this.pos = p;
        throw rangeError("int32", v, p).prependPath(`[${i}]`);
      }
      buf[p] = v >> 24;
      buf[p + 1] = v >> 16;
      buf[p + 2] = v >> 8;
      buf[p + 3] = v;
    }
    this.pos = p;
  }

  /** The elements of an int16 array, each range-checked. @throws as {@link int32Array}. */
  int16Array(a: readonly number[]): void {
    const buf = this.buf;
    let p = this.pos;
    for (let i = 0; i < a.length; i++, p += 2) {
      const v = a[i]!;
      if ((v << 16) >> 16 !== v) {
        this.pos = p;
        throw rangeError("int16", v, p).prependPath(`[${i}]`);
      }
      buf[p] = v >> 8;
      buf[p + 1] = v;
    }
    this.pos = p;
  }

  /** Unsigned varint of 0..2^32-1 (KIP-482). */
  uvarint(v: number): void {
    let p = this.pos;
    const buf = this.buf;
    while (v >= 0x80) {
      buf[p++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    buf[p++] = v;
    this.pos = p;
  }

  /** Unsigned varlong of 0..2^64-1. */
  uvarlong(v: bigint): void {
    if (typeof v !== "bigint" || BigInt.asUintN(64, v) !== v) throw rangeError("uvarlong", v, this.pos);
    while (v >= 0x80n) {
      this.buf[this.pos++] = Number(v & 0x7fn) | 0x80;
      v >>= 7n;
    }
    this.buf[this.pos++] = Number(v);
  }

  /** 16 bytes from Kafka's 22-character uuid string. */
  uuid(v: string): void {
    if (v === undefined) throw missingField(this.pos);
    if (v === null) throw new KafkaEncodeError("NULL_NOT_ALLOWED", "null is not allowed in a uuid field", this.pos);
    if (!writeUuid(this.buf, this.pos, v)) {
      throw new KafkaEncodeError(
        "INVALID_UUID",
        `expected a uuid in Kafka's 22-character URL-safe base64 form, got ${describe(v)}`,
        this.pos,
      );
    }
    this.pos += 16;
  }

  /** A compact string whose length the size pass recorded. */
  compactString(s: string): void {
    if (this.ascii) {
      const n = s.length;
      if (n < 0x7f) {
        const p = this.pos;
        this.buf[p] = n + 1;
        this.pos = this.asciiAt(p + 1, s);
      } else {
        this.uvarint(n + 1);
        this.pos = this.asciiAt(this.pos, s);
      }
      return;
    }
    const len = this.lens[this.li++]!;
    if (len < 0x7f) {
      // A length prefix of one byte: most strings.
      const p = this.pos;
      this.buf[p] = len + 1;
      this.pos = writeUtf8(this.buf, p + 1, s, len);
    } else {
      this.uvarint(len + 1);
      this.pos = writeUtf8(this.buf, this.pos, s, len);
    }
  }

  /** A compact nullable string: `00` for null, else as {@link Writer.compactString}. */
  compactNullableString(s: string | null): void {
    if (s === null) this.buf[this.pos++] = 0;
    else this.compactString(s);
  }

  /** A classic string (int16 length) whose length the size pass recorded. */
  string(s: string): void {
    const len = this.ascii ? s.length : this.lens[this.li++]!;
    this.buf[this.pos++] = len >> 8;
    this.buf[this.pos++] = len;
    this.pos = this.ascii ? this.asciiAt(this.pos, s) : writeUtf8(this.buf, this.pos, s, len);
  }

  /** A classic nullable string: int16 -1 (`ff ff`) for null, else as {@link Writer.string}. */
  nullableString(s: string | null): void {
    if (s === null) {
      this.buf[this.pos++] = 0xff;
      this.buf[this.pos++] = 0xff;
    } else {
      this.string(s);
    }
  }

  /** Compact bytes (or records): unsigned varint length+1, then the bytes. */
  compactBytes(b: Uint8Array): void {
    this.uvarint(b.length + 1);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  /** Compact nullable bytes (or records): `00` for null, else as {@link Writer.compactBytes}. */
  compactNullableBytes(b: Uint8Array | null): void {
    if (b === null) this.buf[this.pos++] = 0;
    else this.compactBytes(b);
  }

  /** Classic bytes (or records): int32 length, then the bytes. */
  bytes(b: Uint8Array): void {
    this.int32(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  /** Classic nullable bytes (or records): int32 -1 for null, else as {@link Writer.bytes}. */
  nullableBytes(b: Uint8Array | null): void {
    if (b === null) this.int32(-1);
    else this.bytes(b);
  }

  /** Raw bytes, no length. */
  raw(b: Uint8Array): void {
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  /**
   * Writes the unknown tagged fields `fields[from..]` whose tag is below `beforeTag` (all of
   * them for `Infinity`); returns the index of the first one not written. Lets the generated
   * code interleave them with known tagged fields in ascending tag order.
   */
  unknownTaggedFields(fields: readonly UnknownTaggedField[], from: number, beforeTag: number): number {
    let i = from;
    for (; i < fields.length && fields[i]!.tag < beforeTag; i++) {
      const f = fields[i]!;
      this.uvarint(f.tag);
      this.uvarint(f.data.length);
      this.raw(f.data);
    }
    return i;
  }
}
