/**
 * `kafka-wire records` and `kafka-wire internal-record` (cli/commands/records.ts, cli/commands/internal-record.ts) against Kafka's record
 * sets and internal-topic records (`../shared/golden/records/`): the printed records are the
 * vectors' records, in every input form (hex argument, binary or hex file, stdin) and every
 * `--bytes` format.
 */

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { main, type CliIO, type TextInput } from "../cli/cli.js";
import { readVectors, type RecordSetVector } from "./records/support.js";
import { describeShared, sharedPath } from "./support/shared.js";

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

const NO_STDIN: TextInput = { isTTY: true, async *[Symbol.asyncIterator]() {} };

async function run(args: readonly string[], stdin?: Uint8Array): Promise<Run> {
  let stdout = "";
  let stderr = "";
  const io: CliIO = {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    // In two chunks, so that reading stdin must join them.
    stdin: stdin === undefined ? NO_STDIN : Readable.from([stdin.subarray(0, 5), stdin.subarray(5)]),
  };
  const code = await main(args, io);
  return { code, stdout, stderr };
}

const tmp = mkdtempSync(path.join(tmpdir(), "kafka-wire-cli-records-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

interface PrintedRecord {
  batch: Record<string, unknown>;
  offset: string;
  timestamp: string;
  key: string | null;
  value: string | null;
  keyEncoding?: string | null;
  valueEncoding?: string | null;
  headers: { key: string; value: string | null; valueEncoding?: string | null }[];
  control?: { type: string };
}

function printed(out: string): PrintedRecord[] {
  return out
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as PrintedRecord);
}

/** The vector's records, flattened, with their batch (magic-2 batches and legacy entries). */
function vectorRecords(v: RecordSetVector): { batch: Record<string, unknown>; record: Record<string, unknown> }[] {
  return v.batches.flatMap((batch) =>
    (batch["records"] as Record<string, unknown>[]).map((record) => ({ batch, record })),
  );
}

/** What `--bytes auto` prints for base64 `b64` (the test's own check of UTF-8 validity). */
function auto(b64: string | null): { text: string | null; encoding: string | null } {
  if (b64 === null) return { text: null, encoding: null };
  const bytes = Buffer.from(b64, "base64");
  try {
    return { text: new TextDecoder("utf-8", { fatal: true }).decode(bytes), encoding: "utf8" };
  } catch {
    return { text: b64, encoding: "base64" };
  }
}

describeShared("kafka-wire records", "golden/records", (dir) => {
  const files = ["none", "gzip", "snappy", "lz4", "zstd", "legacy", "control", "concat"];
  for (const file of files) {
    const vectors = readVectors<RecordSetVector>(dir, `records-${file}.json`);
    it(`records-${file}.json: every record, its offset, timestamp, key, value and headers (--bytes base64, hex argument)`, async () => {
      let total = 0;
      for (const v of vectors) {
        const r = await run(["records", v.hex, "--bytes", "base64"]);
        expect(r.stderr).toBe("");
        expect(r.code).toBe(0);
        const got = printed(r.stdout);
        const want = vectorRecords(v);
        expect(got.length).toBe(want.length);
        for (const [i, { batch, record }] of want.entries()) {
          const g = got[i]!;
          expect(g.offset).toBe(record["offset"]);
          expect(g.timestamp).toBe(record["timestamp"] ?? null);
          expect(g.key).toBe(record["key"]);
          expect(g.value).toBe(record["value"]);
          expect(g.headers).toEqual(record["headers"]);
          expect(g.batch["magic"]).toBe(batch["magic"]);
          expect(g.batch["crc"]).toBe(batch["crc"]);
          expect(g.batch["compression"]).toBe(batch["compression"]);
          if (batch["magic"] === 2) {
            expect(g.batch["baseOffset"]).toBe(batch["baseOffset"]);
            expect(g.batch["producerId"]).toBe(batch["producerId"]);
            expect(g.batch["recordCount"]).toBe(batch["recordCount"]);
          }
          if (record["controlType"] !== undefined) expect(g.control?.type).toBe(record["controlType"]);
          total++;
        }
      }
      expect(total).toBeGreaterThan(0);
    });
  }

  it("--bytes auto (the default): UTF-8 text where valid, base64 otherwise, and which; from a binary file", async () => {
    let binary = 0;
    for (const v of readVectors<RecordSetVector>(dir, "records-none.json")) {
      const file = path.join(tmp, "set.bin");
      writeFileSync(file, Buffer.from(v.hex, "hex"));
      const r = await run(["records", "--file", file]);
      expect(r.code).toBe(0);
      const got = printed(r.stdout);
      for (const [i, { record }] of vectorRecords(v).entries()) {
        const key = auto(record["key"] as string | null);
        const value = auto(record["value"] as string | null);
        expect([got[i]!.key, got[i]!.keyEncoding]).toEqual([key.text, key.encoding]);
        expect([got[i]!.value, got[i]!.valueEncoding]).toEqual([value.text, value.encoding]);
        if (value.encoding === "base64") binary++;
        const headers = record["headers"] as { key: string; value: string | null }[];
        expect(got[i]!.headers).toEqual(
          headers.map((h) => ({ key: h.key, value: auto(h.value).text, valueEncoding: auto(h.value).encoding })),
        );
      }
    }
    // The vectors have binary values too, so both branches ran.
    expect(binary).toBeGreaterThan(0);
  });

  it("--bytes hex from stdin (binary) and from a hex file are the same lines", async () => {
    const v = readVectors<RecordSetVector>(dir, "records-gzip.json")[0]!;
    const hexFile = path.join(tmp, "set.hex");
    writeFileSync(hexFile, `0x${v.hex.toUpperCase().replace(/(.{64})/g, "$1\n")}\n`);
    const fromFile = await run(["records", "--file", hexFile, "--bytes", "hex"]);
    const fromStdin = await run(["records", "--bytes", "hex"], new Uint8Array(Buffer.from(v.hex, "hex")));
    expect(fromFile.code).toBe(0);
    expect(fromStdin.stdout).toBe(fromFile.stdout);
    const first = vectorRecords(v)[0]!.record;
    expect(printed(fromFile.stdout)[0]!.key).toBe(
      first["key"] === null ? null : Buffer.from(first["key"] as string, "base64").toString("hex"),
    );
  });

  it("a truncated tail: an error (exit 1) unless --allow-incomplete-tail; the complete batches printed", async () => {
    const v = readVectors<RecordSetVector>(dir, "records-truncated-tail.json")[0]!;
    const count = v.hex.length / 2 - v.validBytes;
    const declared = parseInt(v.hex.slice(2 * (v.validBytes + 8), 2 * (v.validBytes + 12)), 16);
    const tail = `the last ${count} bytes are an incomplete batch (its length at byte offset ${v.validBytes + 8} says ${declared} bytes follow, ${count - 12} do)`;
    const strict = await run(["records", v.hex]);
    expect(strict.code).toBe(1);
    expect(printed(strict.stdout).length).toBe(vectorRecords(v).length);
    expect(strict.stderr).toBe(
      `error: ${tail}; a fetch response cut short by its max bytes ends so: pass --allow-incomplete-tail to accept it\n`,
    );
    const allowed = await run(["records", v.hex, "--allow-incomplete-tail"]);
    expect(allowed.code).toBe(0);
    expect(allowed.stdout).toBe(strict.stdout);
    expect(allowed.stderr).toBe(`note: ${tail} (a fetch cut short), not shown\n`);
  });

  it("a batch length of 0x7fffffff with nothing after it exits 1", async () => {
    // baseOffset 0, batchLength 0x7fffffff, then 49 more header bytes (zeros): 61 bytes, 2 GiB claimed.
    const hex = "0000000000000000" + "7fffffff" + "00".repeat(49);
    const r = await run(["records", hex]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(
      /^error: the last 61 bytes are an incomplete batch \(its length at byte offset 8 says 2147483647 bytes follow, 49 do\)/,
    );
  });

  it("a corrupted batch is an error with its code; a bad --bytes a usage error", async () => {
    const v = readVectors<RecordSetVector>(dir, "records-none.json")[0]!;
    // Flip the first byte of the stored CRC (bytes 17..20 of a magic-2 batch).
    const crcByte = parseInt(v.hex.slice(34, 36), 16) ^ 0xff;
    const bad = v.hex.slice(0, 34) + crcByte.toString(16).padStart(2, "0") + v.hex.slice(36);
    const r = await run(["records", bad]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: CRC_MISMATCH: /);
    const skipped = await run(["records", bad, "--skip-crc", "--bytes", "hex"]);
    expect(skipped.code).toBe(0);
    const usage = await run(["records", v.hex, "--bytes", "utf16"]);
    expect(usage.code).toBe(1);
    expect(usage.stderr).toContain("expected one of auto, utf8, base64, hex");
  });
});

describe("kafka-wire internal-record (shipped codecs: the seed's streams member metadata)", () => {
  // Worked out by hand in examples/streams-member-metadata.ts.
  const key = "0013 000a 6f72646572732d617070 0003 6d2d31".replace(/ /g, "");
  const value = "0000 00 00 04632d31 0a2f31302e302e302e37 00007530 04742d31 04702d31 0268 00001f90 00 01 00".replace(
    / /g,
    "",
  );

  it("decodes a key and value to JSON", async () => {
    const r = await run(["internal-record", "__consumer_offsets", "--key", key, "--value", value]);
    expect(r.stderr).toBe("");
    expect(JSON.parse(r.stdout)).toEqual({
      recordType: 19,
      keySchema: "StreamsGroupMemberMetadataKey",
      key: { groupId: "orders-app", memberId: "m-1" },
      valueSchema: "StreamsGroupMemberMetadataValue",
      valueVersion: 0,
      value: {
        instanceId: null,
        rackId: null,
        clientId: "c-1",
        clientHost: "/10.0.0.7",
        rebalanceTimeoutMs: 30000,
        topologyId: "t-1",
        processId: "p-1",
        userEndpoint: { host: "h", port: 8080 },
        clientTags: [],
      },
    });
  });

  it("no --value is a tombstone", async () => {
    const r = await run(["internal-record", "__consumer_offsets", "--key", key]);
    expect(JSON.parse(r.stdout)).toMatchObject({ recordType: 19, valueSchema: null, valueVersion: null, value: null });
  });

  it("an unknown record type or topic is an error naming it", async () => {
    const r = await run(["internal-record", "__consumer_offsets", "--key", "0001" + key.slice(4)]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      "error: UNKNOWN_RECORD_TYPE: unknown record type 1 in __consumer_offsets at key (byte offset 0)\n",
    );
    const t = await run(["internal-record", "__cluster_metadata", "--value", "01140000"]);
    expect(t.code).toBe(1);
    expect(t.stderr).toContain("pass --kafka <version>");
  });
});

describeShared(
  "kafka-wire internal-record and records --topic with --schemas (Kafka's schema set)",
  "golden/records",
  (dir) => {
    it("decode Kafka's internal records and a __cluster_metadata record set", { timeout: 300_000 }, async () => {
      const schemas = sharedPath("kafka-schemas");
      const cache = path.join(tmp, "cache");
      const vectors = readVectors<{
        topic: string;
        keyHex: string | null;
        valueHex: string | null;
        recordType: number;
        valueSchema: string | null;
      }>(dir, "internal-records.json");
      // One of each topic (the golden test checks every vector through the library).
      for (const topic of ["__consumer_offsets", "__share_group_state", "__transaction_state", "__cluster_metadata"]) {
        const v = vectors.find((x) => x.topic === topic && x.valueHex !== null)!;
        const args = ["internal-record", topic];
        if (v.keyHex !== null) args.push("--key", v.keyHex);
        args.push("--value", v.valueHex!, "--cache-dir", cache, "--schemas", schemas);
        const r = await run(args);
        expect(r.code, r.stderr).toBe(0);
        expect(JSON.parse(r.stdout)).toMatchObject({ recordType: v.recordType, valueSchema: v.valueSchema });
      }
      const set = readVectors<RecordSetVector>(dir, "records-cluster-metadata.json")[0]!;
      const r = await run([
        "records",
        set.hex,
        "--topic",
        "__cluster_metadata",
        "--cache-dir",
        cache,
        "--schemas",
        schemas,
      ]);
      expect(r.code, r.stderr).toBe(0);
      const got = printed(r.stdout) as unknown as { internal?: { recordType: number; valueSchema: string } }[];
      const want = vectorRecords(set).map(
        ({ record }) => record["metadataRecord"] as { recordType: number; name: string },
      );
      expect(got.map((g) => g.internal && [g.internal.recordType, g.internal.valueSchema])).toEqual(
        want.map((m) => m && [m.recordType, m.name]),
      );
    });
  },
);
