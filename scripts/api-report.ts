/**
 * The API reports of the packages' entry points (`api/<name>.api.md`), made by Microsoft's API
 * Extractor from the entry points' declarations: every exported name with its signature, so a
 * change of the public surface shows in review as a change of one of these files.
 *
 * `npm run api:report` rewrites them; test/api-report.test.ts fails when one is stale.
 */

import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { CompilerState, Extractor, ExtractorConfig, type ExtractorMessage } from "@microsoft/api-extractor";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
/** Where tsconfig.api.json writes the declarations the reports are made from. */
const DTS = path.join(ROOT, ".tmp/api/dts");

/** Each entry point: its import path, its report's name and its source module. */
export const ENTRY_POINTS: readonly {
  readonly packageName: string;
  readonly importPath: string;
  readonly report: string;
  readonly source: string;
}[] = [
  { packageName: "kafka-wire", importPath: "kafka-wire", report: "index", source: "src/index.ts" },
  { packageName: "kafka-wire", importPath: "kafka-wire/runtime", report: "runtime", source: "src/runtime/index.ts" },
  { packageName: "kafka-wire", importPath: "kafka-wire/records", report: "records", source: "src/records/index.ts" },
  { packageName: "kafka-wire", importPath: "kafka-wire/codegen/v1", report: "codegen-v1", source: "src/codegen/v1.ts" },
  {
    packageName: "kafka-wire-compression",
    importPath: "kafka-wire-compression",
    report: "compression",
    source: "compression/src/index.ts",
  },
  {
    packageName: "kafka-wire-compression",
    importPath: "kafka-wire-compression (browser condition)",
    report: "compression-browser",
    source: "compression/src/index.browser.ts",
  },
];

/** Messages left out: links and tags are checked by typedoc (`npm run docs`), not by the reports. */
const QUIET = ["ae-unresolved-link", "ae-missing-release-tag", "ae-internal-missing-underscore"];

/** The command that rewrites the reports. */
export const UPDATE_COMMAND = "npm run api:report";

/** What one entry point's report run found. */
export interface ReportResult {
  readonly importPath: string;
  readonly file: string;
  /** True when the committed report differs from the entry point's API. */
  readonly changed: boolean;
  /** API Extractor's errors, one line each (its warnings are in the report, as `// Warning:` lines). */
  readonly problems: readonly string[];
}

/**
 * Builds the declarations (tsc -p tsconfig.api.json) and compares each entry point's API with
 * its committed report; with `update`, rewrites the reports that differ.
 */
export function apiReports(update: boolean): ReportResult[] {
  execFileSync(process.execPath, [path.join(ROOT, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.api.json"], {
    cwd: ROOT,
    stdio: "inherit",
  });
  mkdirSync(path.join(ROOT, "api"), { recursive: true });
  const dts = (source: string): string => path.join(DTS, source.replace(/\.ts$/, ".d.ts"));
  const base = JSON.parse(readFileSync(path.join(ROOT, "tsconfig.json"), "utf8").replace(/^\s*\/\/.*$/gm, "")) as {
    compilerOptions: Record<string, unknown>;
  };
  let compilerState: CompilerState | undefined;
  return ENTRY_POINTS.map((entry) => {
    const problems: string[] = [];
    const config = ExtractorConfig.prepare({
      configObject: {
        projectFolder: ROOT,
        mainEntryPointFilePath: dts(entry.source),
        compiler: {
          // The declarations only, with the compression package's `kafka-wire/records` resolved to
          // the library's declarations (tsconfig.json maps it to the sources).
          overrideTsconfig: {
            compilerOptions: {
              ...base.compilerOptions,
              noEmit: true,
              paths: { "kafka-wire/records": [dts("src/records/index.ts")] },
            },
            files: ENTRY_POINTS.map((e) => dts(e.source)),
          },
        },
        apiReport: {
          enabled: true,
          reportFileName: `${entry.report}.api.md`,
          reportFolder: path.join(ROOT, "api"),
          reportTempFolder: path.join(ROOT, ".tmp/api/reports"),
        },
        docModel: { enabled: false },
        dtsRollup: { enabled: false },
        tsdocMetadata: { enabled: false },
        messages: {
          // Doc-comment style and release tags are typedoc's and the docstrings' business, not the report's.
          extractorMessageReporting: {
            default: { logLevel: "warning" as never },
            ...Object.fromEntries(QUIET.map((id) => [id, { logLevel: "none" as never }])),
          },
          tsdocMessageReporting: { default: { logLevel: "none" as never } },
          compilerMessageReporting: { default: { logLevel: "warning" as never } },
        },
      },
      configObjectFullPath: path.join(ROOT, "api/api-extractor.json"),
      packageJson: { name: entry.packageName },
      packageJsonFullPath: path.join(ROOT, "package.json"),
    });
    compilerState ??= CompilerState.create(config, { additionalEntryPoints: ENTRY_POINTS.map((e) => dts(e.source)) });
    const result = Extractor.invoke(config, {
      localBuild: update,
      compilerState,
      messageCallback: (message: ExtractorMessage) => {
        if (message.logLevel === "error") problems.push(message.formatMessageWithoutLocation());
        message.handled = true;
      },
    });
    return {
      importPath: entry.importPath,
      file: `api/${entry.report}.api.md`,
      changed: result.apiReportChanged,
      problems,
    };
  });
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  for (const r of apiReports(true)) {
    for (const p of r.problems) console.warn(`${r.file}: ${p}`);
    console.log(`${r.file}: ${r.changed ? "updated" : "up to date"} (${r.importPath})`);
  }
}
