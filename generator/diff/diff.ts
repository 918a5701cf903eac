/**
 * Wire-level comparison of two versions of one message schema (`kafka-wire diff old.json new.json`).
 *
 * For every version both schemas support, the message's byte layout at that version is compared:
 * the ordered regular (non-tagged) fields of every struct with their wire types (compact or not,
 * nullable or not), and the tagged fields by tag number. Each difference is classified by what it
 * does to two peers that both claim that version:
 *
 * - **breaking**: the bytes one side writes are misread (or rejected) by the other — a request
 *   or response header version changed at an api version (KIP-1313's `headerVersions`), a field
 *   added, removed, reordered or retyped inside an existing version, a narrowed nullability, a
 *   struct turned into an array, a tag reused (by another field, or with another type),
 *   flexibleVersions moved, a version dropped, a default that decides whether a tagged field is
 *   written (the tagged field's own, or a field's inside a tagged struct: a struct's default is
 *   the struct of its fields' defaults);
 * - **compatible**: the bytes are unchanged or old bytes still decode — a tagged field added, a
 *   renamed field (same type, same place), `about` text, a new version, a default of a regular
 *   field, a nullability widening of a string/bytes/array (old bytes never hold null; the note
 *   says that a new writer may still send null to an old reader), a type change that leaves the
 *   bytes alone (`bytes` ↔ `records` in every version, `string` ↔ `bytes` in flexible versions,
 *   where both have a compact length; the note says how the value's meaning changes).
 *
 * Identical changes in consecutive versions are merged into one entry with a version range.
 * The JSON form of {@link DiffReport} is stable (`format: 1`): fields are only ever added.
 */
import { loadSchemaFile, type LoadOptions } from "../schema/load.js";
import type { MessageSpec } from "../schema/model.js";
import { Versions } from "../schema/versions.js";
import { VersionComparer } from "./compare.js";
import { headerVersionAt } from "./headers.js";
import { Collector, type DiffReport, type DiffSide } from "./report.js";

export type { DiffChange, DiffKind, DiffReport, DiffSeverity, DiffSide } from "./report.js";
export { headerVersionAt } from "./headers.js";

/** Raised by {@link diffSchemaFiles} when the two files describe different messages. */
export class SchemaMismatchError extends Error {
  override get name(): string {
    return "SchemaMismatchError";
  }
}

// ---------------------------------------------------------------------------------------------
// Entry points

/**
 * Compares two versions of one message schema, version by version (see the module comment).
 * Pure: reads only the two models.
 */
export function diffSchemas(oldSpec: MessageSpec, newSpec: MessageSpec): DiffReport {
  const common = oldSpec.validVersions.intersect(newSpec.validVersions);
  const collector = new Collector();

  // Versions supported by only one side.
  for (const range of newSpec.validVersions.subtract(oldSpec.validVersions)) {
    collector.addRange(range, {
      kind: "version-added",
      severity: "compatible",
      path: "",
      old: oldSpec.validVersions.toString(),
      new: newSpec.validVersions.toString(),
      message: `${versionWord(range)} ${range} added: only used once both peers support ${range.lowest === range.highest ? "it" : "them"}`,
    });
  }
  for (const range of oldSpec.validVersions.subtract(newSpec.validVersions)) {
    collector.addRange(range, {
      kind: "version-removed",
      severity: "breaking",
      path: "",
      old: oldSpec.validVersions.toString(),
      new: newSpec.validVersions.toString(),
      message: `${versionWord(range)} ${range} removed: peers that still use ${range.lowest === range.highest ? "it" : "them"} are rejected`,
    });
  }

  // Message-level facts that do not depend on the version.
  const wholeRange = common.isEmpty() ? newSpec.validVersions : common;
  if (oldSpec.type !== newSpec.type) {
    collector.addRange(wholeRange, {
      kind: "message-type-changed",
      severity: "breaking",
      path: "",
      old: oldSpec.type,
      new: newSpec.type,
      message: `message type ${oldSpec.type} → ${newSpec.type}`,
    });
  }
  if (oldSpec.name !== newSpec.name) {
    collector.addRange(wholeRange, {
      kind: "message-renamed",
      severity: "compatible",
      path: "",
      old: oldSpec.name,
      new: newSpec.name,
      message: `message ${oldSpec.name} → ${newSpec.name}: names are not on the wire (the apiKey is)`,
    });
  }
  if (oldSpec.apiKey !== newSpec.apiKey) {
    const both = oldSpec.apiKey !== null && newSpec.apiKey !== null;
    collector.addRange(wholeRange, {
      kind: "api-key-changed",
      severity: both ? "breaking" : "compatible",
      path: "",
      old: apiKeyText(oldSpec.apiKey),
      new: apiKeyText(newSpec.apiKey),
      message: both
        ? `apiKey ${apiKeyText(oldSpec.apiKey)} → ${apiKeyText(newSpec.apiKey)}: the apiKey identifies the message on the wire`
        : `apiKey ${apiKeyText(oldSpec.apiKey)} → ${apiKeyText(newSpec.apiKey)} (assignment of an unassigned key, or the reverse)`,
    });
  }

  if (!common.isEmpty()) {
    compareHeaderVersions(oldSpec, newSpec, common, collector);
    for (let v = common.lowest; v <= common.highest; v++) {
      new VersionComparer(oldSpec, newSpec, v, collector).run();
    }
  }

  const changes = collector.finish();
  return {
    format: 1,
    name: newSpec.name,
    old: sideOf(oldSpec),
    new: sideOf(newSpec),
    commonVersions: common.toString(),
    breaking: changes.filter((c) => c.severity === "breaking").length,
    compatible: changes.filter((c) => c.severity === "compatible").length,
    changes,
  };
}

/**
 * Loads two schema files with {@link loadSchemaFile} and compares them. A syntax or validation
 * error propagates as a `SchemaError` (`file:line:column: ...`); two different message names
 * raise a {@link SchemaMismatchError}.
 */
export function diffSchemaFiles(oldPath: string, newPath: string, options: LoadOptions = {}): DiffReport {
  const oldSpec = loadSchemaFile(oldPath, options);
  const newSpec = loadSchemaFile(newPath, options);
  if (oldSpec.name !== newSpec.name) {
    throw new SchemaMismatchError(
      `cannot compare different messages: ${oldPath} is ${oldSpec.name}, ${newPath} is ${newSpec.name}`,
    );
  }
  return diffSchemas(oldSpec, newSpec);
}

/** What {@link diffSchemaSets} finds between two schema sets. */
export interface SchemaSetDiff {
  /** One report per message both sets have that changed, by message name. */
  readonly reports: readonly DiffReport[];
  /** Messages only the new set has (names, sorted). */
  readonly added: readonly string[];
  /** Messages only the old set has (names, sorted): breaking for their peers. */
  readonly removed: readonly string[];
  /** Messages both sets have, with no change. */
  readonly unchanged: number;
}

/** Compares two schema sets message by message (matched by name). Pure: reads only the models. */
export function diffSchemaSets(oldSpecs: readonly MessageSpec[], newSpecs: readonly MessageSpec[]): SchemaSetDiff {
  const olds = new Map(oldSpecs.map((s) => [s.name, s]));
  const news = new Map(newSpecs.map((s) => [s.name, s]));
  const reports: DiffReport[] = [];
  let unchanged = 0;
  for (const name of [...news.keys()].sort()) {
    const old = olds.get(name);
    if (old === undefined) continue;
    const report = diffSchemas(old, news.get(name)!);
    if (report.changes.length === 0) unchanged++;
    else reports.push(report);
  }
  return {
    reports,
    added: [...news.keys()].filter((n) => !olds.has(n)).sort(),
    removed: [...olds.keys()].filter((n) => !news.has(n)).sort(),
    unchanged,
  };
}

/** The set diff for people: each changed message's report, then the added and removed messages and a summary line. */
export function formatSchemaSetDiff(diff: SchemaSetDiff): string {
  const parts = diff.reports.map(formatDiffReport);
  const lines: string[] = [];
  for (const name of diff.added) lines.push(`${name}: added (compatible: used once both peers have it)`);
  for (const name of diff.removed) lines.push(`${name}: removed (BREAKING: peers that use it are rejected)`);
  const breaking = diff.reports.filter((r) => r.breaking > 0).length + diff.removed.length;
  lines.push(
    `${diff.reports.length} changed, ${diff.added.length} added, ${diff.removed.length} removed, ${diff.unchanged} unchanged messages; ${breaking} with breaking changes`,
  );
  return [...parts, `${lines.join("\n")}\n`].join("\n");
}

/** The CLI's exit code for a set diff: 1 when a message has a breaking change or was removed. */
export function schemaSetDiffExitCode(diff: SchemaSetDiff): 0 | 1 {
  return diff.removed.length > 0 || diff.reports.some((r) => r.breaking > 0) ? 1 : 0;
}

/** The CLI's exit code for a report: 1 when anything is breaking, else 0. */
export function diffExitCode(report: DiffReport): 0 | 1 {
  return report.breaking > 0 ? 1 : 0;
}

/**
 * The report for people: a header line, the changes grouped by version range (breaking first),
 * one line each (`v0 BREAKING type-changed UserEndpoint.Port: int32 → uint16 ...`), and a
 * summary line `N breaking, M compatible changes`. Ends with a newline.
 */
export function formatDiffReport(report: DiffReport): string {
  const lines: string[] = [
    `${report.name}: ${report.old.file} (versions ${report.old.validVersions}) → ${report.new.file} (versions ${report.new.validVersions})`,
  ];
  let group: string | undefined;
  for (const change of report.changes) {
    if (change.versions !== group) {
      lines.push("");
      group = change.versions;
    }
    const severity = change.severity === "breaking" ? "BREAKING" : "compatible";
    const where = change.path === "" ? report.name : change.path;
    lines.push(`v${change.versions} ${severity} ${change.kind} ${where}: ${change.message}`);
  }
  if (report.changes.length === 0) lines.push("", `no changes in the common versions ${report.commonVersions}`);
  lines.push("", `${report.breaking} breaking, ${report.compatible} compatible changes`);
  return `${lines.join("\n")}\n`;
}

// ---------------------------------------------------------------------------------------------
// Header versions

/** `headerVersions` as the schema writes it, or what stands in for it. */
function headerVersionsText(spec: MessageSpec): string {
  if (spec.headerVersions === null) return "none (from flexibleVersions)";
  return `{ ${spec.headerVersions.map((h) => `"${h.range}": ${h.header}`).join(", ")} }`;
}

/** The header version of every common version, old and new (requests and responses only). */
function compareHeaderVersions(oldSpec: MessageSpec, newSpec: MessageSpec, common: Versions, out: Collector): void {
  const framed = (s: MessageSpec): boolean => s.type === "request" || s.type === "response";
  // A type change is reported as such; a header's own versions are not framed by a header.
  if (!framed(oldSpec) || oldSpec.type !== newSpec.type) return;
  // Without headerVersions on either side the header follows flexibleVersions: a change is part
  // of the flexible-versions-changed entry (compare.ts), not an entry of its own.
  if (oldSpec.headerVersions === null && newSpec.headerVersions === null) return;
  let changed = false;
  for (let v = common.lowest; v <= common.highest; v++) {
    const before = headerVersionAt(oldSpec, v);
    const after = headerVersionAt(newSpec, v);
    if (before === after) continue;
    changed = true;
    out.add(v, {
      kind: "header-version-changed",
      severity: "breaking",
      path: "",
      old: String(before),
      new: String(after),
      message: `${newSpec.type} header v${before} → v${after} (headerVersions ${headerVersionsText(oldSpec)} → ${headerVersionsText(newSpec)}): a peer on the other schema misreads the frame's header`,
    });
  }
  const oldText = headerVersionsText(oldSpec);
  const newText = headerVersionsText(newSpec);
  if (!changed && oldText !== newText) {
    out.addRange(common, {
      kind: "header-versions-declared",
      severity: "compatible",
      path: "",
      old: oldText,
      new: newText,
      message: `headerVersions ${oldText} → ${newText}: the same header version in every common version`,
    });
  }
}

// ---------------------------------------------------------------------------------------------
// Texts

function apiKeyText(key: number | null): string {
  return key === null ? "unassigned" : String(key);
}

// ---------------------------------------------------------------------------------------------
// Version ranges

function versionWord(range: Versions): string {
  return range.lowest === range.highest ? "version" : "versions";
}

function sideOf(spec: MessageSpec): DiffSide {
  return {
    file: spec.file,
    name: spec.name,
    validVersions: spec.validVersions.toString(),
    flexibleVersions: spec.flexibleVersions.toString(),
  };
}
