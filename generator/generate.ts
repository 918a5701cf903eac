/**
 * The generator pipeline: find schema files → parse and validate (load.ts) → emit TypeScript
 * (emit/) → write, or compare with what is there (`check`). The emitter lays code out as prettier
 * would (emit/code.ts), so no formatter runs: test/generator/prettier-stable.test.ts checks that
 * prettier leaves every generated file as it is.
 */

import { mkdir, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { DEFAULT_RUNTIME_IMPORT } from "./schema/config.js";
import { indexModules } from "./emit/index-module.js";
import { hasInternalTopics, INTERNAL_TOPICS_MODULE, internalTopicsModule } from "./emit/internal-topics.js";
import { planInternalTopics, type InternalRecordRegistration } from "./schema/internal-topics.js";
import { emitMessage } from "./emit/module.js";
import { GENERATED_MARK } from "./emit/names.js";
import { SchemaError } from "./schema/errors.js";
import { loadSchema } from "./schema/load.js";
import type { Diagnostic, MessageSpec } from "./schema/model.js";
import { findSchemaFiles } from "./schema/schema-files.js";

/** What {@link renderCodecs} needs: the schemas and how to name and import things. */
export interface RenderOptions {
  /** Schema files or folders (searched recursively for `*.json`). */
  readonly schemas: readonly string[];
  /** Module specifier generated code imports the codegen interface from (default `kafka-wire/codegen/v1`). */
  readonly runtimeImport?: string;
  /** Api keys for schemas that say `"apiKey": TBD`, by message name. */
  readonly apiKeys?: Readonly<Record<string, number>>;
  /** Schemas registered as internal-topic records (configuration `internalRecords`), by value schema name. */
  readonly internalRecords?: Readonly<Record<string, InternalRecordRegistration>>;
  /** Base for the paths shown in generated headers and messages (default: the working directory). */
  readonly cwd?: string;
  /**
   * What generated headers call each entry of `schemas` (same order), instead of the entry's own
   * name: e.g. `kafka-4.1.0-src/clients/src/main/resources/common/message` for a folder extracted
   * into a cache, so that output does not depend on where the cache is.
   */
  readonly schemaLabels?: readonly string[];
  /**
   * The command that regenerates the files, for their headers (default `kafka-wire generate`);
   * see `regenerateCommand` in config.ts.
   */
  readonly command?: string;
}

export interface GenerateOptions extends RenderOptions {
  /** The folder that receives `<MessageName>.ts` and `index.ts`. */
  readonly out: string;
  /** Compare instead of writing: report files that differ, are missing or are left over. */
  readonly check?: boolean;
}

/**
 * What happened to an output file. Generating: `written`, `unchanged`, `removed` (a generated
 * file whose schema is gone). Checking: `unchanged`, `stale` (differs from what generate would
 * write), `missing` (generate would write it) and `leftover` (generate would remove it).
 * `stray`: something in the output folder that kafka-wire did not generate (a file without the
 * generated header, another kind of file, a folder); never touched, reported so that `--check`
 * fails on it. Dot-files and dot-folders (`.gitignore`, `.DS_Store`) are not reported.
 */
export type FileStatus = "written" | "unchanged" | "stale" | "missing" | "leftover" | "removed" | "stray";

export interface GenerateResult {
  readonly messages: readonly MessageSpec[];
  /** Every output file with what happened to it (in check mode: `unchanged`, `stale`, `missing`, `leftover` or `stray`). */
  readonly files: readonly { readonly path: string; readonly status: FileStatus }[];
  readonly warnings: readonly Diagnostic[];
}

export { GENERATED_MARK, findSchemaFiles };

/** The command generated headers give when the caller names none. */
export const DEFAULT_COMMAND = "kafka-wire generate";

/** kafka-wire's own version, for generated headers. */
export async function generatorVersion(): Promise<string> {
  const pkg = JSON.parse(await readFile(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
  return pkg.version;
}

function toPosix(p: string): string {
  return p.split(path.sep).join("/");
}

/**
 * Loads and validates every schema found at or below `entries`, in path order. Each spec's `file`
 * is its path relative to `cwd`.
 * @throws SchemaError for the first schema that does not parse or validate, or a message name
 *   defined twice, or a request (or response) api key claimed by two schemas.
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
  const byApiKey = new Map<string, { name: string; file: string }>();
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
    if (spec.apiKey !== null && (spec.type === "request" || spec.type === "response")) {
      // Kafka's ApiMessageTypeGenerator refuses a second request (or response) for an api key,
      // including one of a message with no valid versions: that is what keeps the key reserved.
      const key = `${spec.type} ${spec.apiKey}`;
      const holder = byApiKey.get(key);
      if (holder !== undefined) {
        throw new SchemaError({
          file: label,
          line: 1,
          column: 1,
          reason: `api key ${spec.apiKey} of ${spec.name} is already the ${spec.type} ${holder.name} (${holder.file})`,
        });
      }
      byApiKey.set(key, { name: spec.name, file: label });
    }
    messages.push(spec);
  }
  checkHeaderVersionsExist(messages);
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
 * Every `headerVersions` value names a version of the set's RequestHeader (for requests) or
 * ResponseHeader (for responses), when the set has that header: a frame on a missing header
 * version could be neither written nor read.
 */
function checkHeaderVersionsExist(messages: readonly MessageSpec[]): void {
  const headers = {
    request: messages.find((m) => m.name === "RequestHeader" && m.type === "header"),
    response: messages.find((m) => m.name === "ResponseHeader" && m.type === "header"),
  };
  for (const m of messages) {
    if (m.headerVersions === null || (m.type !== "request" && m.type !== "response")) continue;
    const header = headers[m.type];
    if (header === undefined) continue;
    for (const { range, header: version } of m.headerVersions) {
      if (header.validVersions.contains(version)) continue;
      throw new SchemaError({
        file: m.file,
        line: 1,
        column: 1,
        reason: `headerVersions maps ${range} of ${m.name} to ${header.name} v${version}, but ${header.file} has versions ${header.validVersions}`,
      });
    }
  }
}

/** The generated modules of a schema set, by file name (`<Name>.ts`, `index.ts`), in memory. */
export interface RenderedCodecs {
  readonly messages: readonly MessageSpec[];
  readonly files: ReadonlyMap<string, string>;
  readonly warnings: readonly Diagnostic[];
}

/**
 * Generates the codecs of every schema found, without writing them.
 * @throws SchemaError (with `file:line:column`) for the first schema that does not parse or validate.
 */
export async function renderCodecs(options: RenderOptions): Promise<RenderedCodecs> {
  const cwd = options.cwd ?? process.cwd();
  const version = await generatorVersion();
  const runtimeImport = options.runtimeImport ?? DEFAULT_RUNTIME_IMPORT;
  const command = options.command ?? DEFAULT_COMMAND;
  const labels = options.schemaLabels;
  const messages = await loadSchemas(options.schemas, {
    apiKeys: options.apiKeys ?? {},
    cwd,
    ...(labels === undefined ? {} : { labels }),
  });
  // A message with no valid versions only reserves its api key (checked by loadSchemas).
  const codecs = messages.filter((m) => !m.validVersions.isEmpty());
  const emitted = new Map<string, string>();
  for (const spec of codecs) {
    const text = emitMessage(spec, {
      runtimeImport,
      sourceLabel: spec.source ?? spec.file,
      generatorVersion: version,
      command,
    });
    emitted.set(`${spec.name}.ts`, text);
  }
  // Named as the modules' headers name them (each entry's own name), so the working folder
  // does not show.
  const sources = (labels ?? options.schemas.map((s) => path.basename(path.resolve(cwd, s))))
    .map((s) => toPosix(s))
    .join(", ");
  const internal = planInternalTopics(codecs, options.internalRecords ?? {});
  const extraModules: string[] = [];
  if (hasInternalTopics(internal)) {
    const name = `${INTERNAL_TOPICS_MODULE}.ts`;
    const text = internalTopicsModule(
      internal,
      { version, sources, command },
      runtimeImport,
      codecs.map((m) => m.name),
    );
    emitted.set(name, text);
    extraModules.push(INTERNAL_TOPICS_MODULE);
  }
  for (const [name, text] of indexModules(codecs, { version, sources, command }, runtimeImport, extraModules)) {
    emitted.set(name, text);
  }
  return { messages, files: emitted, warnings: messages.flatMap((m) => m.warnings) };
}

/**
 * An output file's text, or null when there is none. Anything else (a folder where the file
 * would go, no permission) is an error naming the path: neither `generate` nor `--check` could
 * do what it would otherwise suggest.
 */
async function readOutput(file: string, cwd: string): Promise<string | null> {
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    const reason = (error as NodeJS.ErrnoException).code === "EISDIR" ? "it is a folder" : (error as Error).message;
    throw new Error(`cannot read ${toPosix(path.relative(cwd, file))}: ${reason}`);
  }
}

/**
 * Generates (or checks) the codecs for every schema found.
 * @throws SchemaError (with `file:line:column`) for the first schema that does not parse or validate.
 */
export async function generate(options: GenerateOptions): Promise<GenerateResult> {
  const cwd = options.cwd ?? process.cwd();
  const outDir = path.resolve(cwd, options.out);
  if ((await stat(outDir).catch(() => null))?.isDirectory() === false) {
    throw new Error(`the output folder ${toPosix(path.relative(cwd, outDir))} is not a folder`);
  }
  const { messages, files: outputs, warnings } = await renderCodecs(options);
  const results: { path: string; status: FileStatus }[] = [];
  if (!options.check) await mkdir(outDir, { recursive: true });
  for (const [name, text] of [...outputs].sort(([a], [b]) => a.localeCompare(b))) {
    const target = path.join(outDir, name);
    const current = await readOutput(target, cwd);
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
      results.push({ path: label, status: current === null ? "missing" : "stale" });
    } else {
      await writeFile(target, text);
      results.push({ path: label, status: "written" });
    }
  }
  // Generated files whose schema is gone are stale too (only files carrying our header);
  // anything else in the folder is reported as stray, and left alone.
  const existing = await readdir(outDir, { withFileTypes: true }).catch(() => []);
  for (const entry of existing.sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.name.startsWith(".") || outputs.has(entry.name)) continue;
    const target = path.join(outDir, entry.name);
    const label = toPosix(path.relative(cwd, target));
    const generated =
      entry.name.endsWith(".ts") &&
      (await stat(target).catch(() => null))?.isFile() === true &&
      (await readFile(target, "utf8")).startsWith(GENERATED_MARK);
    if (!generated) {
      results.push({ path: label, status: "stray" });
    } else if (options.check) {
      results.push({ path: label, status: "leftover" });
    } else {
      await rm(target);
      results.push({ path: label, status: "removed" });
    }
  }
  return { messages, files: results, warnings };
}
