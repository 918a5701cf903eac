/**
 * The record API beyond the golden vectors: the builder's validation (as Kafka's broker
 * validates a Produce request), control records, the consumer's view, pass-through and broker
 * header updates, incomplete tails, the decompression cap and the CRCs' check values.
 */

import { describe, expect, it } from "vitest";
import { codecs, zstd } from "../../compression/src/index.js";
import {
  crc32,
  crc32c,
  dataRecords,
  decodeRecords,
  encodeRecordBatch,
  encodeRecords,
  endTransactionMarker,
  KafkaRecordsError,
  withBatchHeader,
  type RecordBatch,
  type RecordBatchInit,
  type RecordSet,
} from "../../src/records/index.js";
import { KafkaEncodeError } from "../../src/runtime/index.js";
import { describeShared } from "../support/shared.js";
import { fromHex, readVectors, type RecordSetVector } from "./support.js";

const utf8 = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array | null) => (b === null ? null : new TextDecoder().decode(b));

function encodeSync(init: RecordBatchInit, validation?: "producer" | "log"): Uint8Array {
  const out = encodeRecordBatch(init, validation === undefined ? {} : { validation });
  if (!(out instanceof Uint8Array)) throw new Error("expected a synchronous result");
  return out;
}

function decodeSync(bytes: Uint8Array, options = {}): RecordSet {
  const set = decodeRecords(bytes, options);
  if (set instanceof Promise) throw new Error("expected a synchronous result");
  return set;
}

function encodeError(f: () => unknown): KafkaEncodeError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(KafkaEncodeError);
    return e as KafkaEncodeError;
  }
  throw new Error("expected a KafkaEncodeError");
}

describe("CRC check values (the CRC catalogue's, for the ASCII bytes 123456789)", () => {
  it("CRC-32C is 0xe3069283, CRC-32 is 0xcbf43926", () => {
    expect(crc32c(utf8("123456789"))).toBe(0xe3069283);
    expect(crc32(utf8("123456789"))).toBe(0xcbf43926);
  });

  it("the 16-byte steps agree with a byte-at-a-time CRC-32C at every length and alignment", () => {
    const table = new Uint32Array(256).map((_, i) => {
      let c = i;
      for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
      return c >>> 0;
    });
    const slow = (b: Uint8Array) => {
      let c = 0xffffffff;
      for (const x of b) c = table[(c ^ x) & 0xff]! ^ (c >>> 8);
      return (c ^ 0xffffffff) >>> 0;
    };
    const data = new Uint8Array(100).map((_, i) => (i * 151 + 17) & 0xff);
    for (let start = 0; start < 17; start++) {
      for (let end = start; end <= 100; end += 7)
        expect(crc32c(data, start, end)).toBe(slow(data.subarray(start, end)));
    }
    // Continuing over pieces equals one pass.
    expect(crc32c(data, 40, 100, crc32c(data, 0, 40))).toBe(crc32c(data));
  });

  it("from 256 bytes (the WebAssembly step, SIMD lanes from 1 KiB, in 96 KiB pieces) both CRCs agree with a byte-at-a-time one", () => {
    const slowOf = (polynomial: number) => {
      const table = new Uint32Array(256).map((_, i) => {
        let c = i;
        for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ polynomial : c >>> 1;
        return c >>> 0;
      });
      return (b: Uint8Array, c = 0xffffffff) => {
        for (const x of b) c = table[(c ^ x) & 0xff]! ^ (c >>> 8);
        return (c ^ 0xffffffff) >>> 0;
      };
    };
    const slow32c = slowOf(0x82f63b78);
    const slow32 = slowOf(0xedb88320);
    const data = new Uint8Array(110_000).map((_, i) => (i * 151 + 17 + (i >> 8)) & 0xff);
    for (const start of [0, 1, 3, 13]) {
      for (const length of [255, 256, 257, 1000, 1024, 1025, 98_303, 98_304, 98_305, 100_003]) {
        const piece = data.subarray(start, start + length);
        expect(crc32c(data, start, start + length)).toBe(slow32c(piece));
        expect(crc32(data, start, start + length)).toBe(slow32(piece));
      }
    }
    expect(crc32c(data, 5000, 110_000, crc32c(data, 0, 5000))).toBe(crc32c(data));
  });
});

describe("encodeRecordBatch", () => {
  it("defaults: offset deltas 0..n-1, -1 producer fields, baseTimestamp = first record, maxTimestamp = largest", () => {
    const bytes = encodeSync({
      records: [
        { key: "a", value: "1", timestamp: 1000n },
        {
          key: null,
          value: null,
          timestamp: 900n,
          headers: [
            { key: "h", value: null },
            { key: "h", value: "x" },
          ],
        },
        { value: utf8("3"), timestamp: 1500 },
      ],
    });
    const b = decodeSync(bytes).batches[0] as RecordBatch;
    expect(b.baseOffset).toBe(0n);
    expect(b.partitionLeaderEpoch).toBe(-1);
    expect(b.producerId).toBe(-1n);
    expect(b.producerEpoch).toBe(-1);
    expect(b.baseSequence).toBe(-1);
    expect(b.lastOffsetDelta).toBe(2);
    expect(b.recordCount).toBe(3);
    expect(b.baseTimestamp).toBe(1000n);
    expect(b.maxTimestamp).toBe(1500n);
    expect(b.batchLength).toBe(bytes.length - 12);
    expect(b.crc).toBe(crc32c(bytes, 21));
    expect(b.records.map((r) => [r.offset, r.timestamp, r.timestampDelta, text(r.key), text(r.value)])).toEqual([
      [0n, 1000n, 0n, "a", "1"],
      [1n, 900n, -100n, null, null],
      [2n, 1500n, 500n, null, "3"],
    ]);
    expect(b.records[1]!.headers.map((h) => [h.key, text(h.value)])).toEqual([
      ["h", null],
      ["h", "x"],
    ]);
  });

  it("validates as a broker validates a Produce request", () => {
    const rec = [{ value: "v", timestamp: 1n }];
    expect(encodeError(() => encodeSync({ isControl: true, records: rec })).path).toBe("isControl");
    expect(encodeError(() => encodeSync({ records: [] })).path).toBe("records");
    expect(encodeError(() => encodeSync({ producerId: 5n, producerEpoch: 0, records: rec })).path).toBe("baseSequence");
    expect(encodeError(() => encodeSync({ isTransactional: true, records: rec })).path).toBe("isTransactional");
    expect(encodeError(() => encodeSync({ lastOffsetDelta: 3, records: rec })).path).toBe("lastOffsetDelta");
    expect(encodeError(() => encodeSync({ records: [{ offsetDelta: 1, value: "v", timestamp: 1n }] })).path).toBe(
      "records[0].offsetDelta",
    );
    expect(encodeError(() => encodeSync({ records: [{ value: "v", timestamp: -2n }] })).path).toBe(
      "records[0].timestamp",
    );
    expect(encodeError(() => encodeSync({ recordCount: 2, records: rec })).path).toBe("recordCount");
    expect(encodeError(() => encodeSync({ hasDeleteHorizon: true, records: rec })).path).toBe("hasDeleteHorizon");
    // Everything valid for an idempotent producer passes.
    const ok = encodeSync({ producerId: 5n, producerEpoch: 0, baseSequence: 0, isTransactional: true, records: rec });
    expect((decodeSync(ok).batches[0] as RecordBatch).isTransactional).toBe(true);
  });

  it("log validation allows compacted batches: offset gaps, lastOffsetDelta beyond the last record, empty batches", () => {
    const gaps = encodeSync(
      {
        lastOffsetDelta: 9,
        records: [
          { offsetDelta: 2, value: "a", timestamp: 5n },
          { offsetDelta: 7, value: "b", timestamp: 6n },
        ],
      },
      "log",
    );
    const b = decodeSync(gaps).batches[0] as RecordBatch;
    expect(b.records.map((r) => r.offset)).toEqual([2n, 7n]);
    expect(b.nextOffset).toBe(10n);
    // An empty batch is the 61-byte header alone (what the cleaner keeps for producer state).
    const empty = encodeSync(
      { baseOffset: 40n, lastOffsetDelta: 3, producerId: 7n, producerEpoch: 1, baseSequence: 0, records: [] },
      "log",
    );
    expect(empty.length).toBe(61);
    const e = decodeSync(empty).batches[0] as RecordBatch;
    expect([e.recordCount, e.batchLength, e.baseTimestamp, e.nextOffset]).toEqual([0, 49, -1n, 44n]);
    // Even the log refuses offset deltas that go backwards.
    expect(
      encodeError(() =>
        encodeSync(
          {
            records: [
              { offsetDelta: 2, value: "a", timestamp: 5n },
              { offsetDelta: 1, value: "b", timestamp: 6n },
            ],
          },
          "log",
        ),
      ).path,
    ).toBe("records[1].offsetDelta");
  });

  it("wrong types and ranges are typed errors with the field path", () => {
    expect(encodeError(() => encodeSync({ records: [{ key: 5 as unknown as string, timestamp: 1n }] })).path).toBe(
      "records[0].key",
    );
    expect(encodeError(() => encodeSync({ baseOffset: 1.5, records: [{ timestamp: 1n }] })).path).toBe("baseOffset");
    expect(encodeError(() => encodeSync({ producerEpoch: 40000, records: [{ timestamp: 1n }] })).code).toBe(
      "INT_OUT_OF_RANGE",
    );
    const e = encodeError(() =>
      encodeSync({ records: [{ timestamp: 1n, headers: [{ key: "\ud800", value: null }] }] }),
    );
    expect([e.code, e.path]).toEqual(["INVALID_STRING", "records[0].headers[0].key"]);
  });

  it("compression without a codec names the codec and the package", () => {
    const e = encodeError(() => encodeRecordBatch({ compression: "lz4", records: [{ value: "v", timestamp: 1n }] }));
    expect(e.code).toBe("UNSUPPORTED_COMPRESSION");
    expect(e.message).toContain("lz4");
    expect(e.message).toContain("kafka-wire-compression");
  });

  it("an asynchronous codec makes encode and decode return Promises", async () => {
    const result = encodeRecordBatch({ compression: "gzip", records: [{ value: "v", timestamp: 1n }] });
    expect(result).toBeInstanceOf(Promise);
    const set = decodeRecords(await result);
    expect(set).toBeInstanceOf(Promise);
    expect(text(((await set).batches[0] as RecordBatch).records[0]!.value)).toBe("v");
    // The companion's zstd loads its WebAssembly on first use, then is synchronous.
    await zstd.compress(new Uint8Array(1), { level: undefined, magic: 2 });
    expect(
      encodeRecordBatch({ compression: "zstd", records: [{ value: "v", timestamp: 1n }] }, { codecs }),
    ).toBeInstanceOf(Uint8Array);
  });
});

describe("control records and the consumer's view", () => {
  it("transaction markers: COMMIT/ABORT keys and int16 version + int32 coordinatorEpoch values", () => {
    const commit = endTransactionMarker({
      type: "COMMIT",
      baseOffset: 5n,
      producerId: 9n,
      producerEpoch: 2,
      coordinatorEpoch: 17,
      timestamp: 1n,
    });
    const abort = endTransactionMarker({
      type: "ABORT",
      baseOffset: 6n,
      producerId: 9n,
      producerEpoch: 2,
      coordinatorEpoch: 3,
      timestamp: 1n,
    });
    const data = encodeSync({
      baseOffset: 3n,
      producerId: 9n,
      producerEpoch: 2,
      baseSequence: 0,
      isTransactional: true,
      records: [
        { value: "a", timestamp: 1n },
        { value: "b", timestamp: 1n },
      ],
    });
    const set = decodeSync(encodeRecords([data, commit, abort]) as Uint8Array);
    const [, c, a] = set.batches as RecordBatch[];
    expect([c!.isControl, c!.isTransactional]).toEqual([true, true]);
    expect(c!.records[0]!.control).toEqual({
      keyVersion: 0,
      typeId: 1,
      type: "COMMIT",
      marker: { version: 0, coordinatorEpoch: 17 },
    });
    expect(a!.records[0]!.control).toEqual({
      keyVersion: 0,
      typeId: 0,
      type: "ABORT",
      marker: { version: 0, coordinatorEpoch: 3 },
    });
    // Control batches never reach users as data.
    expect([...dataRecords(set)].map((r) => [r.offset, text(r.value)])).toEqual([
      [3n, "a"],
      [4n, "b"],
    ]);
  });

  it("KRaft and unknown control types are kept raw, with the caller's decoder's result", () => {
    const batch = encodeSync(
      {
        isControl: true,
        records: [
          { key: new Uint8Array([0, 0, 0, 2]), value: new Uint8Array([0, 0, 1, 2]), timestamp: 1n },
          { key: new Uint8Array([0, 0, 0, 42]), value: new Uint8Array([7]), timestamp: 1n },
        ],
      },
      "log",
    );
    const seen: [string, number, number[]][] = [];
    const set = decodeSync(batch, {
      controlDecoder: (type: string, id: number, value: Uint8Array | null) => {
        seen.push([type, id, [...value!]]);
        return id === 2 ? { decoded: true } : undefined;
      },
    });
    const records = (set.batches[0] as RecordBatch).records;
    expect(records.map((r) => [r.control!.type, r.control!.typeId, r.control!.decoded])).toEqual([
      ["LEADER_CHANGE", 2, { decoded: true }],
      ["UNKNOWN", 42, undefined],
    ]);
    expect(seen).toEqual([
      ["LEADER_CHANGE", 2, [0, 0, 1, 2]],
      ["UNKNOWN", 42, [7]],
    ]);
    expect([...dataRecords(set)]).toEqual([]);
  });

  it("a control key shorter than 4 bytes is CORRUPT_RECORD with the record's path", () => {
    const batch = encodeSync(
      { isControl: true, records: [{ key: new Uint8Array([0, 0]), value: null, timestamp: 1n }] },
      "log",
    );
    expect(() => decodeRecords(batch)).toThrow(
      expect.objectContaining({ code: "CORRUPT_RECORD", path: "batches[0].records[0]" }),
    );
  });
});

describe("record sets", () => {
  const a = encodeSync({ baseOffset: 100n, records: [{ key: "k", value: "v", timestamp: 1n }] });
  const b = encodeSync({ baseOffset: 101n, records: [{ key: "k2", value: "v2", timestamp: 2n }] });
  const both = encodeRecords([a, b]) as Uint8Array;

  it("a batch cut anywhere is an incomplete tail, never an error", () => {
    for (let cut = 1; cut < b.length; cut++) {
      const set = decodeSync(both.subarray(0, a.length + cut));
      expect(set.batches.length).toBe(1);
      expect(set.incompleteTail).toBe(cut);
      expect(set.validBytes).toBe(a.length);
    }
    expect(decodeSync(new Uint8Array(0))).toEqual({ batches: [], incompleteTail: 0, validBytes: 0 });
  });

  it("12+ bytes of a tail have their length checked, 17+ their magic (as Kafka's ByteBufferLogInputStream)", () => {
    const bad = both.slice(0, a.length + 17);
    bad[a.length + 16] = 3; // magic 3
    expect(() => decodeRecords(bad)).toThrow(
      expect.objectContaining({ code: "CORRUPT_RECORD", batchOffset: a.length, baseOffset: 101n }),
    );
    expect(decodeSync(bad.subarray(0, a.length + 16)).incompleteTail).toBe(16);
    const short = both.slice(0, a.length + 12);
    short.set([0, 0, 0, 13], a.length + 8); // length 13 < 14
    expect(() => decodeRecords(short)).toThrow(
      expect.objectContaining({ code: "CORRUPT_RECORD", offset: a.length + 8 }),
    );
  });

  it("a CRC mismatch names the batch; verifyCrc: false reads on", () => {
    const bad = both.slice();
    bad[a.length + 70] = bad[a.length + 70]! ^ 1; // inside the second batch's first record (its key)
    expect(() => decodeRecords(bad)).toThrow(
      expect.objectContaining({
        code: "CRC_MISMATCH",
        baseOffset: 101n,
        batchOffset: a.length,
        path: "batches[1]",
        offset: a.length + 17,
      }),
    );
    expect(decodeSync(bad, { verifyCrc: false }).batches.length).toBe(2);
  });

  it("a CRC-32C override (e.g. a native one) is used to verify and to write", () => {
    const seen: number[] = [];
    const override = (data: Uint8Array) => {
      seen.push(data.length);
      return crc32c(data);
    };
    const batch = encodeRecordBatch({ records: [{ value: "v", timestamp: 1n }] }, { crc32c: override }) as Uint8Array;
    expect(decodeSync(batch, { crc32c: override }).batches.length).toBe(1);
    // Both calls got the bytes from the attributes (byte 21) to the end.
    expect(seen).toEqual([batch.length - 21, batch.length - 21]);
    expect(() => decodeRecords(batch, { crc32c: () => 0 })).toThrow(expect.objectContaining({ code: "CRC_MISMATCH" }));
  });

  it("withBatchHeader sets baseOffset and partitionLeaderEpoch outside the CRC, leaving the input as it was", () => {
    const copy = a.slice();
    const moved = withBatchHeader(a, { baseOffset: 5000n, partitionLeaderEpoch: 12 });
    expect(a).toEqual(copy);
    expect(moved.subarray(16)).toEqual(a.subarray(16)); // CRC and records untouched
    const batch = decodeSync(moved).batches[0] as RecordBatch;
    expect([batch.baseOffset, batch.partitionLeaderEpoch, batch.records[0]!.offset]).toEqual([5000n, 12, 5000n]);
    const appended = withBatchHeader(a, { maxTimestamp: { timestampType: "LogAppendTime", timestamp: 77n } });
    const lat = decodeSync(appended).batches[0] as RecordBatch;
    expect([lat.timestampType, lat.maxTimestamp, lat.records[0]!.timestamp]).toEqual(["LogAppendTime", 77n, 77n]);
  });

  it("withBatchHeader into a slot of a larger buffer, or in place: the same bytes as the copy, the slot returned", () => {
    const update = { baseOffset: 5000n, partitionLeaderEpoch: 12 } as const;
    const expected = withBatchHeader(a, update);
    // A slot in the middle of a segment: the bytes around it are left alone.
    const segment = new Uint8Array(a.length + 10).fill(0xee);
    const slot = segment.subarray(3, 3 + a.length);
    expect(withBatchHeader(a, update, slot)).toBe(slot);
    expect(slot).toEqual(expected);
    expect([...segment.subarray(0, 3), ...segment.subarray(3 + a.length)]).toEqual(Array(10).fill(0xee));
    // In place, including the CRC recomputed for LogAppendTime.
    const own = a.slice();
    const lat = { maxTimestamp: { timestampType: "LogAppendTime", timestamp: 77n } } as const;
    expect(withBatchHeader(own, lat, own)).toBe(own);
    expect(own).toEqual(withBatchHeader(a, lat));
  });

  it("withBatchHeader into: a wrong-sized target, or a bad field, is refused before a byte is written", () => {
    for (const into of [new Uint8Array(a.length - 1), new Uint8Array(a.length + 1), [] as unknown as Uint8Array]) {
      expect(() => withBatchHeader(a, { baseOffset: 1n }, into)).toThrow(
        expect.objectContaining({ code: "INVALID_VALUE", path: "into" }),
      );
    }
    // baseOffset is valid, the epoch is not: neither is written.
    const own = a.slice();
    expect(() => withBatchHeader(own, { baseOffset: 9n, partitionLeaderEpoch: 2 ** 31 }, own)).toThrow(
      expect.objectContaining({ code: "INT_OUT_OF_RANGE", path: "partitionLeaderEpoch" }),
    );
    expect(own).toEqual(a);
  });

  it("recordsMaxTimestamp and nullKeyRecords: LogValidator's maxTimestamp (from -1) and keyless records, as found", () => {
    // Worked by hand: the largest timestamp is the middle record's (10 + 7), the last one's key is null.
    const batch = encodeSync({
      baseTimestamp: 10n,
      records: [
        { key: "a", value: "1", timestampDelta: 0n },
        { key: null, value: "2", timestampDelta: 7n },
        { key: "c", value: "3", timestampDelta: 3n },
      ],
    });
    const b = decodeSync(batch).batches[0] as RecordBatch;
    expect([b.recordsMaxTimestamp, b.nullKeyRecords, b.maxTimestamp]).toEqual([17n, 1, 17n]);
    // sarama 1.22's maxTimestamp -1: read leniently, the records still give 17.
    const sarama = withBatchHeader(batch, { maxTimestamp: { timestampType: "CreateTime", timestamp: -1n } });
    expect(() => decodeRecords(sarama)).toThrow(expect.objectContaining({ code: "CORRUPT_RECORD" }));
    expect((decodeSync(sarama, { lenient: true }).batches[0] as RecordBatch).recordsMaxTimestamp).toBe(17n);
    // Past 2^53 the sum is exact (in bigint): 2^53 + 1 + 5.
    const far = decodeSync(
      encodeSync({ baseTimestamp: 2n ** 53n + 1n, records: [{ value: "v" }, { value: "w", timestampDelta: 5n }] }),
    );
    expect((far.batches[0] as RecordBatch).recordsMaxTimestamp).toBe(2n ** 53n + 6n);
    // No records: -1 and none.
    const empty = decodeSync(encodeSync({ records: [] }, "log"));
    expect([
      (empty.batches[0] as RecordBatch).recordsMaxTimestamp,
      (empty.batches[0] as RecordBatch).nullKeyRecords,
    ]).toEqual([-1n, 0]);
  });

  it("recordsMaxTimestamp and nullKeyRecords of a batch whose codec is missing throw as its records do", async () => {
    const zipped = (await encodeRecordBatch(
      { compression: "zstd", records: [{ value: "v", timestamp: 1n }] },
      { codecs },
    )) as Uint8Array;
    const b = decodeSync(zipped).batches[0] as RecordBatch;
    for (const read of [() => b.records, () => b.recordsMaxTimestamp, () => b.nullKeyRecords]) {
      expect(read).toThrow(expect.objectContaining({ code: "UNSUPPORTED_COMPRESSION" }));
    }
    const unzipped = (await decodeRecords(zipped, { codecs })).batches[0] as RecordBatch;
    expect([unzipped.recordsMaxTimestamp, unzipped.nullKeyRecords]).toEqual([1n, 1]);
  });

  it("decoded batches pass through encodeRecords byte for byte; spread copies are re-encoded", () => {
    const set = decodeSync(both);
    expect(encodeRecords(set.batches)).toEqual(both);
    const first = set.batches[0] as RecordBatch;
    const changed = { ...first, records: first.records, baseOffset: 7n } as unknown as RecordBatchInit;
    const reencoded = encodeRecordBatch(changed, { validation: "log" }) as Uint8Array;
    expect((decodeSync(reencoded).batches[0] as RecordBatch).baseOffset).toBe(7n);
  });

  it("decompressed output is capped", async () => {
    const big = await encodeRecordBatch(
      { compression: "zstd", records: [{ value: new Uint8Array(100_000), timestamp: 1n }] },
      { codecs },
    );
    for (const compression of ["gzip", "snappy", "lz4", "zstd"] as const) {
      const batch = await encodeRecordBatch(
        { compression, records: [{ value: new Uint8Array(100_000), timestamp: 1n }] },
        { codecs },
      );
      await expect(async () => decodeRecords(batch, { codecs, maxDecompressedBytes: 50_000 })).rejects.toMatchObject({
        code: "DECOMPRESSED_TOO_LARGE",
      });
      expect(
        ((await decodeRecords(batch, { codecs, maxDecompressedBytes: 200_000 })).batches[0] as RecordBatch).records[0]!
          .value!.length,
      ).toBe(100_000);
    }
    expect(big.length).toBeLessThan(1000);
    // A cap that is not a byte count (NaN from Number(undefined), a negative one) would turn the
    // guard off: it is refused before anything is decompressed.
    for (const cap of [Number.NaN, -1, 1.5, Infinity]) {
      expect(() => decodeRecords(big, { codecs, maxDecompressedBytes: cap })).toThrow(
        expect.objectContaining({ code: "INVALID_VALUE" }),
      );
    }
  });
});

describeShared(
  "endTransactionMarker against Kafka's MemoryRecords.withEndTransactionMarker",
  "golden/records",
  (dir) => {
    it("control/fixed/end-txn-commit: the same bytes", () => {
      const v = readVectors<RecordSetVector>(dir, "records-control.json").find(
        (x) => x.id === "control/fixed/end-txn-commit",
      )!;
      // The vector's note: offset 100, partitionLeaderEpoch 7, producerId 4242, epoch 3, coordinatorEpoch 17.
      const bytes = endTransactionMarker({
        type: "COMMIT",
        baseOffset: 100n,
        partitionLeaderEpoch: 7,
        producerId: 4242n,
        producerEpoch: 3,
        coordinatorEpoch: 17,
        timestamp: BigInt(v.batches[0]!["baseTimestamp"] as string),
      });
      expect(Buffer.from(bytes).toString("hex")).toBe(v.hex);
      expect(fromHex(v.hex)).toEqual(bytes);
    });
  },
);
