/**
 * Behaviours of Kafka's generated Java classes that the schemas alone do not tell, each modelled
 * in the generator and pinned here with bytes worked out by hand. (The README lists them.)
 */

import { beforeAll, expect, it } from "vitest";
import type { MessageCodec } from "../src/runtime/index.js";
import { corpusCodec } from "./support/corpus.js";
import { fromHex, toHex } from "./support/golden.js";
import { describeShared } from "./support/shared.js";

describeShared("Kafka quirks", "kafka-schemas", () => {
  let nullableStructs: MessageCodec<unknown>;
  beforeAll(async () => {
    nullableStructs = await corpusCodec("NullableStructMessage");
  });

  // NullableStructMessage v1 (clients-test schema), flexible:
  //   NullableStruct null: int8 marker ff
  //   NullableStruct2 {MyString "", MyInt 0}, nullable in v1: int8 marker 01, then 01 (compact "") 00000000 00 (no tags)
  //   NullableStruct3 (tag 0, default null) null: at its default, omitted
  //   NullableStruct4 (tag 1, default: a struct) null: not the default, so written as a tagged field whose
  //     presence marker is an UNSIGNED VARINT (00 = null), not the int8 ff of an untagged field:
  //     tag count 01 | tag 01 | size 01 | marker 00
  const hex = "ff" + "01" + "01" + "00000000" + "00" + "01" + "01" + "01" + "00";
  const value = {
    nullableStruct: null,
    nullableStruct2: { myString: "", myInt: 0 },
    nullableStruct3: null,
    nullableStruct4: null,
  };

  it("a tagged nullable struct's null is an unsigned varint 0, not int8 -1", () => {
    expect(toHex(nullableStructs.encode(value, 1))).toBe(hex);
    expect(nullableStructs.decode(fromHex(hex), 1)).toEqual(value);
  });

  it("a present tagged nullable struct's marker is unsigned varint 1, counted in the field size", () => {
    // NullableStruct3 {MyString "a", MyInt 2}: tag 00 | size 08 = marker 01 + 02 61 ("a") + 00000002 + 00 (no tags)
    const withStruct3 = { ...value, nullableStruct3: { myString: "a", myInt: 2 } };
    const expected =
      "ff" +
      "01" +
      "01" +
      "00000000" +
      "00" +
      "02" +
      "00" +
      "08" +
      "01" +
      "0261" +
      "00000002" +
      "00" +
      "01" +
      "01" +
      "00";
    expect(toHex(nullableStructs.encode(withStruct3, 1))).toBe(expected);
    expect(nullableStructs.decode(fromHex(expected), 1)).toEqual(withStruct3);
  });
});
