/**
 * kafka-wire where its users run it: in a browser, through a bundler.
 *
 * - Bundle size: each seed codec bundled alone (as `kafka-wire/messages/<Name>` is) with the
 *   runtime, minified and gzipped, and the four seed codecs together; a one-codec bundle must not
 *   contain any other codec. `npm run size` runs this part alone.
 * - Headless Chromium: one codec bundled for the browser (esbuild, `browser` platform: a Node.js
 *   built-in reached from it fails the build) runs in Debian's Chromium, encodes and decodes a
 *   StreamsGroupHeartbeatRequest, and gives the bytes worked out by hand below and the same
 *   bytes and JSON as the same codec in Node.
 */
import { readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { StreamsGroupHeartbeatRequest } from "../generated/StreamsGroupHeartbeatRequest.js";
import { bundleForBrowser, describeChromium, withChromiumPage, type Bundle } from "./support/browser.js";
import { REPO_ROOT } from "./support/shared.js";

/** The seed codecs: every generated module but the index and internal-topics (as tsup.config.ts finds them). */
const SEED = readdirSync(path.join(REPO_ROOT, "generated"))
  .filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts") && f !== "index.ts" && f !== "internal-topics.ts")
  .map((f) => f.slice(0, -3))
  .sort();

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString("hex");
const unhex = (text: string): Uint8Array => new Uint8Array(Buffer.from(text.replace(/\s+/g, ""), "hex"));

/**
 * StreamsGroupHeartbeatRequest v0 (flexible: compact strings and arrays are unsigned varint
 * length+1, `00` is null; a nullable struct is an int8 marker, -1 null / 1 present; every struct
 * ends with its tagged-field count), worked out by hand from schemas/StreamsGroupHeartbeatRequest.json.
 */
const HEARTBEAT_HEX = [
  "04 617070", //                  groupId "app"
  "05 6d2dc3a9", //                memberId "m-é" (é is c3 a9 in UTF-8: 4 bytes, length+1 = 5)
  "00000007", //                   memberEpoch 7
  "00000003", //                   currentAssignmentEpoch 3
  "00", //                         instanceId null
  "02 72", //                      rackId "r"
  "00007530", //                   rebalanceTimeoutMs 30000
  "ff", //                         topology null (nullable struct marker -1)
  "02", //                         activeTasks: 1 element
  "  02 30", //                      subtopologyId "0"
  "  03 00000000 00000001", //       partitions [0, 1]
  "  00", //                         no tagged fields
  "01", //                         standbyTasks [] (empty, not null)
  "00", //                         warmupTasks null
  "00", //                         processId null
  "01 02 68 1f90 00", //           userEndpoint present: host "h", port 8080, no tagged fields
  "00", //                         clientTags null
  "02", //                         taskOffsets: 1 element
  "  02 30 00000001", //             subtopologyId "0", partition 1
  "  0000010000000000 00", //        offset 2^40 (int64), no tagged fields
  "00", //                         taskEndOffsets null
  "01", //                         shutdownApplication true
  "00", //                         no tagged fields
]
  .join("")
  .replace(/\s+/g, "");

/** The message HEARTBEAT_HEX encodes, as `create()` arguments (the page builds the same one). */
const HEARTBEAT_INIT = `{
  groupId: "app", memberId: "m-\\u00e9", memberEpoch: 7, currentAssignmentEpoch: 3, rackId: "r",
  rebalanceTimeoutMs: 30000, activeTasks: [{ subtopologyId: "0", partitions: [0, 1] }], standbyTasks: [],
  userEndpoint: { host: "h", port: 8080 }, taskOffsets: [{ subtopologyId: "0", partition: 1, offset: 1n << 40n }],
  shutdownApplication: true,
}`;

/** The shortest heartbeat: `create({ groupId: "g", memberId: "m" })`, every other field at its default. */
const SHORT_HEARTBEAT_HEX = "0267 026d 00000000 00000000 00 00 ffffffff ff 00 00 00 00 ff 00 00 00 00 00".replace(
  / /g,
  "",
);

/**
 * What runs in the page, as plain JavaScript text (not a function of this file: the test runner's
 * transform could add helpers that do not exist in the page). Bundled with one codec into an IIFE
 * that sets `globalThis.kafkaWire`.
 */
const PAGE_ENTRY = `
import { StreamsGroupHeartbeatRequest as Q } from "./generated/StreamsGroupHeartbeatRequest.js";
import { KafkaDecodeError, KafkaWireError } from "./src/runtime/index.js";

const fromHex = (h) => new Uint8Array(h.match(/../g).map((b) => parseInt(b, 16)));
const toHex = (b) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");

export function run(handHex) {
  const decoded = Q.decode(fromHex(handHex), 0);
  const built = Q.create(${HEARTBEAT_INIT});
  const target = new Uint8Array(Q.size(built, 0) + 3);
  const end = Q.encodeInto(built, 0, target, 3);
  let error = null;
  try {
    Q.decode(fromHex(handHex).subarray(0, 20), 0);
  } catch (e) {
    error = { decodeError: e instanceof KafkaDecodeError, wireError: e instanceof KafkaWireError, name: e.name, code: e.code, path: e.path, offset: e.offset };
  }
  return {
    reencoded: toHex(Q.encode(decoded, 0)),
    encoded: toHex(Q.encode(built, 0)),
    encodedInto: toHex(target.subarray(3, end)),
    short: toHex(Q.encode(Q.create({ groupId: "g", memberId: "m" }), 0)),
    json: Q.toJson(decoded, 0),
    fromJsonEncoded: toHex(Q.encode(Q.fromJson(Q.toJson(decoded, 0), 0), 0)),
    memberId: decoded.memberId,
    offsetType: typeof decoded.taskOffsets[0].offset,
    offset: String(decoded.taskOffsets[0].offset),
    userEndpoint: decoded.userEndpoint,
    error,
    globals: { Buffer: typeof globalThis.Buffer, process: typeof globalThis.process, require: typeof globalThis.require },
  };
}
`;

function otherMessages(name: string): string[] {
  return SEED.filter((n) => n !== name);
}

const kb = (n: number): string => `${(n / 1024).toFixed(1)} KiB`;

describe("bundle size (esbuild, browser platform, minified + gzipped)", () => {
  const singles = new Map<string, Bundle>();

  it("finds the seed codecs: the four KIP-1071 messages, the describe request and the member metadata key", () => {
    expect(SEED).toEqual([
      "StreamsGroupDescribeRequest",
      "StreamsGroupDescribeResponse",
      "StreamsGroupHeartbeatRequest",
      "StreamsGroupHeartbeatResponse",
      "StreamsGroupMemberMetadataKey",
      "StreamsGroupMemberMetadataValue",
    ]);
  });

  it.each(SEED)("one message + runtime: %s, without the other codecs", async (name) => {
    const bundle = await bundleForBrowser(`export { ${name} } from "./generated/${name}.js";`, REPO_ROOT);
    singles.set(name, bundle);
    expect(bundle.code).toContain(JSON.stringify(name));
    for (const other of otherMessages(name))
      expect(bundle.code, `${name}'s bundle contains ${other}`).not.toContain(other);
    console.log(`[size] ${name} + runtime: ${bundle.gzipBytes} B min+gz (${bundle.bytes} B min)`);
    // Generous ceilings: they catch a codec pulling in others or a large dependency, not small growth.
    expect(bundle.gzipBytes).toBeLessThan(16 * 1024);
  });

  it("the runtime alone, and the four seed messages together", async () => {
    const runtime = await bundleForBrowser(`export * from "./src/runtime/index.js";`, REPO_ROOT);
    const all = await bundleForBrowser(`export { messages } from "./generated/index.js";`, REPO_ROOT);
    for (const name of SEED) expect(all.code).toContain(JSON.stringify(name));
    console.log(`[size] runtime alone (every export): ${runtime.gzipBytes} B min+gz (${runtime.bytes} B min)`);
    console.log(`[size] the four seed messages + runtime: ${all.gzipBytes} B min+gz (${all.bytes} B min)`);
    const largest = Math.max(...[...singles.values()].map((b) => b.gzipBytes));
    if (singles.size === SEED.length) {
      console.log(
        `[size] summary: one message + runtime ≤ ${kb(largest)}, four seed messages ${kb(all.gzipBytes)} (min+gz)`,
      );
      // Per-message entries pay off: the largest single codec is well under the four together.
      expect(largest).toBeLessThan(all.gzipBytes);
    }
    expect(all.gzipBytes).toBeLessThan(48 * 1024);
  });
});

describe("the hand-worked heartbeat in Node (the reference the page is compared with)", () => {
  it("encodes the hand-worked bytes and decodes them back", () => {
    const bytes = unhex(HEARTBEAT_HEX);
    const decoded = StreamsGroupHeartbeatRequest.decode(bytes, 0);
    expect(decoded.memberId).toBe("m-é");
    expect(decoded.taskOffsets?.[0]?.offset).toBe(1n << 40n);
    expect(hex(StreamsGroupHeartbeatRequest.encode(decoded, 0))).toBe(hex(bytes));
    const short = StreamsGroupHeartbeatRequest.create({ groupId: "g", memberId: "m" });
    expect(hex(StreamsGroupHeartbeatRequest.encode(short, 0))).toBe(SHORT_HEARTBEAT_HEX);
  });
});

describeChromium("in headless Chromium (Debian's chromium, playwright-core)", () => {
  it("bundles one codec, runs it in the page, and gets the hand-worked bytes and Node's result", async () => {
    const bundle = await bundleForBrowser(PAGE_ENTRY, REPO_ROOT, { format: "iife", globalName: "kafkaWire" });
    for (const other of otherMessages("StreamsGroupHeartbeatRequest")) expect(bundle.code).not.toContain(other);

    const errors: string[] = [];
    const result = await withChromiumPage(async (page) => {
      page.on("pageerror", (e) => errors.push(e.message));
      await page.addScriptTag({ content: bundle.code });
      const userAgent = await page.evaluate("navigator.userAgent");
      expect(String(userAgent)).toContain("HeadlessChrome");
      return (await page.evaluate(`globalThis.kafkaWire.run(${JSON.stringify(HEARTBEAT_HEX)})`)) as {
        reencoded: string;
        encoded: string;
        encodedInto: string;
        short: string;
        json: string;
        fromJsonEncoded: string;
        memberId: string;
        offsetType: string;
        offset: string;
        userEndpoint: unknown;
        error: unknown;
        globals: Record<string, string>;
      };
    });
    expect(errors).toEqual([]);

    const handHex = HEARTBEAT_HEX;
    // Against the bytes worked out by hand.
    expect(result.encoded).toBe(handHex);
    expect(result.encodedInto).toBe(handHex);
    expect(result.reencoded).toBe(handHex);
    expect(result.short).toBe(SHORT_HEARTBEAT_HEX);
    expect(result.fromJsonEncoded).toBe(handHex);
    expect(result.memberId).toBe("m-é");
    expect(result.offsetType).toBe("bigint");
    expect(result.offset).toBe(String(1n << 40n));
    expect(result.userEndpoint).toEqual({ host: "h", port: 8080 });

    // Against Node's result of the same codec.
    const node = StreamsGroupHeartbeatRequest.decode(unhex(handHex), 0);
    expect(result.json).toBe(StreamsGroupHeartbeatRequest.toJson(node, 0));
    let nodeError: unknown;
    try {
      StreamsGroupHeartbeatRequest.decode(unhex(handHex).subarray(0, 20), 0);
    } catch (e) {
      nodeError = e;
    }
    const { code, path: at, offset, name } = nodeError as { code: string; path: string; offset: number; name: string };
    expect(result.error).toEqual({ decodeError: true, wireError: true, name, code, path: at, offset });
    expect(name).toBe("KafkaDecodeError");

    // Nothing from Node.js was needed (or polyfilled) in the page.
    expect(result.globals).toEqual({ Buffer: "undefined", process: "undefined", require: "undefined" });
  });
});
