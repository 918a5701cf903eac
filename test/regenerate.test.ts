/**
 * The "Kafka added a version" workflow, end to end, on a copy of a seed schema.
 *
 * Kafka evolves a message by widening `validVersions` and adding fields that exist from the new
 * version on; a field that old clients may ignore is added as a tagged field (KIP-482), which an
 * older reader skips and keeps. Here StreamsGroupHeartbeatResponse gets version 1 with a tagged
 * int32 (tag 0, default -1), by editing the schema text as a maintainer would; `generate()`
 * writes the new codec into a temporary folder and the test imports it. Then:
 * - v0 bytes worked out by hand still decode under the new code, and encode the same;
 * - v1 with the new field set carries it as tagged field 0; v1 without it decodes to -1;
 * - the committed (v0-only) codec reads the v1 bytes and keeps the new field as an unknown
 *   tagged field, and writes it back unchanged.
 */
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StreamsGroupHeartbeatResponse as CommittedCodec } from "../generated/StreamsGroupHeartbeatResponse.js";
import { generate, type GenerateResult } from "../generator/generate.js";
import { KafkaEncodeError, type MessageCodec } from "../src/runtime/index.js";
import { REPO_ROOT } from "./support/shared.js";

const NAME = "StreamsGroupHeartbeatResponse";

/** The field Kafka "added" in version 1 (appended to the top-level fields). */
const NEW_FIELD = `{ "name": "EndpointInformationEpoch", "type": "int32", "versions": "1+", "taggedVersions": "1+", "tag": 0, "default": "-1",
      "about": "The epoch of the endpoint information; -1 when not sent." }`;

/**
 * StreamsGroupHeartbeatResponse v0 of `create({ memberId: "m", memberEpoch: 5, heartbeatIntervalMs: 5000 })`,
 * worked out by hand from the schema: throttleTimeMs 0 (int32), errorCode 0 (int16), errorMessage
 * null (compact nullable string `00`), memberId "m" (unsigned varint length+1 = `02`, `6d`),
 * memberEpoch 5, currentAssignmentEpoch 0, heartbeatIntervalMs 5000 (`1388`),
 * acceptableRecoveryLag 0, taskOffsetIntervalMs 0, status / activeTasks / standbyTasks /
 * warmupTasks / partitionsByUserEndpoint null (compact nullable arrays, `00` each), then the
 * tagged-field section: count 0.
 */
const V0_HEX = "00000000 0000 00 026d 00000005 00000000 00001388 00000000 00000000 00 00 00 00 00 00";

/** The same fields in v1 with the new tagged field at 42: the tagged section is count 1, tag 0, size 4, int32 42. */
const V1_TAGGED_HEX = `${V0_HEX.slice(0, -3)} 01 00 04 0000002a`;

const unhex = (text: string): Uint8Array => new Uint8Array(Buffer.from(text.replace(/\s+/g, ""), "hex"));
const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString("hex");

/** The regenerated message type: the committed fields plus the new one. */
interface ResponseV1 {
  memberId: string;
  memberEpoch: number;
  heartbeatIntervalMs: number;
  endpointInformationEpoch: number;
  _unknownTaggedFields?: Array<{ tag: number; data: Uint8Array }>;
}

let tmp: string;
let result: GenerateResult;
let generatedText: string;
let codec: MessageCodec<ResponseV1>;
let runtimeImport: string;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), "kafka-wire-regenerate-"));
  const schemas = path.join(tmp, "schemas");
  const out = path.join(tmp, "generated");
  await mkdir(schemas);
  const schemaFile = path.join(schemas, `${NAME}.json`);
  await cp(path.join(REPO_ROOT, "schemas", `${NAME}.json`), schemaFile);

  // "Kafka added a version": edit the schema text (comments and layout stay as they are).
  const original = await readFile(schemaFile, "utf8");
  const replaceOnce = (text: string, from: string | RegExp, to: string): string => {
    const matches = text.match(
      new RegExp(typeof from === "string" ? from.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") : from.source, "g"),
    );
    if (matches?.length !== 1)
      throw new Error(`expected one ${String(from)} in the seed schema, found ${matches?.length ?? 0}`);
    return text.replace(from, to);
  };
  let edited = replaceOnce(original, '"validVersions": "0"', '"validVersions": "0-1"');
  edited = replaceOnce(edited, /\n {2}\],\n {2}"commonStructs"/, `,\n    ${NEW_FIELD}\n  ],\n  "commonStructs"`);
  await writeFile(schemaFile, edited);

  // The generated module imports the repository's runtime by a relative path from the output folder.
  runtimeImport = path
    .relative(out, path.join(REPO_ROOT, "src", "codegen", "v1.js"))
    .split(path.sep)
    .join("/");
  result = await generate({ schemas: ["schemas"], out: "generated", cwd: tmp, runtimeImport, apiKeys: { [NAME]: 88 } });
  generatedText = await readFile(path.join(out, `${NAME}.ts`), "utf8");
  const mod = (await import(pathToFileURL(path.join(out, `${NAME}.ts`)).href)) as Record<
    string,
    MessageCodec<ResponseV1>
  >;
  codec = mod[NAME]!;
}, 120_000);

afterAll(async () => {
  if (tmp !== undefined) await rm(tmp, { recursive: true, force: true });
});

describe("Kafka added a version: StreamsGroupHeartbeatResponse v1 with tagged field 0", () => {
  it("regenerates from the edited schema", async () => {
    expect(result.messages.map((m) => m.name)).toEqual([NAME]);
    expect(result.files.map((f) => `${f.path} ${f.status}`)).toEqual([
      `generated/index.ts written`,
      `generated/${NAME}.ts written`,
    ]);
    // The seed schema's own quirk (Kafka's file has no-break spaces as whitespace) is the only warning.
    expect(result.warnings.filter((w) => !w.message.includes("no-break space"))).toEqual([]);
    expect(codec.validVersions).toEqual({ lowest: 0, highest: 1 });
    expect(codec.flexibleVersions).toEqual({ lowest: 0, highest: 32767 });
    expect(generatedText).toContain("endpointInformationEpoch: number;");
    expect(generatedText).toContain(`from ${JSON.stringify(runtimeImport)}`);
    // Running it again changes nothing (`kafka-wire generate --check` would pass).
    const again = await generate({
      schemas: ["schemas"],
      out: "generated",
      cwd: tmp,
      runtimeImport,
      apiKeys: { [NAME]: 88 },
      check: true,
    });
    expect(again.files.every((f) => f.status === "unchanged")).toBe(true);
  });

  it("still decodes old v0 bytes (worked out by hand), and encodes them the same", () => {
    const v0 = codec.decode(unhex(V0_HEX), 0);
    expect(v0).toMatchObject({
      memberId: "m",
      memberEpoch: 5,
      heartbeatIntervalMs: 5000,
      endpointInformationEpoch: -1,
    });
    expect(hex(codec.encode(v0, 0))).toBe(hex(unhex(V0_HEX)));
    // The same bytes as the committed v0 codec reads and writes.
    const committed = CommittedCodec.decode(unhex(V0_HEX), 0);
    expect(hex(CommittedCodec.encode(committed, 0))).toBe(hex(unhex(V0_HEX)));
    expect(committed.memberId).toBe(v0.memberId);
  });

  it("refuses to put the new field in v0", () => {
    const message = codec.create({ memberId: "m", endpointInformationEpoch: 42 });
    let error: unknown;
    try {
      codec.encode(message, 0);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(KafkaEncodeError);
    expect((error as KafkaEncodeError).code).toBe("FIELD_NOT_IN_VERSION");
    expect((error as KafkaEncodeError).path).toBe("endpointInformationEpoch");
  });

  it("encodes v1 with the field set as tagged field 0, and decodes it back", () => {
    const message = codec.create({
      memberId: "m",
      memberEpoch: 5,
      heartbeatIntervalMs: 5000,
      endpointInformationEpoch: 42,
    });
    const bytes = codec.encode(message, 1);
    expect(hex(bytes)).toBe(hex(unhex(V1_TAGGED_HEX)));
    expect(codec.decode(bytes, 1).endpointInformationEpoch).toBe(42);
  });

  it("decodes v1 bytes without the tag to the default, and writes the default without it", () => {
    const v1 = codec.decode(unhex(V0_HEX), 1);
    expect(v1.endpointInformationEpoch).toBe(-1);
    expect(v1._unknownTaggedFields ?? []).toEqual([]);
    expect(hex(codec.encode(codec.create({ memberId: "m", memberEpoch: 5, heartbeatIntervalMs: 5000 }), 1))).toBe(
      hex(unhex(V0_HEX)),
    );
  });

  it("old code (the committed v0 codec) reads v1 bytes, keeps the unknown tag and writes it back", () => {
    const old = CommittedCodec.decode(unhex(V1_TAGGED_HEX), 0);
    expect(old.memberId).toBe("m");
    expect(old._unknownTaggedFields?.map((f) => ({ tag: f.tag, data: hex(f.data) }))).toEqual([
      { tag: 0, data: "0000002a" },
    ]);
    expect(hex(CommittedCodec.encode(old, 0))).toBe(hex(unhex(V1_TAGGED_HEX)));
  });
});
