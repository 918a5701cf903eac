/**
 * Every message × version of Apache Kafka's schemas against bytes and JSON written by Kafka's own
 * generated Java classes (`../shared/golden/kafka/`, 2262 vectors), both ways.
 */

import { readdirSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { MessageCodec } from "../src/runtime/index.js";
import { corpusCodec } from "./support/corpus.js";
import { canonicalJson, fromHex, readGolden, toHex } from "./support/golden.js";
import { describeShared } from "./support/shared.js";

describeShared("golden vectors of Apache Kafka's schemas", "golden/kafka", (dir) => {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort();
  let total = 0;
  for (const file of files) {
    const name = file.replace(/\.json$/, "");
    const vectors = readGolden(path.join(dir, file));
    total += vectors.length;
    describe(name, () => {
      let codec: MessageCodec<unknown>;
      beforeAll(async () => {
        codec = await corpusCodec(name);
      });
      it(`${vectors.length} vectors both ways`, () => {
        for (const vector of vectors) {
          const label = `${name} v${vector.version} #${vector.index} (${vector.kind})`;
          const message = codec.fromJson(vector.jsonText, vector.version);
          expect(toHex(codec.encode(message, vector.version)), `${label}: fromJson→encode`).toBe(vector.hex);
          const decoded = codec.decode(fromHex(vector.hex), vector.version);
          expect(canonicalJson(codec.toJson(decoded, vector.version)), `${label}: decode→toJson`).toBe(
            canonicalJson(vector.jsonText),
          );
        }
      });
    });
  }
  it("has all 2262 vectors of the 280 schemas", () => {
    expect(files.length).toBe(280);
    expect(total).toBe(2262);
  });
});
