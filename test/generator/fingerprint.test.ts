/**
 * Every generated file ends with a fingerprint line, so that `generate` and `--check` skip
 * prettier for files that are already what it would produce (see generator/generate.ts). The
 * shortcut must never hide a difference: a file edited by hand, or emitted differently, is
 * formatted and compared in full.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { formatTypeScript } from "../../generator/format-pool.js";
import { FINGERPRINT_MARK, generate } from "../../generator/generate.js";
import { REPO_ROOT } from "../support/shared.js";

const NAME = "StreamsGroupMemberMetadataValue";
let dir = "";

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "kw-fingerprint-"));
  await cp(path.join(REPO_ROOT, "schemas", `${NAME}.json`), path.join(dir, `${NAME}.json`));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const run = (check: boolean) => generate({ schemas: [`${NAME}.json`], out: "out", cwd: dir, check });
const statusOf = async (check: boolean): Promise<string | undefined> =>
  (await run(check)).files.find((f) => f.path === `out/${NAME}.ts`)?.status;

it("writes prettier's output followed by one fingerprint line", async () => {
  expect(await statusOf(false)).toBe("written");
  const text = await readFile(path.join(dir, "out", `${NAME}.ts`), "utf8");
  const at = text.lastIndexOf(FINGERPRINT_MARK);
  expect(at).toBeGreaterThan(0);
  expect(text.slice(at)).toMatch(/^\/\/ kafka-wire fingerprint [0-9a-f]{20}\.[0-9a-f]{20}\n$/);
  // The text above the line is formatted: formatting it again changes nothing.
  const formatted = text.slice(0, at);
  expect(await formatTypeScript(formatted)).toBe(formatted);
  expect(await statusOf(true)).toBe("unchanged");
});

it("reports a hand-edited file as stale even though its fingerprint line is intact", async () => {
  const file = path.join(dir, "out", `${NAME}.ts`);
  const text = await readFile(file, "utf8");
  await writeFile(file, text.replace("size += 4;", "size += 5;"));
  expect(await statusOf(true)).toBe("stale");
  expect(await statusOf(false)).toBe("written");
  expect(await readFile(file, "utf8")).toBe(text);
});

it("formats again when the emitted text changes (a changed schema)", async () => {
  const schema = path.join(dir, `${NAME}.json`);
  const text = await readFile(schema, "utf8");
  await writeFile(schema, text.replace('"about": "The (optional) rack id."', '"about": "The (optional) rack ID."'));
  expect(await statusOf(true)).toBe("stale");
  expect(await statusOf(false)).toBe("written");
  expect(await readFile(path.join(dir, "out", `${NAME}.ts`), "utf8")).toContain("The (optional) rack ID.");
});
