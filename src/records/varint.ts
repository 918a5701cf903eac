/**
 * Zigzag varints of the record format (the protocol guide's "Record" section; Kafka's
 * `ByteUtils.readVarint/readVarlong`), read from a Uint8Array with the position returned through
 * {@link cursor} so that the hot loop allocates nothing.
 *
 * Kafka reads a varint of at most 5 bytes (varlong: 10) and silently drops the bits of the last
 * byte that do not fit in 32 (64) bits, and it accepts non-minimal encodings (`8a 00` for 5). A
 * strict read rejects both (`INVALID_VARINT`); `strict = false` reads as Kafka does.
 */

import { KafkaDecodeError } from "../runtime/errors.js";

/** `cursor.next`: the position after the last varint read (an object, not a `let`: bundlers and test transforms turn exported `let`s into getters). */
export const cursor = { next: 0 };

function tooLong(at: number, what: string): KafkaDecodeError {
  return new KafkaDecodeError("INVALID_VARINT", `${what} is longer than ${what === "varint" ? 5 : 10} bytes`, at);
}

function underflow(at: number, what: string): KafkaDecodeError {
  return new KafkaDecodeError("BUFFER_UNDERFLOW", `${what} runs past the end of its record`, at);
}

function nonMinimal(at: number, what: string): KafkaDecodeError {
  return new KafkaDecodeError(
    "INVALID_VARINT",
    `${what} has bits Kafka drops or a non-minimal encoding (accepted with the lenient option)`,
    at,
  );
}

/** A zigzag varint (int32) at `p`, before `end`; sets {@link cursor}. */
export function varint(buf: Uint8Array, p: number, end: number, strict: boolean): number {
  // One and two bytes (|value| < 8192: every count and most lengths) inline.
  if (p < end) {
    const b = buf[p]!;
    if (b < 0x80) {
      cursor.next = p + 1;
      return (b >>> 1) ^ -(b & 1);
    }
    if (p + 1 < end) {
      const c = buf[p + 1]!;
      if (c < 0x80 && c !== 0) {
        const v = (b & 0x7f) | (c << 7);
        cursor.next = p + 2;
        return (v >>> 1) ^ -(v & 1);
      }
    }
  }
  return varintLong(buf, p, end, strict);
}

function varintLong(buf: Uint8Array, start: number, end: number, strict: boolean): number {
  let value = 0;
  let p = start;
  for (let shift = 0; ; shift += 7) {
    if (p >= end) throw underflow(start, "varint");
    const b = buf[p++]!;
    if (shift === 28) {
      if (b & 0x80) throw tooLong(start, "varint");
      if (strict && b > 0x0f) throw nonMinimal(start, "varint");
    }
    value |= (b & 0x7f) << shift;
    if (b < 0x80) {
      if (strict && b === 0 && shift > 0) throw nonMinimal(start, "varint");
      cursor.next = p;
      return (value >>> 1) ^ -(value & 1);
    }
  }
}

/**
 * A zigzag varlong (int64) at `p`: a number when it has at most 7 bytes (|value| < 2^48, every
 * real timestamp delta), else a bigint. Sets {@link cursor}.
 */
export function varlong(buf: Uint8Array, p: number, end: number, strict: boolean): number | bigint {
  // One byte (|delta| < 64: most timestamp deltas within a batch) is the common case.
  if (p < end) {
    const b = buf[p]!;
    if (b < 0x80) {
      cursor.next = p + 1;
      return (b >>> 1) ^ -(b & 1);
    }
  }
  return varlongLong(buf, p, end, strict);
}

function varlongLong(buf: Uint8Array, start: number, end: number, strict: boolean): number | bigint {
  let value = 0;
  let scale = 1;
  let p = start;
  for (let i = 0; i < 7; i++, scale *= 128) {
    if (p >= end) throw underflow(start, "varlong");
    const b = buf[p++]!;
    value += (b & 0x7f) * scale;
    if (b < 0x80) {
      if (strict && b === 0 && i > 0) throw nonMinimal(start, "varlong");
      cursor.next = p;
      return value % 2 === 0 ? value / 2 : -(value + 1) / 2;
    }
  }
  // 8 to 10 bytes: finish in bigint, keeping the low 64 bits as Kafka does.
  let big = BigInt(value);
  for (let shift = 49n; ; shift += 7n) {
    if (p >= end) throw underflow(start, "varlong");
    const b = buf[p++]!;
    if (shift === 63n) {
      if (b & 0x80) throw tooLong(start, "varlong");
      if (strict && b > 0x01) throw nonMinimal(start, "varlong");
    }
    big |= BigInt(b & 0x7f) << shift;
    if (b < 0x80) {
      if (strict && b === 0) throw nonMinimal(start, "varlong");
      cursor.next = p;
      big = BigInt.asUintN(64, big);
      return (big >> 1n) ^ -(big & 1n);
    }
  }
}

/** Bytes of the zigzag varint of `n` (an int32). */
export function varintSize(n: number): number {
  const z = ((n << 1) ^ (n >> 31)) >>> 0;
  return z < 0x80 ? 1 : z < 0x4000 ? 2 : z < 0x200000 ? 3 : z < 0x10000000 ? 4 : 5;
}

/** Writes the zigzag varint of `n` (an int32) at `p`; returns the position after it. */
export function writeVarint(buf: Uint8Array, p: number, n: number): number {
  let z = ((n << 1) ^ (n >> 31)) >>> 0;
  while (z >= 0x80) {
    buf[p++] = (z & 0x7f) | 0x80;
    z >>>= 7;
  }
  buf[p++] = z;
  return p;
}

/** Bytes of the zigzag varlong of `n` (a safe integer or an int64 bigint). */
export function varlongSize(n: number | bigint): number {
  if (typeof n === "number" && n >= -0x40000000 && n < 0x40000000) return varintSize(n);
  let z = zigzag64(n);
  let size = 1;
  while (z >= 0x80n) {
    z >>= 7n;
    size++;
  }
  return size;
}

function zigzag64(n: number | bigint): bigint {
  const b = BigInt.asIntN(64, BigInt(n));
  return BigInt.asUintN(64, (b << 1n) ^ (b >> 63n));
}

/** Writes the zigzag varlong of `n` at `p`; returns the position after it. */
export function writeVarlong(buf: Uint8Array, p: number, n: number | bigint): number {
  if (typeof n === "number" && n >= -0x40000000 && n < 0x40000000) return writeVarint(buf, p, n);
  let z = zigzag64(n);
  while (z >= 0x80n) {
    buf[p++] = Number(z & 0x7fn) | 0x80;
    z >>= 7n;
  }
  buf[p++] = Number(z);
  return p;
}
