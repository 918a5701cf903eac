/**
 * Tiny helpers for the runtime unit tests. Expected bytes are always written out by hand in the
 * tests as hex strings; these helpers only convert between hex text and bytes.
 */
import { expect } from "vitest";
import { KafkaWireError, type KafkaWireErrorCode } from "../../src/runtime/index.js";

/** Bytes from hex text; whitespace is ignored: `bytes("ac 02")`. */
export function bytes(hexText: string): Uint8Array {
  const clean = hexText.replace(/\s+/g, "");
  if (clean.length % 2 !== 0 || /[^0-9a-fA-F]/.test(clean)) throw new Error(`bad hex: ${hexText}`);
  const out = new Uint8Array(clean.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(clean.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** Lower-case hex text of `b`, one space between bytes: `hex(bytes("AC02")) === "ac 02"`. */
export function hex(b: Uint8Array): string {
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join(" ");
}

/** `n` copies of the byte `byte` as hex text, for building long inputs. */
export function repeatHex(byte: string, n: number): string {
  return Array.from({ length: n }, () => byte).join(" ");
}

type ErrorClass = abstract new (...args: never[]) => KafkaWireError;

/**
 * Runs `fn`, expects it to throw an instance of `cls` with `code` (and `offset` when given),
 * and returns the error for further assertions.
 */
export function expectError<E extends KafkaWireError>(
  fn: () => unknown,
  cls: abstract new (...args: never[]) => E,
  code: KafkaWireErrorCode,
  offset?: number,
): E {
  let thrown: unknown = undefined;
  let threw = false;
  try {
    fn();
  } catch (e) {
    threw = true;
    thrown = e;
  }
  expect(threw, `expected a ${cls.name} ${code}, but nothing was thrown`).toBe(true);
  expect(thrown).toBeInstanceOf(cls as ErrorClass);
  const e = thrown as E;
  expect(e.code).toBe(code);
  if (offset !== undefined) expect(e.offset).toBe(offset);
  return e;
}
