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
import type { DecodeOptions, MessageCodec } from "../src/runtime/index.js";
import { KafkaWireError } from "../src/runtime/errors.js";
import { HEADER_VERSION_EXCEPTIONS, type ApiCodecs, type Protocol } from "../src/runtime/framing.js";
import type { findErrorCodes } from "../src/error-codes.js";
import type { CodecSet as LoadedCodecs } from "./codecs.js";
import { CONFIG_FILE, DEFAULT_RUNTIME_IMPORT } from "../generator/config.js";
import { editDistance } from "../generator/edit-distance.js";
import { Versions } from "../generator/versions.js";
import { registerRecordCommands } from "./records.js";
import { registerBroker } from "./commands/broker.js";

/** The codecs a command works on, and whether they are the shipped ones. */
type CodecSet = LoadedCodecs & { readonly shipped: boolean };

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

/** The package root module's codecs (the shipped ones), loaded lazily. */
let shippedPromise: Promise<CodecSet> | undefined;

/**
 * Loads the library's root module (`src/index.ts`, which needs `generated/`) once; the CLI
 * package's build bundles it in a chunk of its own, loaded only by the commands that need codecs.
 * @throws CliError when the generated codecs cannot be loaded.
 */
function loadShipped(): Promise<CodecSet> {
  shippedPromise ??= import("../src/index.js").then(
    (mod): CodecSet => {
      // What the shipped schema set has beyond its codecs (src/index.ts re-exports generated/).
      const extra = mod as unknown as {
        internalTopics?: CodecSet["internalTopics"];
        controlDecoder?: CodecSet["controlDecoder"];
      };
      return {
        messages: mod.messages,
        shipped: true,
        ...(extra.internalTopics === undefined ? {} : { internalTopics: extra.internalTopics }),
        ...(extra.controlDecoder === undefined ? {} : { controlDecoder: extra.controlDecoder }),
      };
    },
    (error: unknown) => {
      shippedPromise = undefined;
      const detail = error instanceof Error ? error.message.split("\n")[0] : String(error);
      throw new CliError(`cannot load the generated codecs (${detail}); run \`npm run generate\` first`);
    },
  );
  return shippedPromise;
}

/** The options that choose a schema set instead of the shipped codecs. */
interface SchemaSetFlags {
  readonly schemas?: readonly string[];
  readonly kafka?: string;
  readonly kafkaSource?: string;
  readonly kafkaMirror?: string;
  readonly cacheDir?: string;
}

/**
 * The codecs a command works on: a schema set's (`--schemas`, `--kafka`, `--kafka-source`;
 * generated once into the cache, see codecs.ts), else the shipped ones.
 * @throws CliError for conflicting options, a Kafka release that cannot be had, or an unusable
 *   cache; CliError for a schema that does not load.
 */
async function loadCodecs(io: CliIO, flags: SchemaSetFlags): Promise<CodecSet> {
  if (flags.kafka === undefined && flags.kafkaMirror !== undefined)
    throw new CliError("--kafka-mirror needs --kafka <version>");
  const fromKafka = flags.kafka !== undefined || flags.kafkaSource !== undefined;
  if (!fromKafka && flags.schemas === undefined) {
    if (flags.cacheDir !== undefined) throw new CliError("--cache-dir needs --schemas, --kafka or --kafka-source");
    return loadShipped();
  }
  if (fromKafka && flags.schemas !== undefined) {
    throw new CliError("--schemas cannot be combined with --kafka or --kafka-source");
  }
  const { loadSchemaSet } = await import("./codecs.js");
  const { SchemaError } = await import("../generator/errors.js");
  const { KafkaReleaseError } = await import("../generator/kafka-release.js");
  try {
    const loaded = await loadSchemaSet({
      cwd: io.cwd ?? process.cwd(),
      ...flags,
      onStatus: (line) => void io.stderr.write(`${line}\n`),
    });
    return { ...loaded.codecs, shipped: false };
  } catch (error) {
    if (error instanceof SchemaError) throw new CliError(oneLine(error.message));
    if (error instanceof KafkaReleaseError) throw new CliError(error.message);
    throw error;
  }
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

/** A stream that can tell when its buffer has drained (`process.stdout`). */
interface Drainable {
  once(event: "drain", listener: () => void): unknown;
}

/** Writes `text`, waiting for the stream to drain when it says its buffer is full (memory stays bounded). */
async function writeOut(out: TextOutput, text: string): Promise<void> {
  const stream: TextOutput & Partial<Drainable> = out;
  if (stream.write(text) === false && stream.once !== undefined) {
    await new Promise<void>((resolve) => void stream.once!("drain", resolve));
  }
}

/**
 * `--jsonl`: calls `each` with every non-blank line of `text` (an argument) or of stdin, read as
 * it arrives (one line in memory at a time), with its 1-based line number. A failure stops
 * there, reported with the line number.
 * @throws CliError `line N: <reason>` (a codec error's reason starts with its code).
 */
async function eachLine(
  io: CliIO,
  text: string | undefined,
  what: string,
  each: (line: string, n: number) => Promise<void>,
): Promise<void> {
  let n = 0;
  const handle = async (line: string): Promise<void> => {
    n++;
    if (line.trim() === "") return;
    try {
      await each(line, n);
    } catch (error) {
      throw new CliError(`line ${n}: ${errorText(error)}`);
    }
  };
  if (text !== undefined) {
    for (const line of text.split("\n")) await handle(line.replace(/\r$/, ""));
    return;
  }
  if (io.stdin.isTTY === true) {
    throw new CliError(`no ${what} given: pass it as an argument or pipe it on stdin, one per line`);
  }
  const decoder = new TextDecoder("utf-8");
  let pending = "";
  for await (const chunk of io.stdin) {
    pending += typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true });
    let start = 0;
    for (let nl = pending.indexOf("\n"); nl >= 0; nl = pending.indexOf("\n", start)) {
      await handle(pending.slice(start, nl).replace(/\r$/, ""));
      start = nl + 1;
    }
    pending = pending.slice(start);
  }
  pending += decoder.decode();
  if (pending !== "") await handle(pending);
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
function findCodec(codecs: CodecSet, name: string): MessageCodec<unknown> {
  const registry = codecs.messages;
  const codec = Object.hasOwn(registry, name) ? registry[name] : undefined;
  if (codec !== undefined) return codec;
  const suggestions = closestNames(name, Object.keys(registry));
  const hint =
    suggestions.length > 0
      ? `did you mean ${suggestions.join(", ")}?`
      : codecs.shipped
        ? "the shipped codecs are the four KIP-1071 messages (`kafka-wire list`); for others pass --schemas <folder> or --kafka <version>"
        : "run `kafka-wire list` with the same options to see the known messages";
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

interface DecodeFlags extends SchemaSetFlags {
  readonly allowTrailingBytes?: boolean;
  readonly strictUtf8?: boolean;
  readonly strictBool?: boolean;
  readonly explainErrors?: boolean;
  readonly jsonl?: boolean;
}

function decodeOptions(flags: DecodeFlags): DecodeOptions {
  return {
    allowTrailingBytes: flags.allowTrailingBytes === true,
    strictUtf8: flags.strictUtf8 === true,
    strictBool: flags.strictBool === true,
  };
}

async function decodeCommand(
  io: CliIO,
  name: string,
  versionText: string,
  hex: string | undefined,
  flags: DecodeFlags,
): Promise<void> {
  const codecs = await loadCodecs(io, flags);
  const codec = findCodec(codecs, name);
  const version = parseVersion(versionText);
  const options = decodeOptions(flags);
  const decodeOne = async (text: string, line?: number): Promise<void> => {
    const message = codec.decode(parseHex(text), version, options);
    const json = codec.toJson(message, version);
    await writeOut(io.stdout, (flags.jsonl === true ? json : indentJson(json)) + "\n");
    if (flags.explainErrors === true) await explainErrors(io, message, line);
  };
  if (flags.jsonl === true) await eachLine(io, hex, "hex", decodeOne);
  else await decodeOne(hex ?? (await readAll(io.stdin, "hex")));
}

/**
 * `--explain-errors`: names every non-zero error code on stderr, one line each, so that
 * stdout stays exactly Kafka's JSON form (pipeable to jq, comparable with Kafka's output).
 * With `--jsonl`, each line says which input line it is about.
 */
async function explainErrors(io: CliIO, message: unknown, line?: number): Promise<void> {
  const { findErrorCodes } = await import("../src/error-codes.js");
  const fields: ReturnType<typeof findErrorCodes> = findErrorCodes(message);
  const where = line === undefined ? "" : `line ${line}: `;
  const errors = fields.filter((f) => f.code !== 0);
  for (const f of errors) {
    const kind = f.known ? (f.retriable ? "retriable" : "not retriable") : "unknown code";
    io.stderr.write(`${where}${f.path}: ${f.code} ${f.name} (${kind}): ${f.description}\n`);
  }
  if (errors.length === 0) {
    io.stderr.write(
      `${where}no errors (${plural(fields.length, "error code field", "error code fields")}, all 0 NONE)\n`,
    );
  }
}

async function encodeCommand(
  io: CliIO,
  name: string,
  versionText: string,
  json: string | undefined,
  flags: SchemaSetFlags & { readonly jsonl?: boolean },
): Promise<void> {
  const codecs = await loadCodecs(io, flags);
  const codec = findCodec(codecs, name);
  const version = parseVersion(versionText);
  const encodeOne = async (text: string): Promise<void> => {
    const message = codec.fromJson(text, version);
    await writeOut(io.stdout, toHex(codec.encode(message, version)) + "\n");
  };
  if (flags.jsonl === true) {
    await eachLine(io, json, "JSON", encodeOne);
    return;
  }
  const text = json ?? (await readAll(io.stdin, "JSON"));
  if (text.trim() === "") throw new CliError("no JSON given: the input is empty");
  await encodeOne(text);
}

interface FrameFlags extends DecodeFlags {
  readonly apiKey?: string;
  readonly apiVersion?: string;
}

/**
 * `decode-frame`: a whole size-prefixed frame. A request frame names its api key and version in
 * its header; a response frame does not, so `--api-key` and `--api-version` say what it answers.
 */
async function decodeFrameCommand(io: CliIO, hex: string | undefined, flags: FrameFlags): Promise<void> {
  if ((flags.apiKey === undefined) !== (flags.apiVersion === undefined)) {
    throw new CliError(
      `${flags.apiKey === undefined ? "--api-version needs --api-key" : "--api-key needs --api-version"}: a response frame is decoded with both (a request frame with neither)`,
    );
  }
  const codecs = await loadCodecs(io, flags);
  const protocol = codecs.protocol;
  const requestHeader = codecs.messages["RequestHeader"];
  const responseHeader = codecs.messages["ResponseHeader"];
  if (protocol === undefined || requestHeader === undefined || responseHeader === undefined) {
    throw new CliError(
      `decode-frame needs the RequestHeader and ResponseHeader schemas, which ${codecs.shipped ? "the shipped codecs do not have" : "this schema set does not have"}: pass --kafka <version>, or --schemas with Kafka's clients/src/main/resources/common/message folder`,
    );
  }
  const response =
    flags.apiKey === undefined
      ? undefined
      : { api: findApi(protocol, flags.apiKey), version: parseVersion(flags.apiVersion!) };
  const options = decodeOptions(flags);
  const decodeOne = async (text: string, line?: number): Promise<void> => {
    const frame = parseHex(text);
    let json: string;
    let body: unknown;
    if (response === undefined) {
      const d = protocol.decodeRequestFrame(frame, options);
      const v = d.header.requestApiVersion;
      json =
        `{"api":${JSON.stringify(d.api.name)},"apiKey":${d.api.apiKey},"apiVersion":${v},` +
        `"headerVersion":${d.headerVersion},"header":${requestHeader.toJson(d.header, d.headerVersion)},` +
        `"body":${d.api.request.toJson(d.body, v)}}`;
      body = d.body;
    } else {
      const { api, version } = response;
      const d =
        api.apiKey === HEADER_VERSION_EXCEPTIONS.apiVersionsApiKey
          ? protocol.decodeApiVersionsResponseFrame(frame, version, options)
          : protocol.decodeResponseFrame(frame, api.apiKey, version, options);
      json =
        `{"api":${JSON.stringify(api.name)},"apiKey":${api.apiKey},"apiVersion":${d.apiVersion},` +
        `"headerVersion":${d.headerVersion},"header":${responseHeader.toJson(d.header, d.headerVersion)},` +
        `"body":${api.response.toJson(d.body, d.apiVersion)}}`;
      body = d.body;
    }
    await writeOut(io.stdout, (flags.jsonl === true ? json : indentJson(json)) + "\n");
    if (flags.explainErrors === true) await explainErrors(io, body, line);
  };
  if (flags.jsonl === true) await eachLine(io, hex, "hex", decodeOne);
  else await decodeOne(hex ?? (await readAll(io.stdin, "hex")));
}

/** The API `text` names: an api key number, or an API name (`Metadata`, `MetadataRequest`, any case). */
function findApi(protocol: Protocol, text: string): ApiCodecs {
  const trimmed = text.trim();
  if (/^\d{1,5}$/.test(trimmed)) {
    const api = protocol.apis.get(Number(trimmed));
    if (api === undefined) throw new CliError(`no API with api key ${trimmed} in this schema set`);
    return api;
  }
  const wanted = trimmed.replace(/(Request|Response)$/i, "").toLowerCase();
  for (const api of protocol.apis.values()) if (api.name.toLowerCase() === wanted) return api;
  const names = [...protocol.apis.values()].map((a) => a.name);
  const suggestions = closestNames(trimmed, names);
  const hint = suggestions.length > 0 ? `; did you mean ${suggestions.join(", ")}?` : "";
  throw new CliError(`--api-key ${JSON.stringify(text)}: not an api key or API name${hint}`);
}

async function listCommand(io: CliIO, flags: SchemaSetFlags): Promise<void> {
  const codecs = await loadCodecs(io, flags);
  const rows = [["NAME", "TYPE", "API KEY", "VERSIONS", "FLEXIBLE"]];
  for (const name of Object.keys(codecs.messages).sort()) {
    const c = codecs.messages[name]!;
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
  for (const r of rows) await writeOut(io.stdout, line(r).trimEnd() + "\n");
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
  const { resolveSettings, regenerateCommand, ConfigError } = await import("../generator/config.js");
  const { generate } = await import("../generator/generate.js");
  const { SchemaError } = await import("../generator/errors.js");
  // --kafka / --kafka-source replace the schema set (the configuration's `schemas` included).
  const kafka = await kafkaSchemas(io, cwd, flags);
  let result: Awaited<ReturnType<typeof generate>>;
  let base: string;
  let command: string;
  try {
    const input = {
      cwd,
      config: flags.config,
      schemas: flags.schemas,
      out: flags.out,
      runtimeImport: flags.runtimeImport,
      apiKeyFlags: flags.apiKey,
      replacesSchemas: kafka !== undefined,
    };
    const settings = await resolveSettings(input);
    base = settings.base;
    command = regenerateCommand(input, settings, {
      ...(flags.kafka === undefined ? {} : { version: flags.kafka }),
      ...(flags.kafkaSource === undefined ? {} : { source: flags.kafkaSource }),
    });
    result = await generate({
      ...settings,
      ...(kafka === undefined
        ? {}
        : { schemas: kafka.folders.map((f) => f.path), schemaLabels: kafka.folders.map((f) => f.label) }),
      check: flags.check === true,
      cwd: settings.base,
      command,
    });
  } catch (error) {
    if (error instanceof ConfigError) throw new CliError(error.message);
    if (error instanceof SchemaError) throw new CliError(error.message.split("\n").join(" "));
    throw error;
  } finally {
    await kafka?.cleanup();
  }
  for (const w of result.warnings) io.stderr.write(`warning: ${w.file}:${w.line}:${w.column}: ${w.message}\n`);
  const show = (p: string): string => path.relative(cwd, path.resolve(base, p)).split(path.sep).join("/");
  const stray = result.files.filter((f) => f.status === "stray");
  const generated = result.files.length - stray.length;
  if (flags.check === true) {
    // One line per file that generate would write or remove: `stale`, `missing` or `leftover`.
    const outdated = result.files.filter(
      (f) => f.status === "stale" || f.status === "missing" || f.status === "leftover",
    );
    for (const f of outdated) io.stdout.write(`${f.status} ${show(f.path)}\n`);
    for (const f of stray) io.stdout.write(`stray ${show(f.path)}\n`);
    const problems: string[] = [];
    if (outdated.length > 0) {
      const counts = (["stale", "missing", "leftover"] as const)
        .map((status) => ({ status, n: outdated.filter((f) => f.status === status).length }))
        .filter(({ n }) => n > 0)
        .map(({ status, n }) => `${n} ${status}`);
      const what = `${plural(outdated.length, "generated file is", "generated files are")} out of date (${counts.join(", ")})`;
      problems.push(`${what}; run \`${command}\``);
    }
    if (stray.length > 0) {
      problems.push(
        `${plural(stray.length, "file", "files")} in the output folder ${stray.length === 1 ? "was" : "were"} not generated by kafka-wire (move or delete ${stray.length === 1 ? "it" : "them"})`,
      );
    }
    if (problems.length > 0) throw new CliError(problems.join("; "));
    io.stdout.write(`${plural(generated, "generated file is", "generated files are")} up to date\n`);
    return 0;
  }
  for (const f of stray) {
    io.stderr.write(`warning: ${show(f.path)} is in the output folder but was not generated by kafka-wire\n`);
  }
  let changed = 0;
  for (const f of result.files) {
    if (f.status === "written" || f.status === "removed") {
      changed++;
      io.stdout.write(`${f.status === "written" ? "wrote" : "removed"} ${show(f.path)}\n`);
    }
  }
  if (changed === 0) io.stdout.write(`${plural(generated, "generated file is", "generated files are")} up to date\n`);
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
    if (error instanceof SchemaError) throw new CliError(oneLine(error.message));
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
 *   KafkaWireError's starts with its code: `error: INVALID_LENGTH: … at activeTasks (byte offset 17)`;
 *   a SchemaError's is `error: file:line:column: reason`, which terminals and editors still link).
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
      outputError: (s, write) => {
        // A variadic option (--schemas a b …) takes the words after it, arguments included.
        const hint =
          /missing required argument/.test(s) && argv.includes("--schemas")
            ? " (--schemas takes every word after it: give it after the arguments)"
            : "";
        write(oneLine(s) + hint + "\n");
      },
    });

  /** The options that pick the codecs: a schema set, or (without them) the shipped codecs. */
  const withSchemaSet = (command: Command): Command =>
    command
      .option("--schemas <path...>", "use the codecs of these schema files or folders instead of the shipped ones")
      .option("--kafka <version>", "use the codecs of a Kafka release's schemas (downloaded and cached), e.g. 4.1.0")
      .option("--kafka-source <path>", "use the codecs of a local Kafka source archive (.tgz) or checkout")
      .option("--kafka-mirror <url>", "base URL holding <version>/kafka-<version>-src.tgz (default Apache's archive)")
      .option("--cache-dir <dir>", "cache folder (default $KAFKA_WIRE_CACHE_DIR, else ~/.cache/kafka-wire)");
  const decodeFlags = (command: Command): Command =>
    command
      .option("--allow-trailing-bytes", "accept bytes after the end of the message")
      .option("--strict-utf8", "reject strings that are not valid UTF-8 instead of replacing bad sequences with U+FFFD")
      .option("--strict-bool", "reject bool bytes other than 00 and 01")
      .option("--explain-errors", "also name each non-zero errorCode (name, retriable, meaning) on stderr");
  const SCHEMA_SET_HELP =
    "\nCodecs: the shipped ones (the four KIP-1071 messages), or with --schemas/--kafka/--kafka-source\n" +
    "those of any schema set, generated on first use and kept in the cache folder. Give options\n" +
    "after the arguments (--schemas takes every word after it).";

  decodeFlags(
    withSchemaSet(
      program
        .command("decode")
        .description("decode a message body from hex and print it as Kafka JSON (JsonConverter form)")
        .argument("<message>", "message name, e.g. StreamsGroupHeartbeatResponse (see `kafka-wire list`)")
        .argument("<version>", "message version")
        .argument("[hex]", "the body bytes as hex (whitespace and a 0x prefix allowed); read from stdin when omitted"),
    ),
  )
    .option("--jsonl", "one hex body per input line; print one compact JSON object per line")
    .addHelpText(
      "after",
      `\nExamples:\n  kafka-wire decode StreamsGroupHeartbeatResponse 0 0000000000000100000000...00\n` +
        `  kafka-wire decode MetadataRequest 12 0000000000 --kafka 4.1.0\n` +
        `  cat bodies.hex | kafka-wire decode MetadataResponse 12 --jsonl --schemas kafka/clients/src/main/resources/common/message\n` +
        SCHEMA_SET_HELP,
    )
    .action(async (name: string, version: string, hex: string | undefined, flags: DecodeFlags) => {
      await decodeCommand(io, name, version, hex, flags);
    });

  withSchemaSet(
    program
      .command("encode")
      .description("encode Kafka JSON (JsonConverter form) and print the message body as lowercase hex")
      .argument("<message>", "message name (see `kafka-wire list`)")
      .argument("<version>", "message version")
      .argument("[json]", "the message as JSON; read from stdin when omitted"),
  )
    .option("--jsonl", "one JSON object per input line; print one hex body per line")
    .addHelpText(
      "after",
      "\nExample:\n  echo '{\"throttleTimeMs\":0, ...}' | kafka-wire encode StreamsGroupHeartbeatResponse 0\n" +
        SCHEMA_SET_HELP,
    )
    .action(async (name: string, version: string, json: string | undefined, flags: SchemaSetFlags) => {
      await encodeCommand(io, name, version, json, flags);
    });

  decodeFlags(
    withSchemaSet(
      program
        .command("decode-frame")
        .description(
          "decode a size-prefixed request or response frame (size, header, body) and print header and body as Kafka JSON",
        )
        .argument("[hex]", "the whole frame as hex, size prefix included; read from stdin when omitted"),
    ),
  )
    .option("--api-key <key>", "a response frame: the api key (number or API name, e.g. Metadata) it answers")
    .option("--api-version <version>", "a response frame: the api version of the request it answers")
    .option("--jsonl", "one hex frame per input line; print one compact JSON object per line")
    .addHelpText(
      "after",
      "\nA request frame names its api key and version in its header; a response frame does not, so give\n" +
        "--api-key and --api-version for one. Needs a schema set with the RequestHeader and\n" +
        "ResponseHeader schemas (Kafka's clients/src/main/resources/common/message has them).\n\n" +
        "Examples:\n  kafka-wire decode-frame 0000000e00030004000000010002686900000000 --kafka 4.1.0\n" +
        "  kafka-wire decode-frame <hex> --api-key Metadata --api-version 12 --kafka 4.1.0\n" +
        SCHEMA_SET_HELP,
    )
    .action(async (hex: string | undefined, flags: FrameFlags) => {
      await decodeFrameCommand(io, hex, flags);
    });

  withSchemaSet(program.command("list").description("list the known messages with their type, api key and versions"))
    .addHelpText("after", SCHEMA_SET_HELP)
    .action(async (flags: SchemaSetFlags) => {
      await listCommand(io, flags);
    });

  registerRecordCommands(program, {
    stdout: io.stdout,
    stderr: io.stderr,
    cwd: io.cwd ?? process.cwd(),
    parseHex,
    withSchemaSet,
    loadCodecs: (flags) => loadCodecs(io, flags),
    readStdin: async (what) => {
      if (io.stdin.isTTY === true) throw new CliError(`no ${what} given: pass it as an argument or pipe it on stdin`);
      const chunks: Uint8Array[] = [];
      for await (const chunk of io.stdin) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
      return new Uint8Array(Buffer.concat(chunks));
    },
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

  registerBroker(program);

  try {
    await program.parseAsync([...argv], { from: "user" });
    return exitCode;
  } catch (error) {
    return reportError(io, error);
  }
}

function reportError(io: CliIO, error: unknown): number {
  if (error instanceof CommanderError) {
    // Commander has already printed its message (help, version or a usage error).
    return error.exitCode === 0 ? 0 : 1;
  }
  io.stderr.write(`error: ${errorText(error)}\n`);
  return 1;
}

/**
 * An error as one line: a codec error starts with its code (`INVALID_LENGTH: compact length …
 * at activeTasks (byte offset 17)`). The brand check behind `instanceof` works for errors from
 * any copy of the runtime (the shipped codecs, a schema set's codecs loaded from the cache).
 */
function errorText(error: unknown): string {
  if (error instanceof KafkaWireError) return `${error.code}: ${oneLine(error.message)}`;
  return oneLine(error instanceof Error ? error.message : String(error));
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
