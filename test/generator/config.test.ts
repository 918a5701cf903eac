/** The generator's settings: the configuration file's per-schema-set facts stay with its schema set. */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveSettings } from "../../generator/schema/config.js";

describe("resolveSettings", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "kafka-wire-config-"));
    await writeFile(
      path.join(dir, "kafka-wire.config.json"),
      JSON.stringify({
        schemas: ["schemas"],
        out: "generated",
        runtimeImport: "../src/codegen/v1.js",
        apiKeys: { Foo: 5 },
        internalRecords: { FooValue: { topic: "__consumer_offsets", recordType: 90, key: "FooKey" } },
      }),
    );
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("applies the configuration's apiKeys and internalRecords to its own schemas", async () => {
    const s = await resolveSettings({ cwd: dir });
    expect(s.schemas).toEqual(["schemas"]);
    expect(s.apiKeys).toEqual({ Foo: 5 });
    expect(Object.keys(s.internalRecords)).toEqual(["FooValue"]);
  });

  it("leaves them out for another schema set (--schemas, --kafka), keeping --api-key", async () => {
    for (const input of [{ schemas: ["/elsewhere/message"] }, { replacesSchemas: true }]) {
      const s = await resolveSettings({ cwd: dir, ...input, apiKeyFlags: ["Bar=7"] });
      expect(s.apiKeys).toEqual({ Bar: 7 });
      expect(s.internalRecords).toEqual({});
    }
  });

  it("keeps a relative runtimeImport pointing at the same module when --out moves the output", async () => {
    expect((await resolveSettings({ cwd: dir })).runtimeImport).toBe("../src/codegen/v1.js");
    expect((await resolveSettings({ cwd: dir, out: "examples/kafka" })).runtimeImport).toBe("../../src/codegen/v1.js");
    expect((await resolveSettings({ cwd: dir, out: "." })).runtimeImport).toBe("./src/codegen/v1.js");
    expect((await resolveSettings({ cwd: dir, out: "x", runtimeImport: "kafka-wire/codegen/v1" })).runtimeImport).toBe(
      "kafka-wire/codegen/v1",
    );
  });
});
