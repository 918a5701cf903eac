/**
 * What every command of the `kafka-wire` CLI shares: the streams it runs with (one {@link CliIO}
 * per {@link main} call, found from any command through {@link contextOf}), its error type and
 * the exit code a command sets.
 *
 * A command file registers its command with `register<Name>(program)`; its action finds the
 * streams with `contextOf(command)` (commander passes the command as the action's last
 * argument), so adding a command is one file and one line in cli.ts.
 */

import type { Command } from "commander";
import { KafkaWireError } from "../src/runtime/errors.js";

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

/** One run of the CLI: its streams and the exit code its command chose (0 unless set). */
export interface CliContext {
  readonly io: CliIO;
  /** The base of relative paths: `io.cwd`, else `process.cwd()`. */
  readonly cwd: string;
  exitCode: number;
}

/** A failure the CLI reports as `error: <message>` (one line) and exit code 1. */
export class CliError extends Error {
  override get name(): string {
    return "CliError";
  }
}

const contexts = new WeakMap<Command, CliContext>();

/** Ties `context` to the root `program` (called once by main()). */
export function bindContext(program: Command, context: CliContext): void {
  contexts.set(program, context);
}

/**
 * The run `command` belongs to (looked up from its root program).
 * @throws Error when the program was not started by main().
 */
export function contextOf(command: Command): CliContext {
  let root = command;
  while (root.parent !== null) root = root.parent;
  const context = contexts.get(root);
  if (context === undefined) throw new Error("kafka-wire: a command ran outside main()");
  return context;
}

/**
 * An error as one line: a codec error starts with its code (`INVALID_LENGTH: compact length …
 * at activeTasks (byte offset 17)`). The brand check behind `instanceof` works for errors from
 * any copy of the runtime (the shipped codecs, a schema set's codecs loaded from the cache).
 */
export function errorText(error: unknown): string {
  if (error instanceof KafkaWireError) return `${error.code}: ${oneLine(error.message)}`;
  return oneLine(error instanceof Error ? error.message : String(error));
}

/** `text` with its lines joined by single spaces. */
export function oneLine(text: string): string {
  return text
    .trim()
    .split(/\s*\n\s*/)
    .join(" ");
}

/** `n` with the singular or plural noun. */
export function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}
