/** Hand-written TypeScript stays in prettier's form (`npm run format` fixes it). */

import { readFile } from "node:fs/promises";
import path from "node:path";
import { check, resolveConfig } from "prettier";
import { expect, it } from "vitest";
import { REPO_ROOT } from "./support/shared.js";

async function typescriptFiles(dir: string): Promise<string[]> {
  const { readdir } = await import("node:fs/promises");
  const out: string[] = [];
  for (const d of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, d.name);
    if (d.isDirectory()) {
      if (d.name !== "node_modules" && d.name !== "dist" && !d.name.startsWith(".") && d.name !== "fixtures")
        out.push(...(await typescriptFiles(full)));
    } else if (d.name.endsWith(".ts")) {
      out.push(full);
    }
  }
  return out;
}

it("src, generator, cli, scripts, test, bench, fuzz, compression, broker and examples are formatted with prettier", async () => {
  const files = (
    await Promise.all(
      // broker/src and broker/scripts: broker/kafka/ is generated (and ignored by git).
      [
        "src",
        "generator",
        "cli",
        "scripts",
        "test",
        "bench",
        "fuzz",
        "compression",
        "broker/src",
        "broker/scripts",
        "examples",
      ].map((d) => typescriptFiles(path.join(REPO_ROOT, d))),
    )
  ).flat();
  expect(files.length).toBeGreaterThan(20);
  const unformatted: string[] = [];
  for (const file of files) {
    const options = (await resolveConfig(file)) ?? {};
    if (!(await check(await readFile(file, "utf8"), { ...options, filepath: file }))) {
      unformatted.push(path.relative(REPO_ROOT, file));
    }
  }
  expect(unformatted, "run `npm run format`").toEqual([]);
});
