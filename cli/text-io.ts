/**
 * Text in and out for the CLI's commands: reading stdin, writing with back-pressure, `--jsonl`
 * lines, hex and the re-indented JSON the commands print.
 */

import { CliError, errorText, type CliIO, type TextInput, type TextOutput } from "./context.js";

/** Reads all of `input` as UTF-8 text. @throws CliError when `input` is a terminal (nothing piped). */
export async function readAll(input: TextInput, what: string): Promise<string> {
  if (input.isTTY === true) {
    throw new CliError(`no ${what} given: pass it as an argument or pipe it on stdin`);
  }
  const decoder = new TextDecoder("utf-8");
  let text = "";
  for await (const chunk of input) {
    text += typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true });
  }
  return text + decoder.decode();
}

/** Reads all of `input` as bytes. @throws CliError when `input` is a terminal (nothing piped). */
export async function readAllBytes(input: TextInput, what: string): Promise<Uint8Array> {
  if (input.isTTY === true) throw new CliError(`no ${what} given: pass it as an argument or pipe it on stdin`);
  const chunks: Uint8Array[] = [];
  for await (const chunk of input) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  return new Uint8Array(Buffer.concat(chunks));
}

/** A stream that can tell when its buffer has drained (`process.stdout`). */
interface Drainable {
  once(event: "drain", listener: () => void): unknown;
}

/** Writes `text`, waiting for the stream to drain when it says its buffer is full (memory stays bounded). */
export async function writeOut(out: TextOutput, text: string): Promise<void> {
  const stream: TextOutput & Partial<Drainable> = out;
  if (stream.write(text) === false && stream.once !== undefined) {
    await new Promise<void>((resolve) => void stream.once!("drain", resolve));
  }
}

/**
 * `--jsonl`: calls `each` with every non-blank line of `text` (an argument) or of stdin, read as
 * it arrives (one line in memory at a time), with its 1-based line number. A failure stops
 * there, reported with the line number.
 * @throws CliError `line N: <reason>` (a codec error's reason starts with its code).
 */
export async function eachLine(
  io: CliIO,
  text: string | undefined,
  what: string,
  each: (line: string, n: number) => Promise<void>,
): Promise<void> {
  let n = 0;
  const handle = async (line: string): Promise<void> => {
    n++;
    if (line.trim() === "") return;
    try {
      await each(line, n);
    } catch (error) {
      throw new CliError(`line ${n}: ${errorText(error)}`);
    }
  };
  if (text !== undefined) {
    for (const line of text.split("\n")) await handle(line.replace(/\r$/, ""));
    return;
  }
  if (io.stdin.isTTY === true) {
    throw new CliError(`no ${what} given: pass it as an argument or pipe it on stdin, one per line`);
  }
  // The current line's pieces: each chunk is searched once, so one long line costs its length,
  // not its length times its chunks.
  const decoder = new TextDecoder("utf-8");
  let pieces: string[] = [];
  const take = async (text: string): Promise<void> => {
    let start = 0;
    for (let nl = text.indexOf("\n"); nl >= 0; nl = text.indexOf("\n", start)) {
      pieces.push(text.slice(start, nl));
      const line = pieces.length === 1 ? pieces[0]! : pieces.join("");
      pieces = [];
      await handle(line.endsWith("\r") ? line.slice(0, -1) : line);
      start = nl + 1;
    }
    if (start < text.length) pieces.push(text.slice(start));
  };
  for await (const chunk of io.stdin)
    await take(typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true }));
  await take(decoder.decode());
  const last = pieces.join("");
  if (last !== "") await handle(last);
}

/** The most bytes a hex input may give (1 GiB: far above any Kafka message or record set). */
export const MAX_HEX_BYTES = 1 << 30;

/**
 * Hex text to bytes, fed in pieces (a stream's chunks) and parsed as they come: whitespace
 * anywhere and one leading `0x`/`0X` are ignored, upper- and lower-case digits are accepted. Memory
 * is the bytes (half the digits), never a copy of the text, so a huge input ends in an error line
 * (a bad character, or more than {@link MAX_HEX_BYTES}), not in an exhausted heap.
 */
export class HexParser {
  private bytes = new Uint8Array(256);
  private length = 0;
  /** The first digit of an unfinished byte, or -1. */
  private high = -1;
  /** Characters seen (1-based positions in errors). */
  private position = 0;
  /** 0: before any digit (a `0x` may come), 1: after a leading `0`, 2: in the digits. */
  private state = 0;

  /** Parses the next piece of text. @throws CliError naming the first bad character (its 1-based position) or a too-large input. */
  push(text: string): this {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      this.position++;
      if (c === 0x20 || (c >= 0x09 && c <= 0x0d) || (c > 0x7f && /\s/.test(text[i]!))) continue;
      if (this.state === 1 && (c === 0x78 || c === 0x58)) {
        // "0x": the 0 was a prefix, not a digit.
        this.high = -1;
        this.state = 2;
        continue;
      }
      const d =
        c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x57 : c >= 0x41 && c <= 0x46 ? c - 0x37 : -1;
      if (d < 0) {
        const shown = JSON.stringify(String.fromCodePoint(text.codePointAt(i)!));
        throw new CliError(`invalid hex: unexpected character ${shown} at position ${this.position}`);
      }
      this.state = this.state === 0 && d === 0 ? 1 : 2;
      if (this.high < 0) {
        this.high = d;
        continue;
      }
      if (this.length === this.bytes.length) this.grow();
      this.bytes[this.length++] = this.high * 16 + d;
      this.high = -1;
    }
    return this;
  }

  /** The bytes. @throws CliError for an odd number of digits. */
  end(): Uint8Array {
    if (this.high >= 0) {
      throw new CliError(`invalid hex: odd number of hex digits (${this.length * 2 + 1}); every byte needs two`);
    }
    return this.bytes.subarray(0, this.length);
  }

  private grow(): void {
    if (this.bytes.length >= MAX_HEX_BYTES) {
      throw new CliError(`input too large: more than ${MAX_HEX_BYTES / (1 << 20)} MiB of bytes as hex`);
    }
    const next = new Uint8Array(Math.min(this.bytes.length * 2, MAX_HEX_BYTES));
    next.set(this.bytes);
    this.bytes = next;
  }
}

/**
 * Parses hex text into bytes (see {@link HexParser}).
 * @throws CliError naming the first bad character (1-based position in `text`) or an odd digit count.
 */
export function parseHex(text: string): Uint8Array {
  return new HexParser().push(text).end();
}

/** Reads hex from `input` as it arrives (see {@link HexParser}). @throws CliError when `input` is a terminal (nothing piped). */
export async function readHex(input: TextInput, what: string): Promise<Uint8Array> {
  if (input.isTTY === true) throw new CliError(`no ${what} given: pass it as an argument or pipe it on stdin`);
  const decoder = new TextDecoder("utf-8");
  const parser = new HexParser();
  for await (const chunk of input)
    parser.push(typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true }));
  return parser.push(decoder.decode()).end();
}

/** Lowercase hex of `bytes`, two digits per byte, no separators. */
export function toHex(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += b.toString(16).padStart(2, "0");
  return s;
}

/**
 * Re-indents compact JSON text (`JSON.stringify(v, null, indent)` layout) without parsing values:
 * strings and numbers are copied character for character, so int64 digits and Kafka's escapes
 * (`\u001F`) stay exactly as the codec wrote them. Assumes `text` is valid JSON.
 */
export function indentJson(text: string, indent = 2): string {
  let out = "";
  let depth = 0;
  const newline = (): string => "\n" + " ".repeat(depth * indent);
  const nextNonSpace = (from: number): number => {
    let j = from;
    while (j < text.length && /\s/.test(text[j]!)) j++;
    return j;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    switch (c) {
      case '"': {
        let j = i + 1;
        while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
        out += text.slice(i, j + 1);
        i = j;
        break;
      }
      case "{":
      case "[": {
        const close = c === "{" ? "}" : "]";
        const j = nextNonSpace(i + 1);
        if (text[j] === close) {
          out += c + close;
          i = j;
        } else {
          depth++;
          out += c + newline();
        }
        break;
      }
      case "}":
      case "]":
        depth--;
        out += newline() + c;
        break;
      case ",":
        out += "," + newline();
        break;
      case ":":
        out += ": ";
        break;
      case " ":
      case "\t":
      case "\n":
      case "\r":
        break;
      default:
        out += c;
    }
  }
  return out;
}
