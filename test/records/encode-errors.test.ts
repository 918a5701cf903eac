/**
 * Issue 17, item 4: encode-side inputs of the wrong type end in a KafkaEncodeError naming the
 * field, never a TypeError or a silently wrong batch; the `crc32c` plug-in's result is checked on
 * both sides.
 */

import { describe, expect, it } from "vitest";
import {
  decodeRecords,
  encodeRecordBatch,
  encodeRecords,
  endTransactionMarker,
  KafkaRecordsError,
  withBatchHeader,
} from "../../src/records/index.js";
import { KafkaEncodeError } from "../../src/runtime/errors.js";

function encodeError(f: () => unknown): KafkaEncodeError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(KafkaEncodeError);
    return e as KafkaEncodeError;
  }
  throw new Error("expected a KafkaEncodeError");
}

const one = { records: [{ value: "v", timestamp: 5 }] };
const any = (v: unknown) => v as never;

describe("encode-side inputs of the wrong type", () => {
  it("a Symbol timestamp", () => {
    const e = encodeError(() => encodeRecordBatch({ records: [{ value: "v", timestamp: any(Symbol("t")) }] }));
    expect([e.code, e.path]).toEqual(["INVALID_VALUE", "records[0].timestamp"]);
    expect(encodeError(() => encodeRecordBatch({ baseTimestamp: any(Symbol()), records: [{ value: "v" }] })).path).toBe(
      "baseTimestamp",
    );
  });

  it("null or non-object options", () => {
    for (const options of [null, 5, "producer"]) {
      const e = encodeError(() => encodeRecordBatch(one, any(options)));
      expect([e.code, e.path]).toEqual(["INVALID_VALUE", "options"]);
    }
    expect(encodeError(() => encodeRecords([one], any(null))).path).toBe("options");
  });

  it("an unknown validation value (a typo would switch the producer checks off)", () => {
    for (const validation of ["Producer", "none", "", 1]) {
      const e = encodeError(() => encodeRecordBatch({ isControl: true, records: [] }, { validation: any(validation) }));
      expect([e.code, e.path]).toEqual(["INVALID_VALUE", "options.validation"]);
    }
  });

  it("encodeRecords of something that is not an array, and a bad batch inside one (named by its index)", () => {
    for (const batches of ["x", null, 3, { length: 1 }]) {
      const e = encodeError(() => encodeRecords(any(batches)));
      expect([e.code, e.path]).toEqual(["INVALID_VALUE", "batches"]);
    }
    const e = encodeError(() => encodeRecords([one, { records: [{ value: 7 }] }] as never));
    expect(e.path).toBe("batches[1].records[0].value");
  });

  it("withBatchHeader with a null or non-object update, or a bad maxTimestamp", () => {
    const raw = encodeRecordBatch(one) as Uint8Array;
    for (const update of [null, 1, "x"]) {
      expect(encodeError(() => withBatchHeader(raw, any(update))).path).toBe("update");
    }
    expect(encodeError(() => withBatchHeader(raw, { maxTimestamp: any(null) })).path).toBe("maxTimestamp");
    expect(
      encodeError(() => withBatchHeader(raw, { maxTimestamp: { timestampType: any("Log"), timestamp: 1 } })).path,
    ).toBe("maxTimestamp.timestampType");
  });

  it("endTransactionMarker(null)", () => {
    for (const init of [null, undefined, "COMMIT"]) {
      expect(encodeError(() => endTransactionMarker(any(init))).code).toBe("INVALID_VALUE");
    }
  });

  it("a throwing getter in a record ends as a KafkaEncodeError with the getter's error as cause", () => {
    const boom = new Error("boom");
    const record = {
      get value(): string {
        throw boom;
      },
    };
    const e = encodeError(() => encodeRecordBatch({ records: [record] }));
    expect(e.code).toBe("INVALID_VALUE");
    expect(e.cause).toBe(boom);
  });
});

describe("the crc32c plug-in", () => {
  const raw = encodeRecordBatch(one) as Uint8Array;

  it("returning a non-number is an error on encode, not CRC 0", () => {
    // 2^40 >>> 0 would be CRC 0, 2^32 + 5 CRC 5: numbers past 32 bits are refused too.
    for (const result of ["x", undefined, null, 1.5, 10n, 2 ** 40, 2 ** 32 + 5, -(2 ** 31) - 1]) {
      const e = encodeError(() => encodeRecordBatch(one, { crc32c: () => result as never }));
      expect([e.code, e.path]).toEqual(["INVALID_VALUE", "options.crc32c"]);
    }
    const thrown = new Error("native crc failed");
    expect(
      encodeError(() =>
        encodeRecordBatch(one, {
          crc32c: () => {
            throw thrown;
          },
        }),
      ).cause,
    ).toBe(thrown);
    expect(encodeError(() => encodeRecordBatch(one, { crc32c: any("crc") })).path).toBe("options.crc32c");
  });

  it("returning a non-number is an error on decode, not a comparison with CRC 0", () => {
    // A batch whose stored CRC is 0 would otherwise pass with a plug-in returning undefined (undefined >>> 0 = 0).
    const zeroCrc = raw.slice();
    zeroCrc.fill(0, 17, 21);
    for (const result of [undefined, "0", null, 2 ** 40, 2 ** 32]) {
      let error: unknown;
      try {
        decodeRecords(zeroCrc, { crc32c: () => result as never });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(KafkaRecordsError);
      expect([(error as KafkaRecordsError).code, (error as KafkaRecordsError).offset]).toEqual(["INVALID_VALUE", 17]);
    }
    // A plug-in returning a number is used as before: its CRC matches the stored one.
    const stored = new DataView(raw.buffer, raw.byteOffset).getUint32(17);
    expect(() => decodeRecords(raw, { crc32c: () => stored })).not.toThrow();
    // The same 32 bits as a signed int (what Java's Checksum gives as an int, and some JS CRC
    // packages return) are the same CRC: stored - 2^32 when the top bit is set.
    const signed = stored | 0;
    expect(() => decodeRecords(raw, { crc32c: () => signed })).not.toThrow();
    const written = encodeRecordBatch(one, { crc32c: () => signed }) as Uint8Array;
    expect(new DataView(written.buffer, written.byteOffset).getUint32(17)).toBe(stored);
  });
});
