/** Finding schema files (Node built-ins only, so the CLI's codec cache can hash them cheaply). */

import { readdir, stat } from "node:fs/promises";
import path from "node:path";
import { SchemaError } from "./errors.js";

/** Every `*.json` file at or below `entry` (a file or a folder), skipping node_modules and dot-folders. */
export async function findSchemaFiles(entry: string): Promise<string[]> {
  const info = await stat(entry).catch(() => null);
  if (info === null) throw new SchemaError({ file: entry, line: 1, column: 1, reason: "no such file or folder" });
  if (info.isFile()) return [entry];
  const found: string[] = [];
  for (const dirent of await readdir(entry, { withFileTypes: true })) {
    const full = path.join(entry, dirent.name);
    // Follow symbolic links (a schema folder assembled from links must not come out empty).
    const kind = dirent.isSymbolicLink() ? await stat(full).catch(() => null) : dirent;
    if (kind === null) continue;
    if (kind.isDirectory()) {
      if (dirent.name !== "node_modules" && !dirent.name.startsWith(".")) found.push(...(await findSchemaFiles(full)));
    } else if (kind.isFile() && dirent.name.endsWith(".json")) {
      found.push(full);
    }
  }
  return found;
}
