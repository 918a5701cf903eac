/**
 * generated/ is committed and must be exactly what the generator produces from schemas/ with
 * kafka-wire.config.json: a stale file fails here (run `npm run generate`).
 */

import { expect, it } from "vitest";
import { generate } from "../generator/generate.js";
import config from "../kafka-wire.config.json" with { type: "json" };
import { REPO_ROOT } from "./support/shared.js";

it("generated/ matches what the generator produces from schemas/", async () => {
  const result = await generate({ ...config, cwd: REPO_ROOT, check: true });
  const stale = result.files.filter((f) => f.status !== "unchanged").map((f) => f.path);
  expect(stale, "stale generated files: run `npm run generate`").toEqual([]);
  expect(result.files.map((f) => f.path)).toContain("generated/index.ts");
});
