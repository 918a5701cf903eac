/**
 * The `kafka-wire` command, run in-process through `main()` with captured streams.
 * Needs `generated/` (run `npm run generate` first); the golden-vector test also needs the
 * shared folder next to the repository (skipped locally, failing in CI, when it is absent).
 */

import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { parse, stringify } from "lossless-json";
import { afterAll, describe, expect, it } from "vitest";
import { indentJson, main, parseHex, type CliIO, type TextInput } from "../cli/cli.js";
import { describeShared, REPO_ROOT } from "./support/shared.js";

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** A terminal: nothing piped in. */
const NO_STDIN: TextInput = {
  isTTY: true,
  async *[Symbol.asyncIterator]() {},
};

async function run(args: readonly string[], options: { stdin?: string; cwd?: string } = {}): Promise<Run> {
  let stdout = "";
  let stderr = "";
  const io: CliIO = {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    // Bytes, in two chunks, so that reading stdin must join (and UTF-8 decode) them.
    stdin:
      options.stdin === undefined
        ? NO_STDIN
        : Readable.from([Buffer.from(options.stdin.slice(0, 7)), Buffer.from(options.stdin.slice(7))]),
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
  };
  const code = await main(args, io);
  return { code, stdout, stderr };
}

/** The lines of `text` (which must end with a newline), in a fixed order. */
function lines(text: string): string[] {
  expect(text.endsWith("\n")).toBe(true);
  return text.slice(0, -1).split("\n").sort();
}

/** JSON text in a canonical compact form that keeps every digit (int64 beyond 2^53 included). */
function canonical(text: string): string | undefined {
  return stringify(parse(text));
}

/*
 * A StreamsGroupHeartbeatResponse v0 body worked out by hand from
 * schemas/StreamsGroupHeartbeatResponse.json (field order as in the schema; v0 is flexible, so
 * strings and arrays are compact: unsigned varint of length + 1, 00 = null; every struct ends
 * with its tagged-field count):
 *
 *   00000064                      throttleTimeMs        int32  100
 *   0000                          errorCode             int16  0
 *   00                            errorMessage          compact nullable string: null
 *   03 6d31                       memberId              compact string, length 2 + 1: "m1"
 *   00000005                      memberEpoch           int32  5
 *   00000004                      currentAssignmentEpoch int32 4
 *   00001388                      heartbeatIntervalMs   int32  5000
 *   000003e8                      acceptableRecoveryLag int32  1000
 *   0000ea60                      taskOffsetIntervalMs  int32  60000
 *   02                            status                compact array, 1 element
 *     01                            statusCode          int8   1
 *     02 74                         statusDetail        compact string "t"
 *     00                            (Status tagged fields: none)
 *   02                            activeTasks           compact array, 1 element
 *     02 30                         subtopologyId       compact string "0"
 *     03 00000000 00000001          partitions          compact array of int32 [0, 1]
 *     00                            (TaskIds tagged fields: none)
 *   01                            standbyTasks          compact array, 0 elements
 *   00                            warmupTasks           null
 *   00                            partitionsByUserEndpoint null
 *   00                            (top-level tagged fields: none)
 */
// prettier-ignore
const HEARTBEAT_HEX =
  "00000064" + "0000" + "00" + "036d31" + "00000005" + "00000004" + "00001388" + "000003e8" + "0000ea60" +
  "02" + "01" + "0274" + "00" +
  "02" + "0230" + "03" + "00000000" + "00000001" + "00" +
  "01" + "00" + "00" + "00";

const HEARTBEAT_JSON = {
  throttleTimeMs: 100,
  errorCode: 0,
  errorMessage: null,
  memberId: "m1",
  memberEpoch: 5,
  currentAssignmentEpoch: 4,
  heartbeatIntervalMs: 5000,
  acceptableRecoveryLag: 1000,
  taskOffsetIntervalMs: 60000,
  status: [{ statusCode: 1, statusDetail: "t" }],
  activeTasks: [{ subtopologyId: "0", partitions: [0, 1] }],
  standbyTasks: [],
  warmupTasks: null,
  partitionsByUserEndpoint: null,
};

/** What `decode` prints: the JSON with 2-space indentation (no int64 here, so JSON.stringify agrees). */
const HEARTBEAT_PRETTY = JSON.stringify(HEARTBEAT_JSON, null, 2) + "\n";

describe("help and version", () => {
  it("prints the commands with --help and exits 0", async () => {
    const r = await run(["--help"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout).toContain("Usage: kafka-wire [options] [command]");
    for (const command of ["decode", "encode", "generate", "list"]) expect(r.stdout).toContain(command);
  });

  it("documents each command's options", async () => {
    const decode = await run(["decode", "--help"]);
    expect(decode.code).toBe(0);
    expect(decode.stdout).toContain("Usage: kafka-wire decode [options] <message> <version> [hex]");
    expect(decode.stdout).toContain("--allow-trailing-bytes");
    expect(decode.stdout).toContain("--strict-utf8");
    const generate = await run(["help", "generate"]);
    expect(generate.code).toBe(0);
    for (const flag of ["--schemas", "--out", "--runtime-import", "--api-key", "--config", "--check"]) {
      expect(generate.stdout).toContain(flag);
    }
  });

  it("prints the package version", async () => {
    const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as { version: string };
    const r = await run(["--version"]);
    expect(r).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: "" });
  });

  it("rejects an unknown command on one line with a suggestion", async () => {
    const r = await run(["decdoe"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("error: unknown command 'decdoe' (Did you mean decode?)\n");
  });

  it("rejects a missing argument", async () => {
    const r = await run(["decode", "StreamsGroupHeartbeatResponse"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: missing required argument 'version'\n$/);
  });
});

describe("list", () => {
  it("lists every generated message with type, api key and versions", async () => {
    const r = await run(["list"]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^NAME\s+TYPE\s+API KEY\s+VERSIONS/);
    expect(lines).toContainEqual(expect.stringMatching(/^StreamsGroupHeartbeatResponse\s+response\s+88\s+0\s+0\+$/));
    expect(lines).toContainEqual(expect.stringMatching(/^StreamsGroupMemberMetadataValue\s+data\s+-\s+0\s+0\+$/));
  });
});

describe("decode", () => {
  it("prints Kafka JSON of a hand-worked StreamsGroupHeartbeatResponse v0", async () => {
    const r = await run(["decode", "StreamsGroupHeartbeatResponse", "0", HEARTBEAT_HEX]);
    expect(r).toEqual({ code: 0, stdout: HEARTBEAT_PRETTY, stderr: "" });
  });

  it("reads hex from stdin, tolerating whitespace, upper case and a 0x prefix", async () => {
    const spaced =
      "0X" +
      HEARTBEAT_HEX.toUpperCase()
        .replace(/(..)/g, "$1 ")
        .replace(/(.{24})/g, "$1\n\t");
    const r = await run(["decode", "StreamsGroupHeartbeatResponse", "0"], { stdin: `  ${spaced}\n` });
    expect(r).toEqual({ code: 0, stdout: HEARTBEAT_PRETTY, stderr: "" });
  });

  it("suggests the closest names for an unknown message", async () => {
    const r = await run(["decode", "StreamsGroupHeartbeatResponce", "0", HEARTBEAT_HEX]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      'error: unknown message "StreamsGroupHeartbeatResponce"; did you mean StreamsGroupHeartbeatResponse?\n',
    );
    const vague = await run(["decode", "heartbeat", "0", "00"]);
    expect(vague.stderr).toContain("did you mean StreamsGroupHeartbeatRequest, StreamsGroupHeartbeatResponse?");
    const nothingClose = await run(["encode", "Xyz", "0", "{}"]);
    expect(nothingClose.stderr).toBe(
      'error: unknown message "Xyz"; the shipped codecs are the four KIP-1071 messages (`kafka-wire list`); for others pass --schemas <folder> or --kafka <version>\n',
    );
  });

  it("rejects bad hex with the offending character and its position", async () => {
    const r = await run(["decode", "StreamsGroupHeartbeatResponse", "0", "0000 00zz"]);
    expect(r).toEqual({ code: 1, stdout: "", stderr: 'error: invalid hex: unexpected character "z" at position 8\n' });
    const odd = await run(["decode", "StreamsGroupHeartbeatResponse", "0", "000"]);
    expect(odd.code).toBe(1);
    expect(odd.stderr).toBe("error: invalid hex: odd number of hex digits (3); every byte needs two\n");
  });

  it("shows a decode error's code, field path and byte offset on one line", async () => {
    // memberId claims 5 bytes ("m1" + 3 that are not there): compact length 06, at byte offset
    // 4 + 2 + 1 = 7; the claim is checked against the 2 bytes that remain after it.
    const truncated = "00000064" + "0000" + "00" + "066d31";
    const r = await run(["decode", "StreamsGroupHeartbeatResponse", "0", truncated]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^error: (INVALID_LENGTH|BUFFER_UNDERFLOW): [^\n]*at memberId \(byte offset [78]\)\n$/);
  });

  it("rejects trailing bytes unless --allow-trailing-bytes", async () => {
    const r = await run(["decode", "StreamsGroupHeartbeatResponse", "0", HEARTBEAT_HEX + "ff"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `error: TRAILING_BYTES: 1 bytes remain after the message (byte offset ${HEARTBEAT_HEX.length / 2})\n`,
    );
    const allowed = await run([
      "decode",
      "--allow-trailing-bytes",
      "StreamsGroupHeartbeatResponse",
      "0",
      HEARTBEAT_HEX + "ff",
    ]);
    expect(allowed).toEqual({ code: 0, stdout: HEARTBEAT_PRETTY, stderr: "" });
  });

  it("replaces invalid UTF-8 by default and rejects it with --strict-utf8", async () => {
    const badUtf8 = HEARTBEAT_HEX.replace("036d31", "03ff31");
    const lenient = await run(["decode", "StreamsGroupHeartbeatResponse", "0", badUtf8]);
    expect(lenient.code).toBe(0);
    expect(lenient.stdout).toContain('"memberId": "\uFFFD1"');
    const strict = await run(["decode", "--strict-utf8", "StreamsGroupHeartbeatResponse", "0", badUtf8]);
    expect(strict.code).toBe(1);
    expect(strict.stderr).toMatch(/^error: INVALID_STRING: [^\n]*memberId[^\n]*\n$/);
  });

  it("reports an unsupported version with its code", async () => {
    const r = await run(["decode", "StreamsGroupHeartbeatResponse", "7", HEARTBEAT_HEX]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: UNSUPPORTED_VERSION: StreamsGroupHeartbeatResponse has no version 7[^\n]*\n$/);
    const notANumber = await run(["decode", "StreamsGroupHeartbeatResponse", "v0", HEARTBEAT_HEX]);
    expect(notANumber.stderr).toBe('error: version must be an integer, got "v0"\n');
  });

  it("asks for input instead of waiting on a terminal", async () => {
    const r = await run(["decode", "StreamsGroupHeartbeatResponse", "0"]);
    expect(r).toEqual({
      code: 1,
      stdout: "",
      stderr: "error: no hex given: pass it as an argument or pipe it on stdin\n",
    });
  });
});

describe("encode", () => {
  it("encodes the hand-worked JSON back to the same hex", async () => {
    const r = await run(["encode", "StreamsGroupHeartbeatResponse", "0", JSON.stringify(HEARTBEAT_JSON)]);
    expect(r).toEqual({ code: 0, stdout: HEARTBEAT_HEX + "\n", stderr: "" });
  });

  it("fills the fields partial JSON leaves out with their schema defaults; --strict requires them", async () => {
    // errorCode (int16, default 0), errorMessage, warmupTasks and partitionsByUserEndpoint
    // (default null) are at their defaults in the hand-worked message: leaving them out changes nothing.
    const { errorCode, errorMessage, warmupTasks, partitionsByUserEndpoint, ...partial } = HEARTBEAT_JSON;
    expect([errorCode, errorMessage, warmupTasks, partitionsByUserEndpoint]).toEqual([0, null, null, null]);
    const r = await run(["encode", "StreamsGroupHeartbeatResponse", "0", JSON.stringify(partial)]);
    expect(r).toEqual({ code: 0, stdout: HEARTBEAT_HEX + "\n", stderr: "" });
    const strict = await run(["encode", "StreamsGroupHeartbeatResponse", "0", JSON.stringify(partial), "--strict"]);
    expect(strict.code).toBe(1);
    expect(strict.stderr).toMatch(/^error: INVALID_JSON: .*missing.* at errorCode/);
    // A misspelled field is still an error, not a default.
    const typo = await run(["encode", "StreamsGroupHeartbeatResponse", "0", '{"memberID":"m1"}']);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toMatch(/^error: INVALID_JSON: .*memberID/);
  });

  it("--template prints every field at its default; encoded, it is the all-defaults body", async () => {
    const t = await run(["encode", "StreamsGroupHeartbeatResponse", "0", "--template"]);
    expect(t.code).toBe(0);
    expect(JSON.parse(t.stdout)).toMatchObject({ throttleTimeMs: 0, memberId: "", status: null, activeTasks: null });
    const back = await run(["encode", "StreamsGroupHeartbeatResponse", "0"], { stdin: t.stdout });
    // Worked out by hand: throttleTimeMs, errorCode 0; errorMessage null (00); memberId "" (compact
    // length 0 + 1 = 01); four int32 zeros; the five nullable arrays null (00 each); no tagged fields.
    const expected = "00000000" + "0000" + "00" + "01" + "00000000".repeat(5) + "00".repeat(5) + "00";
    expect(back).toEqual({ code: 0, stdout: expected + "\n", stderr: "" });
  });

  it("reads JSON from stdin (the pretty output of decode round-trips)", async () => {
    const r = await run(["encode", "StreamsGroupHeartbeatResponse", "0"], { stdin: HEARTBEAT_PRETTY });
    expect(r).toEqual({ code: 0, stdout: HEARTBEAT_HEX + "\n", stderr: "" });
  });

  it("keeps int64 beyond 2^53 exact through encode and decode", async () => {
    const json = JSON.stringify({
      groupId: "g",
      memberId: "m",
      memberEpoch: 0,
      currentAssignmentEpoch: 0,
      instanceId: null,
      rackId: null,
      rebalanceTimeoutMs: -1,
      topology: null,
      activeTasks: null,
      standbyTasks: null,
      warmupTasks: null,
      processId: null,
      userEndpoint: null,
      clientTags: null,
      taskOffsets: [{ subtopologyId: "s", partition: 0, offset: 1 }],
      taskEndOffsets: null,
      shutdownApplication: false,
    }).replace('"offset":1', '"offset":9007199254740993');
    const encoded = await run(["encode", "StreamsGroupHeartbeatRequest", "0", json]);
    expect(encoded.code).toBe(0);
    // partition int32 0, then offset 2^53 + 1 as a big-endian int64
    expect(encoded.stdout).toContain("00000000" + "0020000000000001");
    const decoded = await run(["decode", "StreamsGroupHeartbeatRequest", "0", encoded.stdout]);
    expect(decoded.code).toBe(0);
    expect(decoded.stdout).toContain('"offset": 9007199254740993');
    expect(canonical(decoded.stdout)).toBe(canonical(json));
  });

  it("reports JSON that is not the message's form with code INVALID_JSON", async () => {
    const r = await run(["encode", "StreamsGroupHeartbeatResponse", "0", '{"throttleTimeMs": 1}', "--strict"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: INVALID_JSON: [^\n]+\n$/);
    const type = await run(["encode", "StreamsGroupHeartbeatResponse", "0", '{"throttleTimeMs": "1"}']);
    expect(type.code).toBe(1);
    expect(type.stderr).toMatch(/^error: INVALID_JSON: [^\n]+ at throttleTimeMs\n$/);
    const syntax = await run(["encode", "StreamsGroupHeartbeatResponse", "0"], { stdin: '{"x":' });
    expect(syntax.code).toBe(1);
    expect(syntax.stderr).toMatch(/^error: INVALID_JSON: [^\n]+\n$/);
  });
});

describe("output helpers", () => {
  it("indentJson copies strings and numbers verbatim", () => {
    const text = '{"a":"x\\"]}{,:\\u001F","b":[],"c":{},"d":[9223372036854775807,-0.0,1.0E300],"e":[{"f":null}]}';
    expect(indentJson(text)).toBe(
      [
        "{",
        '  "a": "x\\"]}{,:\\u001F",',
        '  "b": [],',
        '  "c": {},',
        '  "d": [',
        "    9223372036854775807,",
        "    -0.0,",
        "    1.0E300",
        "  ],",
        '  "e": [',
        "    {",
        '      "f": null',
        "    }",
        "  ]",
        "}",
      ].join("\n"),
    );
  });

  it("parseHex accepts an empty body", () => {
    expect(parseHex("")).toEqual(new Uint8Array(0));
    expect(parseHex(" 0x ")).toEqual(new Uint8Array(0));
    expect(parseHex("0x0aFf")).toEqual(Uint8Array.of(0x0a, 0xff));
  });

  it("parseHex: whitespace anywhere, one leading 0x, bad characters and odd counts named", () => {
    expect(parseHex(" 0a\n0b\t0 c ")).toEqual(Uint8Array.of(0x0a, 0x0b, 0x0c));
    expect(parseHex("00")).toEqual(Uint8Array.of(0));
    expect(() => parseHex("00x1")).toThrow('invalid hex: unexpected character "x" at position 3');
    expect(() => parseHex("0a g")).toThrow('invalid hex: unexpected character "g" at position 4');
    expect(() => parseHex("0x0a0")).toThrow("invalid hex: odd number of hex digits (3); every byte needs two");
  });

  it("200 MB of hex on stdin: read as it arrives, and the decode error is one error line", async () => {
    // The hand-worked response, then 100 MB of zero bytes as hex in 64 KiB chunks: trailing bytes.
    const chunk = "0".repeat(64 * 1024);
    const total = 200 * 1024 * 1024;
    const stdin: TextInput = {
      async *[Symbol.asyncIterator]() {
        yield HEARTBEAT_HEX;
        for (let sent = 0; sent < total; sent += chunk.length) yield chunk;
      },
    };
    let stderr = "";
    const code = await main(["decode", "StreamsGroupHeartbeatResponse", "0"], {
      stdout: { write: () => true },
      stderr: { write: (s: string) => (stderr += s) },
      stdin,
    });
    expect(code).toBe(1);
    expect(stderr).toMatch(/^error: TRAILING_BYTES: .*\n$/);
    expect(stderr.split("\n")).toHaveLength(2);
  }, 120_000);

  it("--jsonl: a line split over many chunks is one line; lines across chunk edges stay apart", async () => {
    const text = `${HEARTBEAT_HEX}\r\n\n${HEARTBEAT_HEX}\n`;
    // One character per chunk: every line straddles thousands of chunks.
    const stdin: TextInput = {
      async *[Symbol.asyncIterator]() {
        for (const c of text) yield c;
      },
    };
    let stdout = "";
    let stderr = "";
    const code = await main(["decode", "StreamsGroupHeartbeatResponse", "0", "--jsonl"], {
      stdout: { write: (s: string) => (stdout += s) },
      stderr: { write: (s: string) => (stderr += s) },
      stdin,
    });
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const out = stdout.trim().split("\n");
    expect(out).toHaveLength(2);
    expect(out.map((l) => canonical(l))).toEqual([
      canonical(JSON.stringify(HEARTBEAT_JSON)),
      canonical(JSON.stringify(HEARTBEAT_JSON)),
    ]);
  });
});

describe("generate", () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  function tempProject(): string {
    const dir = mkdtempSync(path.join(tmpdir(), "kafka-wire-cli-"));
    dirs.push(dir);
    cpSync(
      path.join(REPO_ROOT, "schemas", "StreamsGroupHeartbeatResponse.json"),
      path.join(dir, "schemas", "StreamsGroupHeartbeatResponse.json"),
    );
    return dir;
  }

  it("--check reports missing files and exits 1; generate writes them; --check then passes", async () => {
    const dir = tempProject();
    const args = ["generate", "--schemas", "schemas", "--out", "out", "--api-key", "StreamsGroupHeartbeatResponse=88"];

    const stale = await run([...args, "--check"], { cwd: dir });
    expect(stale.code).toBe(1);
    expect(lines(stale.stdout)).toEqual(["missing out/StreamsGroupHeartbeatResponse.ts", "missing out/index.ts"]);
    expect(stale.stderr).toMatch(
      /(^|\n)error: 2 generated files are out of date \(2 missing\); run `kafka-wire generate --schemas schemas --out out --api-key StreamsGroupHeartbeatResponse=88`\n$/,
    );
    // The schema's no-break spaces are reported as warnings, file:line:column first.
    expect(stale.stderr).toMatch(/^warning: schemas\/StreamsGroupHeartbeatResponse\.json:\d+:\d+: /);

    const written = await run(args, { cwd: dir });
    expect(written.code).toBe(0);
    expect(lines(written.stdout)).toEqual(["wrote out/StreamsGroupHeartbeatResponse.ts", "wrote out/index.ts"]);
    const code = readFileSync(path.join(dir, "out", "StreamsGroupHeartbeatResponse.ts"), "utf8");
    expect(code).toMatch(/^\/\/ @generated by kafka-wire .* from schemas\/StreamsGroupHeartbeatResponse\.json/);
    // The second line is the command that regenerates it, as given (no absolute paths).
    expect(code.split("\n")[1]).toBe(
      "// Regenerate with `kafka-wire generate --schemas schemas --out out --api-key StreamsGroupHeartbeatResponse=88`.",
    );
    expect(code).toContain('from "kafka-wire/codegen/v1"');

    const fresh = await run([...args, "--check"], { cwd: dir });
    expect(fresh.code).toBe(0);
    expect(fresh.stdout).toBe("2 generated files are up to date\n");
  });

  it("an output path that is a file, or a folder where a generated file goes, is an error naming it", async () => {
    const dir = tempProject();
    const args = ["generate", "--schemas", "schemas", "--api-key", "StreamsGroupHeartbeatResponse=88"];
    writeFileSync(path.join(dir, "out"), "not a folder\n");
    for (const extra of [[], ["--check"]]) {
      const r = await run([...args, "--out", "out", ...extra], { cwd: dir });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/(^|\n)error: the output folder out is not a folder\n$/);
    }
    mkdirSync(path.join(dir, "gen", "index.ts"), { recursive: true });
    for (const extra of [[], ["--check"]]) {
      const r = await run([...args, "--out", "gen", ...extra], { cwd: dir });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/(^|\n)error: cannot read gen\/index\.ts: it is a folder\n$/);
    }
  });

  it("--check names each file generate would change: stale, missing and leftover, in one count", async () => {
    const dir = tempProject();
    const args = ["generate", "--schemas", "schemas", "--out", "out", "--api-key", "StreamsGroupHeartbeatResponse=88"];
    expect((await run(args, { cwd: dir })).code).toBe(0);
    const out = (name: string): string => path.join(dir, "out", name);
    // A hand edit in the body (one extra space), a deleted file, and a generated
    // file whose schema is gone (it carries the generated header, so it is ours to remove).
    const body = readFileSync(out("StreamsGroupHeartbeatResponse.ts"), "utf8");
    writeFileSync(out("StreamsGroupHeartbeatResponse.ts"), body.replace("export interface", "export  interface"));
    const index = readFileSync(out("index.ts"), "utf8");
    rmSync(out("index.ts"));
    writeFileSync(out("Gone.ts"), index);

    const checked = await run([...args, "--check"], { cwd: dir });
    expect(checked.code).toBe(1);
    expect(lines(checked.stdout)).toEqual([
      "leftover out/Gone.ts",
      "missing out/index.ts",
      "stale out/StreamsGroupHeartbeatResponse.ts",
    ]);
    expect(checked.stderr).toMatch(
      /\nerror: 3 generated files are out of date \(1 stale, 1 missing, 1 leftover\); run `kafka-wire generate /,
    );
    // Nothing was touched by the check.
    expect(existsSync(out("index.ts"))).toBe(false);
    expect(existsSync(out("Gone.ts"))).toBe(true);

    const regenerated = await run(args, { cwd: dir });
    expect(lines(regenerated.stdout)).toEqual([
      "removed out/Gone.ts",
      "wrote out/StreamsGroupHeartbeatResponse.ts",
      "wrote out/index.ts",
    ]);
    expect(readFileSync(out("StreamsGroupHeartbeatResponse.ts"), "utf8")).toBe(body);
    expect((await run([...args, "--check"], { cwd: dir })).code).toBe(0);
  });

  it("takes its defaults from kafka-wire.config.json, and flags override them", async () => {
    const dir = tempProject();
    writeFileSync(
      path.join(dir, "kafka-wire.config.json"),
      JSON.stringify({
        schemas: ["schemas"],
        out: "gen",
        runtimeImport: "../rt.js",
        apiKeys: { StreamsGroupHeartbeatResponse: 88 },
      }),
    );
    const first = await run(["generate"], { cwd: dir });
    expect(first.code).toBe(0);
    expect(lines(first.stdout)).toEqual(["wrote gen/StreamsGroupHeartbeatResponse.ts", "wrote gen/index.ts"]);
    expect(readFileSync(path.join(dir, "gen", "StreamsGroupHeartbeatResponse.ts"), "utf8")).toContain(
      'from "../rt.js"',
    );
    expect((await run(["generate", "--check"], { cwd: dir })).code).toBe(0);
    // A different api key on the command line makes the committed output stale (the index
    // too: its header gives the command, which now has the flag).
    const overridden = await run(["generate", "--check", "--api-key", "StreamsGroupHeartbeatResponse=99"], {
      cwd: dir,
    });
    expect(overridden.code).toBe(1);
    expect(lines(overridden.stdout)).toEqual(["stale gen/StreamsGroupHeartbeatResponse.ts", "stale gen/index.ts"]);
    expect(overridden.stderr).toMatch(
      /\nerror: 2 generated files are out of date \(2 stale\); run `kafka-wire generate --api-key StreamsGroupHeartbeatResponse=99`\n$/,
    );
    // --config from another folder: its paths are relative to the file, and the command in the
    // headers is the one to run in the file's folder, so the output is the same.
    const viaConfig = await run(["generate", "--check", "--config", "../kafka-wire.config.json"], {
      cwd: path.join(dir, "schemas"),
    });
    expect(viaConfig.stderr).not.toContain("error");
    expect(viaConfig.code).toBe(0);
    // A configuration file with another name is named in the headers.
    cpSync(path.join(dir, "kafka-wire.config.json"), path.join(dir, "copy.json"));
    const other = await run(["generate", "--config", "copy.json"], { cwd: dir });
    expect(other.code).toBe(0);
    expect(readFileSync(path.join(dir, "gen", "index.ts"), "utf8").split("\n")[1]).toBe(
      "// Regenerate with `kafka-wire generate --config copy.json`.",
    );
  });

  it("writes the same headers from any folder of the project (paths from the package.json folder)", async () => {
    const dir = tempProject();
    writeFileSync(path.join(dir, "package.json"), "{}\n");
    const fromRoot = await run(["generate", "--schemas", "schemas", "--out", "src/kafka"], { cwd: dir });
    expect(fromRoot.code).toBe(0);
    const header = readFileSync(path.join(dir, "src", "kafka", "index.ts"), "utf8").split("\n")[1];
    expect(header).toBe("// Regenerate with `kafka-wire generate --schemas schemas --out src/kafka`.");
    // The same generation typed from a subfolder: identical files.
    const fromSub = await run(["generate", "--check", "--schemas", "../schemas", "--out", "../src/kafka"], {
      cwd: path.join(dir, "schemas"),
    });
    expect(fromSub.stdout).toBe("2 generated files are up to date\n");
    expect(fromSub.code).toBe(0);
  });

  it("--check lists files it did not generate as stray (dot-files aside) and exits 1", async () => {
    const dir = tempProject();
    const args = ["generate", "--schemas", "schemas", "--out", "out"];
    expect((await run(args, { cwd: dir })).code).toBe(0);
    writeFileSync(path.join(dir, "out", "helpers.ts"), "export const mine = 1;\n");
    writeFileSync(path.join(dir, "out", "notes.txt"), "mine\n");
    writeFileSync(path.join(dir, "out", ".gitignore"), "*.js\n");
    mkdirSync(path.join(dir, "out", "sub"));
    const check = await run([...args, "--check"], { cwd: dir });
    expect(check.code).toBe(1);
    expect(lines(check.stdout)).toEqual(["stray out/helpers.ts", "stray out/notes.txt", "stray out/sub"]);
    expect(check.stderr).toMatch(
      /\nerror: 3 files in the output folder were not generated by kafka-wire \(move or delete them\)\n$/,
    );
    // Generating warns about them and leaves them alone.
    const again = await run(args, { cwd: dir });
    expect(again.code).toBe(0);
    expect(again.stderr).toContain(
      "warning: out/helpers.ts is in the output folder but was not generated by kafka-wire\n",
    );
    expect(readFileSync(path.join(dir, "out", "helpers.ts"), "utf8")).toBe("export const mine = 1;\n");
  });

  it("prints a schema error as one line: error: file:line:column: message", async () => {
    const dir = tempProject();
    writeFileSync(
      path.join(dir, "schemas", "Broken.json"),
      '{\n  "name": "Broken",\n  "type": "data",\n  "validVersions": 0,\n  "fields": [ { "name": }\n',
    );
    const r = await run(["generate", "--check", "--schemas", "schemas/Broken.json"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^error: schemas\/Broken\.json:\d+:\d+: [^\n]+\n$/);
  });

  it("rejects a malformed --api-key and a missing --config", async () => {
    const dir = tempProject();
    const badKey = await run(["generate", "--check", "--api-key", "Foo"], { cwd: dir });
    expect(badKey).toEqual({
      code: 1,
      stdout: "",
      stderr: 'error: --api-key "Foo": expected Name=number with a number from 0 to 32767\n',
    });
    const noConfig = await run(["generate", "--config", "nope.json"], { cwd: dir });
    expect(noConfig).toEqual({ code: 1, stdout: "", stderr: "error: nope.json: no such configuration file\n" });
  });
});

describeShared("decode matches Apache Kafka's golden vectors", "golden/seed", (dir) => {
  /** The first vector (the file is a JSON array with one vector per line). */
  function firstVector(file: string): { version: number; hex: string; jsonText: string } {
    const line = readFileSync(path.join(dir, file), "utf8")
      .split("\n")
      .find((l) => l.trim().startsWith("{"));
    if (line === undefined) throw new Error(`${file} has no vectors`);
    const vector = parse(line.trim().replace(/,$/, "")) as { version: unknown; hex: string; json: unknown };
    return { version: Number(String(vector.version)), hex: vector.hex, jsonText: stringify(vector.json) ?? "null" };
  }

  it("StreamsGroupHeartbeatResponse: the first vector decodes to Kafka's JSON and encodes back", async () => {
    const v = firstVector("StreamsGroupHeartbeatResponse.json");
    const decoded = await run(["decode", "StreamsGroupHeartbeatResponse", String(v.version), v.hex]);
    expect(decoded.stderr).toBe("");
    expect(decoded.code).toBe(0);
    expect(canonical(decoded.stdout)).toBe(canonical(v.jsonText));
    const encoded = await run(["encode", "StreamsGroupHeartbeatResponse", String(v.version)], { stdin: v.jsonText });
    expect(encoded).toEqual({ code: 0, stdout: v.hex + "\n", stderr: "" });
  });
});

describe("decode --spans", () => {
  // StreamsGroupDescribeRequest v0 (schemas/StreamsGroupDescribeRequest.json; flexible), 8 bytes:
  // 03 groupIds: compact length 2 | 02 61 "a" | 03 62 63 "bc" | 00 includeAuthorizedOperations
  // false | 00 no tagged fields.
  const HEX = "0302610362630000";

  it("prints offset, length, indented path, value and hex of every part", async () => {
    const r = await run(["decode", "StreamsGroupDescribeRequest", "0", HEX, "--spans"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout.split("\n").map((l) => l.trimEnd().split(/\s{2,}/))).toEqual([
      ["offset", "length", "path", "value", "hex"],
      ["", "0", "8", "(message)", "StreamsGroupDescribeRequest", "0302610362630000"],
      ["", "0", "6", "groupIds", "[]string", "030261036263"],
      ["", "0", "1", "groupIds.$length", "2", "03"],
      ["", "1", "2", "groupIds[0]", '"a"', "0261"],
      ["", "3", "3", "groupIds[1]", '"bc"', "036263"],
      ["", "6", "1", "includeAuthorizedOperations", "false", "00"],
      ["", "7", "1", "$tagged", "00"],
      ["", "7", "1", "$tagged.$count", "0", "00"],
      [""],
    ]);
  });

  it("prints them as JSON with --json, one span a line", async () => {
    const r = await run(["decode", "StreamsGroupDescribeRequest", "0", HEX, "--spans", "--json"]);
    expect(r.code).toBe(0);
    const spans = JSON.parse(r.stdout) as {
      path: string;
      offset: number;
      length: number;
      value?: unknown;
      hex: string;
    }[];
    expect(r.stdout.split("\n")).toHaveLength(spans.length + 3);
    expect(spans.map((s) => [s.path, s.offset, s.length, s.hex])).toEqual([
      ["", 0, 8, "0302610362630000"],
      ["groupIds", 0, 6, "030261036263"],
      ["groupIds.$length", 0, 1, "03"],
      ["groupIds[0]", 1, 2, "0261"],
      ["groupIds[1]", 3, 3, "036263"],
      ["includeAuthorizedOperations", 6, 1, "00"],
      ["$tagged", 7, 1, "00"],
      ["$tagged.$count", 7, 1, "00"],
    ]);
    expect(spans[4]!.value).toBe("bc");
  });

  it("prints the spans found before a decode error, then the error", async () => {
    // Cut after groupIds[0]: groupIds[1]'s compact length 03 at offset 3 claims 2 bytes, none remain.
    const r = await run(["decode", "StreamsGroupDescribeRequest", "0", "03026103", "--spans"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("groupIds[0]");
    expect(r.stderr).toMatch(/^error: INVALID_LENGTH: .* at groupIds\[1\] \(byte offset 3\)\n$/);
  });

  it("refuses --json without --spans, and --spans with --jsonl", async () => {
    const json = await run(["decode", "StreamsGroupDescribeRequest", "0", HEX, "--json"]);
    expect(json).toEqual({ code: 1, stdout: "", stderr: "error: --json goes with --spans\n" });
    const jsonl = await run(["decode", "StreamsGroupDescribeRequest", "0", HEX, "--spans", "--jsonl"]);
    expect(jsonl.stderr).toBe("error: --spans decodes one body: not with --jsonl\n");
  });
});
