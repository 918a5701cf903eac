/**
 * The generator's settings: `kafka-wire.config.json` (when present) merged with what the caller
 * passes (the CLI's `--schemas`, `--out`, `--runtime-import`, `--api-key Name=N`). Reading and
 * checking them is the generator's job, so every front end (the CLI, scripts, tests) resolves
 * them the same way.
 */

import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { InternalRecordRegistration } from "./internal-topics.js";
import { MAX_VERSION } from "./versions.js";

/** The configuration file `generate` reads from the working folder when present. */
export const CONFIG_FILE = "kafka-wire.config.json";

/** The module generated code imports by default: the runtime's versioned codegen interface. */
export const DEFAULT_RUNTIME_IMPORT = "kafka-wire/codegen/v1";

/** A configuration file or setting the generator cannot use; the message is one line. */
export class ConfigError extends Error {
  override get name(): string {
    return "ConfigError";
  }
}

/** The keys of `kafka-wire.config.json` (all optional). */
export interface GenerateConfig {
  /** Schema files or folders, relative to the configuration file's folder. */
  readonly schemas?: readonly string[];
  /** Output folder, relative to the configuration file's folder. */
  readonly out?: string;
  /** Module specifier generated code imports the codegen interface from. */
  readonly runtimeImport?: string;
  /** Api keys for schemas whose `apiKey` is `TBD`, by message name. */
  readonly apiKeys?: Readonly<Record<string, number>>;
  /**
   * Schemas registered as internal-topic records, by value schema name:
   * `{ "topic": "__consumer_offsets", "recordType": 19, "key": "StreamsGroupMemberMetadataKey" }`
   * (see generator/schema/internal-topics.ts for the records derived without it).
   */
  readonly internalRecords?: Readonly<Record<string, InternalRecordRegistration>>;
}

/** What a caller overrides (each optional; paths relative to `cwd`). */
export interface SettingsInput {
  /** The working folder: base of the paths below and where `kafka-wire.config.json` is looked for. */
  readonly cwd: string;
  /** An explicit configuration file (must exist); otherwise `<cwd>/kafka-wire.config.json` if present. */
  readonly config?: string;
  readonly schemas?: readonly string[];
  readonly out?: string;
  readonly runtimeImport?: string;
  /** `Name=number` strings, as given to `--api-key`; they win over the configuration file's. */
  readonly apiKeyFlags?: readonly string[];
  /** True when the caller brings a schema set of its own other than `schemas` (`--kafka`). */
  readonly replacesSchemas?: boolean;
}

/** Fully resolved settings; paths are relative to `base`. */
export interface GenerateSettings {
  /**
   * The folder paths are relative to: the configuration file's folder (or `cwd` without one).
   * It is also the base of the paths written into generated headers, so output does not depend on
   * where the command runs from.
   */
  readonly base: string;
  readonly schemas: readonly string[];
  readonly out: string;
  readonly runtimeImport: string;
  readonly apiKeys: Readonly<Record<string, number>>;
  readonly internalRecords: Readonly<Record<string, InternalRecordRegistration>>;
  /** The configuration file read (absolute path), if any. */
  readonly configFile?: string;
}

/** True for an integer api key (0..32767). */
export function isApiKey(v: unknown): v is number {
  return typeof v === "number" && Number.isInteger(v) && v >= 0 && v <= MAX_VERSION;
}

/** Reads and checks a configuration file. @throws ConfigError naming the file and the bad key. */
export async function readConfig(file: string, label: string): Promise<GenerateConfig> {
  let value: unknown;
  try {
    // A byte-order mark (some editors write one) is not part of the JSON.
    value = JSON.parse((await readFile(file, "utf8")).replace(/^\uFEFF/, ""));
  } catch (error) {
    const detail = error instanceof Error ? error.message.split("\n")[0] : String(error);
    throw new ConfigError(`${label}: ${detail}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new ConfigError(`${label}: expected a JSON object`);
  const config: Record<string, unknown> = { ...value };
  const known = new Set(["schemas", "out", "runtimeImport", "apiKeys", "internalRecords", "$schema"]);
  for (const key of Object.keys(config)) {
    if (!known.has(key))
      throw new ConfigError(
        `${label}: unknown key ${JSON.stringify(key)} (known: schemas, out, runtimeImport, apiKeys, internalRecords)`,
      );
  }
  const { schemas, out, runtimeImport, apiKeys, internalRecords } = config;
  const result: { -readonly [K in keyof GenerateConfig]: GenerateConfig[K] } = {};
  if (schemas !== undefined) {
    const list = typeof schemas === "string" ? [schemas] : schemas;
    if (!Array.isArray(list) || list.length === 0 || !list.every((s): s is string => typeof s === "string")) {
      throw new ConfigError(`${label}: "schemas" must be a path or a non-empty list of paths`);
    }
    result.schemas = list;
  }
  if (out !== undefined) {
    if (typeof out !== "string") throw new ConfigError(`${label}: "out" must be a path`);
    result.out = out;
  }
  if (runtimeImport !== undefined) {
    if (typeof runtimeImport !== "string" || runtimeImport === "")
      throw new ConfigError(`${label}: "runtimeImport" must be a module specifier`);
    result.runtimeImport = runtimeImport;
  }
  if (apiKeys !== undefined) {
    if (typeof apiKeys !== "object" || apiKeys === null || Array.isArray(apiKeys)) {
      throw new ConfigError(`${label}: "apiKeys" must be an object of message name to api key`);
    }
    const keys: Record<string, number> = {};
    for (const [name, key] of Object.entries(apiKeys)) {
      if (!isApiKey(key)) throw new ConfigError(`${label}: apiKeys.${name} must be an integer from 0 to 32767`);
      keys[name] = key;
    }
    result.apiKeys = keys;
  }
  if (internalRecords !== undefined) result.internalRecords = readInternalRecords(internalRecords, label);
  return result;
}

function readInternalRecords(value: unknown, label: string): Record<string, InternalRecordRegistration> {
  const isObject = (v: unknown): v is Record<string, unknown> =>
    typeof v === "object" && v !== null && !Array.isArray(v);
  if (!isObject(value)) {
    throw new ConfigError(
      `${label}: "internalRecords" must be an object of value schema name to { topic, recordType, key }`,
    );
  }
  const out: Record<string, InternalRecordRegistration> = {};
  for (const [name, entry] of Object.entries(value)) {
    const at = `${label}: internalRecords.${name}`;
    if (!isObject(entry)) throw new ConfigError(`${at} must be an object { topic, recordType, key }`);
    for (const k of Object.keys(entry)) {
      if (!["topic", "recordType", "key"].includes(k)) {
        throw new ConfigError(`${at}: unknown key ${JSON.stringify(k)} (known: topic, recordType, key)`);
      }
    }
    const { topic, recordType, key } = entry;
    if (typeof topic !== "string" || topic === "") throw new ConfigError(`${at}.topic must be a topic name`);
    if (!isApiKey(recordType)) throw new ConfigError(`${at}.recordType must be an integer from 0 to 32767`);
    if (key !== undefined && (typeof key !== "string" || key === "")) {
      throw new ConfigError(`${at}.key must be a schema name`);
    }
    out[name] = key === undefined ? { topic, recordType } : { topic, recordType, key };
  }
  return out;
}

/** `--api-key Name=88` values. @throws ConfigError for a malformed one. */
export function parseApiKeyFlags(values: readonly string[]): Record<string, number> {
  const keys: Record<string, number> = {};
  for (const v of values) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=(\d+)$/.exec(v.trim());
    const key = m === null ? NaN : Number(m[2]);
    if (m === null || !isApiKey(key))
      throw new ConfigError(`--api-key ${JSON.stringify(v)}: expected Name=number with a number from 0 to 32767`);
    keys[m[1]!] = key;
  }
  return keys;
}

/**
 * The configuration's `runtimeImport` as seen from `out`: a relative specifier (`../src/codegen/v1.js`)
 * is relative to the configured output folder, so another `--out` gets the same target.
 */
function rebaseRuntimeImport(config: GenerateConfig, base: string, out: string): string | undefined {
  const spec = config.runtimeImport;
  if (spec === undefined || !(spec.startsWith("./") || spec.startsWith("../"))) return spec;
  const target = path.resolve(base, config.out ?? "generated", spec);
  const rebased = path.relative(path.resolve(base, out), target).split(path.sep).join("/");
  return rebased.startsWith(".") ? rebased : `./${rebased}`;
}

/**
 * The settings `generate` runs with: the caller's values over the configuration file's over the
 * defaults. The configuration's `apiKeys` and `internalRecords` apply only to its own schema set:
 * with `--schemas` or `--kafka` they are left out (`--api-key` still applies). The defaults are
 * `schemas`, `generated` and {@link DEFAULT_RUNTIME_IMPORT}.
 * @throws ConfigError for a missing explicit configuration file, a bad file or a bad override.
 */
export async function resolveSettings(input: SettingsInput): Promise<GenerateSettings> {
  const { cwd } = input;
  let config: GenerateConfig = {};
  let base = cwd;
  let configFile: string | undefined;
  if (input.config !== undefined) {
    configFile = path.resolve(cwd, input.config);
    if (!existsSync(configFile)) throw new ConfigError(`${input.config}: no such configuration file`);
    config = await readConfig(configFile, input.config);
    base = path.dirname(configFile);
  } else if (existsSync(path.join(cwd, CONFIG_FILE))) {
    configFile = path.join(cwd, CONFIG_FILE);
    config = await readConfig(configFile, CONFIG_FILE);
  }
  const fromCaller = (p: string): string => path.relative(base, path.resolve(cwd, p)) || ".";
  if (input.runtimeImport !== undefined && input.runtimeImport.trim() === "") {
    throw new ConfigError(`--runtime-import needs a module specifier, e.g. ${DEFAULT_RUNTIME_IMPORT}`);
  }
  // The configuration's apiKeys and internalRecords name messages of its own schema set: another
  // set (`--schemas`, `--kafka`) does not get them (it may well not define those messages).
  const ownSchemas = input.schemas === undefined && input.replacesSchemas !== true;
  const out = input.out !== undefined ? fromCaller(input.out) : (config.out ?? "generated");
  return {
    base,
    schemas: input.schemas?.map(fromCaller) ?? config.schemas ?? ["schemas"],
    out,
    runtimeImport: input.runtimeImport ?? rebaseRuntimeImport(config, base, out) ?? DEFAULT_RUNTIME_IMPORT,
    apiKeys: { ...(ownSchemas ? config.apiKeys : {}), ...parseApiKeyFlags(input.apiKeyFlags ?? []) },
    internalRecords: (ownSchemas ? config.internalRecords : undefined) ?? {},
    ...(configFile === undefined ? {} : { configFile }),
  };
}

/** Where Kafka's schemas came from instead of `schemas` (the CLI's `--kafka`, `--kafka-source`). */
export interface KafkaSchemaSource {
  readonly version?: string;
  /** A source archive or checkout, as given (relative to the caller's `cwd`). */
  readonly source?: string;
}

/**
 * The `kafka-wire generate …` command that regenerates what `input` generated, for generated
 * headers: the options the caller gave (not the configuration file's, which the command reads
 * again), paths relative to the folder to run it in, shell-quoted where needed. That folder is
 * the configuration file's when there is one, else the project folder (the nearest folder at or
 * above `cwd` with a package.json, where npm scripts run), else `cwd`; so the command, and with
 * it every generated file, is the same from whichever folder of the project it ran.
 * Cache folders and mirrors are not part of it: for a Kafka release only its version is.
 */
export function regenerateCommand(
  input: SettingsInput,
  settings: GenerateSettings,
  kafka: KafkaSchemaSource = {},
): string {
  const anchor = settings.configFile !== undefined ? settings.base : projectFolder(input.cwd);
  const rel = (p: string): string => path.relative(anchor, path.resolve(input.cwd, p)).split(path.sep).join("/") || ".";
  const args = ["kafka-wire", "generate"];
  if (settings.configFile !== undefined && path.basename(settings.configFile) !== CONFIG_FILE) {
    args.push("--config", path.basename(settings.configFile));
  }
  if (kafka.version !== undefined) args.push("--kafka", kafka.version);
  if (kafka.source !== undefined) args.push("--kafka-source", rel(kafka.source));
  // Run from a folder above `cwd` (no configuration file), the defaults need spelling out.
  const spell = settings.configFile === undefined && anchor !== path.resolve(input.cwd);
  const fromCwd = kafka.version === undefined && kafka.source === undefined;
  const schemas = input.schemas ?? (spell && fromCwd ? settings.schemas : undefined);
  const out = input.out ?? (spell ? settings.out : undefined);
  if (schemas !== undefined) args.push("--schemas", ...schemas.map(rel));
  if (out !== undefined) args.push("--out", rel(out));
  if (input.runtimeImport !== undefined) args.push("--runtime-import", input.runtimeImport);
  for (const [name, key] of Object.entries(parseApiKeyFlags(input.apiKeyFlags ?? []))) {
    args.push("--api-key", `${name}=${key}`);
  }
  return args.map(shellWord).join(" ");
}

/** The nearest folder at or above `cwd` holding a package.json, else `cwd`. */
function projectFolder(cwd: string): string {
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, "package.json"))) return dir;
    if (path.dirname(dir) === dir) return path.resolve(cwd);
  }
}

/** `word` as a POSIX shell reads it: bare when safe, else single-quoted. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
