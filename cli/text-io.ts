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
  const decoder = new TextDecoder("utf-8");
  let pending = "";
  for await (const chunk of io.stdin) {
    pending += typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true });
    let start = 0;
    for (let nl = pending.indexOf("\n"); nl >= 0; nl = pending.indexOf("\n", start)) {
      await handle(pending.slice(start, nl).replace(/\r$/, ""));
      start = nl + 1;
    }
    pending = pending.slice(start);
  }
  pending += decoder.decode();
  if (pending !== "") await handle(pending);
}

/**
 * Parses hex text into bytes: whitespace anywhere and one leading `0x`/`0X` are ignored,
 * upper- and lower-case digits are accepted.
 * @throws CliError naming the first bad character (1-based position in `text`) or an odd digit count.
 */
export function parseHex(text: string): Uint8Array {
  const start = text.search(/\S/);
  let i = start < 0 ? text.length : start;
  if (text[i] === "0" && (text[i + 1] === "x" || text[i + 1] === "X")) i += 2;
  const digits: number[] = [];
  for (; i < text.length; i++) {
    const c = text[i]!;
    if (/\s/.test(c)) continue;
    const d = Number.parseInt(c, 16);
    if (Number.isNaN(d)) {
      const shown = JSON.stringify(c);
      throw new CliError(`invalid hex: unexpected character ${shown} at position ${i + 1}`);
    }
    digits.push(d);
  }
  if (digits.length % 2 !== 0) {
    throw new CliError(`invalid hex: odd number of hex digits (${digits.length}); every byte needs two`);
  }
  const bytes = new Uint8Array(digits.length / 2);
  for (let b = 0; b < bytes.length; b++) bytes[b] = digits[2 * b]! * 16 + digits[2 * b + 1]!;
  return bytes;
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
