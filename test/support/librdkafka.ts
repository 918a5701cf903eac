/**
 * The second real peer of the interop tests: librdkafka 2.15.1's mock cluster (found and started
 * by ./librdkafka-peer.ts, re-exported here), and the helpers the tests check its replies with.
 */

import { expect, it } from "vitest";
import { KafkaDecodeError, type Protocol } from "../../src/runtime/index.js";
import { hex, type Exchange } from "./kcat.js";
import { isCi } from "./shared.js";

export {
  findLibrdkafka,
  LIBRDKAFKA_VERSION,
  LIBRDKAFKA_VERSION_STRING,
  librdkafkaDir,
  librdkafkaMissing,
  startMockCluster,
  type Librdkafka,
  type MockCluster,
} from "./librdkafka-peer.js";

/**
 * Inside a describe block: when a peer is missing, registers one failing test under CI=true, or
 * one skipped test with a one-line warning on a user's machine (as the kcat test does).
 */
export function peerMissing(title: string, reason: string): void {
  if (isCi()) {
    it(`needs ${title}`, () => {
      throw new Error(`${reason} (CI is set, so this is a failure, not a skip)`);
    });
  } else {
    console.warn(`[skip] ${title}: ${reason}`);
    it.skip(`needs ${title}`, () => {});
  }
}

/** A decoded message body, loosely typed for assertions. */
export type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * A malformed reply of a mock: asserts its bytes and kafka-wire's typed error, and returns the
 * body a lenient reading gives (null when there is none).
 */
export type Defect = (exchange: Exchange, protocol: Protocol) => Body | null;

/** Calls `f` and returns what it threw (fails when it does not throw). */
export function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  throw new Error("expected a throw");
}

/** The correlation id of an exchange as 8 hex digits, as it appears in a frame. */
export const corr = (e: { correlationId: number }): string => (e.correlationId >>> 0).toString(16).padStart(8, "0");

const METADATA = 3;
const API_VERSIONS = 18;

/**
 * KIP-511 asks a broker that does not know an ApiVersions version for a v0-layout reply with
 * UNSUPPORTED_VERSION (35). Both mocks hand-write a half-flexible one instead (documented byte by
 * byte in interop-kcat.test.ts): 00000011 | correlation id | 0023 | 01 | 0012 0000 0002 | 00000000.
 * As v3/v4 the compact count 01 is an empty array and 5 bytes remain.
 */
export const apiVersionsV3: Defect = (exchange, protocol) => {
  expect(hex(exchange.response)).toBe(`00000011${corr(exchange)}0023` + "01" + "001200000002" + "00000000");
  const e = thrown(() => protocol.decodeApiVersionsResponseFrame(exchange.response, exchange.apiVersion));
  expect(e).toBeInstanceOf(KafkaDecodeError);
  expect(e).toMatchObject({ code: "TRAILING_BYTES", path: "", offset: 16 });
  // Well-formed in no version: as v0–v2 the int32 count 0x01001200 is longer than the frame.
  const { lowest, highest } = protocol.api(API_VERSIONS).response.validVersions;
  for (let v = lowest; v <= highest; v++) {
    const err = thrown(() => protocol.decodeResponseFrame(exchange.response, API_VERSIONS, v));
    expect(err, `as v${v}`).toBeInstanceOf(KafkaDecodeError);
    expect((err as KafkaDecodeError).code, `as v${v}`).toBe(v <= 2 ? "INVALID_LENGTH" : "TRAILING_BYTES");
  }
  return null;
};

/**
 * 2.15.1's flexible Metadata replies (v9+) end with one 00 after the body's tagged fields. The
 * bytes before it are a correct reply: decoded leniently and re-encoded, they give the frame
 * back without that byte (and with its size one less).
 */
export const metadataTrailingZero: Defect = (exchange, protocol) => {
  const frame = exchange.response;
  expect(frame[frame.length - 1]).toBe(0);
  const e = thrown(() => protocol.decodeResponseFrame(frame, METADATA, exchange.apiVersion));
  expect(e).toBeInstanceOf(KafkaDecodeError);
  expect(e).toMatchObject({ code: "TRAILING_BYTES", path: "", offset: frame.length - 1 });
  const lenient = protocol.decodeResponseFrame(frame, METADATA, exchange.apiVersion, { allowTrailingBytes: true });
  const again = protocol.encodeResponseFrame(
    { apiKey: METADATA, apiVersion: exchange.apiVersion, correlationId: exchange.correlationId },
    lenient.body,
  );
  const expected = frame.slice(0, -1);
  new DataView(expected.buffer).setInt32(0, expected.length - 4);
  expect(hex(again)).toBe(hex(expected));
  return lenient.body as Body;
};
