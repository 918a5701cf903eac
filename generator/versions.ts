/**
 * Version conditions pruned at generation time, as Kafka's `VersionConditional` does: a check
 * that always holds for the versions a function can be called with disappears, one that never
 * holds is not emitted at all.
 */

import { intersect, type VersionRange } from "./model.js";

export type Condition =
  | { readonly kind: "always" }
  | { readonly kind: "never" }
  | {
      readonly kind: "check";
      readonly expr: string;
      readonly inside: VersionRange;
      readonly outside: VersionRange | null;
    };

/**
 * The condition "version is in `range`" for a function whose `version` is known to lie in
 * `ctx`. `inside`/`outside` are the narrowed contexts of the two branches (`outside` is null
 * when the remainder is not one contiguous range; callers then keep `ctx`).
 */
export function condition(range: VersionRange | null, ctx: VersionRange, variable = "version"): Condition {
  const inside = intersect(range, ctx);
  if (inside === null) return { kind: "never" };
  const needLow = inside.lowest > ctx.lowest;
  const needHigh = inside.highest < ctx.highest;
  if (!needLow && !needHigh) return { kind: "always" };
  const parts: string[] = [];
  if (needLow) parts.push(`${variable} >= ${inside.lowest}`);
  if (needHigh) parts.push(`${variable} <= ${inside.highest}`);
  let outside: VersionRange | null = null;
  if (needLow && !needHigh) outside = { lowest: ctx.lowest, highest: inside.lowest - 1 };
  else if (!needLow && needHigh) outside = { lowest: inside.highest + 1, highest: ctx.highest };
  return { kind: "check", expr: parts.join(" && "), inside, outside };
}

/** The smallest range covering both (either may be null). */
export function hull(a: VersionRange | null, b: VersionRange | null): VersionRange | null {
  if (a === null) return b;
  if (b === null) return a;
  return { lowest: Math.min(a.lowest, b.lowest), highest: Math.max(a.highest, b.highest) };
}
