/**
 * The command on a user's schema set (`--schemas`): `decode`, `encode`, `list` and
 * `decode-frame` on Kafka's own clients schemas from the shared folder, checked against Apache
 * Kafka's golden vectors and frames worked out by hand; the codec cache (generated once, then
 * taken from the cache); JSON lines in and out. Runs in-process (the sources, as under tsx) and
 * once through `tsx cli/cli.ts` in a child process; test/package.test.ts runs the built package.
 */

import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { promisify } from "node:util";
import { parse, stringify } from "lossless-json";
import { afterAll, describe, expect, it } from "vitest";
import { main, schemaPathsBound, type CliIO, type TextInput } from "../cli/cli.js";
import { describeShared, REPO_ROOT } from "./support/shared.js";

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

const NO_STDIN: TextInput = {
  isTTY: true,
  async *[Symbol.asyncIterator]() {},
};

async function run(args: readonly string[], stdin?: string): Promise<Run> {
  let stdout = "";
  let stderr = "";
  const io: CliIO = {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    // In chunks of 5 bytes, so that lines (and UTF-8 sequences) straddle chunks.
    stdin:
      stdin === undefined
        ? NO_STDIN
        : Readable.from(
            Buffer.from(stdin).reduce<Buffer[]>((chunks, _, i, all) => {
              if (i % 5 === 0) chunks.push(Buffer.from(all.subarray(i, i + 5)));
              return chunks;
            }, []),
          ),
  };
  const code = await main(args, io);
  return { code, stdout, stderr };
}

/** JSON text in a canonical compact form that keeps every digit. */
function canonical(text: string): string | undefined {
  return stringify(parse(text));
}

interface Vector {
  readonly version: number;
  readonly kind: string;
  readonly hex: string;
  readonly json: string;
}

/** The golden vectors of one message (`golden/kafka/<name>.json`, one vector per line). */
function vectors(goldenDir: string, name: string): Vector[] {
  const all = parse(readFileSync(path.join(goldenDir, `${name}.json`), "utf8")) as {
    version: unknown;
    kind: string;
    hex: string;
    json: unknown;
  }[];
  return all.map((v) => ({ version: Number(String(v.version)), kind: v.kind, hex: v.hex, json: stringify(v.json)! }));
}

const caches: string[] = [];
afterAll(() => {
  for (const d of caches) rmSync(d, { recursive: true, force: true });
});

function freshCache(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "kafka-wire-codec-cache-"));
  caches.push(dir);
  return dir;
}

/*
 * A MetadataRequest v12 request frame, worked out by hand from RequestHeader.json and
 * MetadataRequest.json. Metadata is flexible from v9, so the request header is v2.
 *
 *   00000012        size: 18 bytes follow
 *   0003            requestApiKey      int16  3 (Metadata)
 *   000c            requestApiVersion  int16  12
 *   0000002a        correlationId      int32  42
 *   0003 617070     clientId           classic nullable string (int16 length, even in header v2): "app"
 *   00              header tagged fields: none
 *   01              topics             compact nullable array, length + 1 = 1: []
 *   01              allowAutoTopicCreation            bool true
 *   00              includeTopicAuthorizedOperations  bool false (v8+)
 *   00              body tagged fields: none
 */
const METADATA_V12_FRAME = "00000012" + "0003" + "000c" + "0000002a" + "0003617070" + "00" + "01" + "01" + "00" + "00";

/*
 * A SaslHandshakeResponse v1 response frame (api key 17, never flexible: response header v0).
 *
 *   00000011        size: 17 bytes follow
 *   00000007        correlationId  int32  7
 *   0000            errorCode      int16  0
 *   00000001        mechanisms     classic array, 1 element
 *   0005 504c41494e   string "PLAIN"
 */
const SASL_V1_RESPONSE_FRAME = "00000011" + "00000007" + "0000" + "00000001" + "0005504c41494e";

describeShared("the CLI on a schema set (Kafka's clients schemas)", "kafka-schemas/clients", (clients) => {
  const golden = path.resolve(clients, "../../golden/kafka");
  const cache = freshCache();
  const set = ["--schemas", clients, "--cache-dir", cache];

  it("generates the codecs once into the cache, then takes them from it", async () => {
    const v = vectors(golden, "MetadataRequest")[0]!;
    const started = Date.now();
    const cold = await run(["decode", "MetadataRequest", String(v.version), v.hex, ...set]);
    const coldMs = Date.now() - started;
    expect(cold.code, cold.stderr).toBe(0);
    const schemaCount = readdirSync(clients).filter((f) => f.endsWith(".json")).length;
    expect(cold.stderr).toMatch(new RegExp(`^generating codecs for ${schemaCount} schemas \\(kept in .*\\)\\n$`));
    expect(canonical(cold.stdout)).toBe(canonical(v.json));
    const entries = readdirSync(path.join(cache, "codecs"));
    expect(entries).toHaveLength(1);
    expect(existsSync(path.join(cache, "codecs", entries[0]!, "MetadataRequest.js"))).toBe(true);

    const again = Date.now();
    const warm = await run(["decode", "MetadataRequest", String(v.version), v.hex, ...set]);
    console.log(`[codec cache] in-process: generated in ${coldMs} ms, from the cache in ${Date.now() - again} ms`);
    expect(warm).toEqual({ code: 0, stdout: cold.stdout, stderr: "" });
    expect(readdirSync(path.join(cache, "codecs"))).toEqual(entries);
  }, 300_000);

  it("decode --spans takes the schema set's field tables: the spans of a golden MetadataRequest tile its body", async () => {
    const v = vectors(golden, "MetadataRequest").at(-1)!;
    const r = await run(["decode", "MetadataRequest", String(v.version), v.hex, "--spans", "--json", ...set]);
    expect(r.code, r.stderr).toBe(0);
    const spans = JSON.parse(r.stdout) as {
      path: string;
      offset: number;
      length: number;
      depth: number;
      hex: string;
    }[];
    expect([spans[0]!.path, spans[0]!.offset, spans[0]!.length, spans[0]!.hex]).toEqual([
      "",
      0,
      v.hex.length / 2,
      v.hex,
    ]);
    // The top-level fields follow each other and end where the body ends.
    const top = spans.filter((s) => s.depth === 1);
    top.forEach((s, i) => expect(s.offset).toBe(i === 0 ? 0 : top[i - 1]!.offset + top[i - 1]!.length));
    expect(top.at(-1)!.offset + top.at(-1)!.length).toBe(v.hex.length / 2);
    expect(top.map((s) => s.path)).toContain("topics");
  }, 300_000);

  it("decodes every MetadataRequest golden vector to Kafka's JSON (--jsonl, one version per run)", async () => {
    const byVersion = new Map<number, Vector[]>();
    for (const v of vectors(golden, "MetadataRequest"))
      byVersion.set(v.version, [...(byVersion.get(v.version) ?? []), v]);
    expect(byVersion.size).toBeGreaterThan(5);
    for (const [version, vs] of byVersion) {
      // A blank line and a CRLF line ending on the way: both are accepted.
      const input =
        vs
          .map((v) => v.hex)
          .join("\n\n")
          .replace(/\n$/, "") + "\r\n";
      const r = await run(["decode", "MetadataRequest", String(version), "--jsonl", ...set], input);
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      const lines = r.stdout.split("\n");
      expect(lines.pop()).toBe("");
      expect(lines.map(canonical)).toEqual(vs.map((v) => canonical(v.json)));
      // Compact: one object per line.
      for (const line of lines) expect(line).not.toMatch(/\n|": /);
    }
  }, 300_000);

  it("encodes MetadataResponse golden JSON to Kafka's bytes (--jsonl)", async () => {
    const vs = vectors(golden, "MetadataResponse").filter((v) => v.version === 12);
    expect(vs.length).toBeGreaterThan(1);
    const r = await run(["encode", "MetadataResponse", "12", "--jsonl", ...set], vs.map((v) => v.json).join("\n"));
    expect(r.stderr).toBe("");
    expect(r).toEqual({ code: 0, stdout: vs.map((v) => v.hex + "\n").join(""), stderr: "" });
  }, 300_000);

  it("--jsonl stops at the first bad line, naming it; earlier lines are already out", async () => {
    const v = vectors(golden, "MetadataRequest").find((x) => x.version === 4 && x.kind === "defaults")!;
    // Line 2 has a byte after the message (MetadataRequest v4 defaults are 5 bytes).
    const r = await run(["decode", "MetadataRequest", "4", "--jsonl", ...set], `${v.hex}\n${v.hex}ff\n${v.hex}\n`);
    expect(r.code).toBe(1);
    expect(r.stdout.split("\n").map((l) => (l === "" ? "" : canonical(l)))).toEqual([canonical(v.json), ""]);
    expect(r.stderr).toBe(`error: line 2: TRAILING_BYTES: 1 bytes remain after the message (byte offset 5)\n`);
    const badHex = await run(["encode", "MetadataRequest", "4", "--jsonl", ...set], `${v.json}\n{"topics":7}\n`);
    expect(badHex.code).toBe(1);
    expect(badHex.stdout).toBe(`${v.hex}\n`);
    expect(badHex.stderr).toMatch(/^error: line 2: INVALID_JSON: expected an array, got number 7 at topics\n$/);
  }, 300_000);

  it("lists the schema set's messages", async () => {
    const r = await run(["list", ...set]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^NAME\s+TYPE\s+API KEY\s+VERSIONS\s+FLEXIBLE$/);
    // From MetadataRequest.json: api key 3, "validVersions": "4-13", "flexibleVersions": "9+".
    expect(lines).toContainEqual(expect.stringMatching(/^MetadataRequest\s+request\s+3\s+4-13\s+9\+$/));
    expect(lines).toContainEqual(expect.stringMatching(/^RequestHeader\s+header\s+-\s+0-2\s+2\+$/));
    expect(lines).toHaveLength(1 + readdirSync(clients).filter((f) => f.endsWith(".json")).length);
  }, 300_000);

  it("decode-frame reads a request frame's api key and version from its header", async () => {
    const r = await run(["decode-frame", METADATA_V12_FRAME, ...set]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      api: "Metadata",
      apiKey: 3,
      apiVersion: 12,
      headerVersion: 2,
      header: { requestApiKey: 3, requestApiVersion: 12, correlationId: 42, clientId: "app" },
      body: { topics: [], allowAutoTopicCreation: true, includeTopicAuthorizedOperations: false },
    });
  }, 300_000);

  it("decode-frame reads a response frame with --api-key (number or name) and --api-version", async () => {
    const expected = {
      api: "SaslHandshake",
      apiKey: 17,
      apiVersion: 1,
      headerVersion: 0,
      header: { correlationId: 7 },
      body: { errorCode: 0, mechanisms: ["PLAIN"] },
    };
    for (const key of ["17", "SaslHandshake", "saslhandshakeresponse"]) {
      const r = await run(["decode-frame", SASL_V1_RESPONSE_FRAME, "--api-key", key, "--api-version", "1", ...set]);
      expect(r.stderr).toBe("");
      expect(JSON.parse(r.stdout)).toEqual(expected);
    }
    // --jsonl: one frame per line, one compact object per line.
    const lines = await run(
      ["decode-frame", "--jsonl", "--api-key", "17", "--api-version", "1", ...set],
      `${SASL_V1_RESPONSE_FRAME}\n${SASL_V1_RESPONSE_FRAME}\n`,
    );
    expect(lines.stdout).toBe(`${JSON.stringify(expected)}\n`.repeat(2));
  }, 300_000);

  it("decode-frame errors are one line", async () => {
    const typo = await run([
      "decode-frame",
      SASL_V1_RESPONSE_FRAME,
      "--api-key",
      "SaslHandshak",
      "--api-version",
      "1",
      ...set,
    ]);
    expect(typo).toEqual({
      code: 1,
      stdout: "",
      stderr: 'error: --api-key "SaslHandshak": not an api key or API name; did you mean SaslHandshake?\n',
    });
    const half = await run(["decode-frame", SASL_V1_RESPONSE_FRAME, "--api-key", "17", ...set]);
    expect(half.stderr).toBe(
      "error: --api-key needs --api-version: a response frame is decoded with both (a request frame with neither)\n",
    );
    // A response frame without --api-key is read as a request; the error says so and what to give.
    const response = await run(["decode-frame", SASL_V1_RESPONSE_FRAME, ...set]);
    expect(response.code).toBe(1);
    // Its first bytes, 0000 0007 (the correlation id 7), read as api key 0 (Produce) version 7.
    expect(response.stderr).toMatch(
      /^error: [A-Z_]+: .* \(read as a request frame: its header says ProduceRequest v7 \(api key 0\); a response frame has no api key in its header: give --api-key <key> --api-version <version> of the request it answers\)\n$/,
    );
    // The size prefix says 17, one byte fewer follows.
    const short = await run(["decode-frame", METADATA_V12_FRAME.slice(0, -2), ...set]);
    expect(short).toEqual({
      code: 1,
      stdout: "",
      stderr: "error: INVALID_LENGTH: size prefix says 18 bytes, the frame has 17 after it (byte offset 0)\n",
    });
  }, 300_000);
});

describe("the CLI without a schema set", () => {
  it("decode-frame says which schemas it needs", async () => {
    const r = await run(["decode-frame", "00000004000000007"]);
    expect(r).toEqual({
      code: 1,
      stdout: "",
      stderr:
        "error: decode-frame needs the RequestHeader and ResponseHeader schemas, which the shipped codecs do not have: pass --kafka <version>, or --schemas with Kafka's clients/src/main/resources/common/message folder\n",
    });
  });

  it("an unknown message points to --schemas and --kafka", async () => {
    const r = await run(["decode", "MetadataRequest", "12", "00"]);
    expect(r.stderr).toBe(
      'error: unknown message "MetadataRequest"; the shipped codecs are the four KIP-1071 messages (`kafka-wire list`); for others pass --schemas <folder> or --kafka <version>\n',
    );
  });

  it("options before the arguments: --schemas DIR, then the message, version and hex", async () => {
    const hex = readFileSync(path.join(REPO_ROOT, "examples/StreamsGroupHeartbeatResponse.v0.hex"), "utf8").trim();
    const shipped = await run(["decode", "StreamsGroupHeartbeatResponse", "0", hex]);
    expect(shipped.code).toBe(0);
    const cache = freshCache();
    const before = await run([
      "decode",
      "--schemas",
      "schemas",
      "--cache-dir",
      cache,
      "StreamsGroupHeartbeatResponse",
      "0",
      hex,
    ]);
    expect(before.stderr).not.toMatch(/error/);
    expect(before.code).toBe(0);
    // The same codec from the same schema, generated into the cache: the same JSON.
    expect(before.stdout).toBe(shipped.stdout);
    // Several paths in a row are still one --schemas (a file, then a folder: the same schema twice is refused).
    const two = await run([
      "list",
      "--schemas",
      "schemas/StreamsGroupHeartbeatRequest.json",
      "schemas/StreamsGroupHeartbeatResponse.json",
      "--cache-dir",
      cache,
    ]);
    expect(two.code).toBe(0);
    expect(
      two.stdout
        .trim()
        .split("\n")
        .slice(1)
        .map((l) => l.split(/\s+/)[0]),
    ).toEqual(["StreamsGroupHeartbeatRequest", "StreamsGroupHeartbeatResponse"]);
  });

  it("schemaPathsBound: the words after --schemas that look like paths, and no others", () => {
    const at = REPO_ROOT;
    expect(schemaPathsBound(["decode", "--schemas", "schemas", "MetadataRequest", "12", "00ff"], at)).toEqual([
      "decode",
      "--schemas=schemas",
      "MetadataRequest",
      "12",
      "00ff",
    ]);
    expect(schemaPathsBound(["list", "--schemas", "a/b", "c.json", "README.md", "--kafka", "x"], at)).toEqual([
      "list",
      "--schemas=a/b",
      "--schemas=c.json",
      "--schemas=README.md",
      "--kafka",
      "x",
    ]);
    // The first word is always a path (a missing folder is reported as such, not as an argument).
    expect(schemaPathsBound(["list", "--schemas", "nosuch", "x"], at)).toEqual(["list", "--schemas=nosuch", "x"]);
    expect(schemaPathsBound(["decode", "--", "--schemas", "a"], at)).toEqual(["decode", "--", "--schemas", "a"]);
  });

  it("rejects conflicting schema set options", async () => {
    const both = await run(["list", "--kafka", "4.1.0", "--schemas", "schemas"]);
    expect(both.stderr).toBe("error: --schemas cannot be combined with --kafka or --kafka-source\n");
    const mirror = await run(["list", "--kafka-mirror", "http://127.0.0.1:1"]);
    expect(mirror.stderr).toBe("error: --kafka-mirror needs --kafka <version>\n");
  });

  it("encode shows the offending value of a range error", async () => {
    const r = await run(["encode", "StreamsGroupHeartbeatResponse", "0", '{"throttleTimeMs": 3000000000}']);
    expect(r).toEqual({
      code: 1,
      stdout: "",
      stderr:
        "error: INVALID_JSON: expected an integer in int32 range -2147483648..2147483647, got number 3000000000 at throttleTimeMs\n",
    });
  });

  it("decode --jsonl with the shipped codecs", async () => {
    // One byte where throttleTimeMs (int32) needs four.
    const r = await run(["decode", "StreamsGroupHeartbeatResponse", "0", "--jsonl"], "00\n");
    expect(r).toEqual({
      code: 1,
      stdout: "",
      stderr: "error: line 1: BUFFER_UNDERFLOW: needed 4 bytes, 1 remain at throttleTimeMs (byte offset 0)\n",
    });
  });
});

describeShared(
  "tsx cli/cli.ts on a schema set (a child process, as `npm run cli`)",
  "kafka-schemas/clients",
  (clients) => {
    const exec = promisify(execFile);
    it("decode-frame: generated once, then from the cache", async () => {
      const cache = freshCache();
      const tsx = path.join(REPO_ROOT, "node_modules", ".bin", "tsx");
      const args = [
        "cli/cli.ts",
        "decode-frame",
        METADATA_V12_FRAME,
        "--jsonl",
        "--schemas",
        clients,
        "--cache-dir",
        cache,
      ];
      const times: number[] = [];
      const outputs: { stdout: string; stderr: string }[] = [];
      for (let i = 0; i < 2; i++) {
        const started = Date.now();
        outputs.push(await exec(tsx, args, { cwd: REPO_ROOT, timeout: 240_000 }));
        times.push(Date.now() - started);
      }
      console.log(`[codec cache] tsx cli/cli.ts: cold ${times[0]} ms, cached ${times[1]} ms`);
      expect(outputs[0]!.stderr).toMatch(/^generating codecs for \d+ schemas/);
      expect(outputs[1]!.stderr).toBe("");
      for (const o of outputs) {
        expect(JSON.parse(o.stdout)).toMatchObject({ api: "Metadata", header: { correlationId: 42, clientId: "app" } });
      }
    }, 300_000);
  },
);
