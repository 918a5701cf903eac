/**
 * Regular expressions from clients (KIP-848's `SubscribedTopicRegex`), matched in linear time.
 *
 * Kafka matches them with RE2J, whose time is linear in the input; JavaScript's RegExp
 * backtracks, so a pattern like `(a+)+$` can take exponential time on a short topic name, and
 * one client could stop the broker serving every other. This module compiles the RE2 syntax a
 * topic regex uses to a Thompson NFA and simulates it (Pike's method without captures): time
 * O(pattern × input), memory O(pattern).
 *
 * Supported: literals and escapes (`\.`, `\\`, `\t`, `\n`, ...), `.`, classes `[a-z_]`, `[^...]`,
 * `\d \D \w \W \s \S` (also inside classes), groups `(...)` `(?:...)`, alternation `|`,
 * quantifiers `* + ?` and `{n}` `{n,}` `{n,m}` (lazy forms are accepted: without captures they
 * match the same), and `^`/`$` (the whole name is matched, as RE2J's `matches()` does).
 * Backreferences and lookaround are not RE2 and are refused.
 */

/** A regex this module cannot compile: Kafka's INVALID_REGULAR_EXPRESSION. */
export class RegexError extends Error {}

/** The longest pattern accepted, and the most NFA states (after expanding `{n,m}`). */
const MAX_PATTERN = 1000;
const MAX_STATES = 20_000;

type CharTest = (c: number) => boolean;
type Node =
  | { readonly t: "char"; readonly test: CharTest }
  | { readonly t: "cat"; readonly parts: Node[] }
  | { readonly t: "alt"; readonly options: Node[] }
  | { readonly t: "rep"; readonly node: Node; readonly min: number; readonly max: number } // max -1: unbounded
  | { readonly t: "empty" };

const isDigit: CharTest = (c) => c >= 48 && c <= 57;
const isWord: CharTest = (c) => isDigit(c) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
const isSpace: CharTest = (c) => c === 32 || (c >= 9 && c <= 13);

class Parser {
  private at = 0;
  constructor(private readonly src: string) {}

  parse(): Node {
    const node = this.alternation();
    if (this.at < this.src.length) this.fail(`unexpected ${this.src[this.at]}`);
    return node;
  }

  private fail(why: string): never {
    throw new RegexError(`${why} at position ${this.at} of the regular expression`);
  }

  private peek(): string | undefined {
    return this.src[this.at];
  }

  private alternation(): Node {
    const options = [this.concatenation()];
    while (this.peek() === "|") {
      this.at++;
      options.push(this.concatenation());
    }
    return options.length === 1 ? options[0]! : { t: "alt", options };
  }

  private concatenation(): Node {
    const parts: Node[] = [];
    while (this.at < this.src.length && this.peek() !== "|" && this.peek() !== ")") {
      const c = this.peek()!;
      // Anchors: the whole topic name is matched anyway.
      if (c === "^" || c === "$") {
        this.at++;
        continue;
      }
      parts.push(this.quantified(this.atom()));
    }
    if (parts.length === 0) return { t: "empty" };
    return parts.length === 1 ? parts[0]! : { t: "cat", parts };
  }

  private quantified(node: Node): Node {
    for (;;) {
      const c = this.peek();
      let min: number;
      let max: number;
      if (c === "*") [min, max] = [0, -1];
      else if (c === "+") [min, max] = [1, -1];
      else if (c === "?") [min, max] = [0, 1];
      else if (c === "{" && /^\{\d+(,\d*)?\}/.test(this.src.slice(this.at, this.at + 24))) {
        const m = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.at))!;
        min = Number(m[1]);
        max = m[2] === undefined ? min : m[3] === "" ? -1 : Number(m[3]);
        if (min > 1000 || max > 1000 || (max !== -1 && max < min)) this.fail("bad repetition count");
        this.at += m[0].length - 1;
      } else return node;
      this.at++;
      if (this.peek() === "?") this.at++; // lazy: the same set of matches
      node = { t: "rep", node, min, max };
    }
  }

  private atom(): Node {
    const c = this.src[this.at++]!;
    if (c === "(") {
      if (this.src.startsWith("?:", this.at)) this.at += 2;
      else if (this.peek() === "?") this.fail("lookaround and named groups are not supported");
      const inner = this.alternation();
      if (this.peek() !== ")") this.fail("missing )");
      this.at++;
      return inner;
    }
    if (c === ")") this.fail("unmatched )");
    if (c === "*" || c === "+" || c === "?") this.fail(`missing argument to repetition operator ${c}`);
    if (c === ".") return { t: "char", test: (x) => x !== 10 };
    if (c === "[") return { t: "char", test: this.charClass() };
    if (c === "\\") return { t: "char", test: this.escape(false) };
    const code = c.charCodeAt(0);
    return { t: "char", test: (x) => x === code };
  }

  /** After a backslash: a class (`\d`, ...) or one character. */
  private escape(inClass: boolean): CharTest {
    const c = this.src[this.at++];
    if (c === undefined) this.fail("trailing backslash");
    switch (c) {
      case "d":
        return isDigit;
      case "D":
        return (x) => !isDigit(x);
      case "w":
        return isWord;
      case "W":
        return (x) => !isWord(x);
      case "s":
        return isSpace;
      case "S":
        return (x) => !isSpace(x);
      case "t":
        return (x) => x === 9;
      case "n":
        return (x) => x === 10;
      case "r":
        return (x) => x === 13;
      case "f":
        return (x) => x === 12;
      case "v":
        return (x) => x === 11;
    }
    if (/[0-9]/.test(c) && !inClass) this.fail("backreferences are not supported");
    if (/[a-zA-Z]/.test(c)) this.fail(`unsupported escape \\${c}`);
    const code = c.charCodeAt(0);
    return (x) => x === code;
  }

  private charClass(): CharTest {
    const negate = this.peek() === "^";
    if (negate) this.at++;
    const tests: CharTest[] = [];
    let first = true;
    while (this.peek() !== "]" || first) {
      first = false;
      if (this.at >= this.src.length) this.fail("missing ]");
      let lo: number;
      if (this.peek() === "\\") {
        this.at++;
        const t = this.escape(true);
        // A single escaped character may start a range; a class escape may not.
        const prev = this.src[this.at - 1]!;
        if (/[dDwWsS]/.test(prev)) {
          tests.push(t);
          continue;
        }
        lo = ({ t: 9, n: 10, r: 13, f: 12, v: 11 } as Record<string, number>)[prev] ?? prev.charCodeAt(0);
      } else {
        lo = this.src.charCodeAt(this.at++);
      }
      if (this.peek() === "-" && this.src[this.at + 1] !== "]" && this.at + 1 < this.src.length) {
        this.at++;
        let hi: number;
        if (this.peek() === "\\") {
          this.at++;
          const e = this.src[this.at++];
          if (e === undefined || /[a-zA-Z0-9]/.test(e)) this.fail("bad range end");
          hi = e.charCodeAt(0);
        } else hi = this.src.charCodeAt(this.at++);
        if (hi < lo) this.fail("bad character range");
        tests.push((x) => x >= lo && x <= hi);
      } else {
        const code = lo;
        tests.push((x) => x === code);
      }
    }
    this.at++;
    return negate ? (x) => !tests.some((t) => t(x)) : (x) => tests.some((t) => t(x));
  }
}

/** NFA instructions: test one character, fork, jump, or accept. */
type Inst =
  | { op: "char"; test: CharTest; next: number }
  | { op: "split"; a: number; b: number }
  | { op: "jmp"; to: number }
  | { op: "match" };

class Compiler {
  readonly prog: Inst[] = [];

  private emit(inst: Inst): number {
    if (this.prog.length >= MAX_STATES) throw new RegexError("the regular expression is too large");
    this.prog.push(inst);
    return this.prog.length - 1;
  }

  /** Emits `node`; its exits jump to the instruction emitted next. */
  compile(node: Node): void {
    switch (node.t) {
      case "empty":
        return;
      case "char": {
        const at = this.emit({ op: "char", test: node.test, next: -1 });
        (this.prog[at] as { next: number }).next = at + 1;
        return;
      }
      case "cat":
        for (const p of node.parts) this.compile(p);
        return;
      case "alt": {
        const jumps: number[] = [];
        for (let i = 0; i < node.options.length - 1; i++) {
          const split = this.emit({ op: "split", a: -1, b: -1 });
          (this.prog[split] as { a: number }).a = split + 1;
          this.compile(node.options[i]!);
          jumps.push(this.emit({ op: "jmp", to: -1 }));
          (this.prog[split] as { b: number }).b = this.prog.length;
        }
        this.compile(node.options[node.options.length - 1]!);
        for (const j of jumps) (this.prog[j] as { to: number }).to = this.prog.length;
        return;
      }
      case "rep": {
        for (let i = 0; i < node.min; i++) this.compile(node.node);
        if (node.max === -1) {
          // L: split body, out; body; jmp L
          const split = this.emit({ op: "split", a: -1, b: -1 });
          (this.prog[split] as { a: number }).a = split + 1;
          this.compile(node.node);
          this.emit({ op: "jmp", to: split });
          (this.prog[split] as { b: number }).b = this.prog.length;
          return;
        }
        const splits: number[] = [];
        for (let i = node.min; i < node.max; i++) {
          const split = this.emit({ op: "split", a: -1, b: -1 });
          (this.prog[split] as { a: number }).a = split + 1;
          splits.push(split);
          this.compile(node.node);
        }
        for (const s of splits) (this.prog[s] as { b: number }).b = this.prog.length;
      }
    }
  }
}

/** A compiled regex: `matches(name)` is true when the whole of `name` matches. */
export interface TopicRegex {
  readonly source: string;
  matches(name: string): boolean;
}

/**
 * Compiles an RE2-syntax regex (see the module comment).
 * @throws RegexError for syntax this module does not support or a pattern too large.
 */
export function compileRegex(source: string): TopicRegex {
  if (source.length > MAX_PATTERN)
    throw new RegexError(`the regular expression is longer than ${MAX_PATTERN} characters`);
  const compiler = new Compiler();
  compiler.compile(new Parser(source).parse());
  const prog = compiler.prog;
  prog.push({ op: "match" });
  const size = prog.length;

  /** Adds `pc` and what it reaches without reading a character. */
  const add = (list: number[], seen: Uint32Array, mark: number, pc: number): void => {
    const stack = [pc];
    while (stack.length > 0) {
      const p = stack.pop()!;
      if (seen[p] === mark) continue;
      seen[p] = mark;
      const inst = prog[p]!;
      if (inst.op === "jmp") stack.push(inst.to);
      else if (inst.op === "split") stack.push(inst.b, inst.a);
      else list.push(p);
    }
  };

  return {
    source,
    matches(name: string): boolean {
      const seen = new Uint32Array(size);
      let mark = 1;
      let current: number[] = [];
      add(current, seen, mark, 0);
      for (let i = 0; i < name.length && current.length > 0; i++) {
        const c = name.charCodeAt(i);
        const next: number[] = [];
        mark++;
        for (const pc of current) {
          const inst = prog[pc]!;
          if (inst.op === "char" && inst.test(c)) add(next, seen, mark, inst.next);
        }
        current = next;
      }
      return current.some((pc) => prog[pc]!.op === "match");
    },
  };
}
