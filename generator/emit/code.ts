/**
 * The one way generated TypeScript is built: an indented line builder with version-pruned
 * branches (see `condition` in versions.ts). Several builders can branch together
 * ({@link Code.ifVersionAll}), which is how a field's size and write code come from one walk.
 *
 * It also lays code out as prettier does (so that `generate` runs no formatter): each builder
 * knows the depth its text ends up at, and the few constructs that may not fit on a line (lists,
 * signatures, statements after a condition) break as prettier breaks them.
 */

import { condition, type Versions } from "../schema/versions.js";

/** The line length generated code keeps to: the project's prettier `printWidth` (.prettierrc.json). */
export const PRINT_WIDTH = 120;

/**
 * A string literal as prettier prints it: double quotes, unless the text has more double quotes
 * than single ones (`',"key":'`).
 */
export function stringLiteral(text: string): string {
  const json = JSON.stringify(text);
  const doubles = text.split('"').length - 1;
  const singles = text.split("'").length - 1;
  if (doubles <= singles) return json;
  return `'${json.slice(1, -1).replace(/\\"/g, '"').replace(/'/g, "\\'")}'`;
}

/** `import { names } from "specifier";`, one name a line when that is longer than the print width. */
export function importLine(code: Code, names: readonly string[], specifier: string): void {
  code.list("import { ", names, ` } from ${stringLiteral(specifier)};`);
}

/** A statement that can stand alone after `if (…)`, `else` or `for (…)` (no declaration, no control statement, no comment). */
const SIMPLE_STATEMENT = /^(?!(?:if|for|else|while|do|try|const|let|var|function|class)\b|\/\/|\{|\})[^]*;$/;

/**
 * `lines` (a complete piece of code laid out by {@link Code}) with the braces of each `if`,
 * `else` and `for` whose body is one simple statement removed, as prettier keeps code written
 * without them: `if (c) x;` (`if (c)`, then the statement one level deeper, when that is too
 * long), `else y;` on the next line. An `if` keeps its braces when its `else` needs them (one
 * style per `if`); a nested `if` keeps them too (no dangling `else`).
 */
export function braceless(lines: readonly string[]): string[] {
  const out: string[] = [];
  const indentOf = (l: string): number => l.length - l.trimStart().length;
  /** The one simple statement of the block opened at `k` (its `}` line after), or undefined. */
  const single = (k: number): { statement: string; end: number } | undefined => {
    const inner = lines[k + 1];
    const end = lines[k + 2];
    const indent = indentOf(lines[k]!);
    if (inner === undefined || end === undefined || indentOf(inner) !== indent + 2) return undefined;
    if (indentOf(end) !== indent || !end.trimStart().startsWith("}")) return undefined;
    const statement = inner.trimStart();
    return SIMPLE_STATEMENT.test(statement) ? { statement, end: k + 2 } : undefined;
  };
  const clause = (pad: string, head: string, statement: string): void => {
    const one = `${pad}${head} ${statement}`;
    if (one.length <= PRINT_WIDTH) out.push(one);
    else out.push(`${pad}${head}`, `${pad}  ${statement}`);
  };
  for (let k = 0; k < lines.length; k++) {
    const line = lines[k]!;
    const head = /^(\s*)((?:if|for) \(.*\)) \{$/.exec(line);
    const then = head ? single(k) : undefined;
    if (!head || !then) {
      out.push(line);
      continue;
    }
    const pad = head[1]!;
    const close = lines[then.end]!.trimStart();
    if (close === "}") {
      clause(pad, head[2]!, then.statement);
      k = then.end;
      continue;
    }
    const otherwise = close === "} else {" ? single(then.end) : undefined;
    if (otherwise === undefined || lines[otherwise.end]!.trimStart() !== "}") {
      out.push(line);
      continue;
    }
    clause(pad, head[2]!, then.statement);
    clause(pad, "else", otherwise.statement);
    k = otherwise.end;
  }
  return out;
}

export class Code {
  private readonly lines: string[] = [];
  private depth = 0;

  /**
   * @param base the depth at which this builder's text ends up (it is appended there): lines are
   *   measured against the print width from there.
   */
  constructor(private readonly base = 0) {}

  line(text: string): this {
    this.lines.push(text === "" ? "" : "  ".repeat(this.depth) + text);
    return this;
  }

  /** Whether `text` fits on one line at this builder's depth (prettier's print width). */
  fits(text: string): boolean {
    return (this.base + this.depth) * 2 + text.length <= PRINT_WIDTH;
  }

  /**
   * `open items close` on one line when it fits, else as prettier breaks a list: `open`, each
   * item on a line of its own followed by a comma (`trailing`: the last one too), `close`.
   */
  list(open: string, items: readonly string[], close: string, trailing = true): this {
    const one = `${open}${items.join(", ")}${close}`;
    if (this.fits(one)) return this.line(one);
    this.line(open.trimEnd());
    this.indented(() => items.forEach((item, k) => this.line(k < items.length - 1 || trailing ? `${item},` : item)));
    return this.line(close.trimStart());
  }

  /**
   * `head tail` on one line when it fits, else `tail` on the next line one level deeper (a
   * statement after `if (…)`, an expression after `=` or `name:`).
   */
  lineOrBreak(head: string, tail: string): this {
    const one = `${head} ${tail}`;
    if (this.fits(one)) return this.line(one);
    return this.line(head).indented(() => this.line(tail));
  }

  /** `head {` with a line per property, `};` (`head {};` without properties), as prettier prints an object literal. */
  object(head: string, properties: readonly string[], tail = "};"): this {
    if (properties.length === 0) return this.line(`${head} {}${tail.slice(1)}`);
    return this.block(head, () => properties.forEach((p) => this.line(p)), tail);
  }

  /** Every line of `text` (a fragment built by another Code), at this builder's depth. */
  append(text: string): this {
    for (const l of text.split("\n")) this.line(l);
    return this;
  }

  /** `head {` body `}` (a bare block `{` body `}` when `head` is empty). */
  block(head: string, body: () => void, tail = "}"): this {
    return this.nest(head === "" ? "{" : `${head} {`, body, tail);
  }

  /** The line `open`, `body` one level deeper, the line `close`. */
  nest(open: string, body: () => void, close: string): this {
    this.line(open);
    this.depth++;
    body();
    this.depth--;
    this.line(close);
    return this;
  }

  /** `body` one level deeper. */
  indented(body: () => void): this {
    this.depth++;
    body();
    this.depth--;
    return this;
  }

  /**
   * `head {` then `} else {`, leaving the else branch open: what follows goes into it until
   * {@link close} (for branches whose else part two builders fill in turn).
   */
  openElse(head: string, then: () => void): this {
    this.block(head, then, "} else {");
    this.depth++;
    return this;
  }

  /** Ends the branch {@link openElse} left open. */
  close(): this {
    this.depth--;
    return this.line("}");
  }

  /** `head {` then `} else {` otherwise `}`. */
  ifElse(head: string, then: () => void, otherwise: () => void): this {
    this.line(`${head} {`);
    this.depth++;
    then();
    this.depth--;
    this.line("} else {");
    this.depth++;
    otherwise();
    this.depth--;
    this.line("}");
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
    const heads = codes.map((code) => {
      code.line(`if (${c.expr}) {`);
      code.depth++;
      return code.lines.length;
    });
    body(c.inside);
    // Where the body left a builder empty, its `if` goes, or becomes the else branch's own.
    const thenEmpty = codes.map((code, k) => code.lines.length === heads[k]);
    const dropped = codes.map(() => false);
    if (otherwise) {
      const rest = c.outside === null ? undefined : condition(c.outside, ctx);
      const negated = rest?.kind === "check" ? rest.expr : `!(${c.expr})`;
      const marks = codes.map((code, k) => {
        code.depth--;
        const before = code.lines.length;
        if (thenEmpty[k]) code.lines[before - 1] = `${"  ".repeat(code.depth)}if (${negated}) {`;
        else code.line("} else {");
        code.depth++;
        return { before, mark: code.lines.length };
      });
      otherwise(c.outside ?? ctx);
      codes.forEach((code, k) => {
        if (code.lines.length !== marks[k]!.mark) return;
        code.lines.length = marks[k]!.before - (thenEmpty[k] ? 1 : 0);
        dropped[k] = thenEmpty[k]!;
      });
    } else {
      codes.forEach((code, k) => {
        if (!thenEmpty[k]) return;
        code.lines.length--;
        dropped[k] = true;
      });
    }
    codes.forEach((code, k) => {
      code.depth--;
      if (!dropped[k]) code.line("}");
    });
  }

  isEmpty(): boolean {
    return this.lines.length === 0;
  }

  toString(): string {
    return this.lines.join("\n");
  }

  /** The text with {@link braceless} blocks (for a complete function: every block is closed). */
  toCompactString(): string {
    return braceless(this.lines).join("\n");
  }
}
