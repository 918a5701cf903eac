/**
 * The generator pipeline: find schema files → parse and validate (load.ts) → emit TypeScript
 * (emit/) → format with prettier → write, or compare with what is there (`check`).
 */

import { mkdir, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { format } from "prettier";
import { DEFAULT_RUNTIME_IMPORT } from "./config.js";
import { indexModule } from "./emit/index-module.js";
import { hasInternalTopics, INTERNAL_TOPICS_MODULE, internalTopicsModule } from "./emit/internal-topics.js";
import { planInternalTopics, type InternalRecordRegistration } from "./internal-topics.js";
import { emitMessage } from "./emit/module.js";
import { GENERATED_MARK } from "./emit/names.js";
import { SchemaError } from "./errors.js";
import { loadSchema } from "./load.js";
import type { Diagnostic, MessageSpec } from "./model.js";

export interface GenerateOptions {
  /** Schema files or folders (searched recursively for `*.json`). */
  readonly schemas: readonly string[];
  /** The folder that receives `<MessageName>.ts` and `index.ts`. */
  readonly out: string;
  /** Module specifier generated code imports the codegen interface from (default `kafka-wire/codegen/v1`). */
  readonly runtimeImport?: string;
  /** Api keys for schemas that say `"apiKey": TBD`, by message name. */
  readonly apiKeys?: Readonly<Record<string, number>>;
  /** Schemas registered as internal-topic records (configuration `internalRecords`), by value schema name. */
  readonly internalRecords?: Readonly<Record<string, InternalRecordRegistration>>;
  /** Compare instead of writing: report files that differ, are missing or are left over. */
  readonly check?: boolean;
  /** Base for the paths shown in generated headers and messages (default: the working directory). */
  readonly cwd?: string;
  /**
   * What generated headers call each entry of `schemas` (same order), instead of the entry's own
   * name: e.g. `kafka-4.1.0-src/clients/src/main/resources/common/message` for a folder extracted
   * into a cache, so that output does not depend on where the cache is.
   */
  readonly schemaLabels?: readonly string[];
}

export type FileStatus = "written" | "unchanged" | "stale" | "removed";

export interface GenerateResult {
  readonly messages: readonly MessageSpec[];
  /** Every output file with what happened to it (in check mode: `stale` or `unchanged`). */
  readonly files: readonly { readonly path: string; readonly status: FileStatus }[];
  readonly warnings: readonly Diagnostic[];
}

export { GENERATED_MARK };

/** kafka-wire's own version, for generated headers. */
export async function generatorVersion(): Promise<string> {
  const pkg = JSON.parse(await readFile(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
  return pkg.version;
}

/** Every `*.json` file at or below `entry` (a file or a folder), skipping node_modules and dot-folders. */
export async function findSchemaFiles(entry: string): Promise<string[]> {
  const info = await stat(entry).catch(() => null);
  if (info === null) throw new SchemaError({ file: entry, line: 1, column: 1, reason: "no such file or folder" });
  if (info.isFile()) return [entry];
  const found: string[] = [];
  for (const dirent of await readdir(entry, { withFileTypes: true })) {
    const full = path.join(entry, dirent.name);
    // Follow symbolic links (a schema folder assembled from links must not come out empty).
    const kind = dirent.isSymbolicLink() ? await stat(full).catch(() => null) : dirent;
    if (kind === null) continue;
    if (kind.isDirectory()) {
      if (dirent.name !== "node_modules" && !dirent.name.startsWith(".")) found.push(...(await findSchemaFiles(full)));
    } else if (kind.isFile() && dirent.name.endsWith(".json")) {
      found.push(full);
    }
  }
  return found;
}

/** Formats generated TypeScript the same way on every machine (no user prettier config). */
export function formatTypeScript(text: string): Promise<string> {
  return format(text, { parser: "typescript", printWidth: 120, trailingComma: "all" });
}

function toPosix(p: string): string {
  return p.split(path.sep).join("/");
}

/**
 * Loads and validates every schema found at or below `entries`, in path order. Each spec's `file`
 * is its path relative to `cwd`.
 * @throws SchemaError for the first schema that does not parse or validate, or a message name
 *   defined twice.
 */
export async function loadSchemas(
  entries: readonly string[],
  options: {
    readonly apiKeys?: Readonly<Record<string, number>>;
    readonly cwd?: string;
    /** Header names of `entries` (see {@link GenerateOptions.schemaLabels}). */
    readonly labels?: readonly string[];
  } = {},
): Promise<MessageSpec[]> {
  const cwd = options.cwd ?? process.cwd();
  // Each file has two names: its path from `cwd` for error messages (editors open it), and its
  // path from the folder given, with that folder's name, for generated headers
  // (`schemas/X.json`, `message/FetchRequest.json`), so that output never depends on the cwd.
  const labels = new Map<string, { file: string; source: string }>();
  if (options.labels !== undefined && options.labels.length !== entries.length) {
    throw new Error(`${options.labels.length} schema labels for ${entries.length} schema entries`);
  }
  for (const [i, entry] of entries.entries()) {
    const root = path.resolve(cwd, entry);
    const name = options.labels?.[i] ?? path.basename(root);
    for (const f of await findSchemaFiles(root)) {
      const source = f === root ? name : path.join(name, path.relative(root, f));
      labels.set(f, { file: toPosix(path.relative(cwd, f)), source: toPosix(source) });
    }
  }
  const messages: MessageSpec[] = [];
  const byName = new Map<string, string>();
  for (const file of [...labels.keys()].sort()) {
    const { file: label, source } = labels.get(file)!;
    const spec = { ...loadSchema(await readFile(file, "utf8"), label, { apiKeys: options.apiKeys ?? {} }), source };
    const previous = byName.get(spec.name);
    if (previous !== undefined) {
      throw new SchemaError({
        file: label,
        line: 1,
        column: 1,
        reason: `message ${spec.name} is also defined in ${previous}`,
      });
    }
    byName.set(spec.name, label);
    messages.push(spec);
  }
  for (const name of Object.keys(options.apiKeys ?? {})) {
    if (!byName.has(name)) {
      throw new SchemaError({
        file: name,
        line: 1,
        column: 1,
        reason: `an api key is assigned to ${name}, but no schema defines that message`,
      });
    }
  }
  return messages;
}

/**
 * Generates (or checks) the codecs for every schema found.
 * @throws SchemaError (with `file:line:column`) for the first schema that does not parse or validate.
 */
export async function generate(options: GenerateOptions): Promise<GenerateResult> {
  const cwd = options.cwd ?? process.cwd();
  const version = await generatorVersion();
  const runtimeImport = options.runtimeImport ?? DEFAULT_RUNTIME_IMPORT;
  const labels = options.schemaLabels;
  const messages = await loadSchemas(options.schemas, {
    apiKeys: options.apiKeys ?? {},
    cwd,
    ...(labels === undefined ? {} : { labels }),
  });
  const outputs = new Map<string, string>();
  for (const spec of messages) {
    const text = emitMessage(spec, { runtimeImport, sourceLabel: spec.source ?? spec.file, generatorVersion: version });
    outputs.set(`${spec.name}.ts`, await formatTypeScript(text));
  }
  const names = messages.map((m) => m.name).sort();
  const sources = (labels ?? options.schemas).map((s) => toPosix(s)).join(", ");
  const internal = planInternalTopics(messages, options.internalRecords ?? {});
  const extraModules: string[] = [];
  if (hasInternalTopics(internal)) {
    outputs.set(
      `${INTERNAL_TOPICS_MODULE}.ts`,
      await formatTypeScript(internalTopicsModule(internal, version, sources, runtimeImport, names)),
    );
    extraModules.push(INTERNAL_TOPICS_MODULE);
  }
  outputs.set("index.ts", await formatTypeScript(indexModule(names, version, sources, runtimeImport, extraModules)));

  const outDir = path.resolve(cwd, options.out);
  const results: { path: string; status: FileStatus }[] = [];
  if (!options.check) await mkdir(outDir, { recursive: true });
  for (const [name, text] of [...outputs].sort(([a], [b]) => a.localeCompare(b))) {
    const target = path.join(outDir, name);
    const current = await readFile(target, "utf8").catch(() => null);
    const label = toPosix(path.relative(cwd, target));
    if (current !== null && !current.startsWith(GENERATED_MARK)) {
      // Never replace a file we did not write: it is the user's.
      throw new SchemaError({
        file: label,
        line: 1,
        column: 1,
        reason: `refusing to overwrite ${label}: it was not generated by kafka-wire (no "${GENERATED_MARK}" header)`,
      });
    }
    if (current === text) {
      results.push({ path: label, status: "unchanged" });
    } else if (options.check) {
      results.push({ path: label, status: "stale" });
    } else {
      await writeFile(target, text);
      results.push({ path: label, status: "written" });
    }
  }
  // Generated files whose schema is gone are stale too (only files carrying our header).
  const existing = await readdir(outDir).catch(() => [] as string[]);
  for (const name of existing.sort()) {
    if (!name.endsWith(".ts") || outputs.has(name)) continue;
    const target = path.join(outDir, name);
    const text = await readFile(target, "utf8");
    if (!text.startsWith(GENERATED_MARK)) continue;
    const label = toPosix(path.relative(cwd, target));
    if (options.check) {
      results.push({ path: label, status: "stale" });
    } else {
      await rm(target);
      results.push({ path: label, status: "removed" });
    }
  }
  return { messages, files: results, warnings: messages.flatMap((m) => m.warnings) };
}
