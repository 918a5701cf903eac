/**
 * Highlighting: which bytes a tree node covers, given the spans of the inspection, and marking
 * those hex cells. A function of the spans only, whoever computed them.
 */

import type { Span } from "./inspect.js";

/** The span of `path` (the last one given for it wins), or undefined when it has none. */
export function spanOf(spans: readonly Span[], path: string): Span | undefined {
  for (let i = spans.length - 1; i >= 0; i--) if (spans[i]!.path === path) return spans[i];
  return undefined;
}

/** The path of the smallest span that contains byte `offset` (the deepest field there), or undefined. */
export function pathAt(spans: readonly Span[], offset: number): string | undefined {
  let best: Span | undefined;
  for (const s of spans) {
    if (offset < s.offset || offset >= s.offset + s.length) continue;
    if (best === undefined || s.length <= best.length) best = s;
  }
  return best?.path;
}

/**
 * Marks with class `sel` the cells (`cells[i]` shows byte i) of `path`'s span and unmarks every
 * other; returns the span, or undefined (nothing marked) when the path has none.
 */
export function highlight(cells: ArrayLike<Element>, spans: readonly Span[], path: string | null): Span | undefined {
  const span = path === null ? undefined : spanOf(spans, path);
  const from = span?.offset ?? 0;
  const to = span === undefined ? 0 : span.offset + span.length;
  for (let i = 0; i < cells.length; i++) cells[i]!.classList.toggle("sel", i >= from && i < to);
  return span;
}
