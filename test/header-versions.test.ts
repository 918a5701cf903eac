/**
 * Kafka's newest schema language (KIP-1313 trunk): `headerVersions` deciding each version's
 * headers, `"validVersions": "none"` reserving an api key, and `latestVersionUnstable`. The schema
 * set is test/fixtures/header-versions (written for this test); frames are worked out by hand.
 */

import { copyFile, mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadSchemas } from "../generator/generate.js";
import type { Protocol, ProtocolDefinition } from "../src/runtime/framing.js";
import { defineProtocol } from "../src/runtime/framing.js";
import type { MessageCodec } from "../src/runtime/index.js";
import { generateFixture } from "./support/generate-fixture.js";
import { REPO_ROOT } from "./support/shared.js";

const FIXTURES = path.join(REPO_ROOT, "test", "fixtures", "header-versions");
const OUT = path.join(REPO_ROOT, ".corpus", `header-versions-${process.pid}`, "generated");

let protocol: Protocol;
let protocolDefinition: ProtocolDefinition;
let messages: Record<string, MessageCodec<unknown>>;
let written: string[];

beforeAll(async () => {
  let index: {
    protocol: Protocol;
    protocolDefinition: ProtocolDefinition;
    messages: Record<string, MessageCodec<unknown>>;
  };
  ({ index, written } = await generateFixture<typeof index>(FIXTURES, OUT));
  ({ protocol, protocolDefinition, messages } = index);
}, 60_000);

afterAll(async () => {
  await rm(path.dirname(OUT), { recursive: true, force: true });
});

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString("hex");

describe("headerVersions", () => {
  it("the generated codecs carry the schema's table, clipped to validVersions", () => {
    expect(messages.EchoRequest!.headerVersions).toEqual([
      { lowest: 0, highest: 1, header: 1 },
      { lowest: 2, highest: 2, header: 2 },
    ]);
    // Without headerVersions nothing is emitted, and framing keeps Kafka's rule.
    expect(messages.ProbeRequest!.headerVersions).toBeUndefined();
  });

  it("a flexible v1 request goes out on request header v1 because the schema says so", () => {
    const frame = protocol.encodeRequestFrame(
      { apiKey: 90, apiVersion: 1, correlationId: 7, clientId: "ab" },
      { value: 5 },
    );
    // size 14 | header v1: api key 90, version 1, correlation id 7, client id "ab" (int16 length,
    // no tagged section: the flexible-versions rule would have given header v2 and one byte more)
    // | body v1 (flexible): value 5, empty tagged section.
    expect(hex(frame)).toBe("0000000e" + "005a" + "0001" + "00000007" + "0002" + "6162" + "05" + "00");
    const decoded = protocol.decodeRequestFrame(frame);
    expect(decoded.headerVersion).toBe(1);
    expect(decoded.header).toEqual({ requestApiKey: 90, requestApiVersion: 1, correlationId: 7, clientId: "ab" });
    expect(decoded.body).toEqual({ value: 5 });
  });

  it("v2 moves to request header v2 (an empty tagged section after the client id)", () => {
    const frame = protocol.encodeRequestFrame(
      { apiKey: 90, apiVersion: 2, correlationId: 7, clientId: "ab" },
      { value: 5 },
    );
    // size 15 | api key 90, version 2, correlation id 7, "ab", header tagged section 00 | 05 00.
    expect(hex(frame)).toBe("0000000f" + "005a" + "0002" + "00000007" + "0002" + "6162" + "00" + "05" + "00");
    expect(protocol.decodeRequestFrame(frame).headerVersion).toBe(2);
  });

  it("a flexible v1 response comes back on response header v0; v2 on v1", () => {
    const v1 = protocol.encodeResponseFrame({ apiKey: 90, apiVersion: 1, correlationId: 7 }, { value: 9 });
    // size 6 | correlation id 7 (header v0: no tagged section) | value 9, empty tagged section.
    expect(hex(v1)).toBe("00000006" + "00000007" + "09" + "00");
    const decoded = protocol.decodeResponseFrame(v1, 90, 1);
    expect(decoded.headerVersion).toBe(0);
    expect(decoded.header).toEqual({ correlationId: 7 });
    expect(decoded.body).toEqual({ value: 9 });
    const v2 = protocol.encodeResponseFrame({ apiKey: 90, apiVersion: 2, correlationId: 7 }, { value: 9 });
    // size 7 | correlation id 7, header tagged section 00 | 09 00.
    expect(hex(v2)).toBe("00000007" + "00000007" + "00" + "09" + "00");
    expect(protocol.decodeResponseFrame(v2, 90, 2).headerVersion).toBe(1);
  });

  it("a header version the set's RequestHeader lacks is refused when loading", async () => {
    const dir = path.join(path.dirname(OUT), "missing-header");
    await mkdir(dir, { recursive: true });
    await copyFile(path.join(FIXTURES, "RequestHeader.json"), path.join(dir, "RequestHeader.json"));
    const request = {
      apiKey: 93,
      type: "request",
      name: "AheadRequest",
      validVersions: "0",
      flexibleVersions: "0+",
      headerVersions: { "0+": 3 },
      fields: [],
    };
    await writeFile(path.join(dir, "AheadRequest.json"), JSON.stringify(request));
    await expect(loadSchemas([dir])).rejects.toThrow(
      /maps 0\+ of AheadRequest to RequestHeader v3, but .* has versions 0-2/,
    );
  });
});

describe('"validVersions": "none"', () => {
  it("is accepted, generates no codec, and its api key is in no protocol", async () => {
    const specs = await loadSchemas([FIXTURES]);
    expect(specs.find((s) => s.name === "RetiredRequest")?.validVersions.isEmpty()).toBe(true);
    expect(written).not.toContain("RetiredRequest.ts");
    expect(written).not.toContain("RetiredResponse.ts");
    expect(messages.RetiredRequest).toBeUndefined();
    expect(() => protocol.api(92)).toThrow(/no API with api key 92/);
  });

  it("still reserves its api key: a second request with it is refused", async () => {
    const dir = path.join(REPO_ROOT, "test", "fixtures", "header-versions-duplicate");
    await expect(loadSchemas([dir])).rejects.toThrow(
      /api key 92 of ReuseRequest is already the request RetiredRequest/,
    );
  });
});

describe("latestVersionUnstable", () => {
  it("the codec marks the version; the generated protocol refuses it, the stable one works", () => {
    expect(messages.ProbeRequest!.latestVersionUnstable).toBe(true);
    expect(messages.ProbeResponse!.latestVersionUnstable).toBeUndefined();
    expect(() => protocol.encodeRequestFrame({ apiKey: 91, apiVersion: 1, correlationId: 3 }, { depth: 4 })).toThrow(
      /Probe v1 is unstable/,
    );
    // size 10 | api key 91, version 0, correlation id 3, null client id (length -1) | empty body.
    const v0 = protocol.encodeRequestFrame({ apiKey: 91, apiVersion: 0, correlationId: 3 }, {});
    expect(hex(v0)).toBe("0000000a" + "005b" + "0000" + "00000003" + "ffff");
  });

  it("a protocol defined with unstableVersions: true encodes and decodes it", () => {
    const unstable = defineProtocol({ ...protocolDefinition, unstableVersions: true });
    expect([protocol.unstableVersions, unstable.unstableVersions]).toEqual([false, true]);
    const frame = unstable.encodeRequestFrame({ apiKey: 91, apiVersion: 1, correlationId: 3 }, { depth: 4 });
    // size 12 | api key 91, version 1, correlation id 3, null client id | depth 4 (int16).
    expect(hex(frame)).toBe("0000000c" + "005b" + "0001" + "00000003" + "ffff" + "0004");
    expect(unstable.decodeRequestFrame(frame).body).toEqual({ depth: 4 });
    // The default protocol refuses the same bytes.
    expect(() => protocol.decodeRequestFrame(frame)).toThrow(/unstable/);
  });
});
