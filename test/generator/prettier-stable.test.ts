/**
 * The emitter writes prettier's layout itself (generator/emit/code.ts): `generate` runs no
 * formatter, so prettier, with the project's options, must leave every generated file exactly as
 * it is, for the committed generated/ and for all of Kafka's schemas. `--check` compares the
 * emitted text with the file on disk, so a file edited by hand is stale.
 */

import { cp, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { format, resolveConfig, type Options } from "prettier";
import { afterAll, beforeAll, expect, it } from "vitest";
import { generate, renderCodecs } from "../../generator/generate.js";
import { describeShared, REPO_ROOT } from "../support/shared.js";

/** The project's prettier options for a TypeScript file (.prettierrc.json). */
async function prettierOptions(): Promise<Options> {
  const options = await resolveConfig(path.join(REPO_ROOT, "generator", "generate.ts"));
  expect(options?.printWidth).toBe(120);
  return { ...options, parser: "typescript" };
}

/** The names of the files prettier would change. */
async function unstable(files: Iterable<readonly [name: string, text: string]>): Promise<string[]> {
  const options = await prettierOptions();
  const changed: string[] = [];
  for (const [name, text] of files) if ((await format(text, options)) !== text) changed.push(name);
  return changed;
}

it("prettier leaves every committed generated file as it is", async () => {
  const dir = path.join(REPO_ROOT, "generated");
  const names = (await readdir(dir)).filter((n) => n.endsWith(".ts"));
  expect(names.length).toBeGreaterThan(5);
  const files = await Promise.all(names.map(async (n) => [n, await readFile(path.join(dir, n), "utf8")] as const));
  expect(await unstable(files)).toEqual([]);
});

describeShared("Kafka's schemas", "kafka-schemas", (schemas) => {
  it("prettier leaves every file generated from them as it is", async () => {
    const { files } = await renderCodecs({ schemas: [schemas] });
    expect(files.size).toBe(283);
    expect(await unstable(files)).toEqual([]);
  }, 120_000);
});

/**
 * A request named `Long…Request` with `length` characters and api key `apiKey`, with a struct
 * array and a tagged array: a long name pushes the codec's declaration, the field table's and
 * the index's lines past the print width.
 */
function longNamedSchema(length: number, apiKey: number): { name: string; json: string } {
  const name = `Long${apiKey}`.padEnd(length - "Request".length, "x") + "Request";
  const json = {
    apiKey,
    type: "request",
    listeners: ["broker"],
    name,
    validVersions: "0-3",
    flexibleVersions: "2+",
    fields: [
      { name: "GroupId", type: "string", versions: "0+", about: "The group." },
      {
        name: "Items",
        type: `[]Item${apiKey}`,
        versions: "1+",
        nullableVersions: "3+",
        about: "The items.",
        fields: [
          { name: "Id", type: "int32", versions: "1+", about: "The item." },
          { name: "Names", type: "[]string", versions: "1+", about: "Its names." },
        ],
      },
      { name: "Marks", type: "[]int32", versions: "3+", taggedVersions: "3+", tag: 0, about: "Tagged." },
    ],
  };
  return { name, json: JSON.stringify(json) };
}

it("prettier leaves files generated from schemas with long names and 3-digit api keys as they are", async () => {
  const schemas = await mkdtemp(path.join(os.tmpdir(), "kw-long-"));
  try {
    // 16 characters and a 3-digit key: the codec's call no longer hugs its object; 45: the
    // declaration's type arguments break; 82: the call's; 90: the field table's declaration.
    const cases: [number, number][] = [
      [16, 916],
      [16, 16],
      [45, 945],
      [82, 982],
      [90, 990],
    ];
    for (const [length, apiKey] of cases) {
      const { name, json } = longNamedSchema(length, apiKey);
      await writeFile(path.join(schemas, `${name}.json`), json);
    }
    const { files } = await renderCodecs({ schemas: [schemas] });
    expect(files.size).toBeGreaterThan(cases.length);
    expect(await unstable(files)).toEqual([]);
  } finally {
    await rm(schemas, { recursive: true, force: true });
  }
});

const NAME = "StreamsGroupMemberMetadataValue";
let dir = "";

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "kw-check-"));
  await cp(path.join(REPO_ROOT, "schemas", `${NAME}.json`), path.join(dir, `${NAME}.json`));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const statusOf = async (check: boolean): Promise<string | undefined> =>
  (await generate({ schemas: [`${NAME}.json`], out: "out", cwd: dir, check })).files.find(
    (f) => f.path === `out/${NAME}.ts`,
  )?.status;

it("--check reports a file edited by hand as stale, and generate writes it again", async () => {
  expect(await statusOf(false)).toBe("written");
  expect(await statusOf(true)).toBe("unchanged");
  const file = path.join(dir, "out", `${NAME}.ts`);
  const text = await readFile(file, "utf8");
  expect(text).toContain("size += 4;");
  await writeFile(file, text.replace("size += 4;", "size += 5;"));
  expect(await statusOf(true)).toBe("stale");
  expect(await statusOf(false)).toBe("written");
  expect(await readFile(file, "utf8")).toBe(text);
});
