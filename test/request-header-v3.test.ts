/**
 * KIP-1313's request header v3 (a client instance id in every request header) through the
 * generator and the runtime's framing: test/fixtures/header-v3 is a schema set written for this
 * test from the KIP's text (its RequestHeader.json says what the text leaves open); every frame is
 * worked out by hand.
 */

import { rm } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Protocol } from "../src/runtime/framing.js";
import { generateFixture } from "./support/generate-fixture.js";
import { REPO_ROOT } from "./support/shared.js";

const FIXTURES = path.join(REPO_ROOT, "test", "fixtures", "header-v3");
const OUT = path.join(REPO_ROOT, ".corpus", `header-v3-${process.pid}`, "generated");
const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString("hex");

/** The uuid whose 16 bytes are 00 01 … 0f, in Kafka's base64 text (URL-safe, unpadded). */
const INSTANCE = "AAECAwQFBgcICQoLDA0ODw";

let protocol: Protocol;

beforeAll(async () => {
  ({
    index: { protocol },
  } = await generateFixture<{ protocol: Protocol }>(FIXTURES, OUT));
}, 60_000);

afterAll(async () => {
  await rm(path.dirname(OUT), { recursive: true, force: true });
});

describe("request header v3 (KIP-1313's client instance id)", () => {
  it("a version mapped to header v3 carries the client instance id after the client id", () => {
    const frame = protocol.encodeRequestFrame(
      { apiKey: 90, apiVersion: 1, correlationId: 7, clientId: null, clientInstanceId: INSTANCE },
      { value: 5 },
    );
    // size 29 | api key 90, version 1, correlation id 7 | client id null (classic int16 length -1)
    // | client instance id 000102…0f | header tagged section 00 | body: value 5, tagged section 00.
    expect(hex(frame)).toBe(
      "0000001d" + "005a" + "0001" + "00000007" + "ffff" + "000102030405060708090a0b0c0d0e0f" + "00" + "05" + "00",
    );
    const decoded = protocol.decodeRequestFrame(frame);
    expect(decoded.headerVersion).toBe(3);
    expect(decoded.header).toEqual({
      requestApiKey: 90,
      requestApiVersion: 1,
      correlationId: 7,
      clientId: null,
      clientInstanceId: INSTANCE,
    });
    expect(decoded.body).toEqual({ value: 5 });
  });

  it("left out, the client instance id is the header schema's default, the zero uuid", () => {
    const frame = protocol.encodeRequestFrame(
      { apiKey: 90, apiVersion: 1, correlationId: 7, clientId: "ab" },
      { value: 5 },
    );
    // size 31 | 005a 0001 00000007 | "ab" (0002 6162) | 16 zero bytes | 00 | 05 00.
    expect(hex(frame)).toBe("0000001f" + "005a0001" + "00000007" + "00026162" + "00".repeat(16) + "00" + "0500");
  });

  it("a version on header v2 leaves the client instance id out", () => {
    const frame = protocol.encodeRequestFrame(
      { apiKey: 90, apiVersion: 0, correlationId: 7, clientId: "ab", clientInstanceId: INSTANCE },
      { value: 5 },
    );
    // size 15 | 005a 0000 00000007 | "ab" | header tagged section 00 | 05 00.
    expect(hex(frame)).toBe("0000000f" + "005a0000" + "00000007" + "00026162" + "00" + "0500");
    // Decoded, a field the version lacks takes its default, as in Kafka's generated classes.
    expect(protocol.decodeRequestFrame(frame).header).toEqual({
      requestApiKey: 90,
      requestApiVersion: 0,
      correlationId: 7,
      clientId: "ab",
      clientInstanceId: "AAAAAAAAAAAAAAAAAAAAAA",
    });
  });

  it("a frame cut inside the client instance id fails naming the field and its offset", () => {
    // size 20 | 005a 0001 00000007 ffff | 10 of the uuid's 16 bytes.
    const cut = Buffer.from("00000014" + "005a0001" + "00000007" + "ffff" + "00010203040506070809", "hex");
    expect(() => protocol.decodeRequestFrame(new Uint8Array(cut))).toThrow(
      expect.objectContaining({
        name: "KafkaDecodeError",
        code: "BUFFER_UNDERFLOW",
        path: "clientInstanceId",
        offset: 14,
      }),
    );
  });
});
