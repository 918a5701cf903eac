/**
 * The report of `kafka-wire diff`: its stable JSON shapes (`format: 1`; fields are only ever
 * added) and the {@link Collector} that merges identical changes of consecutive versions. Its
 * own module so that the comparison (compare.ts) and the entry points (diff.ts) both build on it
 * without importing each other.
 */

import { Versions } from "../schema/versions.js";

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
  /**
   * A request's (or response's) header version at an api version changed (KIP-1313's
   * `headerVersions`, or `flexibleVersions` when a schema has none): always breaking, the peers
   * frame the message differently.
   */
  | "header-version-changed"
  /** `headerVersions` added, removed or rewritten with the same header version at every common api version. */
  | "header-versions-declared"
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
