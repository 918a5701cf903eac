/**
 * One version of a diff: the byte layout of the old and the new schema at that version, field
 * by field (see diff.ts for what counts as breaking).
 */

import type { ChangeBody, Collector, DiffKind } from "./report.js";
import { alignFields } from "./align.js";
import {
  aboutExcerpts,
  defaultLabel,
  fixedWidthNote,
  lengthPrefixedPair,
  lengthPrefixNote,
  normalizeAbout,
  sameDefault,
  sameShape,
  typeLabel,
} from "./text.js";
import type { FieldSpec, MessageSpec, StructSpec } from "../schema/model.js";
import { fieldWireAt, isCompactIn, isTaggedIn, structOf } from "../schema/wire-types.js";
import { headerVersionAt } from "./headers.js";

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

export class VersionComparer {
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
        message:
          (this.newFlexible
            ? `flexibleVersions ${this.oldSpec.flexibleVersions} → ${this.newSpec.flexibleVersions}: now flexible, so strings, bytes and arrays become compact and every struct gains a tagged-field section`
            : `flexibleVersions ${this.oldSpec.flexibleVersions} → ${this.newSpec.flexibleVersions}: no longer flexible, so strings, bytes and arrays lose their compact form and structs their tagged-field section`) +
          this.headerNote(),
      });
    }
    this.compareStruct(this.oldSpec.struct, this.newSpec.struct, { path: "", oldPath: "" }, null);
  }

  /** The header version change that comes with a flexibility change (requests and responses), or "". */
  private headerNote(): string {
    const { oldSpec: o, newSpec: n, version: v } = this;
    if ((o.type !== "request" && o.type !== "response") || o.type !== n.type) return "";
    const before = headerVersionAt(o, v);
    const after = headerVersionAt(n, v);
    return before === after ? "" : `; the ${n.type} header goes from v${before} to v${after}`;
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
