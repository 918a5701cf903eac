/**
 * Versions and version conditions, with cases worked out by hand as Apache Kafka's own
 * `VersionsTest` and `VersionConditionalTest` do for its generator.
 */

import { describe, expect, it } from "vitest";
import { condition, MAX_VERSION, Versions, VersionsSyntaxError } from "../../generator/schema/versions.js";

const v = (lowest: number, highest: number = lowest): Versions => Versions.of(lowest, highest);
const { NONE, ALL } = Versions;

describe("Versions.parse and toString (Kafka's textual form)", () => {
  it.each([
    ["3", 3, 3, "3"],
    ["1-4", 1, 4, "1-4"],
    ["2+", 2, MAX_VERSION, "2+"],
    ["0+", 0, 32767, "0+"],
    ["0-32767", 0, 32767, "0+"], // the same range as "0+", printed as Kafka prints it
    ["5-5", 5, 5, "5"],
    ["  7-9 \t", 7, 9, "7-9"], // ASCII blanks around the text, as Java's String.trim strips them
    ["007", 7, 7, "7"],
  ])("%j is %i..%i and prints as %j", (text, lowest, highest, printed) => {
    const parsed = Versions.parse(text);
    expect([parsed.lowest, parsed.highest]).toEqual([lowest, highest]);
    expect(parsed.toString()).toBe(printed);
  });

  it('"none" is the empty range', () => {
    expect(Versions.parse("none").isEmpty()).toBe(true);
    expect(Versions.parse(" none ").equals(NONE)).toBe(true);
    expect(NONE.toString()).toBe("none");
  });

  it.each([
    ["", ' (expected "N", "N-M", "N+" or "none")'],
    ["1-x", ' (expected "N", "N-M", "N+" or "none")'],
    ["-1", ' (expected "N", "N-M", "N+" or "none")'],
    ["1+2", ' (expected "N", "N-M", "N+" or "none")'],
    ["NONE", ' (expected "N", "N-M", "N+" or "none")'],
    ["1 - 2", ' (expected "N", "N-M", "N+" or "none")'],
    ["\u00a01", ' (expected "N", "N-M", "N+" or "none")'], // a no-break space is not trimmed
    ["32768", ": versions must be at most 32767"],
    ["0-40000", ": versions must be at most 32767"],
    ["3-1", ": the lowest version is above the highest"],
  ])("rejects %j", (text, detail) => {
    let error: unknown;
    try {
      Versions.parse(text);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(VersionsSyntaxError);
    expect((error as VersionsSyntaxError).detail).toBe(detail);
    expect((error as VersionsSyntaxError).message).toBe(`invalid versions ${JSON.stringify(text)}${detail}`);
  });
});

describe("Versions operations", () => {
  it("of() refuses what is not a range of 0..32767", () => {
    expect(() => Versions.of(-1, 2)).toThrow(RangeError);
    expect(() => Versions.of(3, 2)).toThrow(RangeError);
    expect(() => Versions.of(0, 32768)).toThrow(RangeError);
    expect(() => Versions.of(1.5)).toThrow(RangeError);
    expect(v(4).toString()).toBe("4");
  });

  it("contains a version only between its bounds; NONE contains nothing", () => {
    expect([0, 1, 2, 4, 5].map((x) => v(1, 4).contains(x))).toEqual([false, true, true, true, false]);
    expect(ALL.contains(32767)).toBe(true);
    expect(NONE.contains(0)).toBe(false);
    expect(NONE.contains(-1)).toBe(false);
  });

  it("intersect", () => {
    expect(v(1, 4).intersect(v(3, 8)).toString()).toBe("3-4");
    expect(v(1, 4).intersect(v(4, 8)).toString()).toBe("4");
    expect(v(1, 4).intersect(v(5, 8)).isEmpty()).toBe(true);
    expect(v(2, MAX_VERSION).intersect(v(0, 5)).toString()).toBe("2-5");
    expect(v(1, 4).intersect(ALL).toString()).toBe("1-4");
    expect(v(1, 4).intersect(NONE).isEmpty()).toBe(true);
    expect(NONE.intersect(ALL).isEmpty()).toBe(true);
  });

  it("subtract gives the parts outside, lowest first", () => {
    const text = (parts: Versions[]): string[] => parts.map((p) => p.toString());
    expect(text(v(0, 10).subtract(v(3, 5)))).toEqual(["0-2", "6-10"]); // a hole: two parts
    expect(text(v(0, 10).subtract(v(0, 5)))).toEqual(["6-10"]);
    expect(text(v(0, 10).subtract(v(5, MAX_VERSION)))).toEqual(["0-4"]);
    expect(text(v(0, MAX_VERSION).subtract(v(2, MAX_VERSION)))).toEqual(["0-1"]);
    expect(text(v(3, 5).subtract(v(0, 10)))).toEqual([]);
    expect(text(v(3, 5).subtract(v(7, 9)))).toEqual(["3-5"]);
    expect(text(v(3, 5).subtract(NONE))).toEqual(["3-5"]);
    expect(text(NONE.subtract(v(3, 5)))).toEqual([]);
    expect(text(v(3).subtract(v(3)))).toEqual([]);
  });

  it("hull covers both and what lies between", () => {
    expect(v(1, 2).hull(v(5, 6)).toString()).toBe("1-6");
    expect(v(5, 6).hull(v(1, 2)).toString()).toBe("1-6");
    expect(v(1, 2).hull(v(3, MAX_VERSION)).toString()).toBe("1+");
    expect(NONE.hull(v(4)).toString()).toBe("4");
    expect(v(4).hull(NONE).toString()).toBe("4");
    expect(NONE.hull(NONE).isEmpty()).toBe(true);
  });

  it("covers: every version of the other is inside (so the empty range always is)", () => {
    expect(v(0, 10).covers(v(2, 3))).toBe(true);
    expect(v(0, 10).covers(v(0, 10))).toBe(true);
    expect(v(0, 10).covers(v(9, 11))).toBe(false);
    expect(v(2, MAX_VERSION).covers(v(1, MAX_VERSION))).toBe(false);
    expect(v(2, 3).covers(NONE)).toBe(true);
    expect(NONE.covers(NONE)).toBe(true);
    expect(NONE.covers(v(0))).toBe(false);
  });

  it("equals compares the versions, not the objects", () => {
    expect(Versions.parse("1-4").equals(v(1, 4))).toBe(true);
    expect(Versions.parse("2+").equals(v(2, 32767))).toBe(true);
    expect(v(1, 4).equals(v(1, 5))).toBe(false);
    expect(v(1, 4).intersect(v(6, 8)).equals(NONE)).toBe(true);
    expect(NONE.equals(v(0))).toBe(false);
  });

  it("converts to and from the runtime's VersionRange (null for none)", () => {
    expect(v(1, 4).toRange()).toEqual({ lowest: 1, highest: 4 });
    expect(NONE.toRange()).toBeNull();
    expect(Versions.from(null).isEmpty()).toBe(true);
    expect(Versions.from({ lowest: 2, highest: 32767 }).toString()).toBe("2+");
  });

  it("is immutable", () => {
    const range = v(1, 4);
    expect(() => {
      (range as { lowest: number }).lowest = 0;
    }).toThrow(TypeError);
    expect(range.toString()).toBe("1-4");
  });
});

describe("condition (Kafka's VersionConditional)", () => {
  it("disappears when it always holds in the context", () => {
    expect(condition(v(0, MAX_VERSION), v(2, 5)).kind).toBe("always");
    expect(condition(v(2, 5), v(2, 5)).kind).toBe("always");
  });

  it("is never emitted when it never holds", () => {
    expect(condition(v(6, 9), v(2, 5)).kind).toBe("never");
    expect(condition(NONE, v(2, 5)).kind).toBe("never");
  });

  it("checks only the bound the context does not already imply, and narrows both branches", () => {
    expect(condition(v(3, MAX_VERSION), v(0, 5))).toEqual({
      kind: "check",
      expr: "version >= 3",
      inside: v(3, 5),
      outside: v(0, 2),
    });
    expect(condition(v(0, 2), v(0, 5))).toEqual({
      kind: "check",
      expr: "version <= 2",
      inside: v(0, 2),
      outside: v(3, 5),
    });
    // Both bounds: the else branch is two ranges, so it keeps the whole context (outside null).
    expect(condition(v(2, 3), v(0, 5), "_version")).toEqual({
      kind: "check",
      expr: "_version >= 2 && _version <= 3",
      inside: v(2, 3),
      outside: null,
    });
  });
});
