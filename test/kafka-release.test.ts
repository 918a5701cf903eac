/**
 * `kafka-wire generate --kafka <version>`: Kafka's schemas from a source release, downloaded
 * from a mirror, verified, cached and extracted (cli/kafka-release.ts), and the offline
 * `--kafka-source` forms.
 *
 * Never touches the internet: a loopback HTTP server plays the mirror, serving source archives
 * built here, at test time, from ../shared/kafka-schemas laid out as in Kafka's source tree
 * (the table in ../shared/kafka-schemas/README.md says which Kafka folder each one comes from).
 */

import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { create } from "tar";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generate } from "../generator/generate.js";
import {
  defaultCacheDir,
  downloadHint,
  KafkaReleaseError,
  parseSha512File,
  releaseUrls,
  resolveKafkaSchemas,
  type KafkaSchemas,
} from "../cli/kafka-release.js";
import { main } from "../cli/cli.js";
import { KAFKA_LAYOUT, sha512 } from "./support/kafka-mirror.js";
import { describeShared } from "./support/shared.js";

/** The shared folders whose schemas a release's generation must contain: all but Kafka's test schemas. */
const MAIN_FOLDERS = Object.keys(KAFKA_LAYOUT).filter((f) => f !== "clients-test");

/**
 * `gpg --print-md SHA512 <file>` output, the form most of Apache Kafka's `.sha512` files have:
 * the file name and a colon, then the digest in upper case as 16 groups of 8 hex digits
 * separated by spaces, wrapped after 6 groups with the continuation lines indented under the digest.
 */
function gpgPrintMd(fileName: string, hex: string): string {
  const groups = hex.toUpperCase().match(/.{8}/g)!;
  const lines: string[] = [];
  for (let i = 0; i < groups.length; i += 6) lines.push(groups.slice(i, i + 6).join(" "));
  return `${fileName}: ${lines.join(`\n${" ".repeat(fileName.length + 2)}`)}\n`;
}

interface Route {
  readonly status: number;
  readonly body?: Uint8Array | string;
  /** Never answer (to test the timeout). */
  readonly hang?: boolean;
}

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

async function run(args: readonly string[], cwd: string): Promise<Run> {
  let stdout = "";
  let stderr = "";
  const code = await main(args, {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    stdin: { isTTY: true, async *[Symbol.asyncIterator]() {} },
    cwd,
  });
  return { code, stdout, stderr };
}

/** The one `error:` line of a failed run; every other stderr line is a progress line. */
function errorLine(result: Run): string {
  expect(result.code).toBe(1);
  const errors = result.stderr.split("\n").filter((l) => l.startsWith("error:"));
  expect(errors, result.stderr).toHaveLength(1);
  expect(result.stderr.endsWith(`${errors[0]}\n`)).toBe(true);
  return errors[0]!;
}

/** Every file below `dir` whose name ends with `suffix` (relative path → contents). */
function readTree(dir: string, suffix = ""): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith(suffix)) continue;
    const full = path.join(entry.parentPath, entry.name);
    files.set(path.relative(dir, full).split(path.sep).join("/"), readFileSync(full, "utf8"));
  }
  return files;
}

describe("parseSha512File", () => {
  const hex = "0123456789abcdef".repeat(8);

  it("reads sha512sum output (lower-case hex, two spaces, the file name)", () => {
    expect(parseSha512File(`${hex}  kafka-4.1.0-src.tgz\n`, "kafka-4.1.0-src.tgz", "x")).toBe(hex);
    expect(parseSha512File(`${hex} *kafka-4.1.0-src.tgz`, "kafka-4.1.0-src.tgz", "x")).toBe(hex);
    expect(parseSha512File(hex, "kafka-4.1.0-src.tgz", "x")).toBe(hex);
  });

  it("reads gpg --print-md output (upper case, groups of 8, wrapped over lines)", () => {
    const text = gpgPrintMd("kafka-4.1.0-src.tgz", hex);
    expect(text.split("\n").length).toBeGreaterThan(2);
    expect(parseSha512File(text, "kafka-4.1.0-src.tgz", "x")).toBe(hex);
  });

  it("reads BSD shasum --tag output", () => {
    expect(parseSha512File(`SHA512 (kafka-4.1.0-src.tgz) = ${hex}\n`, "kafka-4.1.0-src.tgz", "x")).toBe(hex);
  });

  it("rejects a checksum of another file, a short digest, and other text, naming the file", () => {
    expect(() => parseSha512File(`${hex}  kafka-4.0.0-src.tgz`, "kafka-4.1.0-src.tgz", "u.sha512")).toThrow(
      "u.sha512: the checksum is for kafka-4.0.0-src.tgz, not kafka-4.1.0-src.tgz",
    );
    expect(() => parseSha512File(`kafka-4.1.0-src.tgz: ${hex.slice(2)}`, "kafka-4.1.0-src.tgz", "u.sha512")).toThrow(
      /^u\.sha512: not a SHA-512 checksum file/,
    );
    expect(() => parseSha512File("<html>Not here</html>", "kafka-4.1.0-src.tgz", "u.sha512")).toThrow(
      KafkaReleaseError,
    );
  });
});

describe("defaultCacheDir", () => {
  it("prefers KAFKA_WIRE_CACHE_DIR, then an absolute XDG_CACHE_HOME, then ~/.cache", () => {
    expect(defaultCacheDir({ KAFKA_WIRE_CACHE_DIR: "/tmp/kw", XDG_CACHE_HOME: "/x" })).toBe(path.resolve("/tmp/kw"));
    expect(defaultCacheDir({ XDG_CACHE_HOME: "/x/cache" })).toBe(path.join("/x/cache", "kafka-wire"));
    // The XDG spec says a relative XDG_CACHE_HOME is invalid and must be ignored.
    expect(defaultCacheDir({ XDG_CACHE_HOME: "rel" })).toMatch(/[/\\]\.cache[/\\]kafka-wire$/);
  });

  it("builds Apache's archive layout under the mirror (a trailing slash is ignored)", () => {
    expect(releaseUrls("https://m.example/dist/kafka/", "4.1.0")).toEqual({
      archive: "https://m.example/dist/kafka/4.1.0/kafka-4.1.0-src.tgz",
      checksum: "https://m.example/dist/kafka/4.1.0/kafka-4.1.0-src.tgz.sha512",
    });
  });
});

describeShared("generate --kafka from a local mirror", "kafka-schemas", (shared) => {
  let work: string;
  let tree: string; // a Kafka "checkout": <work>/kafka-9.9.9-src
  let archive: string; // kafka-9.9.9-src.tgz
  let server: Server;
  let mirror: string;
  const routes = new Map<string, Route>();
  const requests: string[] = [];

  beforeAll(async () => {
    work = mkdtempSync(path.join(tmpdir(), "kafka-wire-release-"));
    tree = path.join(work, "src", "kafka-9.9.9-src");
    for (const [from, to] of Object.entries(KAFKA_LAYOUT))
      cpSync(path.join(shared, from), path.join(tree, to), { recursive: true });
    // Files a source release has besides the schemas, which must not be extracted.
    mkdirSync(path.join(tree, "clients/src/main/java/org/apache/kafka"), { recursive: true });
    writeFileSync(path.join(tree, "clients/src/main/java/org/apache/kafka/Errors.java"), "class Errors {}\n");
    writeFileSync(path.join(tree, "build.gradle"), "// build\n");
    writeFileSync(path.join(tree, "clients/src/main/resources/common/message/README.md"), "not a schema\n");

    archive = path.join(work, "kafka-9.9.9-src.tgz");
    await create({ gzip: true, file: archive, cwd: path.dirname(tree), portable: true }, ["kafka-9.9.9-src"]);
    // The same tree under another release's top folder.
    const archive8 = path.join(work, "kafka-9.9.8-src.tgz");
    await create(
      { gzip: true, file: archive8, cwd: tree, portable: true, prefix: "kafka-9.9.8-src" },
      readdirSync(tree),
    );

    const tgz9 = readFileSync(archive);
    const tgz8 = readFileSync(archive8);
    const serve = (version: string, tgz: Route, checksum: Route): void => {
      routes.set(`/${version}/kafka-${version}-src.tgz`, tgz);
      routes.set(`/${version}/kafka-${version}-src.tgz.sha512`, checksum);
    };
    serve("9.9.9", { status: 200, body: tgz9 }, { status: 200, body: gpgPrintMd("kafka-9.9.9-src.tgz", sha512(tgz9)) });
    serve("9.9.8", { status: 200, body: tgz8 }, { status: 200, body: `${sha512(tgz8)}  kafka-9.9.8-src.tgz\n` });
    // Mismatch: the checksum is of different bytes.
    serve("9.9.7", { status: 200, body: tgz9 }, { status: 200, body: `${sha512(tgz8)}  kafka-9.9.7-src.tgz\n` });
    serve("9.9.6", { status: 200, body: tgz9 }, { status: 404 });
    serve("9.9.5", { status: 404 }, { status: 200, body: `${sha512(tgz9)}  kafka-9.9.5-src.tgz\n` });
    serve("9.9.4", { status: 200, hang: true }, { status: 200, body: `${sha512(tgz9)}  kafka-9.9.4-src.tgz\n` });

    server = createServer((req, res) => {
      requests.push(`${req.method} ${req.url}`);
      const route = routes.get(new URL(req.url ?? "/", "http://x").pathname.replace(/^\/dist\/kafka/, ""));
      if (route?.hang === true) return; // closed by server.closeAllConnections()
      res.statusCode = route?.status ?? 404;
      res.end(req.method === "HEAD" ? undefined : (route?.body ?? "Not Found"));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    mirror = `http://127.0.0.1:${(server.address() as AddressInfo).port}/dist/kafka`;
  }, 120_000);

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    rmSync(work, { recursive: true, force: true });
  });

  /** A fresh, empty cache folder. */
  const freshCache = (): string => mkdtempSync(path.join(work, "cache-"));

  /** The extracted folders hold exactly the shared schemas, byte for byte, under Kafka's labels. */
  function expectSharedSchemas(found: KafkaSchemas, top: string): void {
    const byLabel = new Map(found.folders.map((f) => [f.label, f]));
    expect([...byLabel.keys()].sort()).toEqual(MAIN_FOLDERS.map((f) => `${top}/${KAFKA_LAYOUT[f]}`).sort());
    for (const f of MAIN_FOLDERS) {
      const folder = byLabel.get(`${top}/${KAFKA_LAYOUT[f]}`)!;
      expect(folder.module).toBe(KAFKA_LAYOUT[f]!.split("/")[0]);
      const schemas = readTree(path.join(shared, f));
      expect(readTree(folder.path, ".json")).toEqual(schemas);
      expect(folder.files).toBe(schemas.size);
    }
  }

  it("downloads, verifies (gpg --print-md checksum) and generates the same codecs as the schemas themselves", async () => {
    const cache = freshCache();
    const out = path.join(work, "out-9.9.9");
    const result = await run(
      ["generate", "--kafka", "9.9.9", "--kafka-mirror", mirror, "--cache-dir", cache, "--out", out],
      work,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(`downloading ${mirror}/9.9.9/kafka-9.9.9-src.tgz`);
    expect(requests).toContain("GET /dist/kafka/9.9.9/kafka-9.9.9-src.tgz.sha512");

    // The same generation straight from ../shared, labelled as Kafka's tree: byte-identical output.
    const direct = path.join(work, "direct-9.9.9");
    const folders = MAIN_FOLDERS.map((f) => ({
      path: path.join(shared, f),
      label: `kafka-9.9.9-src/${KAFKA_LAYOUT[f]}`,
    }));
    folders.sort((a, b) => (a.label < b.label ? -1 : 1));
    await generate({
      schemas: folders.map((f) => f.path),
      schemaLabels: folders.map((f) => f.label),
      out: direct,
      cwd: work,
      // What the headers give: the release's version and the output folder, relative to where
      // the command ran; never the mirror or the cache.
      command: "kafka-wire generate --kafka 9.9.9 --out out-9.9.9",
    });
    const fromRelease = readTree(out);
    expect([...fromRelease.keys()].sort()).toEqual([...readTree(direct).keys()].sort());
    expect(fromRelease).toEqual(readTree(direct));
    // Kafka's test schemas are not part of a release's codecs; every other schema is.
    const schemaCount = MAIN_FOLDERS.reduce(
      (n, f) => n + readdirSync(path.join(shared, f)).filter((x) => x.endsWith(".json")).length,
      0,
    );
    // One module per schema, plus index.ts, protocol.ts and internal-topics.ts.
    expect(fromRelease.size).toBe(schemaCount + 3);
    expect(fromRelease.has("SimpleExampleMessage.ts")).toBe(false);
    expect(fromRelease.get("FetchRequest.ts")).toContain(
      "from kafka-9.9.9-src/clients/src/main/resources/common/message/FetchRequest.json; do not edit.\n" +
        "// Regenerate with `kafka-wire generate --kafka 9.9.9 --out out-9.9.9`.\n",
    );
  }, 300_000);

  it("takes a release from the cache without contacting the mirror (sha512sum checksum)", async () => {
    const cache = freshCache();
    const first = await resolveKafkaSchemas({ version: "9.9.8", mirror, cacheDir: cache });
    expect(first.fromCache).toBe(false);
    expectSharedSchemas(first, "kafka-9.9.8-src");
    // Only the schemas and the verified archive are kept.
    expect(readdirSync(path.join(cache, "kafka", "9.9.8")).sort()).toEqual(["kafka-9.9.8-src.tgz", "schemas"]);
    expect(readTree(path.join(cache, "kafka", "9.9.8", "schemas")).has("kafka-9.9.8-src/build.gradle")).toBe(false);

    const seen = requests.length;
    const second = await resolveKafkaSchemas({ version: "9.9.8", mirror, cacheDir: cache });
    expect(requests.length).toBe(seen);
    expect(second.fromCache).toBe(true);
    expect(second.folders).toEqual(first.folders);

    // With only the archive cached, it is extracted again, still without the mirror.
    rmSync(path.join(cache, "kafka", "9.9.8", "schemas"), { recursive: true });
    const third = await resolveKafkaSchemas({ version: "9.9.8", mirror: "http://127.0.0.1:9/", cacheDir: cache });
    expect(third.fromCache).toBe(true);
    expectSharedSchemas(third, "kafka-9.9.8-src");
  });

  it("the cache folder comes from KAFKA_WIRE_CACHE_DIR when no cacheDir is given", async () => {
    const cache = freshCache();
    const found = await resolveKafkaSchemas({ version: "9.9.8", mirror, env: { KAFKA_WIRE_CACHE_DIR: cache } });
    expect(found.folders[0]!.path.startsWith(path.join(cache, "kafka", "9.9.8", "schemas"))).toBe(true);
  });

  it("a checksum mismatch is a one-line error giving both digests, and nothing is cached", async () => {
    const cache = freshCache();
    const result = await run(
      ["generate", "--kafka", "9.9.7", "--kafka-mirror", mirror, "--cache-dir", cache, "--out", "o"],
      work,
    );
    const expected = sha512(readFileSync(path.join(work, "kafka-9.9.8-src.tgz"))).slice(0, 16);
    const actual = sha512(readFileSync(archive)).slice(0, 16);
    expect(errorLine(result)).toBe(
      `error: checksum mismatch for ${mirror}/9.9.7/kafka-9.9.7-src.tgz: expected SHA-512 ${expected}…, got ${actual}…; ${downloadHint("9.9.7")}`,
    );
    expect(readdirSync(path.join(cache, "kafka", "9.9.7"))).toEqual([]);
  });

  it("a missing archive is a one-line 404 error naming its URL", async () => {
    const result = await run(
      ["generate", "--kafka", "9.9.5", "--kafka-mirror", mirror, "--cache-dir", freshCache()],
      work,
    );
    expect(errorLine(result)).toBe(
      `error: 404 Not Found: ${mirror}/9.9.5/kafka-9.9.5-src.tgz; ${downloadHint("9.9.5")}`,
    );
  });

  it("a missing checksum file is a one-line 404 error naming its URL (an archive is never used unverified)", async () => {
    const result = await run(
      ["generate", "--kafka", "9.9.6", "--kafka-mirror", mirror, "--cache-dir", freshCache()],
      work,
    );
    expect(errorLine(result)).toBe(
      `error: 404 Not Found: ${mirror}/9.9.6/kafka-9.9.6-src.tgz.sha512 (cannot verify kafka-9.9.6-src.tgz without it); ${downloadHint("9.9.6")}`,
    );
  });

  it("an unknown version is a one-line error naming the version and the mirror", async () => {
    const result = await run(
      ["generate", "--kafka", "1.2.3", "--kafka-mirror", mirror, "--cache-dir", freshCache()],
      work,
    );
    expect(errorLine(result)).toMatch(
      new RegExp(`^error: Kafka 1\\.2\\.3 not found at ${mirror.replace(/[.]/g, "\\.")} \\(404 for `),
    );
  });

  it("a network error and a timeout are one-line errors naming the URL", async () => {
    // A port nobody listens on: a closed server's.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const refused = await run(
      ["generate", "--kafka", "9.9.9", "--kafka-mirror", `http://127.0.0.1:${port}`, "--cache-dir", freshCache()],
      work,
    );
    expect(errorLine(refused)).toMatch(
      new RegExp(
        `^error: cannot download http://127\\.0\\.0\\.1:${port}/9\\.9\\.9/kafka-9\\.9\\.9-src\\.tgz\\.sha512: .*ECONNREFUSED`,
      ),
    );
    // A failed download says what else works: a local archive or checkout, or another mirror.
    expect(errorLine(refused)).toContain("--kafka-source <kafka-9.9.9-src.tgz or a Kafka checkout>");
    expect(errorLine(refused)).toContain("--kafka-mirror <URL>");

    const hung = resolveKafkaSchemas({ version: "9.9.4", mirror, cacheDir: freshCache(), timeoutMs: 300 });
    await expect(hung).rejects.toThrow(`timed out after 300 ms waiting for ${mirror}/9.9.4/kafka-9.9.4-src.tgz`);
  });

  it("a file:// mirror (a folder in Apache's layout) works like an HTTP one; a missing release there is a 404", async () => {
    const folder = path.join(work, "file-mirror");
    mkdirSync(path.join(folder, "9.9.9"), { recursive: true });
    const tgz = readFileSync(archive);
    writeFileSync(path.join(folder, "9.9.9", "kafka-9.9.9-src.tgz"), tgz);
    writeFileSync(path.join(folder, "9.9.9", "kafka-9.9.9-src.tgz.sha512"), `${sha512(tgz)}  kafka-9.9.9-src.tgz\n`);
    const url = pathToFileURL(folder).href;
    const found = await resolveKafkaSchemas({ version: "9.9.9", mirror: url, cacheDir: freshCache() });
    expectSharedSchemas(found, "kafka-9.9.9-src");
    expect(found.fromCache).toBe(false);
    const missing = await run(
      ["generate", "--kafka", "9.9.3", "--kafka-mirror", url, "--cache-dir", freshCache()],
      work,
    );
    expect(errorLine(missing)).toMatch(
      new RegExp(`^error: Kafka 9\\.9\\.3 not found at ${url.replace(/[.]/g, "\\.")} \\(404 for `),
    );
  });

  it("rejects a malformed version before any request", async () => {
    const seen = requests.length;
    const result = await run(
      ["generate", "--kafka", "../4.1.0", "--kafka-mirror", mirror, "--cache-dir", freshCache()],
      work,
    );
    expect(errorLine(result)).toBe('error: invalid Kafka version "../4.1.0" (expected e.g. 4.1.0)');
    expect(requests.length).toBe(seen);
  });

  it("--kafka-source with a .tgz generates offline the same codecs as the download", async () => {
    const out = path.join(work, "out-source");
    const result = await run(["generate", "--kafka-source", archive, "--out", out], work);
    expect(result.stderr).not.toContain("error");
    expect(result.code, result.stderr).toBe(0);
    // The output of the download test above, but for the command in the headers, which names
    // the archive (relative to where the command ran) instead of the version.
    const downloaded = readTree(path.join(work, "out-9.9.9"));
    const offline = readTree(out);
    expect([...offline.keys()].sort()).toEqual([...downloaded.keys()].sort());
    for (const [name, text] of offline) {
      const [first, second, ...rest] = text.split("\n");
      expect(second).toBe(
        "// Regenerate with `kafka-wire generate --kafka-source kafka-9.9.9-src.tgz --out out-source`.",
      );
      const [dFirst, dSecond, ...dRest] = downloaded.get(name)!.split("\n");
      expect(dSecond).toBe("// Regenerate with `kafka-wire generate --kafka 9.9.9 --out out-9.9.9`.");
      expect(first).toBe(dFirst);
      expect(rest).toEqual(dRest);
    }
    const check = await run(["generate", "--kafka-source", archive, "--out", out, "--check"], work);
    expect(check.stdout).toMatch(/^\d+ generated files are up to date\n$/);
  }, 300_000);

  it("decode-frame and list --kafka: the release's codecs, downloaded once and compiled once into the cache", async () => {
    const cache = freshCache();
    /*
     * An ApiVersions v3 request frame, worked out by hand from RequestHeader.json and
     * ApiVersionsRequest.json (flexible from v3: request header v2):
     * size 00000012 (18: header 12 bytes, body 6), requestApiKey 0012 (18), requestApiVersion 0003, correlationId 00000001,
     * clientId "c" (classic string: 0001 63), header tagged fields 00, clientSoftwareName "kw"
     * (compact string: length + 1 = 03, 6b77), clientSoftwareVersion "1" (02 31), body tagged
     * fields 00.
     */
    const frame = "00000012" + "0012" + "0003" + "00000001" + "000163" + "00" + "036b77" + "0231" + "00";
    const args = ["decode-frame", frame, "--jsonl", "--kafka", "9.9.9", "--kafka-mirror", mirror, "--cache-dir", cache];
    const first = await run(args, work);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain(`downloading ${mirror}/9.9.9/kafka-9.9.9-src.tgz`);
    expect(first.stderr).toMatch(/\ngenerating codecs for \d+ schemas/);
    expect(JSON.parse(first.stdout)).toEqual({
      api: "ApiVersions",
      apiKey: 18,
      apiVersion: 3,
      headerVersion: 2,
      header: { requestApiKey: 18, requestApiVersion: 3, correlationId: 1, clientId: "c" },
      body: { clientSoftwareName: "kw", clientSoftwareVersion: "1" },
    });
    // Second time: the release and the codecs both come from the cache (no request, no status line).
    const before = requests.length;
    const second = await run(args, work);
    expect(second).toEqual({ code: 0, stdout: first.stdout, stderr: "" });
    const list = await run(["list", "--kafka", "9.9.9", "--kafka-mirror", mirror, "--cache-dir", cache], work);
    expect(list.stdout).toMatch(/\nApiVersionsRequest\s+request\s+18\s+0-\d+\s+3\+\n/);
    expect(requests.length).toBe(before);
  }, 300_000);

  it("--kafka-source with a .tgz extracts to a temporary folder, removed by cleanup()", async () => {
    const found = await resolveKafkaSchemas({ source: archive });
    expectSharedSchemas(found, "kafka-9.9.9-src");
    await found.cleanup();
    expect(() => readdirSync(found.folders[0]!.path)).toThrow();
  });

  it("--kafka-source with a checkout folder uses its schema folders in place", async () => {
    const found = await resolveKafkaSchemas({ source: tree });
    expectSharedSchemas(found, "kafka-9.9.9-src");
    expect(found.folders.every((f) => f.path.startsWith(tree))).toBe(true);
  });

  it("--kafka-source errors are one line: missing path, not an archive, no schemas", async () => {
    expect(errorLine(await run(["generate", "--kafka-source", "nope.tgz"], work))).toBe(
      "error: nope.tgz: no such file or folder",
    );
    const bogus = path.join(work, "bogus.tgz");
    writeFileSync(bogus, "this is not gzip\n".repeat(100));
    expect(errorLine(await run(["generate", "--kafka-source", bogus], work))).toMatch(
      /^error: \S*bogus\.tgz: cannot read the archive \(/,
    );
    expect(errorLine(await run(["generate", "--kafka-source", path.join(tree, "clients")], work))).toMatch(
      /^error: \S*clients: no Kafka message schemas found/,
    );
    // A folder of schemas is what --schemas takes.
    const schemaFolder = path.join(tree, "clients/src/main/resources/common/message");
    expect(errorLine(await run(["decode", "MetadataRequest", "12", "00", "--kafka-source", schemaFolder], work))).toBe(
      `error: ${schemaFolder}: a folder of schema files, not a Kafka source tree; pass it with --schemas ${schemaFolder} (--kafka-source takes a Kafka checkout or kafka-<version>-src.tgz)`,
    );
    expect(errorLine(await run(["generate", "--kafka", "9.9.9", "--schemas", "x"], work))).toBe(
      "error: --schemas cannot be combined with --kafka or --kafka-source",
    );
    expect(errorLine(await run(["generate", "--kafka-source", tree, "--kafka-mirror", mirror], work))).toBe(
      "error: --kafka-mirror needs --kafka <version>",
    );
  });
});
