/**
 * decodeWithSpans against every golden vector of Apache Kafka's schemas (`../shared/golden/kafka/`,
 * written by Kafka's own classes): the interpreter, driven by the field table alone, decodes the
 * value the generated decoder decodes, and its spans tile the body (see support/spans.ts).
 */

import { readdirSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import type { MessageCodec } from "../../src/runtime/index.js";
import { decodeWithSpans } from "../../src/runtime/spans.js";
import type { MessageTable } from "../../src/runtime/table.js";
import { recordSpans } from "../../src/records/spans.js";
import { CORPUS_OUT } from "../support/corpus.js";
import { fromHex, readGolden } from "../support/golden.js";
import { describeShared } from "../support/shared.js";
import { spanProblems } from "../support/spans.js";

describeShared("decodeWithSpans on the golden vectors of Apache Kafka's schemas", "golden/kafka", (dir) => {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort();
  for (const file of files) {
    const name = file.replace(/\.json$/, "");
    describe(name, () => {
      it("decodes every vector as the generated decoder does, with spans that tile the body", async () => {
        const mod = (await import(pathToFileURL(path.join(CORPUS_OUT, `${name}.ts`)).href)) as Record<string, unknown>;
        const codec = mod[name] as MessageCodec<unknown>;
        const table = mod[`${name}$fields`] as MessageTable;
        expect(table.name).toBe(name);
        for (const vector of readGolden(path.join(dir, file))) {
          const label = `${name} v${vector.version} #${vector.index} (${vector.kind})`;
          const bytes = fromHex(vector.hex);
          const { value, spans } = decodeWithSpans(table, bytes, vector.version, { recordSpans });
          expect(value, label).toEqual(codec.decode(bytes, vector.version));
          expect(spanProblems(spans, bytes.length), label).toBe("");
        }
      });
    });
  }
});
