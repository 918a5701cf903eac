/**
 * The one way generated TypeScript is built: an indented line builder with version-pruned
 * branches (see `condition` in versions.ts). Several builders can branch together
 * ({@link Code.ifVersionAll}), which is how a field's size and write code come from one walk.
 */

import { condition, type Versions } from "../schema/versions.js";

export class Code {
  private readonly lines: string[] = [];
  private depth = 0;

  line(text: string): this {
    this.lines.push("  ".repeat(this.depth) + text);
    return this;
  }

  /** Every line of `text` (a fragment built by another Code), at this builder's depth. */
  append(text: string): this {
    for (const l of text.split("\n")) this.line(l);
    return this;
  }

  /** `head {` body `}`. */
  block(head: string, body: () => void, tail = "}"): this {
    this.line(`${head} {`);
    this.depth++;
    body();
    this.depth--;
    this.line(tail);
    return this;
  }

  /**
   * Emits `body` only for versions in `range`, pruned against `ctx`: no `if` when it always
   * holds, nothing (or only `otherwise`) when it never does. Each branch gets its narrowed context.
   */
  ifVersion(range: Versions, ctx: Versions, body: (ctx: Versions) => void, otherwise?: (ctx: Versions) => void): this {
    Code.ifVersionAll([this], range, ctx, body, otherwise);
    return this;
  }

  /**
   * {@link ifVersion} on several builders at once: each gets the same branches, and `body` and
   * `otherwise` run once, writing into all of them. An else branch that stays empty in one
   * builder is dropped there.
   */
  static ifVersionAll(
    codes: readonly Code[],
    range: Versions,
    ctx: Versions,
    body: (ctx: Versions) => void,
    otherwise?: (ctx: Versions) => void,
  ): void {
    const c = condition(range, ctx);
    if (c.kind === "always") {
      body(ctx);
      return;
    }
    if (c.kind === "never") {
      otherwise?.(ctx);
      return;
    }
    for (const code of codes) {
      code.line(`if (${c.expr}) {`);
      code.depth++;
    }
    body(c.inside);
    if (otherwise) {
      const marks = codes.map((code) => {
        code.depth--;
        const before = code.lines.length;
        code.line("} else {");
        code.depth++;
        return { before, mark: code.lines.length };
      });
      otherwise(c.outside ?? ctx);
      codes.forEach((code, k) => {
        if (code.lines.length === marks[k]!.mark) code.lines.length = marks[k]!.before;
      });
    }
    for (const code of codes) {
      code.depth--;
      code.line("}");
    }
  }

  isEmpty(): boolean {
    return this.lines.length === 0;
  }

  toString(): string {
    return this.lines.join("\n");
  }
}
