/** A small indented code builder for function bodies, with version-pruned branches. */

import { condition, type Versions } from "./versions.js";

export class Code {
  private readonly lines: string[] = [];
  private depth = 0;

  line(text: string): this {
    this.lines.push("  ".repeat(this.depth) + text);
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
    const c = condition(range, ctx);
    if (c.kind === "always") {
      body(ctx);
    } else if (c.kind === "never") {
      otherwise?.(ctx);
    } else {
      this.line(`if (${c.expr}) {`);
      this.depth++;
      body(c.inside);
      this.depth--;
      if (otherwise) {
        const before = this.lines.length;
        this.line("} else {");
        this.depth++;
        const mark = this.lines.length;
        otherwise(c.outside ?? ctx);
        this.depth--;
        // An else branch that emitted nothing is dropped.
        if (this.lines.length === mark) this.lines.length = before;
      }
      this.line("}");
    }
    return this;
  }

  isEmpty(): boolean {
    return this.lines.length === 0;
  }

  toString(): string {
    return this.lines.join("\n");
  }
}
