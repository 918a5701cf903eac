/**
 * Codecs of a user's schema set for `decode`, `encode`, `list` and `decode-frame`
 * (`--schemas <dir...>`, `--kafka <version>`, `--kafka-source <path>`).
 *
 * The generator's modules (unformatted: nobody reads them) are transpiled to JavaScript and
 * kept in the per-user cache folder, `<cache>/codecs/<key>/`, where `<key>` hashes the
 * schema texts, the api key assignments, the CLI's version and build, and the runtime module
 * the modules import. A second run on the same schemas imports them straight from there,
 * without loading the generator.
 *
 * The modules import the codegen interface from the CLI's own copy of the runtime, by file URL:
 * `cli/dist/codegen-v1.js` in the built package, `src/codegen/v1.ts` when the CLI runs from the
 * repository's sources (under tsx or vitest, which load TypeScript).
 */

import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { MessageCodec } from "../src/runtime/codec.js";
import type { Protocol } from "../src/runtime/framing.js";
import type { InternalTopics } from "../src/runtime/internal-topics.js";
import type { MessageTable } from "../src/runtime/table.js";
import { resolveCacheDir } from "./cache-dir.js";
import { findSchemaFiles } from "../generator/schema/schema-files.js";

/** A set of codecs the CLI works with. */
export interface CodecSet {
  /** Every codec, by message name. */
  readonly messages: Readonly<Record<string, MessageCodec<unknown>>>;
  /** Request/response framing, when the set has the RequestHeader and ResponseHeader schemas. */
  readonly protocol?: Protocol;
  /** The set's internal-topic records (the generated `internalTopics`), when it has any. */
  readonly internalTopics?: InternalTopics;
  /** The generated `controlDecoder` (KRaft control records), when the set has their schemas. */
  readonly controlDecoder?: (type: string, typeId: number, value: Uint8Array | null) => unknown;
  /** Every message's field table (the generated `fieldTables`), for `decode --spans`. */
  readonly fieldTables?: Readonly<Record<string, MessageTable>>;
}

/** Where a schema set comes from, as the command line gives it. */
export interface SchemaSetOptions {
  /** Base of relative paths. */
  readonly cwd: string;
  /** Schema files or folders. */
  readonly schemas?: readonly string[];
  /** A Kafka release's schemas (see kafka-release.ts). */
  readonly kafka?: string;
  readonly kafkaSource?: string;
  readonly kafkaMirror?: string;
  /** The cache folder (default: cache-dir.ts). */
  readonly cacheDir?: string;
  /** Told about slow steps (downloading, generating), one line each. */
  readonly onStatus?: (line: string) => void;
}

/** A loaded schema set and where its compiled codecs are. */
export interface LoadedSchemaSet {
  readonly codecs: CodecSet;
  /** The folder of compiled modules in the cache. */
  readonly dir: string;
  /** True when the compiled modules were already in the cache. */
  readonly fromCache: boolean;
  /** Number of schema files in the set. */
  readonly schemaCount: number;
}

/** The CLI's version (its package.json, `../package.json` from both `cli/` and `cli/dist/`). */
function cliVersion(): Promise<string> {
  return readFile(new URL("../package.json", import.meta.url), "utf8").then(
    (text) => (JSON.parse(text) as { version?: string }).version ?? "0.0.0",
    () => "0.0.0",
  );
}

/**
 * The module compiled codecs import the codegen interface from: the built package's
 * `codegen-v1.js` next to this module, else (running from the sources) `src/codegen/v1.ts`.
 */
export function runtimeModuleUrl(): string {
  const built = new URL("./codegen-v1.js", import.meta.url);
  if (existsSync(fileURLToPath(built))) return built.href;
  return new URL("../src/codegen/v1.ts", import.meta.url).href;
}

/**
 * What identifies the CLI's code beyond its version, so that a changed generator never serves
 * stale codecs: in the built package, the file names in its folder (esbuild puts a content hash
 * in every chunk's name); from the sources, the size and time of every source file.
 */
async function buildFingerprint(runtimeUrl: string): Promise<string> {
  const here = path.dirname(fileURLToPath(import.meta.url));
  if (runtimeUrl.endsWith(".js")) return (await readdir(here)).sort().join("\n");
  const root = path.resolve(here, "..");
  const lines: string[] = [];
  for (const folder of ["cli", "generator", "src"]) {
    const names = await readdir(path.join(root, folder), { recursive: true }).catch(() => [] as string[]);
    for (const name of names.sort()) {
      if (!name.endsWith(".ts")) continue;
      const info = await stat(path.join(root, folder, name)).catch(() => null);
      if (info !== null) lines.push(`${folder}/${name} ${info.size} ${info.mtimeMs}`);
    }
  }
  return lines.join("\n");
}

/**
 * Generates (or takes from the cache) and imports the codecs of a schema set.
 * @throws KafkaReleaseError (for `--kafka`), SchemaError for a schema that does not load, or an
 *   Error when the cache folder cannot be written.
 */
export async function loadSchemaSet(options: SchemaSetOptions): Promise<LoadedSchemaSet> {
  const entries: { path: string; label: string }[] = [];
  let cleanup = async (): Promise<void> => {};
  if (options.kafka !== undefined || options.kafkaSource !== undefined) {
    const { resolveKafkaSchemas } = await import("./kafka-release.js");
    const kafka = await resolveKafkaSchemas({
      ...(options.kafka === undefined ? {} : { version: options.kafka }),
      ...(options.kafkaSource === undefined ? {} : { source: options.kafkaSource }),
      ...(options.kafkaMirror === undefined ? {} : { mirror: options.kafkaMirror }),
      ...(options.cacheDir === undefined ? {} : { cacheDir: options.cacheDir }),
      cwd: options.cwd,
      ...(options.onStatus === undefined ? {} : { onStatus: options.onStatus }),
    });
    cleanup = kafka.cleanup;
    for (const f of kafka.folders) entries.push({ path: f.path, label: f.label });
  }
  for (const s of options.schemas ?? []) {
    const full = path.resolve(options.cwd, s);
    entries.push({ path: full, label: path.basename(full) });
  }
  try {
    return await compileAndImport(entries, options);
  } finally {
    await cleanup();
  }
}

async function compileAndImport(
  entries: readonly { path: string; label: string }[],
  options: SchemaSetOptions,
): Promise<LoadedSchemaSet> {
  const runtimeUrl = runtimeModuleUrl();
  // The key: everything the compiled modules depend on. Schema files are hashed under their
  // path inside the folder given (not where that folder is), so a moved checkout still hits.
  const hash = createHash("sha256");
  const field = (text: string): void => void hash.update(`${text.length}:${text}\n`);
  field(`kafka-wire-cli ${await cliVersion()}`);
  field(await buildFingerprint(runtimeUrl));
  field(runtimeUrl);
  let schemaCount = 0;
  for (const entry of entries) {
    const files = (await findSchemaFiles(entry.path)).sort();
    for (const file of files) {
      schemaCount++;
      field(path.join(entry.label, path.relative(entry.path, file)).split(path.sep).join("/"));
      field(await readFile(file, "utf8"));
    }
  }
  const key = hash.digest("hex").slice(0, 32);
  const root = path.join(resolveCacheDir(options), "codecs");
  const dir = path.join(root, key);
  const index = path.join(dir, "index.js");
  let fromCache = true;
  if (!existsSync(index)) {
    fromCache = false;
    options.onStatus?.(`generating codecs for ${schemaCount} schemas (kept in ${dir})`);
    await compile(entries, runtimeUrl, root, dir, options.cwd);
  }
  const mod = (await import(pathToFileURL(index).href)) as CodecSet;
  return {
    codecs: {
      messages: mod.messages,
      ...(mod.protocol === undefined ? {} : { protocol: mod.protocol }),
      ...(mod.internalTopics === undefined ? {} : { internalTopics: mod.internalTopics }),
      ...(mod.controlDecoder === undefined ? {} : { controlDecoder: mod.controlDecoder }),
      ...(mod.fieldTables === undefined ? {} : { fieldTables: mod.fieldTables }),
    },
    dir,
    fromCache,
    schemaCount,
  };
}

/**
 * Generates the modules, transpiles each to JavaScript and moves the finished folder into
 * place in one rename, so a folder in the cache is always complete.
 */
async function compile(
  entries: readonly { path: string; label: string }[],
  runtimeUrl: string,
  root: string,
  dir: string,
  cwd: string,
): Promise<void> {
  const { renderCodecs } = await import("../generator/generate.js");
  const { transform } = await import("esbuild");
  const rendered = await renderCodecs({
    schemas: entries.map((e) => e.path),
    schemaLabels: entries.map((e) => e.label),
    runtimeImport: runtimeUrl,
    cwd,
  });
  try {
    await mkdir(root, { recursive: true });
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new Error(`cannot create the codec cache (${detail}); choose another folder with --cache-dir`);
  }
  const staging = await mkdtemp(path.join(root, ".staging-"));
  try {
    // The folder is an ES module package wherever the cache is.
    await writeFile(path.join(staging, "package.json"), '{ "type": "module" }\n');
    for (const [name, text] of rendered.files) {
      // Type stripping only: no type check, no other file read.
      const { code: js } = await transform(text, { loader: "ts", format: "esm", target: "es2022", sourcefile: name });
      await writeFile(path.join(staging, name.replace(/\.ts$/, ".js")), js);
    }
    // Another process may have finished first; its copy is as good as ours.
    await rename(staging, dir).catch((error: unknown) => {
      if (!existsSync(path.join(dir, "index.js"))) throw error;
    });
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
