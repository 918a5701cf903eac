/**
 * Schemas that are valid but unusual, and generator behaviours around the output folder: the
 * generated code must compile under `tsc --strict` and work; hand-written files are never replaced.
 */

import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generate } from "../../generator/generate.js";
import type { MessageCodec } from "../../src/runtime/index.js";
import { REPO_ROOT } from "../support/shared.js";
import { typecheck } from "../support/typecheck.js";

/** A message whose struct field exists in no valid version, odd text, odd names and a NaN default. */
const EDGE = `{
  "type": "data",
  "name": "EdgeMessage",
  "validVersions": "0-3",
  "flexibleVersions": "1+",
  "fields": [
    { "name": "Id", "type": "int32", "versions": "0+", "about": "ends a comment: */ and matches topics/*/partitions" },
    { "name": "Later", "type": "LaterStruct", "versions": "7+", "about": "only in versions this message does not have",
      "fields": [ { "name": "X", "type": "int32", "versions": "7+" } ] },
    { "name": "Gone", "type": "string", "versions": "12+", "nullableVersions": "12+", "default": "null" },
    { "name": "ToString", "type": "string", "versions": "2+", "about": "named like an Object.prototype member" },
    { "name": "Ratio", "type": "float64", "versions": "1+", "taggedVersions": "1+", "tag": 0, "default": "NaN" }
  ]
}
`;

describe("unusual but valid schemas", () => {
  let dir: string;
  let codec: MessageCodec<Record<string, unknown>>;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "kafka-wire-edge-"));
    await mkdir(path.join(dir, "schemas"));
    await writeFile(path.join(dir, "schemas", "EdgeMessage.json"), EDGE);
    const runtime = path
      .relative(path.join(dir, "out"), path.join(REPO_ROOT, "src/codegen/v1.js"))
      .split(path.sep)
      .join("/");
    await generate({ schemas: ["schemas"], out: "out", runtimeImport: runtime, cwd: dir });
    codec = (await import(pathToFileURL(path.join(dir, "out", "EdgeMessage.ts")).href)).EdgeMessage;
  }, 60_000);

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("compiles under tsc --strict", async () => {
    expect(await typecheck(dir, "out")).toBe("");
  }, 120_000);

  it("builds defaults for a struct that exists in no valid version, and round-trips every version", () => {
    const message = codec.create({ id: 7 });
    expect(message["later"]).toEqual({ x: 0 });
    expect(message["gone"]).toBeNull();
    for (let version = 0; version <= 3; version++) {
      const value = codec.create({ id: 7, toString: version >= 2 ? "s" : "" });
      expect(codec.decode(codec.encode(value, version), version)).toEqual(value);
      expect(codec.fromJson(codec.toJson(value, version), version)).toEqual(value);
    }
  });

  it("reads only own JSON properties: a missing ToString field is not Object.prototype.toString", () => {
    // v1 has no ToString (versions 2+): the JSON lacks it, and the default "" must come back.
    expect(codec.fromJson('{"id":1}', 1)["toString"]).toBe("");
  });

  it("treats a NaN default as NaN (a tagged field at NaN is omitted)", () => {
    // v1: Id 00000001 | tagged fields: none (Ratio is at its NaN default) = 00
    expect([...codec.encode(codec.create({ id: 1 }), 1)]).toEqual([0, 0, 0, 1, 0]);
  });

  it("keeps `*/` from the schema text out of the comments' ends", async () => {
    const text = await readFile(path.join(dir, "out", "EdgeMessage.ts"), "utf8");
    expect(text).toContain("ends a comment: *&#47; and matches topics/*&#47;partitions");
  });
});

describe("the output folder", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "kafka-wire-out-"));
    await mkdir(path.join(dir, "real"));
    await writeFile(path.join(dir, "real", "EdgeMessage.json"), EDGE);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("never replaces a file it did not generate", async () => {
    await mkdir(path.join(dir, "mine"));
    await writeFile(path.join(dir, "mine", "EdgeMessage.ts"), "export const mine = 1;\n");
    await expect(generate({ schemas: ["real"], out: "mine", cwd: dir })).rejects.toThrow(
      /refusing to overwrite mine\/EdgeMessage\.ts/,
    );
    expect(await readFile(path.join(dir, "mine", "EdgeMessage.ts"), "utf8")).toBe("export const mine = 1;\n");
  });

  it("follows symbolic links to schema files and folders", async () => {
    await mkdir(path.join(dir, "linked"));
    await symlink(path.join(dir, "real"), path.join(dir, "linked", "folder"));
    const result = await generate({ schemas: ["linked"], out: "out-links", cwd: dir });
    expect(result.messages.map((m) => m.name)).toEqual(["EdgeMessage"]);
  });

  it("writes the same files from any working folder", async () => {
    const a = await generate({ schemas: [path.join(dir, "real")], out: path.join(dir, "out-a"), cwd: dir });
    const b = await generate({ schemas: [path.join(dir, "real")], out: path.join(dir, "out-b"), cwd: tmpdir() });
    expect(a.files.length).toBe(b.files.length);
    const first = await readFile(path.join(dir, "out-a", "EdgeMessage.ts"), "utf8");
    expect(await readFile(path.join(dir, "out-b", "EdgeMessage.ts"), "utf8")).toBe(first);
    expect(first.split("\n")[0]).toContain("from real/EdgeMessage.json;");
  });
});
