/**
 * The built package (dist/, as users get it) in every runtime it claims: Node.js 20 (this
 * machine's), 22 and 24, Deno, Bun and headless Chromium.
 *
 * Each runs test/support/runtime-check.mjs on the same input, loading the package as ES modules,
 * as ES modules with the global Buffer deleted first (Node.js, Deno and Bun all have one, so a
 * Buffer fast path would otherwise leave the portable code to Chromium alone), and as CommonJS
 * (Node.js, Bun), and reports what it got; this file asserts on it:
 * - `create()` + encode gives the bytes worked out by hand (test/support/hand-worked.ts), and a
 *   truncated body is a typed KafkaDecodeError with the field path and byte offset;
 * - the portable paths a runtime-specific fast path could replace: UTF-8 (ASCII, multi-byte,
 *   strings long enough for TextEncoder/TextDecoder, invalid bytes replaced or rejected, lone
 *   surrogates rejected), uuids and int64, each against bytes worked out by hand below;
 * - golden vectors written by Kafka (../shared/golden/seed/) decode to Kafka's JSON and encode
 *   back to Kafka's bytes;
 * - every runtime's whole result equals this machine's Node.js one.
 *
 * Where the binaries come from (npm packages, exact versions, nothing downloaded at install time):
 * - Deno and Bun: test/runtimes' dependencies `deno` and `bun` (not the root's: about 200 MB
 *   that only this test uses), whose per-platform optional dependencies (`@deno/<platform>`,
 *   `@oven/bun-<platform>`) carry the binary. Their postinstall scripts (which only move the
 *   binary, or download it when it is missing) are denied in that package.json's `allowScripts`:
 *   the binary is run from the platform package.
 * - Node.js 22 and 24: `node-<platform>-<arch>` packages, in test/runtimes/ (a project of its own,
 *   `npm ci --prefix test/runtimes`, which .ci/run does): every such package has a bin named
 *   `node`, which in the root's node_modules/.bin would become the Node.js of every npm script.
 *   (npm's `node` package is no use: it downloads the binary with a nested `npm install` at
 *   install time.)
 * A runtime that is missing fails in CI (`CI` set) and is skipped with a one-line warning elsewhere.
 *
 * dist/ is built by `npm ci` (`prepare`); when src/ or generated/ is newer, it is rebuilt first.
 */
import { spawn, execFile } from "node:child_process";
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { isLosslessNumber, parse as parseLossless } from "lossless-json";
import { beforeAll, describe, expect, it } from "vitest";
import { bundleForBrowser, describeChromium, withChromiumPage } from "./support/browser.js";
import { canonicalJson, readGolden, type GoldenVector } from "./support/golden.js";
import { RESPONSE_HEX, heartbeatResponseHex } from "./support/hand-worked.js";
import { REPO_ROOT, describeShared, isCi } from "./support/shared.js";

const bare = (hex: string): string => hex.replace(/\s+/g, "");
/** The bytes of an ASCII string, one per character. */
const asciiHex = (text: string): string =>
  Array.from(text, (c) => c.charCodeAt(0).toString(16).padStart(2, "0")).join("");

// ---------------------------------------------------------------------------------------------
// Hand-worked cases (the input every runtime gets, and what it must give back).

/**
 * memberId values of a StreamsGroupHeartbeatResponse (see heartbeatResponseHex) and their compact
 * string bytes: unsigned varint length+1, then UTF-8. Encoding writes strings under 32 UTF-16
 * units with the library's own loop; decoding builds ASCII strings of up to 8 bytes with one
 * fixed-arity fromCharCode and up to 63 bytes from a scratch array; the rest go through
 * TextEncoder/TextDecoder. The cases sit on each side of those edges.
 */
const MEMBER_IDS: ReadonlyArray<
  { readonly text: string; readonly field: string } | { readonly text: string; readonly error: string }
> = [
  { text: "", field: "01" },
  { text: "m", field: "02 6d" },
  // 8 and 9 ASCII characters: the longest fixed-arity decode, the shortest scratch-array one.
  { text: "abcdefgh", field: `09 ${asciiHex("abcdefgh")}` },
  { text: "abcdefghi", field: `0a ${asciiHex("abcdefghi")}` },
  // 31 ASCII characters: the longest string the encoder's own loop takes.
  { text: "abcdefghijklmnopqrstuvwxyz01234", field: `20 ${asciiHex("abcdefghijklmnopqrstuvwxyz01234")}` },
  // 63 and 64 ASCII characters: the longest scratch-array decode (length+1 = 64 = 40), then TextDecoder (41).
  { text: "x".repeat(63), field: `40 ${"78".repeat(63)}` },
  { text: "y".repeat(64), field: `41 ${"79".repeat(64)}` },
  // 200 bytes: length+1 = 201 = 0b1_1001001 → varint c9 01.
  { text: "k".repeat(200), field: `c901 ${"6b".repeat(200)}` },
  // é U+00E9 = c3 a9, € U+20AC = e2 82 ac, 😀 U+1F600 (a surrogate pair) = f0 9f 98 80: 9 bytes.
  { text: "é€😀", field: "0a c3a9 e282ac f09f9880" },
  // The same 20 times: 80 UTF-16 units, 180 bytes, length+1 = 181 → varint b5 01.
  { text: "é€😀".repeat(20), field: `b501 ${"c3a9e282acf09f9880".repeat(20)}` },
  // The edges of each UTF-8 length: U+07FF = df bf, U+0800 = e0 a0 80, U+FFFF = ef bf bf, U+10FFFF = f4 8f bf bf.
  { text: "\u07ff\u0800\uffff\u{10ffff}", field: "0d dfbf e0a080 efbfbf f48fbfbf" },
  // NUL is one zero byte (Kafka writes standard UTF-8, not Java's modified UTF-8).
  { text: "a\u0000b", field: "04 610062" },
  // A lone surrogate has no UTF-8 form: rejected rather than written as U+FFFD or `?`.
  { text: "\ud83d", error: "INVALID_STRING" },
  { text: "x\ude00", error: "INVALID_STRING" },
];

/**
 * memberId fields with invalid UTF-8, and what WHATWG decoding (a U+FFFD per maximal invalid
 * subpart) makes of them. With `strictUtf8` each is INVALID_STRING at byte 8 (memberId's UTF-8).
 */
const INVALID_UTF8: ReadonlyArray<{ readonly field: string; readonly text: string }> = [
  // 61 'a', ff (never valid), 62 'b', c0 af (overlong '/': c0 is never valid, af a lone
  // continuation), 63 'c', ed a0 80 (an encoded surrogate: ed allows only 80..9f next, so
  // three replacements), 64 'd', f0 9f 98 (a 4-byte sequence cut short: one replacement). 13 bytes.
  { field: "0e 61ff62 c0af 63 eda080 64 f09f98", text: "a\ufffdb\ufffd\ufffdc\ufffd\ufffd\ufffdd\ufffd" },
  // A lone lead byte.
  { field: "02 c3", text: "\ufffd" },
  // 40 ASCII bytes then ff: 41 bytes (length+1 = 42 = 2a): not ASCII, so TextDecoder.
  { field: `2a ${"61".repeat(40)} ff`, text: `${"a".repeat(40)}\ufffd` },
  // 7 ASCII bytes then ff (8 bytes, 09) and 62 then ff (63 bytes, 40): the last byte of each
  // short path's range is the one that is not ASCII.
  { field: `09 ${"61".repeat(7)} ff`, text: `${"a".repeat(7)}\ufffd` },
  { field: `40 ${"61".repeat(62)} ff`, text: `${"a".repeat(62)}\ufffd` },
];

/** The heartbeat request whose task offsets carry the int64 cases (its other fields at their defaults). */
const HEARTBEAT = { groupId: "g", memberId: "m" };

/** int64 task offsets: the minimum, the maximum and -1. */
const OFFSETS = ["-9223372036854775808", "9223372036854775807", "-1"];

/**
 * StreamsGroupHeartbeatRequest v0 of `create({ groupId: "g", memberId: "m", taskOffsets })` with
 * OFFSETS as partitions 1..3 of subtopology "0", worked out by hand: groupId, memberId (compact
 * strings), memberEpoch 0, currentAssignmentEpoch 0, instanceId and rackId null (`00`),
 * rebalanceTimeoutMs -1, topology null (nullable struct `ff`), activeTasks, standbyTasks,
 * warmupTasks, processId null, userEndpoint null (`ff`), clientTags null, taskOffsets (3
 * elements: length+1 = 4; each subtopologyId, partition, offset as big-endian two's complement
 * int64, no tagged fields), taskEndOffsets null, shutdownApplication false, no tagged fields.
 */
const INT64_HEX = bare(`
  0267 026d 00000000 00000000 00 00 ffffffff ff 00 00 00 00 ff 00
  04
    0230 00000001 8000000000000000 00
    0230 00000002 7fffffffffffffff 00
    0230 00000003 ffffffffffffffff 00
  00 00 00`);

/**
 * int64 values that must not encode. The offset field of the first task offset starts at byte 32:
 * 25 bytes of fields before taskOffsets (as in INT64_HEX), its length byte, subtopologyId (2), partition (4).
 */
const BAD_OFFSETS = [
  { value: "9223372036854775808", as: "bigint", code: "INT_OUT_OF_RANGE" },
  { value: "-9223372036854775809", as: "bigint", code: "INT_OUT_OF_RANGE" },
  { value: "5", as: "number", code: "INVALID_VALUE" },
] as const;

/** Uuids: 16 bytes and Kafka's string form (URL-safe base64, no padding: `-` is 62, `_` is 63). */
const UUIDS = [
  // 00 01 .. 0f: "AAEC" encodes 00 01 02, and so on; the last byte 0f gives "Dw" (000011 11 → D, 110000 → w).
  { hex: "000102030405060708090a0b0c0d0e0f", text: "AAECAwQFBgcICQoLDA0ODw" },
  // All ones: 20 × "_" for 15 bytes, then 111111 → "_" and 11 0000 → "w".
  { hex: "ff".repeat(16), text: `${"_".repeat(21)}w` },
  // fb ef be = 111110 111110 111110 111110 → "----" (URL-safe 62, not "+"), then 00 → "AA".
  { hex: `${"fbefbe".repeat(5)}00`, text: `${"-".repeat(20)}AA` },
];

/** Not Kafka's uuid form: 21 characters, low bits set in the last character, "+" (not URL-safe), non-ASCII. */
const BAD_UUIDS = [
  "AAECAwQFBgcICQoLDA0OD",
  "AAECAwQFBgcICQoLDA0ODx",
  "+AECAwQFBgcICQoLDA0ODw",
  "AAECAwQFBgcICQoLDA0OD\u00e9",
];

/** From each seed golden file: the named vectors (minimal, maximal, defaults, lowest, wide) and two random ones. */
function goldenSelection(dir: string): Array<GoldenVector & { readonly name: string }> {
  const out: Array<GoldenVector & { readonly name: string }> = [];
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()) {
    const name = file.slice(0, -".json".length);
    const vectors = readGolden(path.join(dir, file));
    const random = vectors.filter((v) => v.kind === "random").slice(0, 2);
    for (const v of [...vectors.filter((v) => v.kind !== "random"), ...random]) out.push({ ...v, name });
  }
  return out;
}

/** What runtime-check.mjs reads. */
interface CheckInput {
  /** Delete the global Buffer before loading the package (see runtime-check-esm.mjs). */
  withoutBuffer: boolean;
  response: { memberId: string; memberEpoch: number; heartbeatIntervalMs: number };
  truncateTo: number;
  memberIds: string[];
  invalidUtf8: string[];
  heartbeat: typeof HEARTBEAT;
  offsets: string[];
  badOffsets: Array<{ value: string; as: "bigint" | "number" }>;
  uuidBytes: string[];
  uuidTexts: string[];
  golden: Array<{ name: string; version: number; hex: string }>;
}

interface ErrorFacts {
  name: string;
  code: string;
  path: string;
  offset: number;
  decodeError: boolean;
  encodeError: boolean;
  wireError: boolean;
}

type Attempt<T> = { value: T; error?: undefined } | { error: ErrorFacts; value?: undefined };

/** What runtime-check.mjs prints. */
interface CheckResult {
  runtime: string;
  globals: { Buffer: string };
  sameCodec: boolean;
  sameErrorClass: boolean;
  created: string;
  createdInto: string;
  truncated: ErrorFacts;
  memberIds: Array<Attempt<string> & { back?: string }>;
  invalidUtf8: Array<{ lenient: Attempt<string>; strict: Attempt<string> }>;
  int64: {
    hex: string;
    offsets: Array<{ type: string; value: string }>;
    json: string;
    fromJson: string;
    outOfRange: ErrorFacts[];
  };
  uuids: { toString: string[]; fromString: Array<string | null>; zero: string };
  golden: Array<Attempt<{ json: string; reencoded: string; fromJson: string }>>;
}

function inputFor(golden: ReadonlyArray<GoldenVector & { name: string }>, withoutBuffer: boolean): CheckInput {
  return {
    withoutBuffer,
    response: { memberId: "m", memberEpoch: 5, heartbeatIntervalMs: 5000 },
    // throttleTimeMs (4 bytes) and one byte of errorCode.
    truncateTo: 5,
    memberIds: MEMBER_IDS.map((c) => c.text),
    invalidUtf8: INVALID_UTF8.map((c) => heartbeatResponseHex(c.field)),
    heartbeat: HEARTBEAT,
    offsets: OFFSETS,
    badOffsets: BAD_OFFSETS.map(({ value, as }) => ({ value, as })),
    uuidBytes: UUIDS.map((u) => u.hex),
    uuidTexts: [...UUIDS.map((u) => u.text), ...BAD_UUIDS],
    golden: golden.map(({ name, version, hex }) => ({ name, version, hex })),
  };
}

/** Asserts everything a runtime reported against the hand-worked cases and Kafka's vectors. */
function verify(result: CheckResult, golden: ReadonlyArray<GoldenVector & { name: string }>): void {
  expect(result.sameCodec, "the root, ./runtime and ./messages/* share one codec").toBe(true);
  expect(result.sameErrorClass, "the root and ./runtime share one KafkaDecodeError").toBe(true);
  expect(result.created).toBe(RESPONSE_HEX);
  expect(result.createdInto).toBe(RESPONSE_HEX);
  // errorCode (int16) starts at byte 4 and only one byte remains.
  expect(result.truncated).toEqual({
    name: "KafkaDecodeError",
    code: "BUFFER_UNDERFLOW",
    path: "errorCode",
    offset: 4,
    decodeError: true,
    encodeError: false,
    wireError: true,
  });

  MEMBER_IDS.forEach((c, i) => {
    const got = result.memberIds[i]!;
    const label = `memberId ${JSON.stringify(c.text.slice(0, 12))} (${c.text.length} UTF-16 units)`;
    if ("error" in c) {
      // Found in the size pass, before any byte is written: no offset (-1).
      expect(got.error, label).toEqual({
        name: "KafkaEncodeError",
        code: c.error,
        path: "memberId",
        offset: -1,
        decodeError: false,
        encodeError: true,
        wireError: true,
      });
    } else {
      expect(got.value, label).toBe(heartbeatResponseHex(c.field));
      expect(got.back, `${label} decoded`).toBe(c.text);
    }
  });

  INVALID_UTF8.forEach((c, i) => {
    const got = result.invalidUtf8[i]!;
    expect(got.lenient.value, `invalid UTF-8 ${c.field}`).toBe(c.text);
    expect(got.strict.error, `invalid UTF-8 ${c.field} with strictUtf8`).toEqual({
      name: "KafkaDecodeError",
      code: "INVALID_STRING",
      path: "memberId",
      offset: 8,
      decodeError: true,
      encodeError: false,
      wireError: true,
    });
  });

  expect(result.int64.hex).toBe(INT64_HEX);
  expect(result.int64.fromJson).toBe(INT64_HEX);
  expect(result.int64.offsets).toEqual(OFFSETS.map((value) => ({ type: "bigint", value })));
  // Kafka's JSON writes int64 as a number with every digit.
  const json = parseLossless(result.int64.json) as { taskOffsets: Array<{ offset: unknown }> };
  expect(json.taskOffsets.map((t) => (isLosslessNumber(t.offset) ? t.offset.value : t.offset))).toEqual(OFFSETS);
  expect(result.int64.outOfRange).toEqual(
    BAD_OFFSETS.map(({ code }) => ({
      name: "KafkaEncodeError",
      code,
      path: "taskOffsets[0].offset",
      offset: 32,
      decodeError: false,
      encodeError: true,
      wireError: true,
    })),
  );

  expect(result.uuids.toString).toEqual(UUIDS.map((u) => u.text));
  expect(result.uuids.fromString).toEqual([...UUIDS.map((u) => u.hex), ...BAD_UUIDS.map(() => null)]);
  expect(result.uuids.zero).toBe("AAAAAAAAAAAAAAAAAAAAAA");

  expect(result.golden).toHaveLength(golden.length);
  golden.forEach((v, i) => {
    const got = result.golden[i]!;
    const label = `${v.name} v${v.version} #${v.index} (${v.kind})`;
    expect(got.error, label).toBeUndefined();
    expect(canonicalJson(got.value!.json), `${label}: toJson`).toBe(canonicalJson(v.jsonText));
    expect(got.value!.reencoded, `${label}: encode`).toBe(v.hex);
    expect(got.value!.fromJson, `${label}: fromJson + encode`).toBe(v.hex);
  });
}

// ---------------------------------------------------------------------------------------------
// The runtimes.

/** A runtime's executable, or why there is none. */
type Binary = { readonly path: string; readonly version: string } | { readonly missing: string };

interface PackageJson {
  name: string;
  version: string;
  os?: string[] | string;
  cpu?: string[] | string;
  optionalDependencies?: Record<string, string>;
}

const readPackage = (dir: string): PackageJson =>
  JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as PackageJson;

const allows = (list: string[] | string | undefined, value: string): boolean =>
  list === undefined || (Array.isArray(list) ? list : [list]).includes(value);

/**
 * The binary of `wrapper` (test/runtimes' `deno` or `bun` dependency) from whichever of its
 * platform packages npm installed for this machine (`exe` inside it). `fallback` is where the
 * wrapper's postinstall moves it, should a package manager run that script anyway.
 */
function wrapperBinary(wrapper: string, exe: string, fallback: string): Binary {
  const modules = path.join(REPO_ROOT, "test", "runtimes", "node_modules");
  const wrapperDir = path.join(modules, wrapper);
  if (!existsSync(wrapperDir)) {
    return {
      missing: `test/runtimes/node_modules/${wrapper} is not installed (run \`npm ci --prefix test/runtimes\`)`,
    };
  }
  const { version, optionalDependencies = {} } = readPackage(wrapperDir);
  for (const name of Object.keys(optionalDependencies)) {
    const dir = path.join(modules, name);
    if (!existsSync(path.join(dir, "package.json"))) continue;
    const pkg = readPackage(dir);
    if (!allows(pkg.os, process.platform) || !allows(pkg.cpu, process.arch)) continue;
    for (const candidate of [path.join(dir, exe), path.join(wrapperDir, fallback)]) {
      // The wrapper's own file is a small placeholder script until its postinstall replaces it.
      if (existsSync(candidate) && statSync(candidate).size > 1_000_000) return { path: candidate, version };
    }
  }
  return {
    missing: `no ${wrapper} ${version} binary for ${process.platform}-${process.arch} under test/runtimes/node_modules`,
  };
}

/** Node.js `major` from test/runtimes/ (`node<major>-<platform>-<arch>`, an alias of `node-<platform>-<arch>`). */
function nodeBinary(major: number): Binary {
  const dir = path.join(
    REPO_ROOT,
    "test",
    "runtimes",
    "node_modules",
    `node${major}-${process.platform}-${process.arch}`,
  );
  if (!existsSync(path.join(dir, "package.json"))) {
    return {
      missing: `no Node.js ${major} for ${process.platform}-${process.arch} in test/runtimes/node_modules (run \`npm ci --prefix test/runtimes\`)`,
    };
  }
  return { path: path.join(dir, "bin", "node"), version: readPackage(dir).version };
}

interface Runtime {
  readonly title: string;
  readonly binary: Binary;
  /** What `runtime-check.mjs` reports as its runtime, given the binary's package version. */
  readonly reports: (version: string) => string;
  /** The command line after the binary, for an entry file. */
  readonly args: (entry: string) => string[];
  /** How to load the package. */
  readonly formats: readonly Format[];
}

/**
 * ES modules, ES modules with the global Buffer deleted first (the portable code a Buffer fast
 * path would skip), CommonJS.
 */
type Format = "esm" | "esm without Buffer" | "cjs";

const SUPPORT = path.join(REPO_ROOT, "test", "support");
const ENTRIES: Record<Format, string> = {
  esm: path.join(SUPPORT, "runtime-check-esm.mjs"),
  "esm without Buffer": path.join(SUPPORT, "runtime-check-esm.mjs"),
  cjs: path.join(SUPPORT, "runtime-check-cjs.cjs"),
};

const RUNTIMES: readonly Runtime[] = [
  {
    title: `Node.js ${process.versions.node} (this machine's)`,
    binary: { path: process.execPath, version: process.versions.node },
    reports: (v) => `node ${v}`,
    args: (entry) => [entry],
    formats: ["esm", "esm without Buffer", "cjs"],
  },
  ...[22, 24].map((major): Runtime => ({
    title: `Node.js ${major}`,
    binary: nodeBinary(major),
    reports: (v) => `node ${v}`,
    args: (entry) => [entry],
    formats: ["esm", "esm without Buffer", "cjs"],
  })),
  {
    title: "Deno",
    binary: wrapperBinary("deno", "deno", "deno"),
    reports: (v) => `deno ${v}`,
    // No permissions at all (the package needs none), no lock file, nothing fetched.
    args: (entry) => ["run", "--quiet", "--no-prompt", "--no-lock", "--cached-only", entry],
    formats: ["esm", "esm without Buffer"],
  },
  {
    title: "Bun",
    binary: wrapperBinary("bun", path.join("bin", "bun"), path.join("bin", "bun.exe")),
    reports: (v) => `bun ${v}`,
    args: (entry) => ["run", "--no-install", entry],
    formats: ["esm", "esm without Buffer", "cjs"],
  },
];

/** `describe` for a runtime: runs; or, when it is missing, fails in CI and is skipped (one line) elsewhere. */
function describeRuntime(title: string, binary: Binary, fn: (binary: { path: string; version: string }) => void): void {
  if (!("missing" in binary)) {
    describe(title, () => fn(binary));
  } else if (isCi()) {
    describe(title, () => {
      it("is installed", () => {
        throw new Error(`${binary.missing}; CI is set, so this is a failure, not a skip`);
      });
    });
  } else {
    console.warn(`[skip] ${title}: ${binary.missing}`);
    describe.skip(title, () => {
      it("is installed", () => {});
    });
  }
}

/** Runs `command` with `stdin`; resolves to its standard output, rejects with its standard error. */
function runWithInput(
  command: string,
  args: readonly string[],
  stdin: string,
  env: NodeJS.ProcessEnv,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: REPO_ROOT, env, stdio: ["pipe", "pipe", "pipe"], timeout: 60_000 });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code, signal) => {
      if (code === 0) resolve(stdout);
      else reject(new Error(`${path.basename(command)} ${args.join(" ")} exited with ${code ?? signal}:\n${stderr}`));
    });
    child.stdin.end(stdin);
  });
}

/** dist/ as `npm run build` leaves it, rebuilt (library only) when src/ or generated/ changed since. */
async function ensureBuilt(): Promise<void> {
  const newest = (dir: string): number => {
    let t = 0;
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, e.name);
      t = Math.max(t, e.isDirectory() ? newest(full) : statSync(full).mtimeMs);
    }
    return t;
  };
  const built = path.join(REPO_ROOT, "dist", "index.js");
  const sources = Math.max(newest(path.join(REPO_ROOT, "src")), newest(path.join(REPO_ROOT, "generated")));
  if (existsSync(built) && statSync(built).mtimeMs >= sources) return;
  const started = Date.now();
  await promisify(execFile)(path.join(REPO_ROOT, "node_modules", ".bin", "tsup"), [], {
    cwd: REPO_ROOT,
    timeout: 300_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  console.log(`[runtimes] dist/ was missing or older than src/ or generated/: rebuilt in ${Date.now() - started} ms`);
}

describeShared("the built package in every runtime", "golden/seed", (goldenDir) => {
  const golden = goldenSelection(goldenDir);
  const inputs: Record<Format, string> = {
    esm: JSON.stringify(inputFor(golden, false)),
    "esm without Buffer": JSON.stringify(inputFor(golden, true)),
    cjs: JSON.stringify(inputFor(golden, false)),
  };
  let denoDir = "";
  let env: NodeJS.ProcessEnv = process.env;
  /** This machine's Node.js result (ESM), which every other run must equal. */
  let reference: CheckResult | undefined;

  beforeAll(async () => {
    await ensureBuilt();
    denoDir = await mkdtemp(path.join(os.tmpdir(), "kafka-wire-deno-"));
    // Deno: no update check, a cache of its own; Bun: no telemetry.
    env = { ...process.env, DENO_NO_UPDATE_CHECK: "1", DENO_DIR: denoDir, DO_NOT_TRACK: "1", NO_COLOR: "1" };
    reference = JSON.parse(await runWithInput(process.execPath, [ENTRIES.esm], inputs.esm, env)) as CheckResult;
    return () => rm(denoDir, { recursive: true, force: true });
  });

  /** Asserts `result` and compares it, whole, with this machine's Node.js result. */
  const verifyAll = (result: CheckResult): void => {
    verify(result, golden);
    expect(reference, "this machine's Node.js run (beforeAll) failed").toBeDefined();
    expect({ ...result, runtime: "", globals: null }).toEqual({ ...reference!, runtime: "", globals: null });
  };

  it("selects golden vectors of every seed message, int64 extremes and long multi-byte strings among them", () => {
    expect(new Set(golden.map((v) => v.name)).size).toBe(4);
    expect(golden.filter((v) => v.kind === "lowest")).toHaveLength(4);
    expect(golden.filter((v) => v.kind === "maximal")).toHaveLength(4);
  });

  for (const runtime of RUNTIMES) {
    describeRuntime(runtime.title, runtime.binary, (binary) => {
      it.each(runtime.formats)(
        "loads dist/ (%s) and gives the hand-worked bytes and Kafka's vectors",
        async (format) => {
          const stdout = await runWithInput(binary.path, runtime.args(ENTRIES[format]), inputs[format], env);
          const result = JSON.parse(stdout) as CheckResult;
          expect(result.runtime).toBe(runtime.reports(binary.version));
          // Every one of these runtimes has a global Buffer, unless the entry deleted it.
          expect(result.globals.Buffer).toBe(format === "esm without Buffer" ? "undefined" : "function");
          verifyAll(result);
        },
      );
    });
  }

  describeChromium("headless Chromium (Debian's)", () => {
    it("runs dist/ bundled for the browser and gives the hand-worked bytes and Kafka's vectors", async () => {
      const entry = `
        import * as root from "./dist/index.js";
        import * as runtime from "./dist/runtime.js";
        import * as one from "./dist/messages/StreamsGroupHeartbeatResponse.js";
        import { check } from "./test/support/runtime-check.mjs";
        export const run = (input) => JSON.stringify(check({ root, runtime, one }, input));
      `;
      const bundle = await bundleForBrowser(entry, REPO_ROOT, { format: "iife", globalName: "kafkaWireCheck" });
      const errors: string[] = [];
      const stdout = await withChromiumPage(async (page) => {
        page.on("pageerror", (e) => errors.push(e.message));
        await page.addScriptTag({ content: bundle.code });
        return (await page.evaluate(`globalThis.kafkaWireCheck.run(${inputs.esm})`)) as string;
      });
      expect(errors).toEqual([]);
      const result = JSON.parse(stdout) as CheckResult;
      expect(result.runtime).toContain("HeadlessChrome");
      expect(result.globals.Buffer).toBe("undefined");
      verifyAll(result);
    });
  });
});
