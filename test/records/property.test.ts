/**
 * Build, then decode: random batches round-trip under every codec (none, gzip, snappy, lz4,
 * zstd): empty, null and large keys and values, null header values, repeated header keys,
 * timestamps going backwards, offset gaps (log validation), and any int64 base offset.
 */

import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { codecs, initZstd } from "../../compression/src/index.js";
import {
  decodeRecords,
  encodeRecordBatch,
  type Compression,
  type RecordBatch,
  type RecordBatchInit,
} from "../../src/records/index.js";

const bytesArb = fc.oneof(
  { weight: 2, arbitrary: fc.constant(null) },
  { weight: 2, arbitrary: fc.constant(new Uint8Array(0)) },
  { weight: 6, arbitrary: fc.uint8Array({ maxLength: 200 }) },
  // Large and compressible: crosses lz4's 64 KiB blocks and snappy's 32 KiB chunks.
  {
    weight: 1,
    arbitrary: fc.integer({ min: 66_000, max: 80_000 }).map((n) => new Uint8Array(n).map((_, i) => (i * 7) % 13)),
  },
);

const headerKeyArb = fc.oneof(fc.constantFrom("trace", "id", ""), fc.string({ unit: "binary", maxLength: 8 }));

const recordArb = fc.record({
  key: bytesArb,
  value: bytesArb,
  timestampStep: fc.integer({ min: -100_000, max: 100_000 }),
  gap: fc.integer({ min: 1, max: 1000 }),
  headers: fc.array(
    fc.record({ key: headerKeyArb, value: fc.oneof(fc.constant(null), fc.uint8Array({ maxLength: 16 })) }),
    {
      maxLength: 4,
    },
  ),
});

const batchArb = fc.record({
  baseOffset: fc.bigInt({ min: 0n, max: 2n ** 63n - 1n }),
  baseTimestamp: fc.bigInt({ min: 2_000_000n, max: 2n ** 62n }), // steps below cannot reach a negative timestamp
  partitionLeaderEpoch: fc.integer({ min: -1, max: 2 ** 31 - 1 }),
  logAppendTime: fc.boolean(),
  withGaps: fc.boolean(),
  extraLastOffsetDelta: fc.integer({ min: 0, max: 5 }),
  producer: fc.option(
    fc.record({
      producerId: fc.bigInt({ min: 0n, max: 2n ** 63n - 1n }),
      producerEpoch: fc.integer({ min: 0, max: 32767 }),
      baseSequence: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
      isTransactional: fc.boolean(),
    }),
    { nil: undefined },
  ),
  records: fc.array(recordArb, { minLength: 1, maxLength: 12 }),
});

type BatchValue = typeof batchArb extends fc.Arbitrary<infer T> ? T : never;

/** Byte equality without vitest's element-by-element diffing (values reach 80 KB). */
function same(a: Uint8Array | null, b: Uint8Array | null): boolean {
  return a === null || b === null ? a === b : Buffer.from(a.buffer, a.byteOffset, a.length).equals(b);
}

function toInit(b: BatchValue, compression: Compression): RecordBatchInit {
  let offsetDelta = -1;
  let timestamp = b.baseTimestamp;
  const records = b.records.map((r, i) => {
    offsetDelta = b.withGaps ? offsetDelta + r.gap : i;
    if (i > 0) timestamp += BigInt(r.timestampStep);
    return { offsetDelta, timestamp, key: r.key, value: r.value, headers: r.headers };
  });
  return {
    baseOffset: b.baseOffset,
    partitionLeaderEpoch: b.partitionLeaderEpoch,
    compression,
    timestampType: b.logAppendTime ? "LogAppendTime" : "CreateTime",
    lastOffsetDelta: offsetDelta + (b.withGaps ? b.extraLastOffsetDelta : 0),
    ...(b.producer ?? {}),
    records,
  };
}

describe("build then decode", () => {
  beforeAll(() => initZstd());

  it.each(["none", "gzip", "snappy", "lz4", "zstd"] as const)("%s", async (compression) => {
    await fc.assert(
      fc.asyncProperty(batchArb, async (b) => {
        const init = toInit(b, compression);
        const bytes = await encodeRecordBatch(init, { codecs, validation: b.withGaps ? "log" : "producer" });
        const set = await decodeRecords(bytes, { codecs, maxDecompressedBytes: 4 << 20 });
        expect(set.incompleteTail).toBe(0);
        expect(set.validBytes).toBe(bytes.length);
        const batch = set.batches[0] as RecordBatch;
        expect(batch.compression).toBe(compression);
        expect(batch.baseOffset).toBe(b.baseOffset);
        expect(batch.partitionLeaderEpoch).toBe(b.partitionLeaderEpoch);
        expect(batch.lastOffsetDelta).toBe(init.lastOffsetDelta);
        expect(batch.producerId).toBe(b.producer?.producerId ?? -1n);
        expect(batch.baseSequence).toBe(b.producer?.baseSequence ?? -1);
        expect(batch.isTransactional).toBe(b.producer?.isTransactional ?? false);
        expect(batch.recordCount).toBe(init.records.length);
        const timestamps = init.records.map((r) => r.timestamp as bigint);
        const max = timestamps.reduce((a, c) => (c > a ? c : a));
        expect(batch.baseTimestamp).toBe(timestamps[0]);
        expect(batch.maxTimestamp).toBe(max);
        expect(batch.records.length).toBe(init.records.length);
        batch.records.forEach((r, i) => {
          const want = init.records[i]!;
          expect(r.offset).toBe(b.baseOffset + BigInt(want.offsetDelta!));
          expect(r.timestamp).toBe(b.logAppendTime ? max : want.timestamp);
          expect(same(r.key, want.key as Uint8Array | null)).toBe(true);
          expect(same(r.value, want.value as Uint8Array | null)).toBe(true);
          expect(r.headers.length).toBe(want.headers!.length);
          r.headers.forEach((h, j) => {
            expect(h.key).toBe(want.headers![j]!.key);
            expect(same(h.value, want.headers![j]!.value as Uint8Array | null)).toBe(true);
          });
        });
      }),
      { numRuns: compression === "none" ? 150 : 50 },
    );
  });
});
