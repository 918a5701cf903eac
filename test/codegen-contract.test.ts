/**
 * `kafka-wire/codegen/v1` is the contract between generated code and the runtime: it exports
 * exactly what the generator emits imports of, over every message of Kafka's schema set and the
 * seed schemas, and nothing else (an extra export would be a promise nobody needs; a missing one
 * would break user code, which the corpus `tsc --strict` check also catches).
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { expect, it } from "vitest";
import { CORPUS_OUT } from "./support/corpus.js";
import { describeShared, REPO_ROOT } from "./support/shared.js";

/** The names a module's `export … from` / `export { … }` declarations export. */
function exportedNames(file: string): Set<string> {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.ES2022, true);
  const names = new Set<string>();
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement) && statement.exportClause && ts.isNamedExports(statement.exportClause)) {
      for (const e of statement.exportClause.elements) names.add(e.name.text);
    }
  }
  return names;
}

/** The names generated modules in `dir` import from `specifier`. */
function importedNames(dir: string, specifier: string): Set<string> {
  const names = new Set<string>();
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".ts"))) {
    const full = path.join(dir, file);
    const source = ts.createSourceFile(full, readFileSync(full, "utf8"), ts.ScriptTarget.ES2022, true);
    for (const statement of source.statements) {
      if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
      if (statement.moduleSpecifier.text !== specifier) continue;
      const named = statement.importClause?.namedBindings;
      if (named && ts.isNamedImports(named)) for (const e of named.elements) names.add(e.name.text);
    }
  }
  return names;
}

const V1 = path.join(REPO_ROOT, "src", "codegen", "v1.ts");

/**
 * What generated X$toJson/X$fromJson and createX functions imported (generated code no longer
 * has them), and what size functions checked arrays with before `sizeArrayPrefix`.
 */
const LEGACY = [
  "arrayLength",
  "Init",
  "initStruct",
  "initStructs",
  "ownField",
  "checkJsonKeys",
  "jsonBytes",
  "jsonField",
  "jsonFloat64",
  "jsonNullableString",
  "jsonString",
  "missingJsonField",
  "readJsonArray",
  "readJsonBool",
  "readJsonBytes",
  "readJsonFloat64",
  "readJsonInt",
  "readJsonInt64",
  "readJsonObject",
  "readJsonString",
  "readJsonUuid",
];

describeShared("kafka-wire/codegen/v1 is exactly what generated code imports", "kafka-schemas", () => {
  it("exports every name the generated corpus and seed codecs import, and no other", () => {
    const corpusSpecifier = path
      .relative(CORPUS_OUT, path.join(REPO_ROOT, "src", "codegen", "v1.js"))
      .split(path.sep)
      .join("/");
    const used = new Set([
      ...importedNames(CORPUS_OUT, corpusSpecifier),
      ...importedNames(path.join(REPO_ROOT, "generated"), "../src/codegen/v1.js"),
    ]);
    // Both folders really import from it (a wrong specifier would make this test vacuous).
    expect(used.size).toBeGreaterThan(20);
    // Plus the parameter types of defineMessage and defineProtocol, which the contract must name
    // (and HeaderVersionRange, the element type of MessageDefinition.headerVersions), and the
    // types MessageTable (the field tables' type) is made of.
    const expected = [
      ...new Set([
        ...used,
        "MessageDefinition",
        "ProtocolDefinition",
        "InternalTopicsDefinition",
        "HeaderVersionRange",
        "FieldRow",
        "FieldOptions",
        "TableDefault",
        // Kept for code generated before Kafka's JSON form and createX moved into the runtime
        // (driven by the field table): its X$toJson/X$fromJson and createX functions import these;
        // and for size functions generated before an array's prefix was measured by the runtime.
        ...LEGACY,
      ]),
    ];
    for (const name of LEGACY) expect(used.has(name), name).toBe(false);
    expect([...exportedNames(V1)].sort()).toEqual(expected.sort());
  });
});
