/**
 * decodeWithSpans on inputs worked out by hand: the offsets below are counted byte by byte in the
 * comments, never taken from our own output. The golden vectors of Kafka's schemas are in
 * spans-golden.test.ts; record sets in test/records/spans.test.ts.
 */

import { describe, expect, it } from "vitest";
import {
  StreamsGroupDescribeRequest,
  StreamsGroupDescribeRequest$fields,
} from "../../generated/StreamsGroupDescribeRequest.js";
import { encodeRecordBatch } from "../../src/records/index.js";
import { recordSpans } from "../../src/records/spans.js";
import { KafkaDecodeError } from "../../src/runtime/errors.js";
import { decodeWithSpans, spansOf, type ByteSpan } from "../../src/runtime/spans.js";
import type { MessageTable } from "../../src/runtime/table.js";
import { spanProblems } from "../support/spans.js";

/** `offset+length kind path` of each span, indented by depth: what the comments work out. */
function outline(spans: readonly ByteSpan[]): string[] {
  return spans.map((s) => `${"  ".repeat(s.depth)}${s.offset}+${s.length} ${s.kind} ${s.path}`);
}

const bytes = (...b: number[]): Uint8Array => new Uint8Array(b);

/**
 * A table written by hand (tables are data): v0 classic, v1 flexible with a tagged nullable
 * string `note` (tag 0), an array of structs with an int32 array inside.
 */
const EXAMPLE: MessageTable = {
  name: "Example",
  validVersions: "0-1",
  flexibleVersions: "1+",
  structs: {
    Example: [
      ["throttleTimeMs", "int32", "0-1"],
      ["topics", "[]Topic", "0-1"],
      ["note", "string", "1", { nullable: "1", tag: 0, tagged: "1", default: null }],
    ],
    Topic: [
      ["name", "string", "0-1"],
      ["partitions", "[]int32", "0-1"],
    ],
  },
};

describe("decodeWithSpans, by hand", () => {
  it("gives every field, element, prefix and tagged field of a flexible version its bytes", () => {
    // v1, 23 bytes:
    //  0..4   00 00 00 0a     throttleTimeMs = 10
    //  4      02              topics: compact length 1 (n+1)
    //  5..7   02 74           topics[0].name "t" (compact: 1+1, then 't')
    //  7      03              topics[0].partitions: compact length 2
    //  8..12  00 00 00 01     partitions[0] = 1
    // 12..16  00 00 00 02     partitions[1] = 2
    // 16      00              topics[0]: no tagged fields
    // 17      01              the message's tagged fields: 1
    // 18      00              tag 0 (note)
    // 19      03              its size: 3 bytes
    // 20..23  03 68 69        note: compact nullable string "hi"
    const input = bytes(0, 0, 0, 10, 2, 2, 0x74, 3, 0, 0, 0, 1, 0, 0, 0, 2, 0, 1, 0, 3, 3, 0x68, 0x69);
    const { value, spans } = decodeWithSpans(EXAMPLE, input, 1);
    expect(value).toEqual({ throttleTimeMs: 10, topics: [{ name: "t", partitions: [1, 2] }], note: "hi" });
    expect(outline(spans)).toEqual([
      "0+23 message ",
      "  0+4 field throttleTimeMs",
      "  4+13 field topics",
      "    4+1 prefix topics.$length",
      "    5+12 element topics[0]",
      "      5+2 field topics[0].name",
      "      7+9 field topics[0].partitions",
      "        7+1 prefix topics[0].partitions.$length",
      "        8+4 element topics[0].partitions[0]",
      "        12+4 element topics[0].partitions[1]",
      "      16+1 tagged-fields topics[0].$tagged",
      "        16+1 prefix topics[0].$tagged.$count",
      "  17+6 tagged-fields $tagged",
      "    17+1 prefix $tagged.$count",
      "    18+5 tagged-field note",
      "      18+1 prefix note.$tag",
      "      19+1 prefix note.$size",
      "      20+3 field note",
    ]);
    const byPath = (p: string, kind = "field"): ByteSpan => spans.find((s) => s.path === p && s.kind === kind)!;
    expect(byPath("note", "tagged-field").tag).toBe(0);
    expect(byPath("note").value).toBe("hi");
    expect(byPath("topics[0].partitions[1]", "element").value).toBe(2);
    expect(byPath("note.$size", "prefix").value).toBe(3);
    expect(spanProblems(spans, input.length)).toBe("");
  });

  it("reads classic lengths in a version that is not flexible, and defaults what it lacks", () => {
    // v0, 15 bytes: 00 00 00 05 throttleTimeMs | 00 00 00 01 topics: 1 | 00 01 74 name "t" (int16
    // length) | 00 00 00 00 partitions: 0 (int32 length). No tagged fields: note takes its default (null).
    const input = bytes(0, 0, 0, 5, 0, 0, 0, 1, 0, 1, 0x74, 0, 0, 0, 0);
    const { value, spans } = decodeWithSpans(EXAMPLE, input, 0);
    expect(value).toEqual({ throttleTimeMs: 5, topics: [{ name: "t", partitions: [] }], note: null });
    expect(outline(spans)).toEqual([
      "0+15 message ",
      "  0+4 field throttleTimeMs",
      "  4+11 field topics",
      "    4+4 prefix topics.$length",
      "    8+7 element topics[0]",
      "      8+3 field topics[0].name",
      "      11+4 field topics[0].partitions",
      "        11+4 prefix topics[0].partitions.$length",
    ]);
  });

  it("keeps an unknown tagged field, as the generated decoder does", () => {
    // StreamsGroupDescribeRequest v0, 12 bytes:
    //  0      03        groupIds: compact length 2
    //  1..3   02 61     groupIds[0] "a"
    //  3..6   03 62 63  groupIds[1] "bc"
    //  6      01        includeAuthorizedOperations true
    //  7      01        tagged fields: 1
    //  8      05        tag 5 (the schema has none)
    //  9      02        size 2
    // 10..12  aa bb     its data
    const input = bytes(3, 2, 0x61, 3, 0x62, 0x63, 1, 1, 5, 2, 0xaa, 0xbb);
    const { value, spans } = decodeWithSpans(StreamsGroupDescribeRequest$fields, input, 0);
    expect(value).toEqual(StreamsGroupDescribeRequest.decode(input, 0));
    expect(outline(spans).slice(5)).toEqual([
      "  6+1 field includeAuthorizedOperations",
      "  7+5 tagged-fields $tagged",
      "    7+1 prefix $tagged.$count",
      "    8+4 tagged-field $tagged.$unknown[0]",
      "      8+1 prefix $tagged.$unknown[0].$tag",
      "      9+1 prefix $tagged.$unknown[0].$size",
      "      10+2 field $tagged.$unknown[0].data",
    ]);
    expect(spans[8]!.tag).toBe(5);
  });

  it("fails as decode does, with the field path, the byte offset and the spans so far", () => {
    // The v1 input above cut after 16 bytes: topics[0]'s tagged-field count (at 16) is missing.
    const input = bytes(0, 0, 0, 10, 2, 2, 0x74, 3, 0, 0, 0, 1, 0, 0, 0, 2);
    let error: unknown;
    try {
      decodeWithSpans(EXAMPLE, input, 1);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(KafkaDecodeError);
    const e = error as KafkaDecodeError;
    expect([e.code, e.path, e.offset]).toEqual(["BUFFER_UNDERFLOW", "topics[0]", 16]);
    const spans = spansOf(e)!;
    // The spans still open end where the error is: the section and its count are empty.
    expect(outline(spans).slice(-3)).toEqual([
      "        12+4 element topics[0].partitions[1]",
      "      16+0 tagged-fields topics[0].$tagged",
      "        16+0 prefix topics[0].$tagged.$count",
    ]);
    // Cut at 16 too: the message, topics and topics[0].
    expect([spans[0]!.length, spans[2]!.length, spans[4]!.length]).toEqual([16, 12, 11]);
  });

  it("refuses trailing bytes and versions outside the table, as decode does", () => {
    // 01 groupIds: none | 00 false | 00 no tagged fields | ff: one byte too many, at 3.
    const input = bytes(1, 0, 0, 0xff);
    expect(() => decodeWithSpans(StreamsGroupDescribeRequest$fields, input, 0)).toThrow(
      expect.objectContaining({ code: "TRAILING_BYTES", offset: 3 }),
    );
    expect(decodeWithSpans(StreamsGroupDescribeRequest$fields, input, 0, { allowTrailingBytes: true }).value).toEqual(
      StreamsGroupDescribeRequest.decode(input, 0, { allowTrailingBytes: true }),
    );
    expect(() => decodeWithSpans(EXAMPLE, input, 2)).toThrow(expect.objectContaining({ code: "UNSUPPORTED_VERSION" }));
  });

  it("shows the record batches of a records field with recordSpans, and the field as one value without", () => {
    const table: MessageTable = {
      name: "Produce",
      validVersions: "0",
      flexibleVersions: "0+",
      structs: { Produce: [["records", "records", "0", { nullable: "0", default: null }]] },
    };
    const batch = encodeRecordBatch({ records: [{ key: new Uint8Array([1]), value: null }] }) as Uint8Array;
    // A compact length (one byte: the batch is below 127 bytes), the batch, no tagged fields.
    expect(batch.length).toBeLessThan(126);
    const input = new Uint8Array([batch.length + 1, ...batch, 0]);
    const { spans } = decodeWithSpans(table, input, 0, { recordSpans });
    const end = 1 + batch.length;
    expect(outline(spans.filter((s) => s.depth <= 2))).toEqual([
      `0+${end + 1} message `,
      `  0+${end} field records`,
      "    0+1 prefix records.$length",
      `    1+${batch.length} batch records[0]`,
      `  ${end}+1 tagged-fields $tagged`,
      `    ${end}+1 prefix $tagged.$count`,
    ]);
    // The batch header's 13 fields (61 bytes), then the one record.
    const inBatch = spans.filter((s) => s.depth === 3);
    expect(inBatch.map((s) => s.path.slice("records[0].".length)).slice(-2)).toEqual(["recordCount", "records[0]"]);
    expect(inBatch.at(-1)!.offset).toBe(1 + 61);
    expect(spans.find((s) => s.path === "records[0].records[0].key")!.value).toEqual(new Uint8Array([1]));
    expect(spanProblems(spans, input.length)).toBe("");
    const plain = decodeWithSpans(table, input, 0).spans;
    expect(plain.find((s) => s.path === "records")!.value).toEqual(batch);
    expect(plain.some((s) => s.path.startsWith("records["))).toBe(false);
  });
});
