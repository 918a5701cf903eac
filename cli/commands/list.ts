/** `kafka-wire list`: the known messages with their type, api key and versions. */

import type { Command } from "commander";
import { Versions } from "../../generator/schema/versions.js";
import { contextOf, type CliIO } from "../context.js";
import { loadCodecs, SCHEMA_SET_HELP, withSchemaSet, type SchemaSetFlags } from "../schema-set.js";
import { writeOut } from "../text-io.js";

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

/** Registers `list` on the program. */
export function registerList(program: Command): void {
  withSchemaSet(program.command("list").description("list the known messages with their type, api key and versions"))
    .addHelpText("after", SCHEMA_SET_HELP)
    .action(async (flags: SchemaSetFlags, command: Command) => {
      await listCommand(contextOf(command).io, flags);
    });
}
