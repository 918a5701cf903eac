/** Checks that byte spans form a tree that tiles the bytes (see decodeWithSpans in src/runtime/spans.ts). */

import type { ByteSpan } from "../../src/runtime/spans.js";

/**
 * The problems of `spans` for a body of `length` bytes, "" when there are none: pre-order with
 * depths that step down one at a time; the first span (depth 0) covers the whole body; every span
 * lies inside its parent; a parent's children follow each other without gap or overlap and cover
 * it exactly (a span without children is a value of its own).
 */
export function spanProblems(spans: readonly ByteSpan[], length: number): string {
  const problems: string[] = [];
  const root = spans[0];
  if (root === undefined) return "no spans";
  if (root.depth !== 0 || root.offset !== 0 || root.length !== length) {
    problems.push(`the first span is ${describe(root)}, not the whole body 0+${length}`);
  }
  // For each open parent: where its next child must start.
  const stack: { span: ByteSpan; next: number; children: number }[] = [{ span: root, next: root.offset, children: 0 }];
  const closeTo = (depth: number): void => {
    while (stack.length > depth) {
      const top = stack.pop()!;
      const end = top.span.offset + top.span.length;
      if (top.children > 0 && top.next !== end) {
        problems.push(`the children of ${describe(top.span)} end at ${top.next}, not at ${end}`);
      }
    }
  };
  for (const span of spans.slice(1)) {
    if (span.depth < 1 || span.depth > stack.length) {
      problems.push(`${describe(span)} has depth ${span.depth} after a span of depth ${stack.length - 1}`);
      continue;
    }
    closeTo(span.depth);
    const parent = stack[stack.length - 1]!;
    if (span.offset !== parent.next) {
      problems.push(`${describe(span)} starts at ${span.offset}, its previous sibling ends at ${parent.next}`);
    }
    if (span.length < 0 || span.offset + span.length > parent.span.offset + parent.span.length) {
      problems.push(`${describe(span)} runs past its parent ${describe(parent.span)}`);
    }
    parent.next = span.offset + span.length;
    parent.children++;
    stack.push({ span, next: span.offset, children: 0 });
  }
  closeTo(0);
  return problems.slice(0, 5).join("\n");
}

function describe(span: ByteSpan): string {
  return `${span.kind} "${span.path}" ${span.offset}+${span.length}`;
}
