#!/usr/bin/env node
/**
 * The `kafka-wire` command line: decode and encode message bodies, frames and record sets, list
 * the known messages, (re)generate codecs from Kafka JSON schemas and compare schemas.
 *
 * Each command lives in `commands/<name>.ts` and registers itself with `register<Name>(program)`;
 * this file builds the program, reports errors and runs it. The shared pieces: `context.ts` (the
 * streams of a run, CliError), `schema-set.ts` (which codecs), `text-io.ts` (hex, JSON, stdin).
 */

import { existsSync, readFileSync, realpathSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Command, CommanderError } from "commander";
import { bindContext, errorText, oneLine, type CliContext, type CliIO } from "./context.js";
import { registerDecode } from "./commands/decode.js";
import { registerDecodeFrame } from "./commands/decode-frame.js";
import { registerDiff } from "./commands/diff.js";
import { registerEncode } from "./commands/encode.js";
import { registerGenerate } from "./commands/generate.js";
import { registerInternalRecord } from "./commands/internal-record.js";
import { registerList } from "./commands/list.js";
import { registerRecords } from "./commands/records.js";
import { registerBroker } from "./commands/broker.js";
import { registerProxy } from "./commands/proxy.js";

export type { CliIO, TextInput, TextOutput } from "./context.js";
export { indentJson, parseHex, toHex } from "./text-io.js";
export { closestNames } from "./schema-set.js";

/** The commands, in the order `--help` lists them: one `register<Name>` per `commands/<name>.ts`. */
const COMMANDS: readonly ((program: Command) => void)[] = [
  registerDecode,
  registerEncode,
  registerDecodeFrame,
  registerList,
  registerRecords,
  registerInternalRecord,
  registerGenerate,
  registerDiff,
  registerBroker,
  registerProxy,
];

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
  const context: CliContext = { io, cwd: io.cwd ?? process.cwd(), exitCode: 0 };
  const program = new Command("kafka-wire");
  bindContext(program, context);
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
  for (const register of COMMANDS) register(program);

  try {
    await program.parseAsync(schemaPathsBound(argv, context.cwd), { from: "user" });
    return context.exitCode;
  } catch (error) {
    return reportError(io, error);
  }
}

/**
 * `argv` with each `--schemas a b …` written as `--schemas=a --schemas=b …`, so that options may
 * come before the arguments (`decode --schemas DIR MetadataRequest 12 <hex>`): commander's
 * variadic option would take every word after it, the message name included. The first word
 * after `--schemas` is always a path; the next ones are while they look like paths (an existing
 * file or folder, a name ending in `.json`, or one with a `/`), which a message name, a version
 * or hex never does. Words after `--` are left alone.
 */
export function schemaPathsBound(argv: readonly string[], cwd: string): string[] {
  const out: string[] = [];
  const looksLikePath = (word: string): boolean =>
    !word.startsWith("-") &&
    (word.endsWith(".json") || word.includes("/") || word.includes(path.sep) || existsSync(path.resolve(cwd, word)));
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === "--") {
      out.push(...argv.slice(i));
      break;
    }
    if (word !== "--schemas" || i + 1 >= argv.length || argv[i + 1]!.startsWith("-")) {
      out.push(word);
      continue;
    }
    out.push(`--schemas=${argv[++i]!}`);
    while (i + 1 < argv.length && looksLikePath(argv[i + 1]!)) out.push(`--schemas=${argv[++i]!}`);
  }
  return out;
}

function reportError(io: CliIO, error: unknown): number {
  if (error instanceof CommanderError) {
    // Commander has already printed its message (help, version or a usage error).
    return error.exitCode === 0 ? 0 : 1;
  }
  io.stderr.write(`error: ${errorText(error)}\n`);
  return 1;
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
