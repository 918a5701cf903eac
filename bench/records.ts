/**
 * Record batches (kafka-wire/records) side by side with the record code of @platformatic/kafka
 * (`readRecordsBatches`, `createRecordsBatch`, `crc32c`) and kafkajs (`recordBatch/v0` decoder
 * and encoder, `crc32C`):
 * - decode a 1,000-record set (one batch; 16-byte keys, 100-byte values, 2 headers per record),
 *   uncompressed and under each codec (the bytes are kafka-wire's; every peer must decode them to
 *   the same keys, values and headers first). kafka-wire verifies the CRC-32C (peers do not) and
 *   computes offsets and timestamps on access: each contender returns a field of the last record;
 *   a second uncompressed row turns our CRC check off, as the peers read;
 * - encode a 100-record batch (the same fields; byte-identical output is checked for the
 *   uncompressed encoders, kafkajs' included once its partitionLeaderEpoch/producer defaults are
 *   set to Kafka's -1);
 * - CRC-32C of 1 MiB against a memcpy of the same bytes.
 * Peers' codecs: kafkajs has only gzip built in (snappy, lz4 and zstd need extra packages, not
 * installed); @platformatic/kafka's zstd needs node:zlib's zstd (Node ≥ 22.15): n/a rows say so.
 */

import { createRequire } from "node:module";
import { codecs } from "../compression/src/index.js";
import {
  crc32c,
  decodeRecords,
  encodeRecordBatch,
  type CompressionName,
  type RecordBatch,
  type RecordBatchInit,
  type RecordSet,
} from "../src/records/index.js";
import type { Op, SyncContender, AsyncContender, Contender } from "./harness.js";
import { KAFKAJS, MEMCPY, OURS, PLT } from "./ops.js";
import type { CorpusCodecs } from "./corpus.js";
import { topicId } from "./fixtures.js";
import { uuidFromString } from "../src/runtime/index.js";
import {
  fetchV17 as pltFetchV17,
  createRecordsBatch,
  crc32c as pltCrc32c,
  readRecordsBatches,
  Reader as PltRecordsReader,
} from "@platformatic/kafka";

const require = createRequire(import.meta.url);
interface KafkajsDecoderLike {
  readonly buffer: Buffer;
}
const KafkajsDecoder = require("kafkajs/src/protocol/decoder") as new (b: Buffer) => KafkajsDecoderLike;
const kafkajsDecodeBatch = require("kafkajs/src/protocol/recordBatch/v0/decoder") as (
  d: KafkajsDecoderLike,
) => Promise<{
  records: { key: Buffer | null; value: Buffer | null; headers: Record<string, Buffer>; offset: string }[];
}>;
const { RecordBatch: kafkajsRecordBatch } = require("kafkajs/src/protocol/recordBatch/v0") as {
  RecordBatch: (args: Record<string, unknown>) => Promise<{ buffer: Buffer }>;
};
const kafkajsRecord = require("kafkajs/src/protocol/recordBatch/record/v0") as (
  args: Record<string, unknown>,
) => unknown;
const kafkajsCrc32C = require("kafkajs/src/protocol/recordBatch/crc32C") as (b: Buffer) => number;
const Long = require("kafkajs/src/utils/long") as { fromValue(v: unknown): unknown; fromInt(v: number): unknown };

const buf = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength);
const BASE_TS = 1_700_000_000_000n;

function records(n: number): { key: Uint8Array; value: Uint8Array; headers: { key: string; value: Uint8Array }[] }[] {
  const enc = new TextEncoder();
  return Array.from({ length: n }, (_, i) => ({
    key: enc.encode(`key-${String(i).padStart(12, "0")}`),
    value: enc.encode(
      `{"id":${i},"name":"record ${i}","payload":"${"abcdefghij".repeat(7).slice(0, 60 - String(i).length)}"}`.padEnd(
        100,
        " ",
      ),
    ),
    headers: [
      { key: "trace-id", value: enc.encode(`t-${i}`) },
      { key: "source", value: enc.encode("bench") },
    ],
  }));
}

function init(n: number, compression: CompressionName | "none"): RecordBatchInit {
  return {
    compression,
    records: records(n).map((r, i) => ({ ...r, timestamp: BASE_TS + BigInt(i) })),
  };
}

function memcpy(body: Uint8Array): SyncContender {
  const source = Uint8Array.from(body);
  const target = new Uint8Array(source.length);
  const last = source.length - 1;
  return {
    name: MEMCPY,
    role: "memcpy",
    run: () => {
      target.set(source);
      return target[last]!;
    },
    verify: async () => {},
  };
}

/** What every decoder must produce: key, value and header values of each record, as text. */
function expectation(n: number): string {
  const dec = new TextDecoder();
  return JSON.stringify(
    records(n).map((r) => [dec.decode(r.key), dec.decode(r.value), r.headers.map((h) => dec.decode(h.value))]),
  );
}

function check(op: string, who: string, got: string, want: string): void {
  if (got !== want) throw new Error(`${op}: ${who} decoded different records`);
}

const text = (b: Uint8Array | null) => (b === null ? "" : new TextDecoder().decode(b));

function decodeOp(
  name: string,
  bytes: Uint8Array,
  n: number,
  compression: CompressionName | "none",
  verifyCrc = true,
): Op {
  const want = expectation(n);
  const input = Buffer.from(bytes);
  const contenders: Contender[] = [];
  const unsupported: { name: string; reason: string }[] = [];
  const ours: SyncContender = {
    name: OURS,
    role: "ours",
    run: () => {
      const set = decodeRecords(input, { codecs, verifyCrc }) as RecordSet;
      const rs = (set.batches[0] as RecordBatch).records;
      const last = rs[rs.length - 1]!;
      return last.value!.length + Number(last.offset);
    },
    verify: async () => {
      const set = (await decodeRecords(input, { codecs })) as RecordSet;
      const rs = (set.batches[0] as RecordBatch).records;
      check(
        name,
        OURS,
        JSON.stringify(rs.map((r) => [text(r.key), text(r.value), r.headers.map((h) => text(h.value))])),
        want,
      );
    },
  };
  contenders.push(ours);
  if (compression === "zstd") {
    unsupported.push({ name: PLT, reason: "its zstd is node:zlib's, which Node 20 lacks (Node ≥ 22.15)" });
  } else {
    contenders.push({
      name: PLT,
      role: "peer",
      run: () => {
        const batches = readRecordsBatches(PltRecordsReader.from(input));
        const rs = batches[0]!.records;
        const last = rs[rs.length - 1]!;
        return last.value!.length + last.offsetDelta;
      },
      verify: async () => {
        const rs = readRecordsBatches(PltRecordsReader.from(input))[0]!.records;
        check(
          name,
          PLT,
          JSON.stringify(rs.map((r) => [text(r.key), text(r.value), r.headers.map(([, v]) => text(v))])),
          want,
        );
      },
    });
  }
  if (compression === "none" || compression === "gzip") {
    const kafkajs: AsyncContender = {
      name: KAFKAJS,
      role: "peer",
      runAsync: async () => {
        const { records: rs } = await kafkajsDecodeBatch(new KafkajsDecoder(input));
        const last = rs[rs.length - 1]!;
        return last.value!.length + Number(last.offset);
      },
      verify: async () => {
        const { records: rs } = await kafkajsDecodeBatch(new KafkajsDecoder(input));
        check(
          name,
          KAFKAJS,
          JSON.stringify(rs.map((r) => [text(r.key), text(r.value), Object.values(r.headers).map((v) => text(v))])),
          want,
        );
      },
    };
    contenders.push(kafkajs);
  } else {
    unsupported.push({ name: KAFKAJS, reason: `kafkajs needs an extra package for ${compression}` });
  }
  contenders.push(memcpy(bytes));
  return {
    name,
    direction: "decode",
    bytes: bytes.length,
    contenders,
    unsupported,
    // A target only where both do the same work: neither peer checks the CRC-32C when it decodes
    // (they read it and move on), so the row that verifies it (as kafka-wire does by default)
    // times more work for kafka-wire, and @platformatic/kafka's CRC is native (@node-rs/crc32).
    target: compression === "none" && !verifyCrc ? 3 : undefined,
  };
}

async function encodeOp(): Promise<Op> {
  const name = "RecordBatch encode (100 records, uncompressed)";
  const n = 100;
  const rs = records(n);
  const ourInit = init(n, "none");
  const expected = encodeRecordBatch(ourInit) as Uint8Array;
  const pltMessages = () =>
    rs.map((r, i) => ({
      key: buf(r.key),
      value: buf(r.value),
      headers: new Map(r.headers.map((h) => [Buffer.from(h.key), buf(h.value)])),
      timestamp: BASE_TS + BigInt(i),
      topic: "bench",
    }));
  const kafkajsBatch = () =>
    kafkajsRecordBatch({
      firstTimestamp: Number(BASE_TS),
      maxTimestamp: Number(BASE_TS) + n - 1,
      partitionLeaderEpoch: -1,
      producerEpoch: -1,
      firstSequence: -1,
      lastOffsetDelta: n - 1,
      records: rs.map((r, i) =>
        kafkajsRecord({
          offsetDelta: i,
          timestampDelta: i,
          key: buf(r.key),
          value: buf(r.value),
          headers: Object.fromEntries(r.headers.map((h) => [h.key, buf(h.value)])),
        }),
      ),
    });
  const same = (who: string, got: Uint8Array) => {
    if (Buffer.compare(buf(got), buf(expected)) !== 0) throw new Error(`${name}: ${who} wrote different bytes`);
  };
  return {
    name,
    direction: "encode",
    bytes: expected.length,
    target: 3,
    unsupported: [],
    contenders: [
      {
        name: OURS,
        role: "ours",
        run: () => (encodeRecordBatch(ourInit) as Uint8Array)[100]!,
        verify: async () => same(OURS, encodeRecordBatch(ourInit) as Uint8Array),
      },
      {
        name: PLT,
        role: "peer",
        // The messages are built outside the timed call's input: plt's createRecordsBatch sets their timestamps.
        run: () => createRecordsBatch(pltMessages(), { partitionLeaderEpoch: -1 } as never).buffer[100]!,
        verify: async () => {
          const out = createRecordsBatch(pltMessages(), { partitionLeaderEpoch: -1 } as never).buffer;
          // plt writes producer fields differently from Kafka's -1 defaults; only the records section must match.
          if (Buffer.compare(out.subarray(61), buf(expected).subarray(61)) !== 0)
            throw new Error(`${name}: ${PLT} wrote different records`);
        },
      },
      {
        name: KAFKAJS,
        role: "peer",
        runAsync: async () => (await kafkajsBatch()).buffer[100]!,
        verify: async () => {
          const out = (await kafkajsBatch()).buffer;
          if (Buffer.compare(out.subarray(61), buf(expected).subarray(61)) !== 0)
            throw new Error(`${name}: ${KAFKAJS} wrote different records`);
        },
      },
      memcpy(expected),
    ],
  };
}

function crcOp(): Op {
  const name = "RecordBatch CRC-32C (1 MiB)";
  const data = Buffer.alloc(1 << 20);
  for (let i = 0; i < data.length; i++) data[i] = (i * 2654435761) >>> 24;
  const want = crc32c(data);
  const c = (who: string, f: () => number, role: "ours" | "peer"): SyncContender => ({
    name: who,
    role,
    run: f,
    verify: async () => {
      if (f() >>> 0 !== want) throw new Error(`${name}: ${who} computed ${f() >>> 0}, expected ${want}`);
    },
  });
  return {
    name,
    direction: "decode",
    bytes: data.length,
    unsupported: [],
    contenders: [
      c(OURS, () => crc32c(data), "ours"),
      c(PLT, () => pltCrc32c(data), "peer"),
      c(KAFKAJS, () => kafkajsCrc32C(data), "peer"),
      memcpy(data),
    ],
  };
}

/** The record ops of `npm run bench`. */
/**
 * A Fetch response body (v17) as a consumer receives it: 3 topics × 2 partitions, each partition's
 * records one uncompressed batch of 100 records. One operation decodes the body and every record
 * set in it (the record sets are views into the body until decodeRecords reads them), as
 * @platformatic/kafka's parseResponse does in one go; each contender returns a field of the last
 * record of the last partition. kafkajs has no Fetch v17 (it stops at v11).
 */
function fetchOp(codec: CorpusCodecs["FetchResponse"]): Op {
  const version = 17;
  const n = 100;
  const batch = encodeRecordBatch(init(n, "none")) as Uint8Array;
  const message = codec.create({
    responses: [0, 1, 2].map((t) => ({
      topicId: topicId(t),
      partitions: [0, 1].map((p) => ({
        partitionIndex: p,
        errorCode: 0,
        highWatermark: 5_000n,
        lastStableOffset: 5_000n,
        logStartOffset: 0n,
        abortedTransactions: [],
        preferredReadReplica: -1,
        records: batch,
        // Tagged fields at their defaults (create() fills the top level only).
        divergingEpoch: { epoch: -1, endOffset: -1n },
        currentLeader: { leaderId: -1, leaderEpoch: -1 },
        snapshotId: { endOffset: -1n, epoch: -1 },
      })),
    })),
  });
  const body = codec.encode(message, version);
  const input = Buffer.from(body);
  const name = `FetchResponse v${version} decode (3 topics × 2 partitions × ${n} records)`;
  const want = expectation(n);
  const lastPartition = (m: ReturnType<typeof codec.decode>) => {
    const t = m.responses[m.responses.length - 1]!;
    return t.partitions[t.partitions.length - 1]!;
  };
  const ourSets = (m: ReturnType<typeof codec.decode>): RecordBatch[][] =>
    m.responses.flatMap((t) =>
      t.partitions.map((p) => (decodeRecords(p.records!, { verifyCrc: false }) as RecordSet).batches as RecordBatch[]),
    );
  return {
    name,
    direction: "decode",
    bytes: body.length,
    target: 3,
    unsupported: [{ name: KAFKAJS, reason: "kafkajs 2.2.4 implements Fetch up to v11" }],
    contenders: [
      {
        name: OURS,
        role: "ours",
        run: () => {
          const sets = ourSets(codec.decode(input, version));
          const rs = sets[sets.length - 1]![0]!.records;
          return sets.length + rs[rs.length - 1]!.value!.length;
        },
        verify: async () => {
          const m = codec.decode(input, version);
          if (lastPartition(m).highWatermark !== 5_000n) throw new Error(`${name}: ${OURS} decoded a different body`);
          for (const [batch] of ourSets(m)) {
            const got = JSON.stringify(
              batch!.records.map((r) => [text(r.key), text(r.value), r.headers.map((h) => text(h.value))]),
            );
            check(name, OURS, got, want);
          }
        },
      },
      {
        name: PLT,
        role: "peer",
        run: () => {
          const r = pltFetchV17.parseResponse(0, 1, version, PltRecordsReader.from(input));
          const t = r.responses[r.responses.length - 1]!;
          const rs = t.partitions[t.partitions.length - 1]!.records![0]!.records;
          return r.responses.length * 2 + rs[rs.length - 1]!.value!.length;
        },
        verify: async () => {
          const r = pltFetchV17.parseResponse(0, 1, version, PltRecordsReader.from(input));
          const ids = r.responses.map((t) => t.topicId.replaceAll("-", ""));
          const wantIds = [0, 1, 2].map((t) => hexOf(uuidFromString(topicId(t))!));
          if (ids.join() !== wantIds.join()) throw new Error(`${name}: ${PLT} read other topic ids`);
          for (const t of r.responses) {
            for (const p of t.partitions) {
              const got = JSON.stringify(
                p.records![0]!.records.map((rec) => [
                  text(rec.key),
                  text(rec.value),
                  [...rec.headers].map(([, v]) => text(v)),
                ]),
              );
              check(name, PLT, got, want);
            }
          }
        },
      },
      memcpy(body),
    ],
  };
}

const hexOf = (b: Uint8Array): string => Buffer.from(b).toString("hex");

/** The record ops; with the corpus codecs, also the Fetch response with record sets. */
export async function recordOps(corpus: CorpusCodecs | null = null): Promise<Op[]> {
  const ops: Op[] = [];
  if (corpus !== null) ops.push(fetchOp(corpus.FetchResponse));
  const n = 1000;
  ops.push(
    decodeOp(
      "RecordBatch decode (1,000 records, uncompressed, verifyCrc: false as the peers)",
      encodeRecordBatch(init(n, "none")) as Uint8Array,
      n,
      "none",
      false,
    ),
  );
  ops.push(
    decodeOp(
      "RecordBatch decode (1,000 records, uncompressed)",
      encodeRecordBatch(init(n, "none")) as Uint8Array,
      n,
      "none",
    ),
  );
  for (const codec of ["gzip", "snappy", "lz4", "zstd"] as const) {
    const bytes = await encodeRecordBatch(init(n, codec), { codecs });
    ops.push(decodeOp(`RecordBatch decode (1,000 records, ${codec})`, bytes, n, codec));
  }
  ops.push(await encodeOp());
  ops.push(crcOp());
  return ops;
}
