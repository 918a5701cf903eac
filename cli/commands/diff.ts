/** `kafka-wire diff <old> <new>`: every change between two versions of a message schema. */

import path from "node:path";
import type { Command } from "commander";
import { CliError, contextOf, oneLine, type CliIO } from "../context.js";

async function diffCommand(io: CliIO, oldPath: string, newPath: string, flags: { json?: boolean }): Promise<number> {
  const cwd = io.cwd ?? process.cwd();
  const { diffSchemaFiles, formatDiffReport, diffExitCode, SchemaMismatchError } =
    await import("../../generator/diff/diff.js");
  const { SchemaError } = await import("../../generator/schema/errors.js");
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

/** Registers `diff` on the program. */
export function registerDiff(program: Command): void {
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
    .action(async (oldPath: string, newPath: string, flags: { json?: boolean }, command: Command) => {
      const context = contextOf(command);
      context.exitCode = await diffCommand(context.io, oldPath, newPath, flags);
    });
}
