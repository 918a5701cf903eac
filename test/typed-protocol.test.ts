/**
 * The generated protocol.ts on Kafka's schemas (issue 11, item 2): api key constants, request
 * bodies as inits (omitted fields at their schema defaults, at any depth), decoded requests
 * narrowed by api key, and missing fields reported as missing. Its types are checked by tsc in
 * test/broker-example.test.ts; here its behaviour, with bytes worked out by hand.
 */

import path from "node:path";
import { pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { beforeAll, expect, it } from "vitest";
import { KafkaEncodeError, type MessageCodec, type Protocol } from "../src/runtime/index.js";
import { CORPUS_OUT, corpusCodec } from "./support/corpus.js";
import { toHex } from "./support/golden.js";
import { describeShared } from "./support/shared.js";

interface ProtocolModule {
  ApiKey: Record<string, number>;
  protocol: Protocol & { untyped: Protocol };
}

describeShared("the generated typed protocol", "kafka-schemas", () => {
  let mod: ProtocolModule;
  let index: Record<string, unknown>;
  beforeAll(async () => {
    mod = (await import(pathToFileURL(path.join(CORPUS_OUT, "protocol.ts")).href)) as ProtocolModule;
    index = (await import(pathToFileURL(path.join(CORPUS_OUT, "index.ts")).href)) as Record<string, unknown>;
  });

  it("exports Kafka's api keys by API name, re-exported by the index with the protocol", () => {
    expect(mod.ApiKey["Produce"]).toBe(0);
    expect(mod.ApiKey["Metadata"]).toBe(3);
    expect(mod.ApiKey["ApiVersions"]).toBe(18);
    expect(Object.isFrozen(mod.ApiKey)).toBe(false); // a plain `as const` object literal
    expect(index["ApiKey"]).toBe(mod.ApiKey);
    expect(index["protocol"]).toBe(mod.protocol);
    // Every API of the protocol has its constant, and no other key is there.
    expect(Object.values(mod.ApiKey).sort((a, b) => a - b)).toEqual([...mod.protocol.apis.keys()]);
    for (const [name, key] of Object.entries(mod.ApiKey)) expect(mod.protocol.api(key).name).toBe(name);
  });

  it("a request body omits fields: they take their schema defaults, nested ones too", () => {
    // Metadata v12 request, flexible (from v9), so request header v2:
    //   api key 3 = 00 03 | version 12 = 00 0c | correlation id 1 = 00 00 00 01
    //   client id "app" (classic nullable string) = 00 03 61 70 70 | header tagged fields 00
    // body:
    //   topics: 1 (compact, 1 + 1) = 02
    //     topicId (v10+): omitted -> the zero uuid, 16 bytes of 00
    //     name "t" (compact nullable) = 02 74 | tagged fields 00
    //   allowAutoTopicCreation (v4+): omitted -> default true = 01
    //   includeClusterAuthorizedOperations: versions 8-10, not in v12
    //   includeTopicAuthorizedOperations (v8+): omitted -> false = 00
    //   tagged fields 00
    // size = 14 (header) + 23 (body) = 37 = 00 00 00 25
    const frame = mod.protocol.encodeRequestFrame(
      { apiKey: 3, apiVersion: 12, correlationId: 1, clientId: "app" },
      { topics: [{ name: "t" }] },
    );
    expect(toHex(frame)).toBe(
      "00000025" + "0003000c000000010003617070" + "00" + "02" + "00".repeat(16) + "027400" + "01" + "00" + "00",
    );
    const decoded = mod.protocol.decodeRequestFrame(frame);
    expect(decoded.apiKey).toBe(3);
    expect(decoded.apiVersion).toBe(12);
    expect(decoded.body).toEqual({
      topics: [{ topicId: "AAAAAAAAAAAAAAAAAAAAAA", name: "t" }],
      allowAutoTopicCreation: true,
      includeClusterAuthorizedOperations: false,
      includeTopicAuthorizedOperations: false,
    });
  });

  it("responses take defaults as requests do, and a non-object body is still refused", () => {
    // ApiVersions v0 response (header v0): correlation id 00 00 00 09 | errorCode 0 = 00 00 |
    // apiKeys: omitted -> empty (int32 count 0) = 00 00 00 00. Size 10 = 00 00 00 0a.
    const frame = mod.protocol.encodeResponseFrame({ apiKey: 18, apiVersion: 0, correlationId: 9 }, {});
    expect(toHex(frame)).toBe("0000000a" + "00000009" + "0000" + "00000000");
    expect(() => mod.protocol.encodeRequestFrame({ apiKey: 3, apiVersion: 12, correlationId: 1 }, null)).toThrow(
      /a MetadataRequest must be an object, got null/,
    );
  });

  it("untyped is the same engine", () => {
    expect(mod.protocol.untyped).toBe(mod.protocol);
  });

  it("an assigned api key is on the codec; an unassigned one is null", async () => {
    expect((await corpusCodec("MetadataRequest")).apiKey).toBe(3);
    expect((await corpusCodec("LeaderChangeMessage")).apiKey).toBeNull();
  });

  it("an undefined field is MISSING_FIELD, also in a version without that field", async () => {
    const fetch = (await corpusCodec("FetchRequest")) as MessageCodec<Record<string, unknown>>;
    // FetchRequest.ReplicaState is a tagged struct of v15+: in v12 an undefined value is missing,
    // not "a non-default value" (and not a TypeError from reading its fields).
    const message = { ...fetch.create(), replicaState: undefined };
    for (const version of [12, 16]) {
      let error: unknown;
      try {
        fetch.encode(message, version);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(KafkaEncodeError);
      expect((error as KafkaEncodeError).code).toBe("MISSING_FIELD");
      expect((error as KafkaEncodeError).path).toBe("replicaState");
    }
  });

  it("a named import of two codecs from the index bundles those two, not the protocol's 180 others", async () => {
    const result = await build({
      stdin: {
        contents: 'export { MetadataRequest, MetadataResponse } from "./index.js";',
        resolveDir: CORPUS_OUT,
        loader: "ts",
      },
      bundle: true,
      minify: true,
      format: "esm",
      write: false,
      logLevel: "silent",
    });
    const text = result.outputFiles[0]!.text;
    // Codec names survive minification as the strings defineMessage receives.
    expect(text).toContain('"MetadataRequest"');
    expect(text).toContain('"MetadataResponse"');
    for (const other of ["FetchRequest", "ProduceRequest", "RequestHeader", "ApiVersionsResponse"])
      expect(text).not.toContain(`"${other}"`);
    // The two codecs and the runtime they use: 12.7 KiB when measured (all of them: 184 KiB).
    expect(gzipSync(text).length).toBeLessThan(20 * 1024);
  });
});
