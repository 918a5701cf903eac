/**
 * `kafka-wire diff <old> <new>`: every change between two versions of a message schema, or
 * between two schema sets (folders) message by message.
 */

import { stat } from "node:fs/promises";
import path from "node:path";
import type { Command } from "commander";
import { CliError, contextOf, oneLine, type CliIO } from "../context.js";

async function diffCommand(io: CliIO, oldPath: string, newPath: string, flags: { json?: boolean }): Promise<number> {
  const cwd = io.cwd ?? process.cwd();
  const { diffSchemaFiles, formatDiffReport, diffExitCode, SchemaMismatchError } =
    await import("../../generator/diff/diff.js");
  const { SchemaError } = await import("../../generator/schema/errors.js");
  let report: ReturnType<typeof diffSchemaFiles>;
  // Paths as the user typed them make the report's file names (resolved only for another cwd).
  const locate = (p: string): string => (path.isAbsolute(p) || cwd === process.cwd() ? p : path.resolve(cwd, p));
  const folders = await Promise.all(
    [oldPath, newPath].map((p) =>
      stat(locate(p)).then(
        (s) => s.isDirectory(),
        () => false,
      ),
    ),
  );
  if (folders[0] !== folders[1])
    throw new CliError("diff compares two schema files or two schema folders, not one of each");
  try {
    if (folders[0] === true) {
      const { diffSchemaSets, formatSchemaSetDiff, schemaSetDiffExitCode } =
        await import("../../generator/diff/diff.js");
      const { loadSchemas } = await import("../../generator/generate.js");
      const diff = diffSchemaSets(await loadSchemas([locate(oldPath)]), await loadSchemas([locate(newPath)]));
      io.stdout.write(
        flags.json === true ? `${JSON.stringify({ format: 1, ...diff }, null, 2)}\n` : formatSchemaSetDiff(diff),
      );
      return schemaSetDiffExitCode(diff);
    }
    report = diffSchemaFiles(locate(oldPath), locate(newPath));
  } catch (error) {
    if (error instanceof SchemaError) throw new CliError(oneLine(error.message));
    if (error instanceof SchemaMismatchError) throw new CliError(error.message);
    throw error;
  }
  io.stdout.write(flags.json === true ? `${JSON.stringify(report, null, 2)}\n` : formatDiffReport(report));
  return diffExitCode(report);
}

/** Registers `diff` on the program. */
export function registerDiff(program: Command): void {
  program
    .command("diff")
    .description(
      "compare two versions of a message schema (or two schema folders, message by message): every change per version with its wire effect, header versions included; exit 1 when anything is breaking",
    )
    .argument("<old>", "the older schema file or folder")
    .argument("<new>", "the newer schema file or folder")
    .option("--json", "print the report as JSON (stable shape, `format: 1`)")
    .addHelpText(
      "after",
      "\nExamples:\n  kafka-wire diff old/StreamsGroupHeartbeatRequest.json schemas/StreamsGroupHeartbeatRequest.json\n" +
        "  kafka-wire diff kafka-4.0/message kafka-4.1/message",
    )
    .action(async (oldPath: string, newPath: string, flags: { json?: boolean }, command: Command) => {
      const context = contextOf(command);
      context.exitCode = await diffCommand(context.io, oldPath, newPath, flags);
    });
}
