/**
 * The emitter's layout (13f1ee7: a tagged field's count check joins its version
 * condition): the joined condition is written on one line whatever its length, so a tagged array
 * with a name of 29 characters in an array's struct passes the print width and prettier breaks
 * it. Before the join the same check fit up to names of about 32 characters; the emitter has no
 * general line breaking for long conditions, so longer names were already unstable.
 */

import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { format, resolveConfig } from "prettier";
import { expect, it } from "vitest";
import { renderCodecs } from "../../generator/generate.js";
import { REPO_ROOT } from "../support/shared.js";

it("prettier leaves a struct's tagged array with a 29-character name as the emitter wrote it", async () => {
  const schemas = await mkdtemp(path.join(os.tmpdir(), "kw-tagged-names-"));
  try {
    const json = {
      type: "data",
      name: "LongTaggedNamesMessage",
      validVersions: "0-3",
      flexibleVersions: "2+",
      fields: [
        {
          name: "Replicas",
          type: "[]Replica",
          versions: "0+",
          about: "The replicas.",
          fields: [
            { name: "Id", type: "int32", versions: "0+", about: "The replica." },
            // 29 characters.
            {
              name: "PreferredReadReplicaEndpoints",
              type: "[]int32",
              versions: "3+",
              taggedVersions: "3+",
              tag: 0,
              about: "Tagged.",
            },
          ],
        },
      ],
    };
    await writeFile(path.join(schemas, "LongTaggedNamesMessage.json"), JSON.stringify(json));
    const { files } = await renderCodecs({ schemas: [schemas] });
    const text = files.get("LongTaggedNamesMessage.ts")!;
    expect(text).toContain("v.preferredReadReplicaEndpoints.length === 0");
    const options = await resolveConfig(path.join(REPO_ROOT, "generator", "generate.ts"));
    expect(await format(text, { ...options, parser: "typescript" })).toBe(text);
  } finally {
    await rm(schemas, { recursive: true, force: true });
  }
});
