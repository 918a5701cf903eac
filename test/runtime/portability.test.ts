import { describe, it, expect } from "vitest";
import { readdirSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const RUNTIME_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../src/runtime");

/** The source without comments (comments may mention Buffer, e.g. "without Node's Buffer"). */
function withoutComments(fileName: string, text: string): string {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  return ts.createPrinter({ removeComments: true }).printFile(sf);
}

/** Module specifiers of every import/export ... from and dynamic import(). */
function importSpecifiers(fileName: string, text: string): string[] {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      out.push(node.moduleSpecifier.text);
    }
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const arg = node.arguments[0];
      out.push(arg && ts.isStringLiteral(arg) ? arg.text : "<dynamic>");
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

const NODE_BUILTINS = new Set(builtinModules);

/** Every Node-only construct found in one file's source. */
function nodeOnlyUses(fileName: string, text: string): string[] {
  const found: string[] = [];
  const code = withoutComments(fileName, text);
  if (/\bBuffer\b/.test(code)) found.push("Buffer");
  if (/\brequire\s*\(/.test(code)) found.push("require(");
  if (/\bprocess\s*\./.test(code)) found.push("process.");
  if (/["'`]node:/.test(code)) found.push("node: specifier");
  for (const spec of importSpecifiers(fileName, text)) {
    if (spec.startsWith("node:") || NODE_BUILTINS.has(spec) || spec === "<dynamic>") found.push(`import ${spec}`);
  }
  // On the raw text as well (comments included): none of these should be mentioned at all.
  if (text.includes("require(")) found.push("require( in text");
  if (text.includes("process.")) found.push("process. in text");
  if (text.includes("node:")) found.push("node: in text");
  return [...new Set(found)];
}

describe("kafka-wire/records uses no Node.js APIs and no third-party code", () => {
  const dir = path.resolve(RUNTIME_DIR, "../records");
  const files = readdirSync(dir)
    .filter((f) => f.endsWith(".ts"))
    .sort();

  it("finds the records' source files", () => {
    for (const f of ["codecs.ts", "crc.ts", "decode.ts", "encode.ts", "index.ts", "varint.ts"])
      expect(files).toContain(f);
  });

  it.each(files)("%s has no Buffer, node: import, require( or process., and imports only relative modules", (f) => {
    const text = readFileSync(path.join(dir, f), "utf8");
    expect(nodeOnlyUses(f, text)).toEqual([]);
    for (const spec of importSpecifiers(f, text)) expect(spec).toMatch(/^\.\.?\//);
  });
});

describe("the runtime uses no Node.js APIs", () => {
  const files = readdirSync(RUNTIME_DIR)
    .filter((f) => f.endsWith(".ts"))
    .sort();

  it("finds the runtime's source files", () => {
    for (const f of [
      "base64.ts",
      "codec.ts",
      "errors.ts",
      "index.ts",
      "json.ts",
      "reader.ts",
      "utf8.ts",
      "writer.ts",
    ]) {
      expect(files).toContain(f);
    }
  });

  it.each(files)("%s has no Buffer, node: import, require( or process.", (f) => {
    const text = readFileSync(path.join(RUNTIME_DIR, f), "utf8");
    expect(text.length).toBeGreaterThan(0);
    expect(nodeOnlyUses(f, text)).toEqual([]);
  });

  describe("the checker itself catches what it should (and ignores comments)", () => {
    const planted: Array<[string, string]> = [
      ["Buffer.from", 'export const b = Buffer.from("x");'],
      ["a Buffer type", "export function f(b: Buffer): number { return b.length; }"],
      ["a node: import", 'import { readFileSync } from "node:fs";'],
      ["a bare builtin import", 'import * as fs from "fs";'],
      ["a type-only node: import", 'import type { Stats } from "node:fs";'],
      ["a re-export from a builtin", 'export { Buffer as B } from "buffer";'],
      ["require(", 'const fs = require("fs");'],
      ["process.", "export const env = process.env;"],
      ["a dynamic import", 'export const m = import("node:crypto");'],
    ];
    it.each(planted)("flags %s", (_name, source) => {
      expect(nodeOnlyUses("planted.ts", source)).not.toEqual([]);
    });

    it("does not flag Buffer in a comment, nor BUFFER_UNDERFLOW or ArrayBuffer", () => {
      const source = [
        "/** Decodes without Node's Buffer. */",
        "// a Buffer would be faster",
        'export const code = "BUFFER_UNDERFLOW";',
        "export const ab = new ArrayBuffer(4);",
        "export type T = ArrayBufferLike;",
      ].join("\n");
      expect(nodeOnlyUses("clean.ts", source)).toEqual([]);
    });
  });
});
