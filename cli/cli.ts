#!/usr/bin/env node
/**
 * The `kafka-wire` command line: decode and encode message bodies, list the known messages and
 * (re)generate codecs from Kafka JSON schemas.
 *
 * Heavy or possibly missing modules are loaded lazily, so each command only pays for what it uses:
 * - the codecs come from the library's root module (`src/index.ts`, which re-exports `generated/`;
 *   the CLI package bundles it), and only for `decode`, `encode` and `list` — `generate` works
 *   while `generated/` is missing or stale;
 * - the generator (prettier) is loaded only by `generate`.
 */

import { readFileSync, realpathSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Command, CommanderError } from "commander";
import type { DecodeOptions, KafkaWireError, MessageCodec } from "../src/runtime/index.js";
import type { findErrorCodes } from "../src/error-codes.js";
import { CONFIG_FILE, DEFAULT_RUNTIME_IMPORT } from "../generator/config.js";
import { editDistance } from "../generator/edit-distance.js";
import { Versions } from "../generator/versions.js";

/** Where the CLI writes text (a `process.stdout`-like stream). */
export interface TextOutput {
  write(text: string): unknown;
}

/** Where the CLI reads input that is not given as an argument (a `process.stdin`-like stream). */
export type TextInput = AsyncIterable<string | Uint8Array> & { readonly isTTY?: boolean };

/** The streams (and working folder) {@link main} runs with. */
export interface CliIO {
  readonly stdout: TextOutput;
  readonly stderr: TextOutput;
  readonly stdin: TextInput;
  /** Base for relative paths and for finding `kafka-wire.config.json` (default `process.cwd()`). */
  readonly cwd?: string;
}

/** A failure the CLI reports as `error: <message>` (one line) and exit code 1. */
class CliError extends Error {
  override get name(): string {
    return "CliError";
  }
}

/** What `generate` prints its own one-line message for (no `error:` prefix), e.g. a SchemaError. */
class PlainCliError extends CliError {}

/** The package root module, loaded lazily: the codecs and the runtime's error classes. */
interface PackageApi {
  readonly messages: Readonly<Record<string, MessageCodec<unknown>>>;
  readonly KafkaWireError: abstract new (...args: never[]) => KafkaWireError;
  readonly findErrorCodes: typeof findErrorCodes;
}

let apiPromise: Promise<PackageApi> | undefined;

/**
 * Loads the library's root module (`src/index.ts`, which needs `generated/`) once; the CLI
 * package's build bundles it in a chunk of its own, loaded only by the commands that need codecs.
 * @throws CliError when the generated codecs cannot be loaded.
 */
function loadApi(): Promise<PackageApi> {
  apiPromise ??= import("../src/index.js").then(
    (mod): PackageApi => ({
      messages: mod.messages,
      KafkaWireError: mod.KafkaWireError,
      findErrorCodes: mod.findErrorCodes,
    }),
    (error: unknown) => {
      apiPromise = undefined;
      const detail = error instanceof Error ? error.message.split("\n")[0] : String(error);
      throw new CliError(`cannot load the generated codecs (${detail}); run \`npm run generate\` first`);
    },
  );
  return apiPromise;
}

/** The CLI package's version from its package.json (`../package.json` from both `cli/` and `cli/dist/`). */
function packageVersion(): string {
  try {
    const text = readFileSync(new URL("../package.json", import.meta.url), "utf8");
    const pkg: unknown = JSON.parse(text);
    if (typeof pkg === "object" && pkg !== null && "version" in pkg && typeof pkg.version === "string") {
      return pkg.version;
    }
  } catch {
    // fall through
  }
  return "0.0.0";
}

// ---------------------------------------------------------------------------------------------
// Input and output helpers

/** Reads all of `input` as UTF-8 text. @throws CliError when `input` is a terminal (nothing piped). */
async function readAll(input: TextInput, what: string): Promise<string> {
  if (input.isTTY === true) {
    throw new CliError(`no ${what} given: pass it as an argument or pipe it on stdin`);
  }
  const decoder = new TextDecoder("utf-8");
  let text = "";
  for await (const chunk of input) {
    text += typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true });
  }
  return text + decoder.decode();
}

/**
 * Parses hex text into bytes: whitespace anywhere and one leading `0x`/`0X` are ignored,
 * upper- and lower-case digits are accepted.
 * @throws CliError naming the first bad character (1-based position in `text`) or an odd digit count.
 */
export function parseHex(text: string): Uint8Array {
  const start = text.search(/\S/);
  let i = start < 0 ? text.length : start;
  if (text[i] === "0" && (text[i + 1] === "x" || text[i + 1] === "X")) i += 2;
  const digits: number[] = [];
  for (; i < text.length; i++) {
    const c = text[i]!;
    if (/\s/.test(c)) continue;
    const d = Number.parseInt(c, 16);
    if (Number.isNaN(d)) {
      const shown = JSON.stringify(c);
      throw new CliError(`invalid hex: unexpected character ${shown} at position ${i + 1}`);
    }
    digits.push(d);
  }
  if (digits.length % 2 !== 0) {
    throw new CliError(`invalid hex: odd number of hex digits (${digits.length}); every byte needs two`);
  }
  const bytes = new Uint8Array(digits.length / 2);
  for (let b = 0; b < bytes.length; b++) bytes[b] = digits[2 * b]! * 16 + digits[2 * b + 1]!;
  return bytes;
}

/** Lowercase hex of `bytes`, two digits per byte, no separators. */
export function toHex(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += b.toString(16).padStart(2, "0");
  return s;
}

/**
 * Re-indents compact JSON text (`JSON.stringify(v, null, indent)` layout) without parsing values:
 * strings and numbers are copied character for character, so int64 digits and Kafka's escapes
 * (`\u001F`) stay exactly as the codec wrote them. Assumes `text` is valid JSON.
 */
export function indentJson(text: string, indent = 2): string {
  let out = "";
  let depth = 0;
  const newline = (): string => "\n" + " ".repeat(depth * indent);
  const nextNonSpace = (from: number): number => {
    let j = from;
    while (j < text.length && /\s/.test(text[j]!)) j++;
    return j;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    switch (c) {
      case '"': {
        let j = i + 1;
        while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
        out += text.slice(i, j + 1);
        i = j;
        break;
      }
      case "{":
      case "[": {
        const close = c === "{" ? "}" : "]";
        const j = nextNonSpace(i + 1);
        if (text[j] === close) {
          out += c + close;
          i = j;
        } else {
          depth++;
          out += c + newline();
        }
        break;
      }
      case "}":
      case "]":
        depth--;
        out += newline() + c;
        break;
      case ",":
        out += "," + newline();
        break;
      case ":":
        out += ": ";
        break;
      case " ":
      case "\t":
      case "\n":
      case "\r":
        break;
      default:
        out += c;
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Message lookup

/**
 * Up to three known names closest to `name`: case-insensitive matches, names containing it (or
 * contained in it), then names within an edit distance of about a third of its length; only
 * the best of these (and those one step behind) are returned.
 */
export function closestNames(name: string, known: readonly string[]): string[] {
  const lower = name.toLowerCase();
  const scored: { name: string; score: number }[] = [];
  const limit = Math.max(2, Math.floor(name.length / 3));
  for (const k of known) {
    const kl = k.toLowerCase();
    let score: number;
    if (kl === lower) score = -2;
    else if (lower.length >= 3 && (kl.includes(lower) || lower.includes(kl))) score = -1;
    else score = editDistance(name, k);
    if (score <= limit) scored.push({ name: k, score });
  }
  scored.sort((x, y) => x.score - y.score || x.name.localeCompare(y.name));
  const best = scored[0]?.score ?? 0;
  return scored
    .filter((s) => s.score <= best + 1)
    .slice(0, 3)
    .map((s) => s.name);
}

/** The codec named `name`. @throws CliError suggesting the closest known names. */
function findCodec(registry: PackageApi["messages"], name: string): MessageCodec<unknown> {
  const codec = Object.hasOwn(registry, name) ? registry[name] : undefined;
  if (codec !== undefined) return codec;
  const suggestions = closestNames(name, Object.keys(registry));
  const hint =
    suggestions.length > 0
      ? `did you mean ${suggestions.join(", ")}?`
      : "run `kafka-wire list` to see the known messages";
  throw new CliError(`unknown message ${JSON.stringify(name)}; ${hint}`);
}

/** A version argument: a decimal integer (range checks are the codec's). @throws CliError */
function parseVersion(text: string): number {
  if (!/^-?\d{1,6}$/.test(text.trim())) {
    throw new CliError(`version must be an integer, got ${JSON.stringify(text)}`);
  }
  return Number(text.trim());
}

// ---------------------------------------------------------------------------------------------
// Commands

interface DecodeFlags {
  readonly allowTrailingBytes?: boolean;
  readonly strictUtf8?: boolean;
  readonly strictBool?: boolean;
  readonly explainErrors?: boolean;
}

async function decodeCommand(
  io: CliIO,
  name: string,
  versionText: string,
  hex: string | undefined,
  flags: DecodeFlags,
): Promise<void> {
  const api = await loadApi();
  const codec = findCodec(api.messages, name);
  const version = parseVersion(versionText);
  const bytes = parseHex(hex ?? (await readAll(io.stdin, "hex")));
  const options: DecodeOptions = {
    allowTrailingBytes: flags.allowTrailingBytes === true,
    strictUtf8: flags.strictUtf8 === true,
    strictBool: flags.strictBool === true,
  };
  const message = codec.decode(bytes, version, options);
  io.stdout.write(indentJson(codec.toJson(message, version)) + "\n");
  if (flags.explainErrors === true) explainErrors(io, api.findErrorCodes(message));
}

/**
 * `decode --explain-errors`: names every non-zero error code on stderr, one line each, so that
 * stdout stays exactly Kafka's JSON form (pipeable to jq, comparable with Kafka's output).
 */
function explainErrors(io: CliIO, fields: ReturnType<typeof findErrorCodes>): void {
  const errors = fields.filter((f) => f.code !== 0);
  for (const f of errors) {
    const kind = f.known ? (f.retriable ? "retriable" : "not retriable") : "unknown code";
    io.stderr.write(`${f.path}: ${f.code} ${f.name} (${kind}): ${f.description}\n`);
  }
  if (errors.length === 0) {
    io.stderr.write(`no errors (${plural(fields.length, "error code field", "error code fields")}, all 0 NONE)\n`);
  }
}

async function encodeCommand(io: CliIO, name: string, versionText: string, json: string | undefined): Promise<void> {
  const api = await loadApi();
  const codec = findCodec(api.messages, name);
  const version = parseVersion(versionText);
  const text = json ?? (await readAll(io.stdin, "JSON"));
  if (text.trim() === "") throw new CliError("no JSON given: the input is empty");
  const message = codec.fromJson(text, version);
  io.stdout.write(toHex(codec.encode(message, version)) + "\n");
}

async function listCommand(io: CliIO): Promise<void> {
  const api = await loadApi();
  const rows = [["NAME", "TYPE", "API KEY", "VERSIONS", "FLEXIBLE"]];
  for (const name of Object.keys(api.messages).sort()) {
    const c = api.messages[name]!;
    rows.push([
      c.name,
      c.type,
      c.apiKey === null ? "-" : String(c.apiKey),
      Versions.from(c.validVersions).toString(),
      Versions.from(c.flexibleVersions).toString(),
    ]);
  }
  const widths = rows[0]!.map((_, col) => Math.max(...rows.map((r) => r[col]!.length)));
  const line = (r: readonly string[]): string => r.map((cell, col) => cell.padEnd(widths[col]!)).join("  ");
  for (const r of rows) io.stdout.write(line(r).trimEnd() + "\n");
}

interface GenerateFlags {
  readonly schemas?: readonly string[];
  readonly out?: string;
  readonly runtimeImport?: string;
  readonly apiKey?: readonly string[];
  readonly config?: string;
  readonly check?: boolean;
  readonly kafka?: string;
  readonly kafkaSource?: string;
  readonly kafkaMirror?: string;
  readonly cacheDir?: string;
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

async function generateCommand(io: CliIO, flags: GenerateFlags): Promise<number> {
  const cwd = io.cwd ?? process.cwd();
  const { resolveSettings, ConfigError } = await import("../generator/config.js");
  const { generate } = await import("../generator/generate.js");
  const { SchemaError } = await import("../generator/errors.js");
  // --kafka / --kafka-source replace the schema set (the configuration's `schemas` included).
  const kafka = await kafkaSchemas(io, cwd, flags);
  let result: Awaited<ReturnType<typeof generate>>;
  let base: string;
  try {
    const settings = await resolveSettings({
      cwd,
      config: flags.config,
      schemas: flags.schemas,
      out: flags.out,
      runtimeImport: flags.runtimeImport,
      apiKeyFlags: flags.apiKey,
    });
    base = settings.base;
    result = await generate({
      ...settings,
      ...(kafka === undefined
        ? {}
        : { schemas: kafka.folders.map((f) => f.path), schemaLabels: kafka.folders.map((f) => f.label) }),
      check: flags.check === true,
      cwd: settings.base,
    });
  } catch (error) {
    if (error instanceof ConfigError) throw new CliError(error.message);
    if (error instanceof SchemaError) throw new PlainCliError(error.message.split("\n").join(" "));
    throw error;
  } finally {
    await kafka?.cleanup();
  }
  for (const w of result.warnings) io.stderr.write(`warning: ${w.file}:${w.line}:${w.column}: ${w.message}\n`);
  const show = (p: string): string => path.relative(cwd, path.resolve(base, p)).split(path.sep).join("/");
  if (flags.check === true) {
    const stale = result.files.filter((f) => f.status === "stale");
    for (const f of stale) io.stdout.write(`stale ${show(f.path)}\n`);
    if (stale.length > 0) {
      const what = stale.length === 1 ? "1 generated file is stale" : `${stale.length} generated files are stale`;
      throw new CliError(`${what}; run npm run generate`);
    }
    io.stdout.write(`${plural(result.files.length, "generated file is", "generated files are")} up to date\n`);
    return 0;
  }
  let changed = 0;
  for (const f of result.files) {
    if (f.status === "written" || f.status === "removed") {
      changed++;
      io.stdout.write(`${f.status === "written" ? "wrote" : "removed"} ${show(f.path)}\n`);
    }
  }
  if (changed === 0)
    io.stdout.write(`${plural(result.files.length, "generated file is", "generated files are")} up to date\n`);
  return 0;
}

/** Kafka's schema folders for `--kafka`/`--kafka-source` (see generator/kafka-release.ts), else undefined. */
async function kafkaSchemas(io: CliIO, cwd: string, flags: GenerateFlags) {
  if (flags.kafka === undefined && (flags.kafkaMirror !== undefined || flags.cacheDir !== undefined)) {
    throw new CliError(`${flags.kafkaMirror !== undefined ? "--kafka-mirror" : "--cache-dir"} needs --kafka <version>`);
  }
  if (flags.kafka === undefined && flags.kafkaSource === undefined) return undefined;
  if (flags.schemas !== undefined) throw new CliError("--schemas cannot be combined with --kafka or --kafka-source");
  const { resolveKafkaSchemas } = await import("../generator/kafka-release.js");
  return resolveKafkaSchemas({
    ...(flags.kafka === undefined ? {} : { version: flags.kafka }),
    ...(flags.kafkaSource === undefined ? {} : { source: flags.kafkaSource }),
    ...(flags.kafkaMirror === undefined ? {} : { mirror: flags.kafkaMirror }),
    ...(flags.cacheDir === undefined ? {} : { cacheDir: flags.cacheDir }),
    cwd,
    onStatus: (line) => void io.stderr.write(`${line}\n`),
  });
}

async function diffCommand(io: CliIO, oldPath: string, newPath: string, flags: { json?: boolean }): Promise<number> {
  const cwd = io.cwd ?? process.cwd();
  const { diffSchemaFiles, formatDiffReport, diffExitCode, SchemaMismatchError } = await import("../generator/diff.js");
  const { SchemaError } = await import("../generator/errors.js");
  let report: ReturnType<typeof diffSchemaFiles>;
  try {
    // Paths as the user typed them make the report's file names (resolved only for another cwd).
    const locate = (p: string): string => (path.isAbsolute(p) || cwd === process.cwd() ? p : path.resolve(cwd, p));
    report = diffSchemaFiles(locate(oldPath), locate(newPath));
  } catch (error) {
    if (error instanceof SchemaError) throw new PlainCliError(oneLine(error.message));
    if (error instanceof SchemaMismatchError) throw new CliError(error.message);
    throw error;
  }
  io.stdout.write(flags.json === true ? `${JSON.stringify(report, null, 2)}\n` : formatDiffReport(report));
  return diffExitCode(report);
}

// ---------------------------------------------------------------------------------------------
// Entry point

/**
 * Runs the `kafka-wire` command in-process.
 *
 * @param argv the arguments after the program name (`process.argv.slice(2)`), e.g.
 *   `["decode", "StreamsGroupHeartbeatResponse", "0", "00…"]`.
 * @param io where to read stdin and write output; `io.cwd` replaces `process.cwd()`.
 * @returns the exit code: 0 on success (and for `--help`/`--version`), 1 on any error. Errors are
 *   never thrown: they are written to `io.stderr` as one line `error: <message>` (a
 *   KafkaWireError adds a second line `code: <CODE>`; a SchemaError is printed as its own
 *   `file:line:column: reason` line).
 */
export async function main(argv: readonly string[], io: CliIO): Promise<number> {
  let exitCode = 0;
  const program = new Command("kafka-wire");
  program
    .description(
      "Encode and decode Apache Kafka protocol messages; generate TypeScript codecs from Kafka's JSON schemas.",
    )
    .version(packageVersion(), "-V, --version", "print the kafka-wire version")
    .exitOverride()
    .showSuggestionAfterError(true)
    .configureOutput({
      writeOut: (s) => void io.stdout.write(s),
      writeErr: (s) => void io.stderr.write(s),
      outputError: (s, write) => write(oneLine(s) + "\n"),
    });

  program
    .command("decode")
    .description("decode a message body from hex and print it as Kafka JSON (JsonConverter form)")
    .argument("<message>", "message name, e.g. StreamsGroupHeartbeatResponse (see `kafka-wire list`)")
    .argument("<version>", "message version")
    .argument("[hex]", "the body bytes as hex (whitespace and a 0x prefix allowed); read from stdin when omitted")
    .option("--allow-trailing-bytes", "accept bytes after the end of the message")
    .option("--strict-utf8", "reject strings that are not valid UTF-8 instead of replacing bad sequences with U+FFFD")
    .option("--strict-bool", "reject bool bytes other than 00 and 01")
    .option("--explain-errors", "also name each non-zero errorCode (name, retriable, meaning) on stderr")
    .addHelpText("after", "\nExample:\n  kafka-wire decode StreamsGroupHeartbeatResponse 0 0000000000000100000000...00")
    .action(async (name: string, version: string, hex: string | undefined, flags: DecodeFlags) => {
      await decodeCommand(io, name, version, hex, flags);
    });

  program
    .command("encode")
    .description("encode Kafka JSON (JsonConverter form) and print the message body as lowercase hex")
    .argument("<message>", "message name (see `kafka-wire list`)")
    .argument("<version>", "message version")
    .argument("[json]", "the message as JSON; read from stdin when omitted")
    .addHelpText(
      "after",
      "\nExample:\n  echo '{\"throttleTimeMs\":0, ...}' | kafka-wire encode StreamsGroupHeartbeatResponse 0",
    )
    .action(async (name: string, version: string, json: string | undefined) => {
      await encodeCommand(io, name, version, json);
    });

  program
    .command("list")
    .description("list the known messages with their type, api key and versions")
    .action(async () => {
      await listCommand(io);
    });

  program
    .command("generate")
    .description(
      `generate TypeScript codecs from Kafka JSON schemas (defaults from ./${CONFIG_FILE} when present, else --schemas schemas --out generated)`,
    )
    .option("--schemas <path...>", "schema files or folders (searched recursively for *.json)")
    .option("--out <dir>", "output folder for <Message>.ts and index.ts")
    .option(
      "--runtime-import <specifier>",
      `module the generated code imports the runtime's codegen interface from (default ${DEFAULT_RUNTIME_IMPORT})`,
    )
    .option(
      "--api-key <Name=number...>",
      "api keys for schemas whose apiKey is TBD, e.g. StreamsGroupHeartbeatRequest=88",
    )
    .option("--config <file>", `configuration file (default ./${CONFIG_FILE}); its paths are relative to its folder`)
    .option("--check", "write nothing; list stale files and exit 1 when any generated file is out of date")
    .option("--kafka <version>", "generate Kafka's own schemas: download (and cache) that source release, e.g. 4.1.0")
    .option("--kafka-mirror <url>", "base URL holding <version>/kafka-<version>-src.tgz (default Apache's archive)")
    .option(
      "--kafka-source <path>",
      "generate Kafka's schemas from a local source archive (.tgz) or checkout (offline)",
    )
    .option("--cache-dir <dir>", "cache folder for --kafka (default $KAFKA_WIRE_CACHE_DIR, else ~/.cache/kafka-wire)")
    .action(async (flags: GenerateFlags) => {
      exitCode = await generateCommand(io, flags);
    });

  program
    .command("diff")
    .description(
      "compare two versions of a message schema: every change per version with its wire effect; exit 1 when anything is breaking",
    )
    .argument("<old>", "the older schema file")
    .argument("<new>", "the newer schema file")
    .option("--json", "print the report as JSON (stable shape, `format: 1`)")
    .addHelpText(
      "after",
      "\nExample:\n  kafka-wire diff old/StreamsGroupHeartbeatRequest.json schemas/StreamsGroupHeartbeatRequest.json",
    )
    .action(async (oldPath: string, newPath: string, flags: { json?: boolean }) => {
      exitCode = await diffCommand(io, oldPath, newPath, flags);
    });

  try {
    await program.parseAsync([...argv], { from: "user" });
    return exitCode;
  } catch (error) {
    return reportError(io, error);
  }
}

async function reportError(io: CliIO, error: unknown): Promise<number> {
  if (error instanceof CommanderError) {
    // Commander has already printed its message (help, version or a usage error).
    return error.exitCode === 0 ? 0 : 1;
  }
  if (error instanceof PlainCliError) {
    io.stderr.write(error.message + "\n");
    return 1;
  }
  if (error instanceof CliError) {
    io.stderr.write(`error: ${error.message}\n`);
    return 1;
  }
  // Only look at KafkaWireError when the codecs are loaded (they threw it, so they are).
  const api = apiPromise === undefined ? undefined : await apiPromise.catch(() => undefined);
  if (api !== undefined && error instanceof api.KafkaWireError) {
    io.stderr.write(`error: ${oneLine(error.message)}\ncode: ${error.code}\n`);
    return 1;
  }
  const message = error instanceof Error ? error.message : String(error);
  io.stderr.write(`error: ${oneLine(message)}\n`);
  return 1;
}

/** `text` with its lines joined by single spaces. */
function oneLine(text: string): string {
  return text
    .trim()
    .split(/\s*\n\s*/)
    .join(" ");
}

/** True when this module is the script node was started with (`tsx cli/cli.ts`, `node cli/dist/cli.js`, the npm bin link). */
function isEntryPoint(): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

/** Runs the command with the process's arguments and streams, setting `process.exitCode`. */
export function run(): void {
  // A reader that goes away early (`kafka-wire list | head -1`) is not an error.
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw error;
  });
  void main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin }).then(
    (code) => {
      process.exitCode = code;
    },
  );
}

if (isEntryPoint()) run();
