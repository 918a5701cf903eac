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
import { type DefaultValue, type FieldSpec, type FieldType, type MessageSpec, type StructSpec } from "./model.js";
import { Versions } from "./versions.js";
import { PRIMITIVES, fieldWireAt, isCompactIn, isTaggedIn, schemaTypeName, structOf } from "./wire-types.js";

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

type ChangeBody = Omit<DiffChange, "versions">;

interface Run {
  readonly body: ChangeBody;
  readonly key: string;
  lowest: number;
  highest: number;
  /** Position of the change in the walk of its first version (schema order). */
  readonly order: number;
}

/** Gathers per-version changes and merges identical ones in consecutive versions. */
class Collector {
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
// One version

/** Where a field sits: its path in the new schema and in the old one. */
interface Place {
  readonly path: string;
  readonly oldPath: string;
}

/**
 * The tagged field whose default a struct's fields are part of. Kafka writes a tagged field only
 * when it differs from its default, and a struct's default is the struct of its fields' defaults
 * (`!ts.equals(new TS())`), so every default reachable from a tagged struct through structs
 * decides whether it is written. Arrays stop the chain: their default is empty, whatever their
 * elements' defaults; so does a struct whose default is `"null"` (written whenever not null).
 */
interface DefaultRoot {
  /** The tagged field's path in the new schema. */
  readonly path: string;
  readonly tag: number;
}

/** One step of the alignment of two field lists. */
type Step =
  | { readonly kind: "pair"; readonly old: FieldSpec; readonly new: FieldSpec }
  | {
      readonly kind: "moved";
      readonly old: FieldSpec;
      readonly new: FieldSpec;
      readonly from: number;
      readonly to: number;
    }
  | { readonly kind: "added"; readonly new: FieldSpec; readonly index: number }
  | { readonly kind: "removed"; readonly old: FieldSpec; readonly index: number };

class VersionComparer {
  private readonly oldFlexible: boolean;
  private readonly newFlexible: boolean;
  /** Struct pairs being compared (guards against a struct that contains itself). */
  private readonly active = new Set<string>();

  constructor(
    private readonly oldSpec: MessageSpec,
    private readonly newSpec: MessageSpec,
    private readonly version: number,
    private readonly out: Collector,
  ) {
    this.oldFlexible = oldSpec.flexibleVersions.contains(version);
    this.newFlexible = newSpec.flexibleVersions.contains(version);
  }

  run(): void {
    if (this.oldFlexible !== this.newFlexible) {
      this.emit({
        kind: "flexible-versions-changed",
        severity: "breaking",
        path: "",
        old: this.oldSpec.flexibleVersions.toString(),
        new: this.newSpec.flexibleVersions.toString(),
        message: this.newFlexible
          ? `flexibleVersions ${this.oldSpec.flexibleVersions} → ${this.newSpec.flexibleVersions}: now flexible, so strings, bytes and arrays become compact and every struct gains a tagged-field section`
          : `flexibleVersions ${this.oldSpec.flexibleVersions} → ${this.newSpec.flexibleVersions}: no longer flexible, so strings, bytes and arrays lose their compact form and structs their tagged-field section`,
      });
    }
    this.compareStruct(this.oldSpec.struct, this.newSpec.struct, { path: "", oldPath: "" }, null);
  }

  private emit(body: ChangeBody): void {
    this.out.add(this.version, body);
  }

  // -------------------------------------------------------------------------------------------

  private compareStruct(oldStruct: StructSpec, newStruct: StructSpec, at: Place, root: DefaultRoot | null): void {
    const guard = `${oldStruct.name}\u0000${newStruct.name}\u0000${at.path}`;
    if (this.active.has(guard)) return;
    this.active.add(guard);
    try {
      this.compareFields(oldStruct, newStruct, at, root);
    } finally {
      this.active.delete(guard);
    }
  }

  private compareFields(oldStruct: StructSpec, newStruct: StructSpec, at: Place, root: DefaultRoot | null): void {
    const v = this.version;
    const present = (f: FieldSpec): boolean => f.versions.contains(v);
    let oldRegular = oldStruct.fields.filter((f) => present(f) && !isTaggedIn(f, v));
    let newRegular = newStruct.fields.filter((f) => present(f) && !isTaggedIn(f, v));
    let oldTagged = oldStruct.fields.filter((f) => present(f) && isTaggedIn(f, v));
    let newTagged = newStruct.fields.filter((f) => present(f) && isTaggedIn(f, v));

    // A field that moved between the regular and the tagged part (same name).
    const newTaggedNames = new Set(newTagged.map((f) => f.name));
    const oldTaggedNames = new Set(oldTagged.map((f) => f.name));
    const newRegularNames = new Set(newRegular.map((f) => f.name));
    const oldRegularNames = new Set(oldRegular.map((f) => f.name));
    const nowTagged = oldRegular.filter((f) => newTaggedNames.has(f.name) && !oldTaggedNames.has(f.name));
    const nowRegular = oldTagged.filter((f) => newRegularNames.has(f.name) && !oldRegularNames.has(f.name));
    for (const f of nowTagged) {
      const g = newTagged.find((n) => n.name === f.name)!;
      this.emit({
        kind: "tagging-changed",
        severity: "breaking",
        ...this.child(at, g, f),
        old: "regular",
        new: `tag ${g.tag}`,
        message: `now a tagged field (tag ${g.tag}): it leaves the regular field sequence, so peers using the old schema misread everything after it`,
      });
    }
    for (const f of nowRegular) {
      const g = newRegular.find((n) => n.name === f.name)!;
      this.emit({
        kind: "tagging-changed",
        severity: "breaking",
        ...this.child(at, g, f),
        old: `tag ${f.tag}`,
        new: "regular",
        message: `no longer tagged (was tag ${f.tag}): it joins the regular field sequence, so peers using the old schema misread everything after it`,
      });
    }
    const movedNames = new Set([...nowTagged, ...nowRegular].map((f) => f.name));
    oldRegular = oldRegular.filter((f) => !movedNames.has(f.name));
    newRegular = newRegular.filter((f) => !movedNames.has(f.name));
    oldTagged = oldTagged.filter((f) => !movedNames.has(f.name));
    newTagged = newTagged.filter((f) => !movedNames.has(f.name));

    // Regular fields: aligned by name, then by position.
    for (const step of alignFields(oldRegular, newRegular)) {
      switch (step.kind) {
        case "pair":
          this.compareField(step.old, step.new, this.child(at, step.new, step.old), false, root);
          break;
        case "moved":
          this.emit({
            kind: "field-reordered",
            severity: "breaking",
            ...this.child(at, step.new, step.old),
            old: `position ${step.from + 1}`,
            new: `position ${step.to + 1}`,
            message: `moved from position ${step.from + 1} to ${step.to + 1} of the regular fields: the other fields are read in the wrong order`,
          });
          this.compareField(step.old, step.new, this.child(at, step.new, step.old), false, root);
          break;
        case "added": {
          const before = newRegular[step.index - 1];
          this.emit({
            kind: "field-added",
            severity: "breaking",
            ...this.child(at, step.new, undefined),
            new: typeLabel(step.new.type),
            message: `new field ${step.new.name} (${typeLabel(step.new.type)}) inserted at position ${step.index + 1} of ${newRegular.length}, ${before ? `after ${before.name}` : "first"}: peers using the old schema misread it and every field after it`,
          });
          break;
        }
        case "removed": {
          const before = oldRegular[step.index - 1];
          this.emit({
            kind: "field-removed",
            severity: "breaking",
            ...this.child(at, undefined, step.old),
            old: typeLabel(step.old.type),
            message: `field ${step.old.name} (${typeLabel(step.old.type)}) removed from position ${step.index + 1} of ${oldRegular.length}, ${before ? `after ${before.name}` : "first"}: peers using the old schema still write and expect it`,
          });
          break;
        }
      }
    }

    // Tagged fields: matched by name (a different tag is a renumbering), then by tag number.
    const oldByName = new Map(oldTagged.map((f) => [f.name, f]));
    const newByName = new Map(newTagged.map((f) => [f.name, f]));
    const oldByTag = new Map(oldTagged.map((f) => [f.tag!, f]));
    const newByTag = new Map(newTagged.map((f) => [f.tag!, f]));
    for (const g of newTagged) {
      const same = oldByName.get(g.name);
      if (same) {
        if (same.tag !== g.tag) {
          this.emit({
            kind: "tag-renumbered",
            severity: "breaking",
            ...this.child(at, g, same),
            old: `tag ${same.tag}`,
            new: `tag ${g.tag}`,
            message: `tag ${same.tag} → ${g.tag}: each side files the other's value under the wrong tag or skips it as unknown`,
          });
        }
        this.compareField(same, g, this.child(at, g, same), true, root);
        continue;
      }
      const occupant = oldByTag.get(g.tag!);
      if (!occupant) {
        this.emit({
          kind: "tagged-field-added",
          severity: "compatible",
          ...this.child(at, g, undefined),
          new: `tag ${g.tag}: ${typeLabel(g.type)}`,
          message: `new tagged field ${g.name} (tag ${g.tag}, ${typeLabel(g.type)}): peers using the old schema skip it as an unknown tag`,
        });
        continue;
      }
      if (newByName.has(occupant.name)) {
        // The old field moved to another tag and this one took its number.
        this.emitTagReuse(at, occupant, g);
        continue;
      }
      // Same tag, another name: a rename (same type) or a tag reused with another type.
      this.compareField(occupant, g, this.child(at, g, occupant), true, root);
    }
    for (const f of oldTagged) {
      if (newByName.has(f.name)) continue;
      const taker = newByTag.get(f.tag!);
      if (taker !== undefined) {
        const moved = oldByName.get(taker.name);
        // A taker that is new by name was compared with f above (a rename or a retyped tag).
        if (moved === undefined) continue;
        // f is gone and a field renumbered from another tag took its number: both are reported
        // (the renumbering above), so the report says what became of each tag.
        this.emit({
          kind: "tagged-field-removed",
          severity: "compatible",
          ...this.child(at, undefined, f),
          old: `tag ${f.tag}: ${typeLabel(f.type)}`,
          message: `tagged field ${f.name} (tag ${f.tag}, ${typeLabel(f.type)}) removed, and tag ${f.tag} now carries ${taker.name} (moved from tag ${moved.tag}): bytes a peer using the old schema writes under tag ${f.tag} are not skipped but read as ${taker.name}`,
        });
        this.emitTagReuse(at, f, taker);
        continue;
      }
      this.emit({
        kind: "tagged-field-removed",
        severity: "compatible",
        ...this.child(at, undefined, f),
        old: `tag ${f.tag}: ${typeLabel(f.type)}`,
        message: `tagged field ${f.name} (tag ${f.tag}, ${typeLabel(f.type)}) removed: its bytes are skipped as an unknown tag; never reuse tag ${f.tag} with another type`,
      });
    }
  }

  /** A tag that carried `occupant` in the old schema and carries the other field `g` in the new one. */
  private emitTagReuse(at: Place, occupant: FieldSpec, g: FieldSpec): void {
    const retyped = !this.sameBytes(occupant, g);
    this.emit({
      kind: retyped ? "tag-type-changed" : "tag-reused",
      severity: "breaking",
      ...this.child(at, g, occupant),
      old: retyped ? typeLabel(occupant.type) : occupant.name,
      new: retyped ? typeLabel(g.type) : g.name,
      message: `tag ${g.tag} carried ${occupant.name} (${typeLabel(occupant.type)}), now ${g.name} (${typeLabel(g.type)}): ${retyped ? "old bytes under this tag are misread" : `a value written by a peer using the old schema as ${occupant.name} is read as ${g.name}`}`,
    });
  }

  /** Whether two fields' values are encoded alike in this version (same shape, or a {@link lengthPrefixedPair} with the same length prefix). */
  private sameBytes(a: FieldSpec, b: FieldSpec): boolean {
    if (sameShape(a.type, b.type)) return true;
    const pair = lengthPrefixedPair(a.type, b.type);
    return (
      pair === "bytes-records" ||
      (pair === "string-bytes" && this.compact(a, this.oldSpec) && this.compact(b, this.newSpec))
    );
  }

  /** The place of a field (new name where there is one, old path otherwise). */
  private child(at: Place, newField: FieldSpec | undefined, oldField: FieldSpec | undefined): Place {
    const join = (base: string, name: string): string => (base === "" ? name : `${base}.${name}`);
    const path = join(at.path, (newField ?? oldField)!.name);
    const oldPath = join(at.oldPath, (oldField ?? newField)!.name);
    return { path, oldPath };
  }

  // -------------------------------------------------------------------------------------------

  /** Compares two fields that occupy the same place (same position, or the same tag). */
  private compareField(a: FieldSpec, b: FieldSpec, at: Place, tagged: boolean, root: DefaultRoot | null): void {
    const v = this.version;
    const oldLabel = typeLabel(a.type);
    const newLabel = typeLabel(b.type);
    const oldWire = fieldWireAt(a, this.oldSpec.flexibleVersions, v);
    const newWire = fieldWireAt(b, this.newSpec.flexibleVersions, v);
    const oldCompact = oldWire.compact;
    const newCompact = newWire.compact;

    if (!sameShape(a.type, b.type) && this.sameBytes(a, b)) {
      // Only the declared type changed; the fields' other attributes are compared below.
      this.emit({
        kind: "type-changed",
        severity: "compatible",
        ...at,
        old: oldLabel,
        new: newLabel,
        message: `${oldLabel} → ${newLabel}: ${
          lengthPrefixedPair(a.type, b.type) === "bytes-records"
            ? "the same bytes in every version (an int32 length, -1 for null; in flexible versions a compact unsigned varint length+1, 00 for null); only the meaning changes: records hold record batches a reader may parse, bytes are opaque"
            : "the same bytes here (both a compact unsigned varint length+1, 00 for null); the value's meaning changes: a string is UTF-8 text (readers replace invalid UTF-8, strict ones reject it, and reject more than 32767 bytes), bytes are raw"
        }`,
      });
    } else if (!sameShape(a.type, b.type)) {
      const renamed = a.name !== b.name ? ` (field ${a.name} replaced by ${b.name})` : "";
      const kind: DiffKind = tagged
        ? "tag-type-changed"
        : a.type.kind === "struct" && b.type.kind === "array"
          ? "struct-to-array"
          : a.type.kind === "array" && b.type.kind === "struct"
            ? "array-to-struct"
            : "type-changed";
      const sizes =
        fixedWidthNote(a.type, b.type) ??
        (lengthPrefixedPair(a.type, b.type) === "string-bytes"
          ? lengthPrefixNote(a.type, oldCompact, b.type, newCompact)
          : undefined);
      this.emit({
        kind,
        severity: "breaking",
        ...at,
        old: oldLabel,
        new: newLabel,
        message: tagged
          ? `tag ${b.tag} reused with another type: ${oldLabel} → ${newLabel}${renamed}: old bytes under this tag are misread`
          : `${oldLabel} → ${newLabel}${renamed}: ${sizes ?? "the bytes of this field differ, so it and every field after it are misread"}`,
      });
      return;
    }

    if (a.name !== b.name) {
      const type = oldLabel === newLabel ? `type (${newLabel})` : `bytes (${oldLabel} → ${newLabel})`;
      this.emit({
        kind: "field-renamed",
        severity: "compatible",
        ...at,
        old: a.name,
        new: b.name,
        message: tagged
          ? `${a.name} → ${b.name}: same tag ${b.tag} and ${type}, the bytes are unchanged (names in code and JSON change)`
          : `${a.name} → ${b.name}: same ${type} at the same position, the bytes are unchanged (names in code and JSON change)`,
      });
    }

    const oldStruct = structOf(a.type);
    const newStruct = structOf(b.type);
    if (oldStruct && newStruct && oldStruct.name !== newStruct.name) {
      this.emit({
        kind: "struct-renamed",
        severity: "compatible",
        ...at,
        old: oldStruct.name,
        new: newStruct.name,
        message: `struct type ${oldStruct.name} → ${newStruct.name}: type names are not on the wire`,
      });
    }

    // Nullability at this version.
    const oldNullable = oldWire.nullable;
    const newNullable = newWire.nullable;
    if (oldNullable !== newNullable) {
      const isStruct = b.type.kind === "struct";
      if (newNullable) {
        this.emit({
          kind: "nullability-widened",
          severity: isStruct ? "breaking" : "compatible",
          ...at,
          old: "non-nullable",
          new: "nullable",
          message: isStruct
            ? `non-nullable → nullable struct: a nullable struct is preceded by a presence byte, so the layout changes`
            : `non-nullable → nullable: old bytes still decode, but a peer using the old schema rejects a null sent by a new writer`,
        });
      } else {
        this.emit({
          kind: "nullability-narrowed",
          severity: "breaking",
          ...at,
          old: "nullable",
          new: "non-nullable",
          message: isStruct
            ? `nullable → non-nullable struct: the presence byte before the struct disappears, so the layout changes`
            : `nullable → non-nullable: a null written by a peer using the old schema is rejected`,
        });
      }
    }

    // Compact or not: only a field-level flexibleVersions override can change it on its own.
    const explainedByMessage = a.flexibleVersions === undefined && b.flexibleVersions === undefined;
    if (oldCompact !== newCompact && !explainedByMessage) {
      const describe = (f: FieldSpec): string =>
        f.flexibleVersions === undefined ? "inherited" : f.flexibleVersions.toString();
      this.emit({
        kind: "flexible-versions-changed",
        severity: "breaking",
        ...at,
        old: describe(a),
        new: describe(b),
        message: `field flexibleVersions ${describe(a)} → ${describe(b)}: the length prefix is ${newCompact ? "now" : "no longer"} a compact unsigned varint`,
      });
    }

    // Default: no wire effect for regular fields; tagged fields equal to their default are not
    // written, and a tagged struct's default is made of its fields' defaults (see DefaultRoot).
    if (!sameDefault(a.default, b.default)) {
      const oldDefault = defaultLabel(a.default);
      const newDefault = defaultLabel(b.default);
      this.emit({
        kind: "default-changed",
        severity: tagged || root !== null ? "breaking" : "compatible",
        ...at,
        old: oldDefault,
        new: newDefault,
        message: tagged
          ? `default ${oldDefault} → ${newDefault}: a tagged field equal to its default is not written, so a peer using the old schema omits ${oldDefault} and a new reader sees ${newDefault}`
          : root !== null
            ? `default ${oldDefault} → ${newDefault}: part of the default of tagged field ${root.path} (tag ${root.tag}), the struct of its fields' defaults; a tagged field equal to its default is not written, so a peer using the old schema omits ${root.path} when this field is ${oldDefault} and a new reader sees ${newDefault}`
            : `default ${oldDefault} → ${newDefault}: not on the wire (changes what writers start with)`,
      });
    }

    if (normalizeAbout(a.about) !== normalizeAbout(b.about)) {
      this.emit({
        kind: "about-changed",
        severity: "compatible",
        ...at,
        old: a.about,
        new: b.about,
        message: `about: ${aboutExcerpts(a.about, b.about).join(" → ")}`,
      });
    }
    if (a.ignorable !== b.ignorable) {
      this.emit({
        kind: "ignorable-changed",
        severity: "compatible",
        ...at,
        old: String(a.ignorable),
        new: String(b.ignorable),
        message: `ignorable ${a.ignorable} → ${b.ignorable}: not on the wire (whether a writer may drop a set value in versions without the field)`,
      });
    }
    if (a.mapKey !== b.mapKey) {
      this.emit({
        kind: "map-key-changed",
        severity: "compatible",
        ...at,
        old: String(a.mapKey),
        new: String(b.mapKey),
        message: `mapKey ${a.mapKey} → ${b.mapKey}: not on the wire (changes the generated collection type)`,
      });
    }
    if (a.entityType !== b.entityType) {
      this.emit({
        kind: "entity-type-changed",
        severity: "compatible",
        ...at,
        old: a.entityType ?? "none",
        new: b.entityType ?? "none",
        message: `entityType ${a.entityType ?? "none"} → ${b.entityType ?? "none"}: not on the wire`,
      });
    }

    if (oldStruct && newStruct) {
      const suffix = b.type.kind === "array" ? "[]" : "";
      // The struct's fields make up a tagged field's default when it is one (or sits in one) and
      // both sides default to the struct of field defaults (a "null" default or an array stops it).
      const inDefault =
        a.type.kind === "struct" &&
        b.type.kind === "struct" &&
        a.default.kind === "struct" &&
        b.default.kind === "struct";
      const childRoot = !inDefault ? null : tagged ? { path: at.path, tag: b.tag! } : root;
      this.compareStruct(
        oldStruct,
        newStruct,
        { path: `${at.path}${suffix}`, oldPath: `${at.oldPath}${suffix}` },
        childRoot,
      );
    }
  }

  /** Whether a field's length prefix is a compact unsigned varint in this version. */
  private compact(f: FieldSpec, side: MessageSpec): boolean {
    return isCompactIn(f, side.flexibleVersions, this.version);
  }
}

// ---------------------------------------------------------------------------------------------
// Alignment of two lists of regular fields

/**
 * Aligns fields by name first (the longest run of names in the same order anchors the
 * alignment; the other name matches are moves), then, between two anchors, the unmatched old
 * and new fields pair up: same-shaped ones in order (renames), then the rest by position
 * (retyped fields); what is left over is added or removed.
 */
function alignFields(olds: readonly FieldSpec[], news: readonly FieldSpec[]): Step[] {
  const newIndex = new Map(news.map((f, j) => [f.name, j]));
  const matches: [number, number][] = [];
  olds.forEach((f, i) => {
    const j = newIndex.get(f.name);
    if (j !== undefined) matches.push([i, j]);
  });
  const anchorSet = new Set(longestIncreasing(matches.map(([, j]) => j)));
  const anchors = matches.filter((_, k) => anchorSet.has(k));
  const matchedOld = new Set(matches.map(([i]) => i));
  const matchedNew = new Set(matches.map(([, j]) => j));

  const steps: Step[] = [];
  const bounds: [number, number][] = [[-1, -1], ...anchors, [olds.length, news.length]];
  for (let k = 1; k < bounds.length; k++) {
    const [pi, pj] = bounds[k - 1]!;
    const [qi, qj] = bounds[k]!;
    const gapOld: number[] = [];
    const gapNew: number[] = [];
    for (let i = pi + 1; i < qi; i++) if (!matchedOld.has(i)) gapOld.push(i);
    for (let j = pj + 1; j < qj; j++) if (!matchedNew.has(j)) gapNew.push(j);
    steps.push(...pairGap(olds, news, gapOld, gapNew));
    if (k < bounds.length - 1) steps.push({ kind: "pair", old: olds[qi]!, new: news[qj]! });
  }
  matches.forEach(([i, j], k) => {
    if (!anchorSet.has(k)) steps.push({ kind: "moved", old: olds[i]!, new: news[j]!, from: i, to: j });
  });
  return steps;
}

/** Pairs the unmatched fields between two anchors (see {@link alignFields}). */
function pairGap(olds: readonly FieldSpec[], news: readonly FieldSpec[], gapOld: number[], gapNew: number[]): Step[] {
  // Longest common subsequence by shape: those are renames.
  const n = gapOld.length;
  const m = gapNew.length;
  const table: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let x = n - 1; x >= 0; x--) {
    for (let y = m - 1; y >= 0; y--) {
      table[x]![y] = sameShape(olds[gapOld[x]!]!.type, news[gapNew[y]!]!.type)
        ? table[x + 1]![y + 1]! + 1
        : Math.max(table[x + 1]![y]!, table[x]![y + 1]!);
    }
  }
  const steps: Step[] = [];
  let restOld: number[] = [];
  let restNew: number[] = [];
  const flush = (): void => {
    const paired = Math.min(restOld.length, restNew.length);
    for (let k = 0; k < paired; k++) steps.push({ kind: "pair", old: olds[restOld[k]!]!, new: news[restNew[k]!]! });
    for (const i of restOld.slice(paired)) steps.push({ kind: "removed", old: olds[i]!, index: i });
    for (const j of restNew.slice(paired)) steps.push({ kind: "added", new: news[j]!, index: j });
    restOld = [];
    restNew = [];
  };
  let x = 0;
  let y = 0;
  while (x < n && y < m) {
    if (sameShape(olds[gapOld[x]!]!.type, news[gapNew[y]!]!.type) && table[x]![y] === table[x + 1]![y + 1]! + 1) {
      flush();
      steps.push({ kind: "pair", old: olds[gapOld[x]!]!, new: news[gapNew[y]!]! });
      x++;
      y++;
    } else if (table[x + 1]![y]! >= table[x]![y + 1]!) {
      restOld.push(gapOld[x++]!);
    } else {
      restNew.push(gapNew[y++]!);
    }
  }
  while (x < n) restOld.push(gapOld[x++]!);
  while (y < m) restNew.push(gapNew[y++]!);
  flush();
  return steps;
}

/** Indices of one longest strictly increasing subsequence of `values`. */
function longestIncreasing(values: readonly number[]): number[] {
  const tails: number[] = []; // index into values of the smallest tail of each length
  const previous: number[] = new Array<number>(values.length).fill(-1);
  values.forEach((value, i) => {
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (values[tails[mid]!]! < value) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) previous[i] = tails[lo - 1]!;
    tails[lo] = i;
  });
  const result: number[] = [];
  for (let i = tails.length > 0 ? tails[tails.length - 1]! : -1; i >= 0; i = previous[i]!) result.push(i);
  return result.reverse();
}

// ---------------------------------------------------------------------------------------------
// Types, defaults, texts

/** The type as the schema writes it, with struct names: `int32`, `[]string`, `struct Topology`, `[]Subtopology`. */
function typeLabel(type: FieldType): string {
  return type.kind === "struct" ? `struct ${schemaTypeName(type)}` : schemaTypeName(type);
}

/** Same wire shape, ignoring struct names and contents (those are compared separately). */
function sameShape(a: FieldType, b: FieldType): boolean {
  return shapeKey(a) === shapeKey(b);
}

function shapeKey(type: FieldType): string {
  switch (type.kind) {
    case "primitive":
      return type.name;
    case "struct":
      return "struct";
    case "array":
      return `[]${type.element.kind === "primitive" ? type.element.name : "struct"}`;
  }
}

/** For two fixed-width primitives: what the change does to the byte count. */
function fixedWidthNote(a: FieldType, b: FieldType): string | undefined {
  if (a.kind !== "primitive" || b.kind !== "primitive") return undefined;
  const wa = PRIMITIVES[a.name].fixedSize;
  const wb = PRIMITIVES[b.name].fixedSize;
  if (wa === undefined || wb === undefined) return undefined;
  if (wa === wb) return `both ${wa} bytes, but the values are read differently`;
  return `${wa} bytes become ${wb}, so every later field is misread`;
}

/**
 * Two types whose values are both a length prefix and that many bytes: `bytes` ↔ `records`
 * (encoded alike in every version), `string` ↔ `bytes`/`records` (alike only where both are
 * compact: otherwise a string's length is an int16, the others' an int32); also as array
 * elements. null for any other pair, or the same type.
 */
function lengthPrefixedPair(a: FieldType, b: FieldType): "bytes-records" | "string-bytes" | null {
  const name = (t: FieldType): string | null =>
    t.kind === "primitive"
      ? t.name
      : t.kind === "array" && t.element.kind === "primitive"
        ? `[]${t.element.name}`
        : null;
  const x = name(a);
  const y = name(b);
  if (x === null || y === null || x === y || x.startsWith("[]") !== y.startsWith("[]")) return null;
  const names = new Set([x.replace("[]", ""), y.replace("[]", "")]);
  if (names.has("bytes") && names.has("records")) return "bytes-records";
  if (names.has("string") && (names.has("bytes") || names.has("records"))) return "string-bytes";
  return null;
}

/** For `string` ↔ `bytes`/`records` where the length prefixes differ: what each side writes. */
function lengthPrefixNote(a: FieldType, aCompact: boolean, b: FieldType, bCompact: boolean): string {
  const prefix = (t: FieldType, compact: boolean): string => {
    const name =
      t.kind === "primitive" ? t.name : t.kind === "array" && t.element.kind === "primitive" ? t.element.name : "";
    // Array elements are never null.
    const [what, nullText] = t.kind === "array" ? [`each ${name} element`, ""] : [name, " for null"];
    if (compact) return `${what} has a compact unsigned varint length+1`;
    return name === "string"
      ? `${what} has an int16 length${nullText && ` (FF FF${nullText})`}`
      : `${what} has an int32 length${nullText && ` (FF FF FF FF${nullText})`}`;
  };
  return `${prefix(a, aCompact)} here and ${prefix(b, bCompact)}, so this field and every field after it are misread`;
}

/** Same default on the wire: an empty string and empty bytes/records are both "nothing". */
function sameDefault(a: DefaultValue, b: DefaultValue): boolean {
  const key = (d: DefaultValue): string =>
    d.kind === "empty" || (d.kind === "string" && d.value === "") ? "empty" : `${d.kind}:${defaultLabel(d)}`;
  return key(a) === key(b);
}

function defaultLabel(d: DefaultValue): string {
  switch (d.kind) {
    case "null":
      return "null";
    case "bool":
      return String(d.value);
    case "int":
      return d.value.toString();
    case "float":
      return Object.is(d.value, -0) ? "-0" : String(d.value);
    case "string":
      return JSON.stringify(d.value);
    case "uuid":
      return d.value;
    case "empty":
      return "empty";
    case "struct":
      return "struct defaults";
  }
}

/** `about` texts compare without their whitespace differences (incl. no-break spaces). */
function normalizeAbout(text: string): string {
  return text.replace(/[\s\u00a0]+/g, " ").trim();
}

/**
 * The two texts reduced to where they differ, with a little context on each side:
 * `"…instance IdID for static…"` and `"…instance ID for static…"`.
 */
function aboutExcerpts(a: string, b: string, context = 12, max = 70): [string, string] {
  const x = normalizeAbout(a);
  const y = normalizeAbout(b);
  let prefix = 0;
  while (prefix < x.length && prefix < y.length && x[prefix] === y[prefix]) prefix++;
  let suffix = 0;
  while (
    suffix < x.length - prefix &&
    suffix < y.length - prefix &&
    x[x.length - 1 - suffix] === y[y.length - 1 - suffix]
  )
    suffix++;
  const cut = (text: string): string => {
    const start = Math.max(0, prefix - context);
    const end = Math.min(text.length, text.length - suffix + context);
    let middle = text.slice(start, end);
    if (middle.length > max) middle = `${middle.slice(0, max - 1)}…`;
    return JSON.stringify(`${start > 0 ? "…" : ""}${middle}${end < text.length ? "…" : ""}`);
  };
  return [cut(x), cut(y)];
}

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
