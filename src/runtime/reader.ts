/**
 * Decoding: a cursor over a Uint8Array. Every length is checked against the bytes that remain
 * before anything is read or allocated, so a few hostile bytes can never claim gigabytes.
 * `bytes` and `records` come back as views into the input (zero-copy).
 *
 * Wire formats are those of the Kafka protocol guide ("Protocol Primitive Types") and KIP-482.
 */

import { KafkaDecodeError } from "./errors.js";
import { uuidToString } from "./base64.js";
import { readUtf8, utf8Length } from "./utf8.js";
import { MAX_STRING_BYTES, type UnknownTaggedField } from "./wire.js";

/** How strictly `decode` reads. Every default is the safe choice. */
export interface DecodeOptions {
  /** Accept bytes after the end of the message instead of failing with `TRAILING_BYTES`. Default false. */
  readonly allowTrailingBytes?: boolean;
  /** Reject strings that are not valid UTF-8 (`INVALID_STRING`) instead of replacing bad sequences with U+FFFD as Kafka does. Default false. */
  readonly strictUtf8?: boolean;
  /** Reject bool bytes other than 0 and 1 (`INVALID_VALUE`) instead of reading any non-zero byte as true as Kafka does. Default false. */
  readonly strictBool?: boolean;
  /**
   * Accept tagged fields whose tags repeat or descend, as Kafka's reader does (a repeated known
   * tag keeps the last value). Default false: such input is an `INVALID_TAGGED_FIELDS` error,
   * since no Kafka writer produces it and it can hide a second value from a checking reader.
   */
  readonly lenientTaggedFields?: boolean;
}

const NO_OPTIONS: DecodeOptions = {};

/** Reads Kafka's primitive types from `buf[pos..end)`, checking every length before it reads or allocates. Every method throws {@link KafkaDecodeError} (`BUFFER_UNDERFLOW` when too few bytes remain). */
export class Reader {
  /**
   * The input bytes (views returned by the bytes methods point into it). Generated decoders read
   * it directly at `pos` (part of `kafka-wire/codegen/v1`): keep `buf`, `pos` and `end` as they are.
   */
  readonly buf: Uint8Array;
  /** Created on the first 64-bit read: most messages have none, and a DataView costs an allocation. */
  private dataView: DataView | undefined;
  /** Offset in `buf` of the next byte to read. */
  pos: number;
  /** One past the last byte this reader may read. */
  readonly end: number;
  /** From {@link DecodeOptions.strictUtf8}. */
  readonly strictUtf8: boolean;
  /** From {@link DecodeOptions.strictBool}. */
  readonly strictBool: boolean;
  /** From {@link DecodeOptions.lenientTaggedFields}. */
  readonly lenientTaggedFields: boolean;

  constructor(buf: Uint8Array, offset = 0, end = buf.length, options: DecodeOptions = NO_OPTIONS) {
    this.buf = buf;
    this.pos = offset;
    this.end = end;
    this.strictUtf8 = options.strictUtf8 === true;
    this.strictBool = options.strictBool === true;
    this.lenientTaggedFields = options.lenientTaggedFields === true;
  }

  private view(): DataView {
    return (this.dataView ??= new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength));
  }

  /** Bytes left to read. */
  remaining(): number {
    return this.end - this.pos;
  }

  /** Fails unless `n` more bytes are there. */
  need(n: number): void {
    if (this.end - this.pos < n) {
      throw new KafkaDecodeError("BUFFER_UNDERFLOW", `needed ${n} bytes, ${this.end - this.pos} remain`, this.pos);
    }
  }

  /** Skips `n` bytes, failing like a read when they are not there. */
  skip(n: number): void {
    this.need(n);
    this.pos += n;
  }

  // Each checked read is a bounds check followed by the unchecked read below (one byte layout
  // per type; V8 inlines the call).

  /** An int8: 1 byte, -128..127. */
  int8(): number {
    this.need(1);
    return this.int8Unchecked();
  }

  /** An int16: 2 bytes big-endian, -32768..32767. */
  int16(): number {
    this.need(2);
    return this.int16Unchecked();
  }

  /** A uint16: 2 bytes big-endian, 0..65535. */
  uint16(): number {
    this.need(2);
    return this.uint16Unchecked();
  }

  /** An int32: 4 bytes big-endian, -2^31..2^31-1. */
  int32(): number {
    this.need(4);
    return this.int32Unchecked();
  }

  /** A uint32: 4 bytes big-endian, 0..2^32-1. */
  uint32(): number {
    this.need(4);
    return this.uint32Unchecked();
  }

  /** An int64: 8 bytes big-endian, as a bigint in -2^63..2^63-1. */
  int64(): bigint {
    this.need(8);
    return this.int64Unchecked();
  }

  /** A float64: 8 bytes big-endian IEEE 754 double. */
  float64(): number {
    this.need(8);
    return this.float64Unchecked();
  }

  /** A bool: 1 byte, any non-zero byte is true (as Kafka). @throws KafkaDecodeError `INVALID_VALUE` for a byte above 1 with `strictBool`. */
  bool(): boolean {
    this.need(1);
    return this.boolUnchecked();
  }

  // Reads whose bounds a preceding need() already checked, for runs of fixed-size fields
  // (the generated code checks once per run instead of once per field).

  /** int8 without a bounds check: call only after need() covered it. */
  int8Unchecked(): number {
    return (this.buf[this.pos++]! << 24) >> 24;
  }

  /** int16 without a bounds check: call only after need() covered it. */
  int16Unchecked(): number {
    const p = this.pos;
    this.pos = p + 2;
    return (((this.buf[p]! << 8) | this.buf[p + 1]!) << 16) >> 16;
  }

  /** uint16 without a bounds check: call only after need() covered it. */
  uint16Unchecked(): number {
    const p = this.pos;
    this.pos = p + 2;
    return (this.buf[p]! << 8) | this.buf[p + 1]!;
  }

  /** int32 without a bounds check: call only after need() covered it. */
  int32Unchecked(): number {
    const p = this.pos;
    const b = this.buf;
    this.pos = p + 4;
    return (b[p]! << 24) | (b[p + 1]! << 16) | (b[p + 2]! << 8) | b[p + 3]!;
  }

  /** uint32 without a bounds check: call only after need() covered it. */
  uint32Unchecked(): number {
    return this.int32Unchecked() >>> 0;
  }

  /** int64 without a bounds check: call only after need() covered it. */
  int64Unchecked(): bigint {
    const v = this.view().getBigInt64(this.pos);
    this.pos += 8;
    return v;
  }

  /** float64 without a bounds check: call only after need() covered it. */
  float64Unchecked(): number {
    const v = this.view().getFloat64(this.pos);
    this.pos += 8;
    return v;
  }

  /** bool without a bounds check (strictBool still applies): call only after need() covered it. */
  boolUnchecked(): boolean {
    const b = this.buf[this.pos]!;
    if (this.strictBool && b > 1) {
      throw new KafkaDecodeError("INVALID_VALUE", `bool byte is ${b}, expected 0 or 1`, this.pos);
    }
    this.pos++;
    return b !== 0;
  }

  /** uuid without a bounds check: call only after need() covered it. */
  uuidUnchecked(): string {
    const s = uuidToString(this.buf, this.pos);
    this.pos += 16;
    return s;
  }

  /** Unsigned varint of 0..2^32-1: at most 5 bytes (KIP-482). */
  uvarint(): number {
    // One byte (counts, tags and lengths below 128) is by far the most common case.
    const p = this.pos;
    if (p < this.end) {
      const b = this.buf[p]!;
      if (b < 0x80) {
        this.pos = p + 1;
        return b;
      }
    }
    return this.uvarintLong();
  }

  private uvarintLong(): number {
    const start = this.pos;
    const buf = this.buf;
    let value = 0;
    for (let i = 0; i < 5; i++) {
      if (this.pos >= this.end) {
        throw new KafkaDecodeError("BUFFER_UNDERFLOW", "unsigned varint runs past the end of the input", start);
      }
      const b = buf[this.pos++]!;
      if (i === 4 && b > 0x0f) {
        throw new KafkaDecodeError("INVALID_VARINT", "unsigned varint is longer than 5 bytes or above 2^32-1", start);
      }
      value += (b & 0x7f) * 2 ** (7 * i);
      if (b < 0x80) return value;
    }
    // Unreachable: the fifth byte is at most 0x0f, so the loop returned.
    throw new KafkaDecodeError("INVALID_VARINT", "unsigned varint is longer than 5 bytes", start);
  }

  /** Unsigned varlong of 0..2^64-1: at most 10 bytes. */
  uvarlong(): bigint {
    const start = this.pos;
    let value = 0n;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) {
        throw new KafkaDecodeError("BUFFER_UNDERFLOW", "unsigned varlong runs past the end of the input", start);
      }
      const b = this.buf[this.pos++]!;
      if (i === 9 && b > 0x01) {
        throw new KafkaDecodeError("INVALID_VARINT", "unsigned varlong is longer than 10 bytes or above 2^64-1", start);
      }
      value |= BigInt(b & 0x7f) << BigInt(7 * i);
      if (b < 0x80) return value;
    }
    throw new KafkaDecodeError("INVALID_VARINT", "unsigned varlong is longer than 10 bytes", start);
  }

  /** A uuid: 16 bytes, returned in Kafka's 22-character URL-safe base64 form. */
  uuid(): string {
    this.need(16);
    return this.uuidUnchecked();
  }

  private nullError(at: number): KafkaDecodeError {
    return new KafkaDecodeError("NULL_NOT_ALLOWED", "null where the field is not nullable in this version", at);
  }

  /** Checks a decoded length against what remains; `at` is where the length prefix started. */
  private checkLength(len: number, at: number, elementSize = 1): void {
    if (len * elementSize > this.end - this.pos) throw this.lengthError(len, at, elementSize);
  }

  private lengthError(len: number, at: number, elementSize: number): KafkaDecodeError {
    return new KafkaDecodeError(
      "INVALID_LENGTH",
      `length ${len}${elementSize > 1 ? ` (at least ${elementSize} bytes each)` : ""} exceeds the ${this.end - this.pos} bytes that remain`,
      at,
    );
  }

  private utf8(len: number, at: number): string {
    // The checks' messages are built in a function of their own: this one stays small enough for
    // V8 to inline into every generated read function that reads strings.
    if (len > MAX_STRING_BYTES || len > this.end - this.pos) throw this.badLength(len, at);
    const s = readUtf8(this.buf, this.pos, len, this.strictUtf8);
    // Replacing invalid bytes with U+FFFD (3 bytes each) can make a string too long to write back.
    if (len > MAX_STRING_BYTES / 3 && utf8Length(s) > MAX_STRING_BYTES) throw this.tooLongDecoded(at);
    this.pos += len;
    return s;
  }

  /** The error for a string length over Kafka's limit (checked first) or past the end of the input. */
  private badLength(len: number, at: number): KafkaDecodeError {
    if (len > MAX_STRING_BYTES) {
      return new KafkaDecodeError(
        "STRING_TOO_LONG",
        `string of ${len} bytes is longer than Kafka's limit of ${MAX_STRING_BYTES}`,
        at,
      );
    }
    return this.lengthError(len, at, 1);
  }

  private tooLongDecoded(at: number): KafkaDecodeError {
    return new KafkaDecodeError(
      "STRING_TOO_LONG",
      `string with invalid UTF-8 is longer than Kafka's limit of ${MAX_STRING_BYTES} bytes once decoded`,
      at,
    );
  }

  /** An unsigned varint length+1 prefix; a length above 2^31-1 fits no Kafka field. */
  private compactLength(): number {
    const at = this.pos;
    const n = this.uvarint();
    if (n > 0x80000000) throw new KafkaDecodeError("INVALID_LENGTH", `compact length ${n - 1} is above 2^31-1`, at);
    return n;
  }

  /** Compact string (unsigned varint length+1); null (`00`) is an error. */
  compactString(): string {
    const at = this.pos;
    // Most strings are shorter than 127 bytes: a one-byte length needs no varint loop.
    const b = at < this.end ? this.buf[at]! : 0x80;
    let n: number;
    if (b < 0x80) {
      n = b;
      this.pos = at + 1;
    } else {
      n = this.compactLength();
    }
    if (n === 0) throw this.nullError(at);
    return this.utf8(n - 1, at);
  }

  /** Compact nullable string (unsigned varint length+1; `00` is null). @throws KafkaDecodeError `INVALID_LENGTH`, `STRING_TOO_LONG`, `INVALID_STRING` (with `strictUtf8`). */
  compactNullableString(): string | null {
    const at = this.pos;
    const n = this.compactLength();
    return n === 0 ? null : this.utf8(n - 1, at);
  }

  /** Classic string (int16 length); -1 (null) is an error. */
  string(): string {
    const at = this.pos;
    const n = this.int16();
    if (n < 0) throw n === -1 ? this.nullError(at) : this.negative(n, at);
    return this.utf8(n, at);
  }

  /** Classic nullable string (int16 length; -1 is null). @throws KafkaDecodeError `INVALID_LENGTH`, `STRING_TOO_LONG`, `INVALID_STRING` (with `strictUtf8`). */
  nullableString(): string | null {
    const at = this.pos;
    const n = this.int16();
    if (n < 0) {
      if (n === -1) return null;
      throw this.negative(n, at);
    }
    return this.utf8(n, at);
  }

  private negative(n: number, at: number): KafkaDecodeError {
    return new KafkaDecodeError("INVALID_LENGTH", `negative length ${n}`, at);
  }

  private view_(len: number, at: number): Uint8Array {
    this.checkLength(len, at);
    const v = this.buf.subarray(this.pos, this.pos + len);
    this.pos += len;
    return v;
  }

  /** Compact bytes (or records): a view into the input. */
  compactBytes(): Uint8Array {
    const at = this.pos;
    const n = this.compactLength();
    if (n === 0) throw this.nullError(at);
    return this.view_(n - 1, at);
  }

  /** Compact nullable bytes or records (`00` is null): a view into the input. @throws KafkaDecodeError `INVALID_LENGTH`. */
  compactNullableBytes(): Uint8Array | null {
    const at = this.pos;
    const n = this.compactLength();
    return n === 0 ? null : this.view_(n - 1, at);
  }

  /** Classic bytes (or records) with an int32 length: a view into the input. */
  bytes(): Uint8Array {
    const at = this.pos;
    const n = this.int32();
    if (n < 0) throw n === -1 ? this.nullError(at) : this.negative(n, at);
    return this.view_(n, at);
  }

  /** Classic nullable bytes or records (int32 length; -1 is null): a view into the input. @throws KafkaDecodeError `INVALID_LENGTH`. */
  nullableBytes(): Uint8Array | null {
    const at = this.pos;
    const n = this.int32();
    if (n < 0) {
      if (n === -1) return null;
      throw this.negative(n, at);
    }
    return this.view_(n, at);
  }

  /**
   * A compact array's element count; null is an error. `minElementSize` is the fewest bytes one
   * element can take, so a count the remaining bytes cannot hold fails before any allocation.
   */
  compactArrayLength(minElementSize: number): number {
    const at = this.pos;
    // A one-byte count (below 127 elements) that the remaining bytes can hold: most arrays.
    if (at < this.end) {
      const b = this.buf[at]!;
      if (b > 0 && b < 0x80 && (b - 1) * minElementSize <= this.end - at - 1) {
        this.pos = at + 1;
        return b - 1;
      }
    }
    const n = this.compactLength();
    if (n === 0) throw this.nullError(at);
    this.checkLength(n - 1, at, minElementSize);
    return n - 1;
  }

  /** A nullable compact array's element count, -1 for null. */
  compactNullableArrayLength(minElementSize: number): number {
    const at = this.pos;
    if (at < this.end) {
      const b = this.buf[at]!;
      if (b < 0x80 && (b - 1) * minElementSize <= this.end - at - 1) {
        this.pos = at + 1;
        return b - 1; // -1 for null (00)
      }
    }
    const n = this.compactLength();
    if (n === 0) return -1;
    this.checkLength(n - 1, at, minElementSize);
    return n - 1;
  }

  /** A classic array's element count (int32); -1 (null) is an error. */
  arrayLength(minElementSize: number): number {
    const at = this.pos;
    const n = this.int32();
    if (n < 0) throw n === -1 ? this.nullError(at) : this.negative(n, at);
    this.checkLength(n, at, minElementSize);
    return n;
  }

  /** A nullable classic array's element count, -1 for null. */
  nullableArrayLength(minElementSize: number): number {
    const at = this.pos;
    const n = this.int32();
    if (n < 0) {
      if (n === -1) return -1;
      throw this.negative(n, at);
    }
    this.checkLength(n, at, minElementSize);
    return n;
  }

  /**
   * `n` int32 values whose bytes {@link arrayLength}/{@link compactArrayLength} (called with an
   * element size of 4) has already checked are there: one bounds check for the whole array.
   */
  int32Array(n: number): number[] {
    const b = this.buf;
    let p = this.pos;
    // Exact size up front: cheaper than growing by push (the count is already bounds-checked).
    const out = new Array<number>(n);
    for (let i = 0; i < n; i++, p += 4) out[i] = (b[p]! << 24) | (b[p + 1]! << 16) | (b[p + 2]! << 8) | b[p + 3]!;
    this.pos = p;
    return out;
  }

  /** `n` int16 values already bounds-checked by the array length (element size 2). */
  int16Array(n: number): number[] {
    const b = this.buf;
    let p = this.pos;
    const out = new Array<number>(n);
    for (let i = 0; i < n; i++, p += 2) out[i] = (((b[p]! << 8) | b[p + 1]!) << 16) >> 16;
    this.pos = p;
    return out;
  }

  /** `n` int64 values already bounds-checked by the array length (element size 8). */
  int64Array(n: number): bigint[] {
    const out = new Array<bigint>(n);
    const view = this.view();
    let p = this.pos;
    for (let i = 0; i < n; i++, p += 8) out[i] = view.getBigInt64(p);
    this.pos = p;
    return out;
  }

  /** A nullable struct's int8 marker: Kafka reads any negative value as null, anything else as present. */
  structPresent(): boolean {
    return this.int8() >= 0;
  }

  /**
   * Starts one tagged field, after its tag was read: reads the payload size and returns the
   * offset where the payload ends.
   */
  taggedFieldEnd(): number {
    const at = this.pos;
    const size = this.uvarint();
    this.checkLength(size, at);
    return this.pos + size;
  }

  /** Checks that a known tagged field's payload consumed exactly its declared size. */
  endTaggedField(tag: number, end: number): void {
    if (this.pos !== end) {
      throw new KafkaDecodeError(
        "TAGGED_FIELD_SIZE",
        `tagged field ${tag} did not consume exactly its declared size`,
        this.pos,
      );
    }
  }

  /** Tags must ascend (KIP-482); repeats and descents are errors unless `lenientTaggedFields`. */
  checkTagOrder(tag: number, previous: number, at: number): void {
    // Kafka's tags are Java ints: an unsigned varint above 2^31-1 is no tag a writer can produce.
    if (tag > 0x7fffffff) throw new KafkaDecodeError("INVALID_TAGGED_FIELDS", `tag ${tag} is above 2^31-1`, at);
    if (tag <= previous && !this.lenientTaggedFields) {
      throw new KafkaDecodeError(
        "INVALID_TAGGED_FIELDS",
        tag === previous ? `tag ${tag} appears twice` : `tag ${tag} follows tag ${previous}: tags must ascend`,
        at,
      );
    }
  }

  /** A known tag in a version whose schema does not tag that field (Kafka's reader rejects it too). */
  tagNotInVersion(tag: number, version: number, at: number): KafkaDecodeError {
    return new KafkaDecodeError("FIELD_NOT_IN_VERSION", `tag ${tag} is not valid in version ${version}`, at);
  }

  /**
   * A struct's tagged-field section (KIP-482): the count, then each field's tag (ascending, see
   * {@link checkTagOrder}) and payload size. `known(tag, end, at)` reads the payload of a tag
   * the struct knows and returns true (`end`: where the payload ends, `at`: where the field
   * starts); the payloads of other tags are kept, in order, and returned (undefined when none).
   * Bounded by the input: every field takes at least two bytes.
   */
  taggedSection(known?: (tag: number, end: number, at: number) => boolean): UnknownTaggedField[] | undefined {
    const count = this.uvarint();
    let unknown: UnknownTaggedField[] | undefined;
    let previous = -1;
    for (let t = 0; t < count; t++) {
      const at = this.pos;
      const tag = this.uvarint();
      this.checkTagOrder(tag, previous, at);
      previous = tag;
      const end = this.taggedFieldEnd();
      if (known === undefined || !known(tag, end, at)) (unknown ??= []).push(this.unknownTaggedField(tag, end));
    }
    return unknown;
  }

  /** Keeps an unknown tagged field's payload (a view) and skips it. */
  unknownTaggedField(tag: number, end: number): UnknownTaggedField {
    const data = this.buf.subarray(this.pos, end);
    this.pos = end;
    return { tag, data };
  }
}
