/** What `decode` and `decode-frame` share: the decoding options and `--explain-errors`. */

import type { Command } from "commander";
import type { DecodeOptions } from "../src/runtime/index.js";
import { plural, type CliIO } from "./context.js";
import type { SchemaSetFlags } from "./schema-set.js";

export interface DecodeFlags extends SchemaSetFlags {
  readonly allowTrailingBytes?: boolean;
  readonly strictUtf8?: boolean;
  readonly strictBool?: boolean;
  readonly explainErrors?: boolean;
  readonly jsonl?: boolean;
}

/** Adds the decoding options (leniencies and `--explain-errors`) to a command. */
export function withDecodeFlags(command: Command): Command {
  return command
    .option("--allow-trailing-bytes", "accept bytes after the end of the message")
    .option("--strict-utf8", "reject strings that are not valid UTF-8 instead of replacing bad sequences with U+FFFD")
    .option("--strict-bool", "reject bool bytes other than 00 and 01")
    .option("--explain-errors", "also name each non-zero errorCode (name, retriable, meaning) on stderr");
}

export function decodeOptions(flags: DecodeFlags): DecodeOptions {
  return {
    allowTrailingBytes: flags.allowTrailingBytes === true,
    strictUtf8: flags.strictUtf8 === true,
    strictBool: flags.strictBool === true,
  };
}

/**
 * `--explain-errors`: names every non-zero error code on stderr, one line each, so that
 * stdout stays exactly Kafka's JSON form (pipeable to jq, comparable with Kafka's output).
 * With `--jsonl`, each line says which input line it is about.
 */
export async function explainErrors(io: CliIO, message: unknown, line?: number): Promise<void> {
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
