/**
 * The alignment of two lists of regular fields (old and new schema, one version): which fields
 * pair up, moved, were added or removed.
 */

import type { FieldSpec } from "../schema/model.js";
import { sameShape } from "./text.js";

/** One step of the alignment of two field lists. */
export type Step =
  | { readonly kind: "pair"; readonly old: FieldSpec; readonly new: FieldSpec }
  | {
      readonly kind: "moved";
      readonly old: FieldSpec;
      readonly new: FieldSpec;
      readonly from: number;
      readonly to: number;
    }
  | { readonly kind: "added"; readonly new: FieldSpec; readonly index: number }
  | { readonly kind: "removed"; readonly old: FieldSpec; readonly index: number };

/**
 * Aligns fields by name first (the longest run of names in the same order anchors the
 * alignment; the other name matches are moves), then, between two anchors, the unmatched old
 * and new fields pair up: same-shaped ones in order (renames), then the rest by position
 * (retyped fields); what is left over is added or removed.
 */
export function alignFields(olds: readonly FieldSpec[], news: readonly FieldSpec[]): Step[] {
  const newIndex = new Map(news.map((f, j) => [f.name, j]));
  const matches: [number, number][] = [];
  olds.forEach((f, i) => {
    const j = newIndex.get(f.name);
    if (j !== undefined) matches.push([i, j]);
  });
  const anchorSet = new Set(longestIncreasing(matches.map(([, j]) => j)));
  const anchors = matches.filter((_, k) => anchorSet.has(k));
  const matchedOld = new Set(matches.map(([i]) => i));
  const matchedNew = new Set(matches.map(([, j]) => j));

  const steps: Step[] = [];
  const bounds: [number, number][] = [[-1, -1], ...anchors, [olds.length, news.length]];
  for (let k = 1; k < bounds.length; k++) {
    const [pi, pj] = bounds[k - 1]!;
    const [qi, qj] = bounds[k]!;
    const gapOld: number[] = [];
    const gapNew: number[] = [];
    for (let i = pi + 1; i < qi; i++) if (!matchedOld.has(i)) gapOld.push(i);
    for (let j = pj + 1; j < qj; j++) if (!matchedNew.has(j)) gapNew.push(j);
    steps.push(...pairGap(olds, news, gapOld, gapNew));
    if (k < bounds.length - 1) steps.push({ kind: "pair", old: olds[qi]!, new: news[qj]! });
  }
  matches.forEach(([i, j], k) => {
    if (!anchorSet.has(k)) steps.push({ kind: "moved", old: olds[i]!, new: news[j]!, from: i, to: j });
  });
  return steps;
}

/** Pairs the unmatched fields between two anchors (see {@link alignFields}). */
function pairGap(olds: readonly FieldSpec[], news: readonly FieldSpec[], gapOld: number[], gapNew: number[]): Step[] {
  // Longest common subsequence by shape: those are renames.
  const n = gapOld.length;
  const m = gapNew.length;
  const table: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let x = n - 1; x >= 0; x--) {
    for (let y = m - 1; y >= 0; y--) {
      table[x]![y] = sameShape(olds[gapOld[x]!]!.type, news[gapNew[y]!]!.type)
        ? table[x + 1]![y + 1]! + 1
        : Math.max(table[x + 1]![y]!, table[x]![y + 1]!);
    }
  }
  const steps: Step[] = [];
  let restOld: number[] = [];
  let restNew: number[] = [];
  const flush = (): void => {
    const paired = Math.min(restOld.length, restNew.length);
    for (let k = 0; k < paired; k++) steps.push({ kind: "pair", old: olds[restOld[k]!]!, new: news[restNew[k]!]! });
    for (const i of restOld.slice(paired)) steps.push({ kind: "removed", old: olds[i]!, index: i });
    for (const j of restNew.slice(paired)) steps.push({ kind: "added", new: news[j]!, index: j });
    restOld = [];
    restNew = [];
  };
  let x = 0;
  let y = 0;
  while (x < n && y < m) {
    if (sameShape(olds[gapOld[x]!]!.type, news[gapNew[y]!]!.type) && table[x]![y] === table[x + 1]![y + 1]! + 1) {
      flush();
      steps.push({ kind: "pair", old: olds[gapOld[x]!]!, new: news[gapNew[y]!]! });
      x++;
      y++;
    } else if (table[x + 1]![y]! >= table[x]![y + 1]!) {
      restOld.push(gapOld[x++]!);
    } else {
      restNew.push(gapNew[y++]!);
    }
  }
  while (x < n) restOld.push(gapOld[x++]!);
  while (y < m) restNew.push(gapNew[y++]!);
  flush();
  return steps;
}

/** Indices of one longest strictly increasing subsequence of `values`. */
function longestIncreasing(values: readonly number[]): number[] {
  const tails: number[] = []; // index into values of the smallest tail of each length
  const previous: number[] = new Array<number>(values.length).fill(-1);
  values.forEach((value, i) => {
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (values[tails[mid]!]! < value) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) previous[i] = tails[lo - 1]!;
    tails[lo] = i;
  });
  const result: number[] = [];
  for (let i = tails.length > 0 ? tails[tails.length - 1]! : -1; i >= 0; i = previous[i]!) result.push(i);
  return result.reverse();
}
