/**
 * Apache Kafka's message schemas from a Kafka source release, for `kafka-wire generate --kafka`:
 * download `kafka-<version>-src.tgz` from a mirror (Apache's archive layout), verify it against
 * the published `.sha512`, cache it per user, and extract only the message schema folders of
 * every module. `--kafka-source` does the same offline from a local archive or checkout.
 *
 * Where the schemas live in Kafka's source tree (one folder per Gradle module that runs Kafka's
 * message generator, see `processMessages` in Kafka's build.gradle):
 * `<module>/src/main/resources/common/message` (clients, group-coordinator, share-coordinator,
 * transaction-coordinator, raft, streams), `metadata/src/main/resources/common/metadata` and
 * `storage/src/main/resources/message`. Any module with one of these three folders is taken, so
 * a release that adds a module needs no change here. Test schemas (`src/test/...`) are not.
 */

import { createHash } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, mkdtemp, readdir, rename, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { fileURLToPath } from "node:url";
import { extract } from "tar";
import { CACHE_DIR_ENV, resolveCacheDir } from "./cache-dir.js";

export { CACHE_DIR_ENV, defaultCacheDir } from "./cache-dir.js";

/** Apache's archive of every Kafka release: `<mirror>/<version>/kafka-<version>-src.tgz`. */
export const DEFAULT_KAFKA_MIRROR = "https://archive.apache.org/dist/kafka";

/** Environment variable that overrides the mirror (`--kafka-mirror` overrides it). */
export const MIRROR_ENV = "KAFKA_WIRE_KAFKA_MIRROR";

/** Idle time (no bytes received) after which a download is abandoned. */
export const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * Largest source archive accepted. Kafka's are about 20 MB; the cap only stops a misbehaving
 * server from filling the disk.
 */
export const MAX_ARCHIVE_BYTES = 512 * 1024 * 1024;

/** Largest `.sha512` file accepted (a real one is about 200 bytes). */
const MAX_CHECKSUM_BYTES = 64 * 1024;

/** The schema folders inside a module, relative to the module (see the module comment). */
const SCHEMA_SUBFOLDERS = [
  "src/main/resources/common/message",
  "src/main/resources/common/metadata",
  "src/main/resources/message",
];

/**
 * An archive entry that is a message schema: `[<top>/]<module>/<schema folder>/<Name>.json`.
 * Groups: top folder (optional), module, schema folder, file name.
 */
const SCHEMA_ENTRY =
  /^(?:\.\/)?(?:([^/]+)\/)?([^/]+)\/(src\/main\/resources\/(?:common\/message|common\/metadata|message))\/([^/]+\.json)$/;

/** A Kafka version as Apache names its release folders (`4.1.0`, `3.9.1`, `0.11.0.3`, `4.2.0-rc1`). */
const VERSION = /^\d+(?:\.\d+){1,3}(?:-[0-9A-Za-z]+)?$/;

/** A failure to get Kafka's schemas; its message is one line that names the URL, file or version. */
export class KafkaReleaseError extends Error {
  override get name(): string {
    return "KafkaReleaseError";
  }
}

/** One schema folder of a Kafka source tree, ready for `generate({ schemas, schemaLabels })`. */
export interface KafkaSchemaFolder {
  /** Gradle module, e.g. `clients`, `group-coordinator`, `metadata`. */
  readonly module: string;
  /** Absolute path of the folder on disk. */
  readonly path: string;
  /**
   * The folder's path in Kafka's source tree, under the tree's top folder, e.g.
   * `kafka-4.1.0-src/clients/src/main/resources/common/message`: what generated headers name.
   */
  readonly label: string;
  /** Number of `*.json` files in it. */
  readonly files: number;
}

/** The schema folders found, and how to release what was extracted for them. */
export interface KafkaSchemas {
  /** Every schema folder, sorted by label. */
  readonly folders: readonly KafkaSchemaFolder[];
  /** True when the download was skipped because the cache already had the release. */
  readonly fromCache: boolean;
  /** Removes temporary files (an archive given with `source` is extracted to a temporary folder). */
  cleanup(): Promise<void>;
}

export interface KafkaSchemasOptions {
  /** A Kafka release to download (or take from the cache), e.g. `4.1.0`. */
  readonly version?: string;
  /** A local source archive (`.tgz`) or source checkout folder, instead of `version`. */
  readonly source?: string;
  /** Base of a relative `source` and `cacheDir` (default the working directory); messages show them as given. */
  readonly cwd?: string;
  /** Base URL holding `<version>/kafka-<version>-src.tgz` (default {@link MIRROR_ENV}, else {@link DEFAULT_KAFKA_MIRROR}). */
  readonly mirror?: string;
  /** Cache folder (default {@link CACHE_DIR_ENV}, else `$XDG_CACHE_HOME/kafka-wire`, else `~/.cache/kafka-wire`). */
  readonly cacheDir?: string;
  /** Idle timeout of each download in milliseconds (default {@link DEFAULT_TIMEOUT_MS}). */
  readonly timeoutMs?: number;
  /** Environment to read the defaults from (default `process.env`). */
  readonly env?: NodeJS.ProcessEnv;
  /** Told about slow steps (downloading, extracting), one line each, for a progress display. */
  readonly onStatus?: (line: string) => void;
}

/**
 * Finds Kafka's message schema folders: from `options.source` (archive or checkout, offline) or
 * by downloading release `options.version`, verified and cached.
 * @throws KafkaReleaseError with a one-line message: unknown version, HTTP 404 (naming the URL),
 *   checksum mismatch (expected and actual digest prefixes), network error or timeout, an
 *   unreadable archive, or a tree without schemas.
 */
export async function resolveKafkaSchemas(options: KafkaSchemasOptions): Promise<KafkaSchemas> {
  if (options.source !== undefined && options.version !== undefined) {
    throw new KafkaReleaseError("give a Kafka version or a Kafka source, not both");
  }
  if (options.source !== undefined) return localSchemas(options.source, options);
  if (options.version !== undefined) return releaseSchemas(options.version, options);
  throw new KafkaReleaseError("give a Kafka version (e.g. 4.1.0) or a Kafka source archive or checkout");
}

/** The URLs of a release's source archive and its checksum under `mirror`. */
export function releaseUrls(mirror: string, version: string): { readonly archive: string; readonly checksum: string } {
  const base = mirror.replace(/\/+$/, "");
  const archive = `${base}/${version}/kafka-${version}-src.tgz`;
  return { archive, checksum: `${archive}.sha512` };
}

/**
 * The SHA-512 digest (128 lowercase hex digits) in the text of a `.sha512` file. Accepts the
 * forms Apache's release files use:
 * - `sha512sum`: `<hex>  kafka-4.1.0-src.tgz` (or `<hex> *file`, or the hex alone);
 * - `gpg --print-md SHA512`: `kafka-4.1.0-src.tgz: 3C9B 1A2F …`, upper-case hex in groups,
 *   wrapped over several lines;
 * - BSD `shasum --tag`: `SHA512 (kafka-4.1.0-src.tgz) = <hex>`.
 *
 * When the file names a file, it must be `fileName`.
 * @throws KafkaReleaseError naming `label` when the text has none of these forms or names another file.
 */
export function parseSha512File(text: string, fileName: string, label: string): string {
  const trimmed = text.replace(/^\uFEFF/, "").trim();
  let named: string | undefined;
  let hex: string | undefined;
  let m: RegExpExecArray | null;
  if ((m = /^([0-9a-fA-F]{128})(?:\s+\*?(\S+))?$/.exec(trimmed)) !== null) {
    [hex, named] = [m[1], m[2]];
  } else if ((m = /^SHA512 ?\(([^)]+)\) ?= ?([0-9a-fA-F]{128})$/.exec(trimmed)) !== null) {
    [named, hex] = [m[1], m[2]];
  } else if ((m = /^([^:\s][^:]*?)\s*:\s*([0-9a-fA-F\s]+)$/.exec(trimmed)) !== null) {
    const digits = m[2]!.replace(/\s+/g, "");
    if (digits.length === 128) [named, hex] = [m[1], digits];
  }
  if (hex === undefined) {
    throw new KafkaReleaseError(`${label}: not a SHA-512 checksum file (expected sha512sum or gpg --print-md output)`);
  }
  if (named !== undefined && path.basename(named) !== fileName) {
    throw new KafkaReleaseError(`${label}: the checksum is for ${named}, not ${fileName}`);
  }
  return hex.toLowerCase();
}

// ---------------------------------------------------------------------------------------------
// A release, downloaded or cached

async function releaseSchemas(version: string, options: KafkaSchemasOptions): Promise<KafkaSchemas> {
  if (!VERSION.test(version)) {
    throw new KafkaReleaseError(`invalid Kafka version ${JSON.stringify(version)} (expected e.g. 4.1.0)`);
  }
  const env = options.env ?? process.env;
  const mirror = options.mirror ?? nonEmpty(env[MIRROR_ENV]) ?? DEFAULT_KAFKA_MIRROR;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const cacheDir = resolveCacheDir({ ...options, env });
  const top = `kafka-${version}-src`;
  const releaseDir = path.join(cacheDir, "kafka", version);
  const schemasDir = path.join(releaseDir, "schemas");
  const archive = path.join(releaseDir, `${top}.tgz`);

  // The extracted schemas are renamed into place only once complete, so their presence is the
  // cache hit. The archive was verified before it was kept.
  if (await isDirectory(schemasDir)) {
    return { folders: await scanTree(path.join(schemasDir, top), top), fromCache: true, cleanup: async () => {} };
  }
  let fromCache = true;
  if (!(await isFile(archive))) {
    fromCache = false;
    try {
      await downloadRelease(mirror, version, archive, timeoutMs, options.onStatus);
    } catch (error) {
      if (!(error instanceof KafkaReleaseError)) throw error;
      throw new KafkaReleaseError(`${error.message}; ${downloadHint(version)}`);
    }
  }
  options.onStatus?.(`extracting the message schemas from ${archive}`);
  await mkdir(releaseDir, { recursive: true });
  const staging = await mkdtemp(path.join(releaseDir, ".schemas-"));
  try {
    const found = await extractSchemas(archive, staging);
    if (found !== top) {
      throw new KafkaReleaseError(`${archive}: expected the top folder ${top}/, found ${found ?? "none"}`);
    }
    // Another process may have finished first; its copy is as good as ours.
    await rename(staging, schemasDir).catch(async (error: unknown) => {
      if (!(await isDirectory(schemasDir))) throw error;
    });
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  return { folders: await scanTree(path.join(schemasDir, top), top), fromCache, cleanup: async () => {} };
}

/** Downloads and verifies a release's source archive into `archive` (written only when it verifies). */
async function downloadRelease(
  mirror: string,
  version: string,
  archive: string,
  timeoutMs: number,
  onStatus: ((line: string) => void) | undefined,
): Promise<void> {
  const urls = releaseUrls(mirror, version);
  const fileName = path.basename(archive);
  const checksum = await fetchText(urls.checksum, timeoutMs);
  if (checksum === null) {
    // Tell "no such release" from "a release without a checksum file".
    const archiveResponse = await request(urls.archive, timeoutMs, "HEAD");
    await archiveResponse.body?.cancel();
    if (archiveResponse.status === 404) {
      throw new KafkaReleaseError(
        `Kafka ${version} not found at ${mirror} (404 for ${urls.checksum} and ${urls.archive})`,
      );
    }
    throw new KafkaReleaseError(`404 Not Found: ${urls.checksum} (cannot verify ${fileName} without it)`);
  }
  const expected = parseSha512File(checksum, fileName, urls.checksum);
  onStatus?.(`downloading ${urls.archive}`);
  await mkdir(path.dirname(archive), { recursive: true });
  const partial = `${archive}.${process.pid}-${Date.now()}.partial`;
  try {
    const actual = await downloadFile(urls.archive, partial, timeoutMs);
    if (actual !== expected) {
      throw new KafkaReleaseError(
        `checksum mismatch for ${urls.archive}: expected SHA-512 ${expected.slice(0, 16)}…, got ${actual.slice(0, 16)}…`,
      );
    }
    await rename(partial, archive);
  } finally {
    await rm(partial, { force: true });
  }
}

/** What to try when a release cannot be downloaded (the CLI's options, named as it takes them). */
export function downloadHint(version: string): string {
  return (
    `without a network, pass --kafka-source <kafka-${version}-src.tgz or a Kafka checkout>; ` +
    "for another mirror (an Apache mirror, an internal one, or a folder as a file:// URL), --kafka-mirror <URL>"
  );
}

/**
 * A `file://` mirror's answer: the file as a 200 response, or a 404 when it does not exist
 * (fetch itself has no file: scheme).
 */
async function fileResponse(url: string, method: "GET" | "HEAD"): Promise<Response> {
  let file: string;
  try {
    file = fileURLToPath(url);
  } catch (error) {
    throw new KafkaReleaseError(`${url}: not a file URL (${error instanceof Error ? error.message : String(error)})`);
  }
  const info = await stat(file).catch(() => null);
  if (info === null || !info.isFile()) return new Response(null, { status: 404, statusText: "Not Found" });
  if (method === "HEAD") return new Response(null, { status: 200 });
  return new Response(Readable.toWeb(createReadStream(file)) as ReadableStream, { status: 200 });
}

/** Sends one request with a timeout on the response headers. @throws KafkaReleaseError on a network error or timeout. */
async function request(url: string, timeoutMs: number, method: "GET" | "HEAD" = "GET"): Promise<Response> {
  let response: Response;
  if (url.startsWith("file:")) return fileResponse(url, method);
  try {
    response = await fetch(url, { method, redirect: "follow", signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    throw networkError(url, error, timeoutMs);
  }
  return response;
}

/** The body of `url` as text, or null on a 404. @throws KafkaReleaseError for other failures. */
async function fetchText(url: string, timeoutMs: number): Promise<string | null> {
  const response = await request(url, timeoutMs);
  if (response.status === 404) {
    await response.body?.cancel();
    return null;
  }
  checkStatus(url, response);
  if (response.body === null) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of Readable.fromWeb(response.body as WebReadableStream) as AsyncIterable<Buffer>) {
      size += chunk.byteLength;
      if (size > MAX_CHECKSUM_BYTES)
        throw new KafkaReleaseError(`${url}: larger than ${MAX_CHECKSUM_BYTES} bytes, not a checksum file`);
      chunks.push(chunk);
    }
  } catch (error) {
    throw error instanceof KafkaReleaseError ? error : networkError(url, error, timeoutMs);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * Streams `url` into `file` and returns the SHA-512 (hex) of what was written. The timeout is
 * an idle timeout: it restarts with every chunk, so a slow but steady download completes.
 * @throws KafkaReleaseError on 404 (naming the URL), another HTTP error, a network error or timeout.
 */
async function downloadFile(url: string, file: string, timeoutMs: number): Promise<string> {
  const abort = new AbortController();
  let timer = setTimeout(() => abort.abort(), timeoutMs);
  const touch = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => abort.abort(), timeoutMs);
  };
  try {
    let response: Response;
    try {
      response = url.startsWith("file:")
        ? await fileResponse(url, "GET")
        : await fetch(url, { redirect: "follow", signal: abort.signal });
    } catch (error) {
      throw networkError(url, error, timeoutMs);
    }
    if (response.status === 404) {
      await response.body?.cancel();
      throw new KafkaReleaseError(`404 Not Found: ${url}`);
    }
    checkStatus(url, response);
    if (response.body === null) throw new KafkaReleaseError(`${url}: the response has no body`);
    const hash = createHash("sha512");
    let size = 0;
    const meter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        touch();
        size += chunk.byteLength;
        if (size > MAX_ARCHIVE_BYTES) {
          done(new KafkaReleaseError(`${url}: larger than ${MAX_ARCHIVE_BYTES} bytes, not a Kafka source archive`));
          return;
        }
        hash.update(chunk);
        done(null, chunk);
      },
    });
    try {
      await pipeline(Readable.fromWeb(response.body as WebReadableStream), meter, createWriteStream(file));
    } catch (error) {
      throw error instanceof KafkaReleaseError ? error : networkError(url, error, timeoutMs);
    }
    return hash.digest("hex");
  } finally {
    clearTimeout(timer);
  }
}

function checkStatus(url: string, response: Response): void {
  if (!response.ok) {
    void response.body?.cancel();
    throw new KafkaReleaseError(
      `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}: ${url}`,
    );
  }
}

/** A one-line error for a failed request: timeout, or the root cause (`ECONNREFUSED`, DNS, TLS). */
function networkError(url: string, error: unknown, timeoutMs: number): KafkaReleaseError {
  if (error instanceof KafkaReleaseError) return error;
  const name = error instanceof Error ? error.name : "";
  if (name === "TimeoutError" || name === "AbortError") {
    return new KafkaReleaseError(`timed out after ${timeoutMs} ms waiting for ${url}`);
  }
  // undici reports "fetch failed" and puts the reason in `cause`.
  let reason: unknown = error;
  while (reason instanceof Error && reason.cause !== undefined) reason = reason.cause;
  const detail = reason instanceof Error ? reason.message : String(reason);
  return new KafkaReleaseError(`cannot download ${url}: ${detail.split("\n")[0]}`);
}

// ---------------------------------------------------------------------------------------------
// A local archive or checkout

async function localSchemas(source: string, options: KafkaSchemasOptions): Promise<KafkaSchemas> {
  const resolved = path.resolve(options.cwd ?? process.cwd(), source);
  const info = await stat(resolved).catch(() => null);
  if (info === null) throw new KafkaReleaseError(`${source}: no such file or folder`);
  if (info.isDirectory()) {
    const folders = await scanTree(resolved, path.basename(resolved), source);
    return { folders, fromCache: false, cleanup: async () => {} };
  }
  options.onStatus?.(`extracting the message schemas from ${source}`);
  const temp = await mkdtemp(path.join(tmpdir(), "kafka-wire-source-"));
  const cleanup = (): Promise<void> => rm(temp, { recursive: true, force: true });
  try {
    const top = await extractSchemas(resolved, temp, source);
    // An archive without a top folder is labelled after its file name (`kafka-x-src.tgz` → `kafka-x-src`).
    const label = top ?? path.basename(resolved).replace(/\.(tgz|tar\.gz|tar)$/, "");
    return { folders: await scanTree(top === null ? temp : path.join(temp, top), label), fromCache: false, cleanup };
  } catch (error) {
    await cleanup();
    throw error;
  }
}

/**
 * Extracts the message schema files of `archive` (a gzip'd or plain tar) into `dest`, keeping
 * their paths, and returns the archive's top folder (null when entries have none).
 * @throws KafkaReleaseError when the archive cannot be read or holds no schemas.
 */
async function extractSchemas(archive: string, dest: string, label = archive): Promise<string | null> {
  const tops = new Set<string | null>();
  let count = 0;
  try {
    await extract({
      file: archive,
      cwd: dest,
      strict: true,
      // Only regular files: a link in an archive could point outside `dest`.
      filter: (entryPath, entry) => {
        const m = SCHEMA_ENTRY.exec(entryPath);
        if (m === null || !("type" in entry) || entry.type !== "File") return false;
        tops.add(m[1] ?? null);
        count++;
        return true;
      },
    });
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new KafkaReleaseError(`${label}: cannot read the archive (${detail.split("\n")[0]})`);
  }
  if (count === 0) throw noSchemas(label);
  if (tops.size > 1) throw new KafkaReleaseError(`${label}: expected one top folder, found ${[...tops].join(", ")}`);
  return [...tops][0] ?? null;
}

/** The schema folders of a Kafka source tree rooted at `root`, labelled `<top>/<module>/<folder>`. */
async function scanTree(root: string, top: string, label = root): Promise<KafkaSchemaFolder[]> {
  const folders: KafkaSchemaFolder[] = [];
  const modules = await readdir(root, { withFileTypes: true }).catch(() => []);
  for (const mod of modules) {
    if (!mod.isDirectory() || mod.name.startsWith(".")) continue;
    for (const sub of SCHEMA_SUBFOLDERS) {
      const dir = path.join(root, mod.name, sub);
      const entries = await readdir(dir, { withFileTypes: true }).catch(() => null);
      const files = entries?.filter((e) => e.isFile() && e.name.endsWith(".json")).length ?? 0;
      if (files > 0) folders.push({ module: mod.name, path: dir, label: `${top}/${mod.name}/${sub}`, files });
    }
  }
  if (folders.length === 0) {
    const own = await readdir(root, { withFileTypes: true }).catch(() => []);
    if (own.some((e) => e.isFile() && e.name.endsWith(".json"))) {
      throw new KafkaReleaseError(
        `${label}: a folder of schema files, not a Kafka source tree; pass it with --schemas ${label} (--kafka-source takes a Kafka checkout or kafka-<version>-src.tgz)`,
      );
    }
    throw noSchemas(label);
  }
  return folders.sort((a, b) => (a.label < b.label ? -1 : a.label > b.label ? 1 : 0));
}

function noSchemas(where: string): KafkaReleaseError {
  return new KafkaReleaseError(
    `${where}: no Kafka message schemas found (expected <module>/src/main/resources/common/message/*.json)`,
  );
}

async function isDirectory(p: string): Promise<boolean> {
  return (await stat(p).catch(() => null))?.isDirectory() ?? false;
}

async function isFile(p: string): Promise<boolean> {
  return (await stat(p).catch(() => null))?.isFile() ?? false;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value.trim();
}
