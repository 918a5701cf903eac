/**
 * Version ranges, as Kafka's generator has them (`org.apache.kafka.message.Versions`): an
 * inclusive range of versions, or none. Every range the generator handles is a {@link Versions};
 * the runtime's {@link VersionRange} (`{ lowest, highest }`, null for none) is only what generated
 * code and codecs carry, converted with {@link Versions.from} and {@link Versions.toRange}.
 *
 * Also the version conditions pruned at generation time, as Kafka's `VersionConditional` does.
 */

import type { VersionRange } from "../../src/runtime/wire.js";

/** Kafka's highest possible version: `"N+"` means `N..32767` (Java's `Short.MAX_VALUE`). */
export const MAX_VERSION = 0x7fff;

/** Text that is not a version range; `detail` completes `invalid <key> "<text>"` in a message. */
export class VersionsSyntaxError extends Error {
  constructor(
    readonly text: string,
    /** `' (expected "N", "N-M", "N+" or "none")'`, or `": <why>"`. */
    readonly detail: string,
  ) {
    super(`invalid versions ${JSON.stringify(text)}${detail}`);
    this.name = "VersionsSyntaxError";
  }
}

/** Leading and trailing blanks as Java's String.trim strips them: U+0000..U+0020 only. */
const VERSIONS_TEXT = /^[\x00-\x20]*(?:(none)|([0-9]+)(?:(\+)|-([0-9]+))?)[\x00-\x20]*$/;

/**
 * An inclusive range of versions `lowest..highest` within 0..32767, or the empty range
 * {@link Versions.NONE}. Immutable; compare with {@link equals}, never with `===`.
 */
export class Versions implements VersionRange {
  /** No version (Kafka's `"none"`). Its bounds are 0 and -1, so that no version lies between. */
  static readonly NONE: Versions = new Versions(0, -1);
  /** Every version, `"0+"`. */
  static readonly ALL: Versions = new Versions(0, MAX_VERSION);

  private constructor(
    readonly lowest: number,
    readonly highest: number,
  ) {
    Object.freeze(this);
  }

  /** `lowest..highest` (`highest` defaults to `lowest`). @throws RangeError outside 0..32767 or inverted. */
  static of(lowest: number, highest: number = lowest): Versions {
    const valid = (v: number): boolean => Number.isInteger(v) && v >= 0 && v <= MAX_VERSION;
    if (!valid(lowest) || !valid(highest) || lowest > highest) {
      throw new RangeError(`invalid version range ${lowest}..${highest}`);
    }
    return new Versions(lowest, highest);
  }

  /** The range `lo..hi`, or NONE when `lo > hi` (bounds already within 0..32767). */
  private static span(lo: number, hi: number): Versions {
    return lo > hi ? Versions.NONE : new Versions(lo, hi);
  }

  /** From the runtime's vocabulary: null (or undefined) is none. */
  static from(range: VersionRange | null | undefined): Versions {
    return range == null ? Versions.NONE : Versions.of(range.lowest, range.highest);
  }

  /**
   * Kafka's textual form (`Versions.parse`): `"3"`, `"1-4"`, `"2+"` (up to 32767) or `"none"`,
   * with ASCII blanks around it allowed (Java's `String.trim`).
   * @throws VersionsSyntaxError for anything else, a version above 32767, or `"4-1"`.
   */
  static parse(text: string): Versions {
    const match = VERSIONS_TEXT.exec(text);
    if (!match) throw new VersionsSyntaxError(text, ` (expected "N", "N-M", "N+" or "none")`);
    if (match[1] !== undefined) return Versions.NONE;
    const lowest = Number(match[2]);
    const highest = match[3] ? MAX_VERSION : match[4] !== undefined ? Number(match[4]) : lowest;
    if (lowest > MAX_VERSION || highest > MAX_VERSION) {
      throw new VersionsSyntaxError(text, `: versions must be at most ${MAX_VERSION}`);
    }
    if (lowest > highest) throw new VersionsSyntaxError(text, ": the lowest version is above the highest");
    return new Versions(lowest, highest);
  }

  isEmpty(): boolean {
    return this.lowest > this.highest;
  }

  /** True when `version` lies in this range (NONE contains nothing). */
  contains(version: number): boolean {
    return version >= this.lowest && version <= this.highest;
  }

  /** True when every version of `other` lies in this range (so always for an empty `other`). */
  covers(other: Versions): boolean {
    return other.isEmpty() || (this.lowest <= other.lowest && other.highest <= this.highest);
  }

  /** The versions in both. */
  intersect(other: Versions): Versions {
    if (this.isEmpty() || other.isEmpty()) return Versions.NONE;
    return Versions.span(Math.max(this.lowest, other.lowest), Math.min(this.highest, other.highest));
  }

  /** The versions of this range outside `other`: zero, one or two non-empty ranges, lowest first. */
  subtract(other: Versions): Versions[] {
    if (this.isEmpty()) return [];
    if (other.isEmpty()) return [this];
    const parts = [
      Versions.span(this.lowest, Math.min(this.highest, other.lowest - 1)),
      Versions.span(Math.max(this.lowest, other.highest + 1), this.highest),
    ];
    return parts.filter((p) => !p.isEmpty());
  }

  /** The smallest range covering both (the versions between them included). */
  hull(other: Versions): Versions {
    if (this.isEmpty()) return other;
    if (other.isEmpty()) return this;
    return new Versions(Math.min(this.lowest, other.lowest), Math.max(this.highest, other.highest));
  }

  equals(other: Versions): boolean {
    return this.isEmpty() ? other.isEmpty() : this.lowest === other.lowest && this.highest === other.highest;
  }

  /** Kafka's textual form: `"none"`, `"3"`, `"1-4"`, `"2+"`. */
  toString(): string {
    if (this.isEmpty()) return "none";
    if (this.highest === MAX_VERSION) return `${this.lowest}+`;
    if (this.lowest === this.highest) return `${this.lowest}`;
    return `${this.lowest}-${this.highest}`;
  }

  /** To the runtime's vocabulary: a plain `{ lowest, highest }`, or null for none. */
  toRange(): VersionRange | null {
    return this.isEmpty() ? null : { lowest: this.lowest, highest: this.highest };
  }
}

// ---------------------------------------------------------------------------------------------
// Version conditions

export type Condition =
  | { readonly kind: "always" }
  | { readonly kind: "never" }
  | {
      readonly kind: "check";
      readonly expr: string;
      readonly inside: Versions;
      /** The rest of the context, or null when it is not one contiguous range. */
      readonly outside: Versions | null;
    };

/**
 * The condition "version is in `range`" for a function whose `version` is known to lie in
 * `ctx` (Kafka's `VersionConditional`): a check that always holds for those versions
 * disappears, one that never holds is not emitted at all. `inside`/`outside` are the narrowed
 * contexts of the two branches (`outside` is null when the remainder is not one contiguous
 * range; callers then keep `ctx`).
 */
export function condition(range: Versions, ctx: Versions, variable = "version"): Condition {
  const inside = range.intersect(ctx);
  if (inside.isEmpty()) return { kind: "never" };
  const needLow = inside.lowest > ctx.lowest;
  const needHigh = inside.highest < ctx.highest;
  if (!needLow && !needHigh) return { kind: "always" };
  const parts: string[] = [];
  if (needLow) parts.push(`${variable} >= ${inside.lowest}`);
  if (needHigh) parts.push(`${variable} <= ${inside.highest}`);
  const rest = ctx.subtract(inside);
  return { kind: "check", expr: parts.join(" && "), inside, outside: rest.length === 1 ? rest[0]! : null };
}
