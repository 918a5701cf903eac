/**
 * The layers import downward only: `cli/` (and `scripts/`) → `generator/` → `src/`, with
 * `generated/` importing only the runtime's codegen interface. The library (`src/`) never
 * imports Node.js or packages other than its one dependency, so it runs in browsers, Deno, Bun
 * and workers; the generator takes only types from the runtime, and only from the module that
 * names the wire vocabulary.
 *
 * Inside the generator, the folders are its stages: `schema/` (the front end: parse, validate,
 * model) imports only itself; `emit/` (model → TypeScript) and `diff/` (model → report) build on
 * `schema/` and not on each other; `generate.ts` at the top joins them. The generator does no
 * network or archive work (fetching Kafka releases is the CLI's), and no module imports itself
 * through a cycle.
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

type Layer = "src" | "generated" | "generator" | "cli" | "scripts" | "compression" | "broker" | "proxy";

/** The rule a layer's imports must follow; returns why an import breaks it, or null. */
export function violation(layer: Layer, file: string, edge: ImportEdge): string | null {
  const { specifier } = edge;
  if (!specifier.startsWith(".")) {
    if (layer === "generator" && NETWORK_MODULES.has(specifier)) {
      return `the generator imports ${specifier} (fetching and unpacking Kafka releases is the CLI's: cli/kafka-release.ts)`;
    }
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
    case "generator": {
      if (targetLayer === "generator") return generatorStageViolation(file, target);
      if (target === "src/runtime/wire.js") return edge.typeOnly ? null : `the generator imports values from ${target}`;
      return `the generator imports ${target} (only types from src/runtime/wire.js)`;
    }
    case "compression":
      // A package of its own: it reaches the library only through its published name.
      return targetLayer === "compression" ? null : `the compression package imports ${target}`;
    case "broker":
      // Code generated from Kafka's schemas (broker/kafka/, not in the repository) is imported as types only.
      if (target.startsWith("broker/kafka/")) return edge.typeOnly ? null : `the broker imports values from ${target}`;
      // Its scripts may run the generator and the CLI's release fetching (build tooling, as the
      // CLI's own); the package takes the library only (the CLI by package name).
      if ((targetLayer === "generator" && target !== "generator") || targetLayer === "cli") {
        return file.split(path.sep).join("/").includes("/broker/scripts/")
          ? null
          : `the broker package imports ${target}`;
      }
      return targetLayer === "broker" || targetLayer === "src" ? null : `the broker package imports ${target}`;
    case "proxy":
      // A package of its own on the library (bundled in its build); it never loads the CLI or the
      // generator: its caller hands it the codecs.
      return targetLayer === "proxy" || targetLayer === "src" ? null : `the proxy package imports ${target}`;
    case "cli":
    case "scripts":
      return targetLayer === "cli" && layer === "scripts"
        ? `scripts import the CLI (${target})`
        : // The CLI's proxy command loads the proxy package (one way: the proxy never imports the CLI).
          ["src", "generated", "generator", layer, ...(layer === "cli" ? ["proxy"] : [])].includes(targetLayer!)
          ? null
          : `${layer}/ imports ${target}`;
  }
}

/** Modules for fetching and unpacking, which only the CLI uses. */
const NETWORK_MODULES: ReadonlySet<string> = new Set(["node:http", "node:https", "node:net", "node:zlib", "tar"]);

/** The generator's stages (folders) and the stages each may import. */
const GENERATOR_STAGES: Readonly<Record<string, readonly string[]>> = {
  schema: ["schema"],
  emit: ["emit", "schema"],
  diff: ["diff", "schema"],
  // generator/*.ts: what joins the stages (generate.ts)
  "": ["", "schema", "emit", "diff"],
};

/** The stage of a generator file (`schema`, `emit`, `diff`, or `""` for generator/*.ts). */
function generatorStage(rel: string): string {
  const parts = rel.split("/");
  return parts.length > 2 ? parts[1]! : "";
}

/** Why a generator file may not import `target` (another generator file), or null. */
function generatorStageViolation(file: string, target: string): string | null {
  const from = generatorStage(path.relative(REPO_ROOT, file).split(path.sep).join("/"));
  const to = generatorStage(target);
  const allowed = GENERATOR_STAGES[from];
  if (allowed === undefined) return `generator/${from}/ is not one of the generator's stages`;
  if (to in GENERATOR_STAGES && allowed.includes(to)) return null;
  const name = (stage: string): string => (stage === "" ? "generator/*.ts" : `generator/${stage}/`);
  return `${name(from)} imports ${target} (it may import only ${allowed.map(name).join(", ")})`;
}

/**
 * The import cycles among `files` (repository-relative paths), each as the list of files on it;
 * type-only imports count (a cycle of types still ties two modules into one).
 */
export function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  // Tarjan's strongly connected components; a component of more than one file is a cycle.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) cycles.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return cycles;
}

/** The relative imports of every file of `layers`, as repository-relative `.ts` paths. */
function importGraph(layers: readonly string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const rel of layers.flatMap(sourceFiles)) {
    const file = path.join(REPO_ROOT, rel);
    const targets = importsOf(file, readFileSync(file, "utf8"))
      .filter((e) => e.specifier.startsWith("."))
      .map((e) =>
        path
          .relative(REPO_ROOT, path.resolve(path.dirname(file), e.specifier))
          .split(path.sep)
          .join("/")
          .replace(/\.js$/, ".ts"),
      );
    graph.set(rel, targets);
  }
  return graph;
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

const LAYERS: readonly Layer[] = ["src", "generated", "generator", "cli", "scripts", "compression", "broker", "proxy"];

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

  it("no import cycles in the library, the generator or the CLI", () => {
    expect(importCycles(importGraph(["src", "generator", "cli"]))).toEqual([]);
  });

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
    // The generator's stages.
    expect(check("generator", "generator/schema/x.ts", 'import { header } from "../emit/names.js";')[0]).toMatch(
      /generator\/schema\/ imports generator\/emit\/names\.js/,
    );
    expect(check("generator", "generator/emit/x.ts", 'import { diffSchemas } from "../diff/diff.js";')[0]).toMatch(
      /only generator\/emit\/, generator\/schema\//,
    );
    expect(check("generator", "generator/diff/x.ts", 'import { generate } from "../generate.js";')[0]).toMatch(
      /generator\/diff\/ imports generator\/generate\.js/,
    );
    expect(check("generator", "generator/emit/x.ts", 'import type { FieldSpec } from "../schema/model.js";')).toEqual([
      null,
    ]);
    expect(check("generator", "generator/generate.ts", 'import { emitModule } from "./emit/module.js";')).toEqual([
      null,
    ]);
    expect(check("generator", "generator/schema/x.ts", 'import { x } from "tar";')[0]).toMatch(/cli\/kafka-release/);
    expect(check("generator", "generator/x.ts", 'import https from "node:https";')[0]).toMatch(/the CLI's/);
    // Cycles, direct and through a third module; a chain is not one.
    expect(
      importCycles(
        new Map([
          ["a", ["b"]],
          ["b", ["a"]],
          ["c", ["a"]],
        ]),
      ),
    ).toEqual([["a", "b"]]);
    expect(
      importCycles(
        new Map([
          ["a", ["b"]],
          ["b", ["c"]],
          ["c", ["a"]],
        ]),
      ),
    ).toEqual([["a", "b", "c"]]);
    expect(
      importCycles(
        new Map([
          ["a", ["b"]],
          ["b", ["c"]],
          ["c", []],
        ]),
      ),
    ).toEqual([]);
    expect(check("proxy", "proxy/src/x.ts", 'import { loadSchemaSet } from "../../cli/codecs.js";')[0]).toMatch(
      /proxy package imports cli/,
    );
    expect(check("proxy", "proxy/src/x.ts", 'import { FrameSplitter } from "../../src/runtime/index.js";')).toEqual([
      null,
    ]);
    expect(check("scripts", "scripts/x.ts", 'import { startProxy } from "../proxy/src/index.js";')[0]).toMatch(
      /imports proxy/,
    );
  });
});
