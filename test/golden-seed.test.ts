/**
 * The four KIP-1071 messages against bytes and JSON written by Apache Kafka's own generated Java
 * classes (`../shared/golden/seed/`): every vector, both ways.
 */

import path from "node:path";
import { expect, it } from "vitest";
import { messages } from "../generated/index.js";
import type { MessageCodec } from "../src/runtime/index.js";
import { canonicalJson, fromHex, readGolden, toHex } from "./support/golden.js";
import { describeShared } from "./support/shared.js";

const SEED_MESSAGES = [
  "StreamsGroupHeartbeatRequest",
  "StreamsGroupHeartbeatResponse",
  "StreamsGroupDescribeResponse",
  "StreamsGroupMemberMetadataValue",
] as const;

describeShared("golden vectors of the seed messages", "golden/seed", (dir) => {
  let total = 0;
  for (const name of SEED_MESSAGES) {
    const codec = messages[name] as MessageCodec<unknown>;
    for (const vector of readGolden(path.join(dir, `${name}.json`))) {
      total++;
      it(`${name} v${vector.version} #${vector.index} (${vector.kind}): fromJson→encode equals Kafka's bytes`, () => {
        const message = codec.fromJson(vector.jsonText, vector.version);
        expect(toHex(codec.encode(message, vector.version))).toBe(vector.hex);
        expect(codec.size(message, vector.version)).toBe(vector.hex.length / 2);
      });
      it(`${name} v${vector.version} #${vector.index} (${vector.kind}): decode→toJson equals Kafka's JSON`, () => {
        const decoded = codec.decode(fromHex(vector.hex), vector.version);
        expect(canonicalJson(codec.toJson(decoded, vector.version))).toBe(canonicalJson(vector.jsonText));
      });
    }
  }
  it("has all 204 seed vectors", () => {
    expect(total).toBe(204);
  });
});

// The pages give no StreamsGroupDescribeRequest; the repository's (schemas/) has the wire form of
// Kafka's own, so Kafka's vectors for it are its golden vectors.
describeShared("golden vectors of StreamsGroupDescribeRequest (Kafka's)", "golden/kafka", (dir) => {
  const codec = messages.StreamsGroupDescribeRequest as MessageCodec<unknown>;
  const vectors = readGolden(path.join(dir, "StreamsGroupDescribeRequest.json"));
  it("has Kafka's vectors", () => {
    expect(vectors.length).toBeGreaterThan(0);
  });
  for (const vector of vectors) {
    it(`v${vector.version} #${vector.index} (${vector.kind}): both ways`, () => {
      const message = codec.fromJson(vector.jsonText, vector.version);
      expect(toHex(codec.encode(message, vector.version))).toBe(vector.hex);
      const decoded = codec.decode(fromHex(vector.hex), vector.version);
      expect(canonicalJson(codec.toJson(decoded, vector.version))).toBe(canonicalJson(vector.jsonText));
    });
  }
});
