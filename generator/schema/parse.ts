/**
 * Schema text -> JSON syntax tree, with exact positions.
 *
 * Kafka reads its schemas with Jackson (`ALLOW_COMMENTS`, no trailing commas, no trailing
 * tokens). We accept the same language plus two things the KIP design pages contain:
 * - U+00A0 (no-break space, wiki copy/paste residue) where whitespace goes: accepted with one
 *   warning per file;
 * - `"apiKey": TBD` at the top level: the api key is not assigned yet.
 * Both are rewritten in place with text of the same length, so every later position
 * (syntax errors, validation errors) still points at the original text.
 *
 * Like Jackson (StreamReadConstraints, since 2.15) we reject nesting deeper than 1000 levels,
 * before jsonc-parser's recursive descent can run out of stack on such input.
 */
import { createScanner, getNodeValue, parseTree, printParseErrorCode, visit } from "jsonc-parser";
import type { Node } from "jsonc-parser";
import { SchemaError } from "./errors.js";
import type { Diagnostic } from "./model.js";

export type { Node as JsonNode } from "jsonc-parser";

/** Result of {@link parseSchemaText}. */
export interface ParsedSchemaText {
  /** The JSON value; for `"apiKey": TBD` the `apiKey` property is left out. */
  readonly value: unknown;
  readonly warnings: Diagnostic[];
  /**
   * True when the top-level `"apiKey"` is TBD. With duplicate `"apiKey"` keys the last one
   * wins, as in Kafka's JSON parser: `TBD` followed by `5` is api key 5.
   */
  readonly apiKeyUnassigned: boolean;
}

/** A parsed schema with its syntax tree, for validation with positions. */
export interface SchemaDocument {
  readonly file: string;
  /** The text after the same-length rewrites (NBSP -> space, TBD -> `"T"`); offsets match the input. */
  readonly text: string;
  readonly root: Node;
  readonly warnings: Diagnostic[];
  /** True when the last top-level `"apiKey"` is TBD (the last duplicate key wins). */
  readonly apiKeyUnassigned: boolean;
  /** The `"apiKey"` property node that holds TBD, when {@link apiKeyUnassigned}. */
  readonly apiKeyTbdProperty: Node | undefined;
  /** 1-based line and column of an offset into the text. */
  position(offset: number): { line: number; column: number };
}

/** Maps string offsets to 1-based line/column (columns in UTF-16 code units). */
export class LineMap {
  private readonly starts: number[] = [0];

  constructor(text: string) {
    for (let i = 0; i < text.length; i++) {
      const ch = text.charCodeAt(i);
      // CR LF counts as one line break; a lone CR is a break too (Jackson counts it).
      if (ch === 0x0a || (ch === 0x0d && text.charCodeAt(i + 1) !== 0x0a)) this.starts.push(i + 1);
    }
  }

  position(offset: number): { line: number; column: number } {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - this.starts[lo]! + 1 };
  }
}

/**
 * Parses schema text into a plain JSON value (comments allowed, trailing commas rejected).
 * Throws {@link SchemaError} with `file:line:column` on any syntax error.
 */
export function parseSchemaText(text: string, file: string): ParsedSchemaText {
  const doc = parseSchemaDocument(text, file);
  const value: unknown = getNodeValue(doc.root);
  if (doc.apiKeyUnassigned && isPlainObject(value)) delete value["apiKey"];
  return { value, warnings: doc.warnings, apiKeyUnassigned: doc.apiKeyUnassigned };
}

/**
 * Parses schema text into a jsonc-parser syntax tree (offsets into the original text).
 * Throws {@link SchemaError} with `file:line:column` on any syntax error.
 */
export function parseSchemaDocument(input: string, file: string): SchemaDocument {
  // Jackson skips a UTF-8 byte order mark; editors do not count it as a column either.
  const original = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  const lines = new LineMap(original);
  const warnings: Diagnostic[] = [];

  const nbsp = replaceNoBreakSpaces(original);
  if (nbsp.count > 0) {
    const { line, column } = lines.position(nbsp.first);
    const more = nbsp.count > 1 ? ` (+${nbsp.count - 1} more)` : "";
    warnings.push({
      file,
      line,
      column,
      message: `no-break space (U+00A0) used as whitespace at ${line}:${column}${more}`,
    });
  }

  const tbd = replaceApiKeyTbd(nbsp.text);
  const text = tbd.text;

  // Before any recursive parsing: jsonc-parser's visitor and tree builder recurse per level.
  const tooDeep = findExcessiveNesting(text);
  if (tooDeep !== undefined) {
    const { line, column } = lines.position(tooDeep);
    throw new SchemaError({
      file,
      line,
      column,
      reason: `JSON nested deeper than ${MAX_NESTING_DEPTH} levels (Kafka's JSON parser, Jackson, allows at most ${MAX_NESTING_DEPTH})`,
    });
  }

  const syntaxError = findFirstSyntaxError(text);
  if (syntaxError) {
    const { line, column } = lines.position(syntaxError.offset);
    throw new SchemaError({ file, line, column, reason: syntaxError.reason });
  }

  const root = parseTree(text, [], { allowTrailingComma: false, disallowComments: false });
  if (!root) {
    // Unreachable after a clean syntax check, kept so the type is narrowed honestly.
    throw new SchemaError({ file, line: 1, column: 1, reason: "empty file: expected a JSON object" });
  }
  // Duplicate keys: the last "apiKey" wins (Jackson), whether it is TBD or a number.
  let lastApiKey: Node | undefined;
  if (root.type === "object") {
    for (const property of root.children ?? []) if (property.children?.[0]?.value === "apiKey") lastApiKey = property;
  }
  const lastValueOffset = lastApiKey?.children?.[1]?.offset;
  const apiKeyTbdProperty =
    lastValueOffset !== undefined && tbd.offsets.includes(lastValueOffset) ? lastApiKey : undefined;

  return {
    file,
    text,
    root,
    warnings,
    apiKeyUnassigned: apiKeyTbdProperty !== undefined,
    apiKeyTbdProperty,
    position: (offset) => lines.position(offset),
  };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Replaces every U+00A0 outside string literals and comments with a plain space.
 * Inside strings it is content and stays; inside comments it is harmless and stays.
 */
function replaceNoBreakSpaces(text: string): { text: string; count: number; first: number } {
  let out = "";
  let copiedUpTo = 0;
  let count = 0;
  let first = -1;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const ch = text[i];
    if (ch === '"') {
      // Skip the string, honouring escapes; an unterminated string ends at the line break
      // (the syntax check reports it).
      i++;
      while (i < n && text[i] !== '"' && text[i] !== "\n" && text[i] !== "\r") i += text[i] === "\\" ? 2 : 1;
      i++;
    } else if (ch === "/" && text[i + 1] === "/") {
      while (i < n && text[i] !== "\n" && text[i] !== "\r") i++;
    } else if (ch === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      i = end < 0 ? n : end + 2;
    } else {
      if (ch === "\u00a0") {
        if (count === 0) first = i;
        count++;
        out += text.slice(copiedUpTo, i) + " ";
        copiedUpTo = i + 1;
      }
      i++;
    }
  }
  return { text: count === 0 ? text : out + text.slice(copiedUpTo), count, first };
}

// jsonc-parser's SyntaxKind is a `const enum` in its typings; local values keep this file
// valid under `isolatedModules` (its numbering is part of the package's public API).
const TOKEN_OPEN_BRACE = 1;
const TOKEN_CLOSE_BRACE = 2;
const TOKEN_OPEN_BRACKET = 3;
const TOKEN_CLOSE_BRACKET = 4;
const TOKEN_COMMA = 5;
const TOKEN_COLON = 6;
const TOKEN_STRING = 10;
const TOKEN_UNKNOWN = 16;
const TOKEN_EOF = 17;

/** Marker written over `TBD`: a valid JSON value of the same length (3 characters). */
const TBD_MARKER = '"T"';

/**
 * Finds every `"apiKey": TBD` property of the top-level object (token level, so strings and
 * comments never match; more than one is a duplicate key) and replaces each `TBD` with a
 * same-length marker. Returns the offsets of the replaced values.
 */
function replaceApiKeyTbd(text: string): { text: string; offsets: number[] } {
  const offsets: number[] = [];
  const scanner = createScanner(text, true);
  let depth = 0;
  // The three significant tokens before the current one, nearest first.
  let kind1 = 0;
  let value1 = "";
  let kind2 = 0;
  let value2 = "";
  let kind3 = 0;
  for (let token = scanner.scan(); token !== TOKEN_EOF; token = scanner.scan()) {
    if (
      token === TOKEN_UNKNOWN &&
      scanner.getTokenValue() === "TBD" &&
      depth === 1 &&
      kind1 === TOKEN_COLON &&
      kind2 === TOKEN_STRING &&
      value2 === "apiKey" &&
      (kind3 === TOKEN_OPEN_BRACE || kind3 === TOKEN_COMMA)
    ) {
      offsets.push(scanner.getTokenOffset());
    }
    if (token === TOKEN_OPEN_BRACE || token === TOKEN_OPEN_BRACKET) depth++;
    else if (token === TOKEN_CLOSE_BRACE || token === TOKEN_CLOSE_BRACKET) depth--;
    kind3 = kind2;
    kind2 = kind1;
    value2 = value1;
    kind1 = token;
    value1 = token === TOKEN_STRING ? scanner.getTokenValue() : "";
  }
  let out = text;
  for (const offset of offsets) out = out.slice(0, offset) + TBD_MARKER + out.slice(offset + 3);
  return { text: out, offsets };
}

/** Jackson's default StreamReadConstraints.maxNestingDepth. */
export const MAX_NESTING_DEPTH = 1000;

/**
 * The offset of the first `{` or `[` that opens a container deeper than
 * {@link MAX_NESTING_DEPTH}, found with the (iterative) scanner so it cannot overflow the stack.
 */
function findExcessiveNesting(text: string): number | undefined {
  const scanner = createScanner(text, true);
  let depth = 0;
  for (let token = scanner.scan(); token !== TOKEN_EOF; token = scanner.scan()) {
    if (token === TOKEN_OPEN_BRACE || token === TOKEN_OPEN_BRACKET) {
      if (++depth > MAX_NESTING_DEPTH) return scanner.getTokenOffset();
    } else if (token === TOKEN_CLOSE_BRACE || token === TOKEN_CLOSE_BRACKET) {
      depth = Math.max(0, depth - 1);
    }
  }
  return undefined;
}

interface SyntaxProblem {
  readonly offset: number;
  readonly reason: string;
}

type Container = { readonly kind: "object" | "array"; readonly offset: number };
type LastEvent = "begin" | "end" | "key" | "value" | "comma" | "colon" | "none";

/**
 * Runs jsonc-parser's visitor with Kafka's options and turns its first error into a
 * human reason, using what was seen just before it (inside an object or array, after a
 * comma, ...) and pointing at the most useful offset.
 */
function findFirstSyntaxError(text: string): SyntaxProblem | undefined {
  const stack: Container[] = [];
  let last: LastEvent = "none";
  let lastOffset = 0;
  let lastValueText = "";
  let lastValueEnd = -1;
  let rootDone = false;
  let problem: SyntaxProblem | undefined;

  const begin = (kind: Container["kind"], offset: number): void => {
    stack.push({ kind, offset });
    last = "begin";
    lastOffset = offset;
  };
  // The visitor reports an end even when the closer is missing (at the end of the file);
  // remember that container so the error can name the unclosed bracket.
  let unclosed: Container | undefined;
  const end = (offset: number): void => {
    const open = stack.pop();
    if (text[offset] !== "}" && text[offset] !== "]") unclosed ??= open;
    last = "end";
    lastOffset = offset;
    if (stack.length === 0) rootDone = true;
  };

  visit(
    text,
    {
      onObjectBegin: (offset) => begin("object", offset),
      onArrayBegin: (offset) => begin("array", offset),
      onObjectEnd: (offset) => end(offset),
      onArrayEnd: (offset) => end(offset),
      onObjectProperty: (_property, offset) => {
        last = "key";
        lastOffset = offset;
      },
      onLiteralValue: (_value, offset, length) => {
        last = "value";
        lastOffset = offset;
        lastValueText = text.slice(offset, offset + length);
        lastValueEnd = offset + length;
        if (stack.length === 0) rootDone = true;
      },
      onSeparator: (character, offset) => {
        last = character === "," ? "comma" : "colon";
        lastOffset = offset;
      },
      onError: (code, offset, length) => {
        if (problem) return;
        problem = describeError(printParseErrorCode(code), offset, length);
      },
    },
    { allowTrailingComma: false, disallowComments: false },
  );
  return problem;

  function describeError(code: string, offset: number, length: number): SyntaxProblem {
    const token = text.slice(offset, offset + length);
    const atEof = offset >= text.length;
    const inside = stack.at(-1);
    const found = atEof ? "the end of the file" : `'${shorten(token || text[offset] || "")}'`;
    switch (code) {
      case "CommaExpected":
        if (/^[0-9]/.test(token) && lastValueEnd === offset && /^-?0$/.test(lastValueText)) {
          return { offset: lastOffset, reason: "numbers must not have leading zeros" };
        }
        return inside?.kind === "array"
          ? { offset, reason: `expected ',' between array elements, found ${found}` }
          : { offset, reason: `expected ',' or '}' after a property, found ${found}` };
      case "PropertyNameExpected":
        if (last === "comma" && token === "}") return trailingComma("}");
        return { offset, reason: `expected a property name (a double-quoted string), found ${found}` };
      case "ValueExpected":
        if (last === "comma" && token === "]") return trailingComma("]");
        if (text.trim() === "") return { offset: 0, reason: "empty file: expected a JSON object" };
        if (atEof) return unexpectedEnd(offset);
        return { offset, reason: `expected a value, found ${found}` };
      case "ColonExpected":
        return { offset, reason: `expected ':' after a property name, found ${found}` };
      case "CloseBraceExpected":
      case "CloseBracketExpected":
        if (atEof) return unexpectedEnd(offset);
        return inside?.kind === "array"
          ? { offset, reason: `expected ',' or ']' after an array element, found ${found}` }
          : { offset, reason: `expected ',' or '}' after a property, found ${found}` };
      case "EndOfFileExpected":
        return { offset, reason: "unexpected content after the end of the top-level object" };
      case "InvalidSymbol":
        return invalidSymbol(offset, token);
      case "UnexpectedEndOfComment":
        return { offset, reason: "unterminated /* comment" };
      case "InvalidCommentToken":
        return { offset, reason: "invalid comment" };
      case "UnexpectedEndOfString": {
        const next = text[offset + length];
        return next === "\n" || next === "\r"
          ? { offset, reason: "unterminated string: a line break inside a string must be written as \\n" }
          : { offset, reason: "unterminated string" };
      }
      case "UnexpectedEndOfNumber":
      case "InvalidNumberFormat":
        return { offset, reason: `invalid number '${shorten(token)}'` };
      case "InvalidUnicode":
      case "InvalidEscapeCharacter":
        return badEscape(offset, length);
      case "InvalidCharacter":
        return controlCharacter(offset, length);
      default:
        return { offset, reason: `syntax error (${code})` };
    }
  }

  function trailingComma(closer: "}" | "]"): SyntaxProblem {
    return {
      offset: lastOffset,
      reason: `trailing comma before '${closer}' (Kafka's JSON parser does not allow trailing commas)`,
    };
  }

  function unexpectedEnd(offset: number): SyntaxProblem {
    const open = unclosed ?? stack.at(-1);
    if (!open) return { offset, reason: "unexpected end of file: expected a value" };
    const { line, column } = new LineMap(text).position(open.offset);
    const opener = open.kind === "object" ? "{" : "[";
    return { offset, reason: `unexpected end of file: the '${opener}' at ${line}:${column} is never closed` };
  }

  function invalidSymbol(offset: number, token: string): SyntaxProblem {
    if (rootDone) return { offset, reason: "unexpected content after the end of the top-level object" };
    const ch = token.codePointAt(0) ?? 0;
    if (/^[\s\u200b\ufeff]/u.test(token)) {
      return {
        offset,
        reason: `${codePoint(ch)} is not JSON whitespace (only space, tab, CR and LF are allowed)`,
      };
    }
    const expectingKey = stack.at(-1)?.kind === "object" && (last === "begin" || last === "comma");
    if (/^[-+.]/.test(token)) return { offset, reason: `invalid number '${shorten(token)}'` };
    if (token.startsWith("'")) return { offset, reason: "strings must be in double quotes, not single quotes" };
    if (/^[A-Za-z_$][\w$]*$/.test(token)) {
      if (expectingKey) return { offset, reason: `property names must be double-quoted strings, found '${token}'` };
      if (token === "TBD") {
        return {
          offset,
          reason: "unexpected identifier 'TBD' (TBD is only accepted as the value of the top-level \"apiKey\")",
        };
      }
      return { offset, reason: `unexpected identifier '${shorten(token)}' (strings must be in double quotes)` };
    }
    return { offset, reason: `unexpected character ${codePoint(ch)} '${shorten(token)}'` };
  }

  function badEscape(offset: number, length: number): SyntaxProblem {
    for (let i = offset + 1; i < offset + length; i++) {
      if (text[i] !== "\\") continue;
      const next = text[i + 1] ?? "";
      if (next === "u") {
        if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
          return { offset: i, reason: "invalid \\u escape: expected four hex digits" };
        }
        i += 5;
      } else if (!'"\\/bfnrt'.includes(next) || next === "") {
        return { offset: i, reason: `invalid escape sequence '\\${next}' in string` };
      } else {
        i++;
      }
    }
    return { offset, reason: "invalid escape sequence in string" };
  }

  function controlCharacter(offset: number, length: number): SyntaxProblem {
    for (let i = offset; i < offset + length; i++) {
      const ch = text.charCodeAt(i);
      if (ch < 0x20) {
        return { offset: i, reason: `control character ${codePoint(ch)} in a string must be escaped` };
      }
    }
    return { offset, reason: "invalid character in string" };
  }
}

function codePoint(ch: number): string {
  return `U+${ch.toString(16).toUpperCase().padStart(4, "0")}`;
}

function shorten(token: string): string {
  return token.length > 20 ? `${token.slice(0, 20)}...` : token;
}
