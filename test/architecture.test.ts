/**
 * The layers import downward only: `cli/` (and `scripts/`) → `generator/` → `src/`, with
 * `generated/` importing only the runtime's codegen interface. The library (`src/`) never
 * imports Node.js or packages other than its one dependency, so it runs in browsers, Deno, Bun
 * and workers; the generator takes only types from the runtime, and only from the module that
 * names the wire vocabulary.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "./support/shared.js";

/** One import or re-export of a module. */
interface ImportEdge {
  readonly specifier: string;
  /** `import type` / `export type`, or every named binding marked `type`. */
  readonly typeOnly: boolean;
}

/** Every static import, re-export and dynamic `import("…")` of a TypeScript source text. */
export function importsOf(fileName: string, text: string): ImportEdge[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.ES2022, true);
  const edges: ImportEdge[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const named = clause?.namedBindings;
      const allTypes =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined &&
            named !== undefined &&
            ts.isNamedImports(named) &&
            named.elements.length > 0 &&
            named.elements.every((e) => e.isTypeOnly)));
      edges.push({ specifier: node.moduleSpecifier.text, typeOnly: allTypes });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const named = node.exportClause;
      const allTypes =
        node.isTypeOnly ||
        (named !== undefined &&
          ts.isNamedExports(named) &&
          named.elements.length > 0 &&
          named.elements.every((e) => e.isTypeOnly));
      edges.push({ specifier: node.moduleSpecifier.text, typeOnly: allTypes });
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      edges.push({ specifier: node.arguments[0].text, typeOnly: false });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return edges;
}

type Layer = "src" | "generated" | "generator" | "cli" | "scripts" | "compression" | "broker";

/** The rule a layer's imports must follow; returns why an import breaks it, or null. */
export function violation(layer: Layer, file: string, edge: ImportEdge): string | null {
  const { specifier } = edge;
  if (!specifier.startsWith(".")) {
    if (layer === "src" || layer === "generated") {
      return specifier === "lossless-json" ? null : `the library imports ${specifier} (only lossless-json is allowed)`;
    }
    return null; // the generator, CLI and scripts run on Node with their own dependencies
  }
  const target = path
    .relative(REPO_ROOT, path.resolve(path.dirname(file), specifier))
    .split(path.sep)
    .join("/");
  const targetLayer = target.split("/")[0];
  switch (layer) {
    case "src":
      return targetLayer === "src" || targetLayer === "generated" ? null : `the library imports ${target}`;
    case "generated":
      return targetLayer === "generated" || target === "src/codegen/v1.js"
        ? null
        : `generated code imports ${target} (only src/codegen/v1.js and its siblings)`;
    case "generator":
      if (targetLayer === "generator") return null;
      if (target === "src/runtime/wire.js") return edge.typeOnly ? null : `the generator imports values from ${target}`;
      return `the generator imports ${target} (only types from src/runtime/wire.js)`;
    case "compression":
      // A package of its own: it reaches the library only through its published name.
      return targetLayer === "compression" ? null : `the compression package imports ${target}`;
    case "broker":
      // Code generated from Kafka's schemas (broker/kafka/, not in the repository) is imported as types only.
      if (target.startsWith("broker/kafka/")) return edge.typeOnly ? null : `the broker imports values from ${target}`;
      // Its scripts may run the generator; the package takes the library only (the CLI by package name).
      if (targetLayer === "generator" && target !== "generator") {
        return file.split(path.sep).join("/").includes("/broker/scripts/")
          ? null
          : `the broker package imports ${target}`;
      }
      return targetLayer === "broker" || targetLayer === "src" ? null : `the broker package imports ${target}`;
    case "cli":
    case "scripts":
      return targetLayer === "cli" && layer === "scripts"
        ? `scripts import the CLI (${target})`
        : ["src", "generated", "generator", layer].includes(targetLayer!)
          ? null
          : `${layer}/ imports ${target}`;
  }
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(path.join(REPO_ROOT, dir), { withFileTypes: true })) {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) {
      // broker/kafka/: generated (and ignored by git), checked through what imports it.
      if (entry.name !== "node_modules" && entry.name !== "dist" && rel !== "broker/kafka")
        out.push(...sourceFiles(rel));
    } else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) {
      out.push(rel);
    }
  }
  return out;
}

const LAYERS: readonly Layer[] = ["src", "generated", "generator", "cli", "scripts", "compression", "broker"];

describe("architecture: imports point downward (cli → generator → src)", () => {
  for (const layer of LAYERS) {
    it(`${layer}/ imports only what its layer may`, () => {
      const problems: string[] = [];
      const files = sourceFiles(layer);
      expect(files.length).toBeGreaterThan(0);
      for (const rel of files) {
        const file = path.join(REPO_ROOT, rel);
        for (const edge of importsOf(file, readFileSync(file, "utf8"))) {
          const why = violation(layer, file, edge);
          if (why !== null) problems.push(`${rel}: ${why}`);
        }
      }
      expect(problems).toEqual([]);
    });
  }

  it("the checker itself catches each kind of violation", () => {
    const at = (rel: string): string => path.join(REPO_ROOT, rel);
    const check = (layer: Layer, rel: string, text: string): (string | null)[] =>
      importsOf(at(rel), text).map((e) => violation(layer, at(rel), e));
    expect(check("src", "src/runtime/x.ts", 'import { readFile } from "node:fs";')[0]).toMatch(/node:fs/);
    expect(check("src", "src/x.ts", 'export { generate } from "../generator/generate.js";')[0]).toMatch(/generator/);
    expect(check("src", "src/x.ts", 'const m = await import("../cli/cli.js");')[0]).toMatch(/cli/);
    expect(check("generator", "generator/x.ts", 'import { Writer } from "../src/runtime/writer.js";')[0]).toMatch(
      /only types/,
    );
    expect(
      check("generator", "generator/x.ts", 'import { MAX_STRING_BYTES } from "../src/runtime/wire.js";')[0],
    ).toMatch(/values/);
    expect(check("generator", "generator/x.ts", 'import type { VersionRange } from "../src/runtime/wire.js";')).toEqual(
      [null],
    );
    expect(check("generator", "generator/x.ts", 'import { main } from "../cli/cli.js";')[0]).toMatch(/cli/);
    expect(check("broker", "broker/src/x.ts", 'import { ApiKey } from "../kafka/protocol.js";')[0]).toMatch(/values/);
    expect(check("broker", "broker/src/x.ts", 'import type { Apis } from "../kafka/protocol.js";')).toEqual([null]);
    expect(check("broker", "broker/src/x.ts", 'import { main } from "../../cli/cli.js";')[0]).toMatch(/cli/);
    expect(check("generated", "generated/X.ts", 'import { Reader } from "../src/runtime/reader.js";')[0]).toMatch(
      /codegen/,
    );
    expect(check("cli", "cli/x.ts", 'import { generate } from "../generator/generate.js";')).toEqual([null]);
  });
});
