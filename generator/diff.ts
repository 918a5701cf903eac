/**
 * Wire-level comparison of two versions of one message schema (`kafka-wire diff old.json new.json`).
 *
 * For every version both schemas support, the message's byte layout at that version is compared:
 * the ordered regular (non-tagged) fields of every struct with their wire types (compact or not,
 * nullable or not), and the tagged fields by tag number. Each difference is classified by what it
 * does to two peers that both claim that version:
 *
 * - **breaking**: the bytes one side writes are misread (or rejected) by the other — a field
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
import { loadSchemaFile, type LoadOptions } from "./load.js";
import type { MessageSpec } from "./model.js";
import { Versions } from "./versions.js";
import { VersionComparer } from "./diff-compare.js";

// ---------------------------------------------------------------------------------------------
// Public shapes

export type DiffSeverity = "breaking" | "compatible";

/** Stable identifiers of the kinds of change (the `kind` of a {@link DiffChange}). */
export type DiffKind =
  // message level (path "")
  | "version-added"
  | "version-removed"
  | "flexible-versions-changed"
  | "api-key-changed"
  | "message-type-changed"
  | "message-renamed"
  // regular fields
  | "field-added"
  | "field-removed"
  | "field-reordered"
  | "field-renamed"
  /**
   * The declared type changed. Breaking when the bytes differ; compatible (regular and tagged
   * fields alike) when only the meaning changes: `bytes` ↔ `records` (int32 length, -1 null; or
   * compact length, `00` null: the same bytes in every version) and `string` ↔ `bytes`/`records`
   * in versions where both are compact (outside them a string has an int16 length: breaking).
   */
  | "type-changed"
  | "struct-to-array"
  | "array-to-struct"
  | "struct-renamed"
  | "nullability-narrowed"
  | "nullability-widened"
  // tagged fields
  | "tagged-field-added"
  /** Compatible: old bytes under its tag are skipped, unless another field now has the tag (then a tag-reused or tag-type-changed entry follows). */
  | "tagged-field-removed"
  /** A tag now carries another type (always breaking). */
  | "tag-type-changed"
  | "tag-renumbered"
  /** A tag now carries another field of the same wire type (always breaking: values land in the wrong field). */
  | "tag-reused"
  | "tagging-changed"
  // attributes without a wire effect (except default-changed: breaking for a tagged field and for
  // any field inside a tagged struct, reached through structs, not arrays)
  | "default-changed"
  | "about-changed"
  | "ignorable-changed"
  | "map-key-changed"
  | "entity-type-changed";

/** One change, for the versions it affects. */
export interface DiffChange {
  readonly kind: DiffKind;
  readonly severity: DiffSeverity;
  /**
   * Field path in the new schema, with the schema's own names; `[]` marks the elements of an
   * array of structs: `Topology.Subtopologies[].SourceTopics`. Removed fields use their old
   * path. `""` for the message itself (versions, flexibleVersions, apiKey).
   */
  readonly path: string;
  /** The field's path in the old schema, only when it differs from `path` (renames). */
  readonly oldPath?: string;
  /** The affected versions in Kafka's range syntax: `"0"`, `"3-7"`. */
  readonly versions: string;
  /** The old value of what changed (a type, a name, a default, a range), when there is one. */
  readonly old?: string;
  /** The new value of what changed. */
  readonly new?: string;
  /** One human line; does not repeat the path, versions or severity. */
  readonly message: string;
}

/** What is known about each side of the comparison. */
export interface DiffSide {
  readonly file: string;
  readonly name: string;
  readonly validVersions: string;
  readonly flexibleVersions: string;
}

/** The result of {@link diffSchemas}; plain JSON (no bigint, no undefined values in arrays). */
export interface DiffReport {
  /** Version of this report shape; bumped only on an incompatible change of the shape. */
  readonly format: 1;
  /** The message name (the new schema's). */
  readonly name: string;
  readonly old: DiffSide;
  readonly new: DiffSide;
  /** The versions both schemas support (`"none"` when they share none); these were compared. */
  readonly commonVersions: string;
  /** Number of breaking changes. */
  readonly breaking: number;
  /** Number of compatible changes. */
  readonly compatible: number;
  /** Ordered by version range (lowest first), breaking before compatible, then schema order. */
  readonly changes: readonly DiffChange[];
}

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
// Collecting and merging

/** A change before its versions are known. */
export type ChangeBody = Omit<DiffChange, "versions">;

interface Run {
  readonly body: ChangeBody;
  readonly key: string;
  lowest: number;
  highest: number;
  /** Position of the change in the walk of its first version (schema order). */
  readonly order: number;
}

/** Gathers per-version changes and merges identical ones in consecutive versions. */
export class Collector {
  private readonly runs: Run[] = [];
  /** The open run (ending at the last version seen) for each key. */
  private readonly open = new Map<string, Run>();
  private order = 0;

  add(version: number, body: ChangeBody): void {
    const key = JSON.stringify([
      body.kind,
      body.severity,
      body.path,
      body.oldPath ?? null,
      body.old ?? null,
      body.new ?? null,
      body.message,
    ]);
    const run = this.open.get(key);
    if (run && run.highest === version - 1) {
      run.highest = version;
      return;
    }
    if (run && run.highest === version) return; // the same change found twice in one version
    const created: Run = { body, key, lowest: version, highest: version, order: this.order++ };
    this.runs.push(created);
    this.open.set(key, created);
  }

  addRange(range: Versions, body: ChangeBody): void {
    const key = `range:${this.order}`;
    this.runs.push({ body, key, lowest: range.lowest, highest: range.highest, order: this.order++ });
  }

  finish(): DiffChange[] {
    const sorted = [...this.runs].sort(
      (a, b) =>
        a.lowest - b.lowest ||
        a.highest - b.highest ||
        severityRank(a.body.severity) - severityRank(b.body.severity) ||
        a.order - b.order,
    );
    return sorted.map((run) => {
      const { kind, severity, path, oldPath, old, new: newValue, message } = run.body;
      return {
        kind,
        severity,
        path,
        ...(oldPath !== undefined && oldPath !== path ? { oldPath } : {}),
        versions: Versions.of(run.lowest, run.highest).toString(),
        ...(old !== undefined ? { old } : {}),
        ...(newValue !== undefined ? { new: newValue } : {}),
        message,
      };
    });
  }
}

function severityRank(severity: DiffSeverity): number {
  return severity === "breaking" ? 0 : 1;
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
