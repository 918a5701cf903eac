/**
 * The fields of a message or struct, as Kafka's `FieldSpec`, `FieldType`, `StructRegistry` and
 * `EntityType` read and check them: types resolved to structs (inline ones defined once, common
 * ones shared), versions intersected with the message's, tagged-field invariants, defaults.
 * The base of the message loader (load.ts), which sets the message-level state first.
 */

import { propertyNameOf, type FieldSpec, type FieldType, type PrimitiveTypeName, type StructSpec } from "./model.js";
import type { JsonNode } from "./parse.js";
import { defaultText as readDefaultText, parseDefault, type StructRef, type TypeRef } from "./load-defaults.js";
import { reservedNameReason } from "./reserved-names.js";
import {
  describeNode,
  findProperty,
  isNodeList,
  javaTrim,
  quote,
  SchemaReader,
  spaceHint,
  unicodeSpaceIn,
  type JsonObject,
} from "./schema-reader.js";
import { MAX_VERSION, Versions } from "./versions.js";
import { PRIMITIVES, PRIMITIVE_NAMES } from "./wire-types.js";

/** FieldSpec's @JsonProperty names. */
const FIELD_KEYS = [
  "name",
  "type",
  "versions",
  "fields",
  "mapKey",
  "nullableVersions",
  "default",
  "ignorable",
  "entityType",
  "about",
  "taggedVersions",
  "flexibleVersions",
  "tag",
  "zeroCopy",
] as const;

/** EntityType: the JSON name and the (element) type it requires. */
const ENTITY_TYPES: Readonly<Record<string, PrimitiveTypeName | null>> = {
  unknown: null,
  transactionalId: "string",
  producerId: "int64",
  groupId: "string",
  topicName: "string",
  brokerId: "int32",
};

/** Kafka's FieldSpec.VALID_FIELD_NAMES. */
const VALID_NAME = /^[A-Za-z][A-Za-z0-9]*$/;
/**
 * Message and struct names. FieldType.parse requires a capital first letter for struct types;
 * messages follow the same rule (all of Kafka's are PascalCase): both become TypeScript names
 * (interfaces, codec constants, `X$read`), which a leading capital keeps clear of keywords,
 * of the generated code's locals and of the lower-case names in the generated index.ts.
 */
export const VALID_TYPE_NAME = /^[A-Z][A-Za-z0-9]*$/;
/** How many struct levels may nest inside one another (the message's own fields are level 0). */
export const MAX_STRUCT_DEPTH = 64;

/** A StructSpec under construction: fields are appended after registration so references resolve. */
export interface StructBuilder {
  name: string;
  versions: Versions;
  fields: FieldSpec[];
  common: boolean;
}

export interface StructEntry {
  readonly spec: StructBuilder;
  /** Offset of the definition (declaring field or commonStructs entry), for definition order. */
  readonly offset: number;
  /** Where it was defined, for "defined twice" messages. */
  readonly definedBy: string;
}

/** Reads fields and the structs they define; the message-level state is set by the subclass first. */
export abstract class FieldLoader extends SchemaReader {
  protected readonly structsByName = new Map<string, StructEntry>();
  protected messageName = "";
  protected validVersions: Versions = Versions.of(0);
  protected flexibleVersions: Versions = Versions.NONE;

  // -------------------------------------------------------------------------------------------
  // Fields

  /**
   * Builds the fields of one struct (the message, an inline struct or a common struct) and
   * applies StructSpec's checks: unique names, unique tags, tags contiguous from 0.
   * `depth` is the struct's nesting level: 0 for the message, 1 for a common struct or a
   * struct declared by a top-level field, and so on.
   */
  protected fields(
    node: JsonNode | readonly JsonNode[] | undefined,
    prefix: string,
    structLabel: string,
    topLevel: boolean,
    depth: number,
  ): FieldSpec[] {
    const items = node === undefined ? [] : isNodeList(node) ? node : this.items(node, prefix || undefined, "fields");
    const built: { spec: FieldSpec; node: JsonNode; tagNode: JsonNode | undefined }[] = [];
    items.forEach((item, index) => {
      const result = this.field(item, index, prefix, depth);
      if (topLevel && result.spec.mapKey) {
        // MessageDataGenerator: "Cannot set mapKey on top level fields."
        this.fail(result.mapKeyNode, result.spec.schemaPath, `"mapKey" cannot be used on top-level fields`);
      }
      built.push({ spec: result.spec, node: item, tagNode: result.tagNode });
    });

    const byProperty = new Map<string, (typeof built)[number]>();
    const byTag = new Map<number, (typeof built)[number]>();
    for (const entry of built) {
      const { spec } = entry;
      const other = byProperty.get(spec.propertyName);
      if (other) {
        const at = this.where(other.node);
        this.fail(
          findProperty(entry.node, "name") ?? entry.node,
          spec.schemaPath,
          other.spec.name === spec.name
            ? `duplicate field name "${spec.name}" in ${structLabel || "the message"} (first at ${at})`
            : `field "${spec.name}" clashes with "${other.spec.name}" at ${at}: both become the property "${spec.propertyName}"`,
        );
      }
      byProperty.set(spec.propertyName, entry);
      if (spec.tag !== null) {
        const sameTag = byTag.get(spec.tag);
        if (sameTag) {
          this.fail(entry.tagNode, spec.schemaPath, `duplicate tag ${spec.tag} (also used by ${sameTag.spec.name})`);
        }
        byTag.set(spec.tag, entry);
      }
    }
    // StructSpec: tag IDs must be contiguous from 0 (smaller tags take fewer bytes).
    for (const entry of [...byTag.values()].sort((a, b) => a.spec.tag! - b.spec.tag!)) {
      const tag = entry.spec.tag!;
      if (tag > 0 && !byTag.has(tag - 1)) {
        this.fail(
          entry.tagNode,
          entry.spec.schemaPath,
          `tag ${tag} is used but tag ${tag - 1} is not: tags in a struct must be contiguous from 0`,
        );
      }
    }
    return built.map((b) => b.spec);
  }

  private field(
    node: JsonNode,
    index: number,
    prefix: string,
    depth: number,
  ): { spec: FieldSpec; tagNode: JsonNode | undefined; mapKeyNode: JsonNode | undefined } {
    const join = (segment: string): string => (prefix ? `${prefix}.${segment}` : segment);
    if (node.type !== "object")
      this.fail(node, join(`fields[${index}]`), `a field must be a JSON object, not ${describeNode(node)}`);
    const nameProp = findProperty(node, "name");
    const rawName = nameProp?.type === "string" ? String(nameProp.value) : undefined;
    const fieldPath = join(rawName && VALID_NAME.test(rawName) ? rawName : `fields[${index}]`);
    const obj = this.object(node, FIELD_KEYS, fieldPath, "a field");

    const nameNode = this.required(obj, "name", fieldPath);
    const name = this.string(nameNode, fieldPath, "name");
    if (!VALID_NAME.test(name)) {
      this.fail(
        nameNode,
        fieldPath,
        `invalid field name ${quote(name)} (letters and digits only, starting with a letter)${spaceHint(name)}`,
      );
    }

    const typeNode = this.required(obj, "type", fieldPath);
    const typeText = this.string(typeNode, fieldPath, "type");
    const typeRef = this.parseType(typeText, typeNode, fieldPath);

    // FieldSpec: versions defaults to taggedVersions when only those are given.
    const taggedNode = obj.get("taggedVersions");
    const tagged = this.versions(taggedNode, fieldPath, "taggedVersions") ?? Versions.NONE;
    const versionsNode = obj.get("versions");
    let versions = this.versions(versionsNode, fieldPath, "versions");
    if (versions === undefined) {
      if (tagged.isEmpty())
        this.fail(versionsNode ?? obj.key("versions") ?? node, fieldPath, `missing required key "versions"`);
      versions = tagged;
    }
    const effectiveVersions = versions.intersect(this.validVersions);

    const structName =
      typeRef.kind === "struct"
        ? typeRef.name
        : typeRef.kind === "array" && typeRef.element.kind === "struct"
          ? typeRef.element.name
          : undefined;
    const fieldsNode = obj.get("fields");
    if (fieldsNode && structName === undefined) {
      this.fail(
        obj.key("fields"),
        fieldPath,
        `only struct and struct-array fields can have "fields" (type is ${javaTrim(typeText)})`,
      );
    }

    const mapKeyNode = obj.get("mapKey");
    const mapKey = this.boolean(mapKeyNode, fieldPath, "mapKey");
    const ignorable = this.boolean(obj.get("ignorable"), fieldPath, "ignorable");
    const zeroCopyNode = obj.get("zeroCopy");
    const zeroCopy = this.boolean(zeroCopyNode, fieldPath, "zeroCopy");

    const nullableNode = obj.get("nullableVersions");
    const nullable = this.versions(nullableNode, fieldPath, "nullableVersions") ?? Versions.NONE;
    if (!nullable.isEmpty() && typeRef.kind === "primitive" && !PRIMITIVES[typeRef.name].nullable) {
      this.fail(
        nullableNode,
        fieldPath,
        `type ${typeRef.name} cannot be nullable (only string, bytes, records, arrays and structs can)`,
      );
    }

    const entityNode = obj.get("entityType");
    const entityType = entityNode ? this.string(entityNode, fieldPath, "entityType") : null;
    if (entityType !== null) this.checkEntityType(entityType, typeRef, entityNode, fieldPath);
    const aboutNode = obj.get("about");
    const about = aboutNode ? this.string(aboutNode, fieldPath, "about") : "";

    // Field-level flexibleVersions override: FieldSpec allows it on string and bytes only.
    const fieldFlexNode = obj.get("flexibleVersions");
    const fieldFlexText = fieldFlexNode ? this.string(fieldFlexNode, fieldPath, "flexibleVersions") : "";
    let fieldFlexible: Versions | undefined;
    if (fieldFlexText !== "") {
      fieldFlexible = this.parseVersionText(fieldFlexText, fieldFlexNode, fieldPath, "flexibleVersions");
      if (!(typeRef.kind === "primitive" && (typeRef.name === "string" || typeRef.name === "bytes"))) {
        this.fail(fieldFlexNode, fieldPath, `only string and bytes fields can override "flexibleVersions"`);
      }
    }

    const tagNode = obj.get("tag");
    const tag = tagNode ? this.integer(tagNode, fieldPath, "tag", -(2 ** 31), 2 ** 31 - 1) : null;
    this.checkTagged({
      tag,
      tagNode,
      tagged,
      taggedNode,
      versions,
      nullable,
      mapKey,
      fieldPath,
      fieldFlexible,
    });
    // MessageDataGenerator.fieldFlexibleVersions: an override may only narrow the message's.
    if (fieldFlexible !== undefined && !this.flexibleVersions.covers(fieldFlexible)) {
      this.fail(
        fieldFlexNode,
        fieldPath,
        `flexibleVersions ${fieldFlexible} must be within the message's flexibleVersions ${this.flexibleVersions}`,
      );
    }

    if (zeroCopy && !(typeRef.kind === "primitive" && typeRef.name === "bytes")) {
      this.fail(zeroCopyNode, fieldPath, `"zeroCopy" is only allowed on bytes fields`);
    }

    const defaultNode = obj.get("default");
    const defaultText = defaultNode ? readDefaultText(this, defaultNode, fieldPath) : null;

    const resolve = (structRef: StructRef): StructSpec =>
      this.resolveStruct(structRef.name, obj, fieldPath, effectiveVersions, typeNode, depth + 1);
    let type: FieldType;
    if (typeRef.kind === "primitive") type = typeRef;
    else if (typeRef.kind === "struct") type = { kind: "struct", struct: resolve(typeRef) };
    else if (typeRef.element.kind === "primitive") type = { kind: "array", element: typeRef.element };
    else type = { kind: "array", element: { kind: "struct", struct: resolve(typeRef.element) } };

    const fieldDefault = parseDefault(this, typeRef, defaultText ?? "", defaultNode, fieldPath, versions, nullable);

    const spec: FieldSpec = {
      name,
      propertyName: propertyNameOf(name),
      type,
      versions: effectiveVersions,
      nullableVersions: nullable.intersect(effectiveVersions),
      tag,
      taggedVersions: tag === null ? Versions.NONE : tagged.intersect(effectiveVersions),
      ...(fieldFlexible === undefined ? {} : { flexibleVersions: fieldFlexible }),
      ignorable,
      mapKey,
      zeroCopy,
      entityType: entityType === null || entityType === "unknown" ? null : entityType,
      about,
      default: fieldDefault,
      defaultText,
      schemaPath: fieldPath,
    };
    return { spec, tagNode, mapKeyNode };
  }

  /** FieldType.parse: primitives, `[]T` (no arrays of arrays), or a capitalised struct name. */
  private parseType(text: string, node: JsonNode, fieldPath: string): TypeRef {
    const trimmed = javaTrim(text);
    const space = unicodeSpaceIn(trimmed);
    if (space !== undefined) {
      this.fail(node, fieldPath, `${space} in a type: ${quote(text)} (Kafka's parser trims only ASCII whitespace)`);
    }
    const primitive = PRIMITIVE_NAMES.find((p) => p === trimmed);
    if (primitive) return { kind: "primitive", name: primitive };
    if (trimmed.startsWith("[]")) {
      const elementText = trimmed.slice(2);
      if (elementText === "") this.fail(node, fieldPath, `array type "[]" has no element type`);
      if (elementText.startsWith("[]")) {
        this.fail(node, fieldPath, `arrays of arrays are not supported; use an array of structs that holds an array`);
      }
      const element = this.parseType(elementText, node, fieldPath);
      if (element.kind === "array") this.fail(node, fieldPath, `arrays of arrays are not supported`);
      return { kind: "array", element };
    }
    if (/^[A-Z]/.test(trimmed)) {
      const reserved = reservedNameReason(trimmed, "struct");
      if (reserved !== undefined) this.fail(node, fieldPath, `invalid struct type name ${quote(trimmed)}: ${reserved}`);
      if (!VALID_TYPE_NAME.test(trimmed)) {
        this.fail(
          node,
          fieldPath,
          `invalid struct type name ${quote(trimmed)} (letters and digits only, starting with a capital letter)`,
        );
      }
      return { kind: "struct", name: trimmed };
    }
    this.fail(
      node,
      fieldPath,
      `unknown type ${quote(trimmed)} (expected ${PRIMITIVE_NAMES.join(", ")}, []T, or a struct name starting with a capital letter)`,
    );
  }

  /**
   * StructRegistry: a struct type is either a common struct (which must not be re-specified
   * inline) or an inline struct defined exactly once by the field that carries its "fields".
   */
  private resolveStruct(
    typeName: string,
    obj: JsonObject,
    fieldPath: string,
    versions: Versions,
    typeNode: JsonNode,
    depth: number,
  ): StructSpec {
    if (typeName === this.messageName)
      this.fail(typeNode, fieldPath, `struct type ${typeName} has the same name as the message`);
    const fieldsNode = obj.get("fields");
    const items = fieldsNode ? this.items(fieldsNode, fieldPath, "fields") : undefined;
    const existing = this.structsByName.get(typeName);
    if (existing?.spec.common) {
      if (items && items.length > 0) {
        this.fail(
          obj.key("fields"),
          fieldPath,
          `cannot re-specify the common struct ${typeName} inline (remove "fields" or rename the struct)`,
        );
      }
      return existing.spec;
    }
    if (existing) {
      this.fail(
        typeNode,
        fieldPath,
        items
          ? `struct ${typeName} is defined twice (first by ${existing.definedBy}); inline struct names must be unique`
          : `struct ${typeName} is defined inline by ${existing.definedBy} and cannot be referenced again; move it to commonStructs`,
      );
    }
    if (!items) {
      // Kafka would silently synthesize an empty struct here; it is always a typo or a missing common struct.
      this.fail(
        typeNode,
        fieldPath,
        `unknown struct type ${typeName}: the field has no "fields" and there is no common struct named ${typeName}`,
      );
    }
    if (depth > MAX_STRUCT_DEPTH) {
      // Checked before recursing, so the loader (and every later walk over the structs) stays
      // far from the stack limit however deep the schema goes.
      this.fail(
        typeNode,
        fieldPath,
        `structs nested deeper than ${MAX_STRUCT_DEPTH} levels (struct ${typeName} would be level ${depth})`,
      );
    }
    const entry: StructEntry = {
      spec: { name: typeName, versions, fields: [], common: false },
      offset: obj.node.offset,
      definedBy: fieldPath,
    };
    // Registered before its fields are built, so a struct that contains itself is "defined twice", as in Kafka.
    this.structsByName.set(typeName, entry);
    entry.spec.fields.push(...this.fields(items, fieldPath, typeName, false, depth));
    return entry.spec;
  }

  private checkEntityType(entityType: string, typeRef: TypeRef, node: JsonNode | undefined, fieldPath: string): void {
    if (!Object.hasOwn(ENTITY_TYPES, entityType)) {
      this.fail(
        node,
        fieldPath,
        `unknown entityType ${quote(entityType)} (expected ${Object.keys(ENTITY_TYPES).join(", ")})${spaceHint(entityType)}`,
      );
    }
    const required = ENTITY_TYPES[entityType];
    if (!required) return;
    // EntityType.verifyTypeMatches: arrays are checked by their element type.
    const actual = typeRef.kind === "array" ? typeRef.element : typeRef;
    if (actual.name !== required) {
      this.fail(
        node,
        fieldPath,
        `entityType ${entityType} requires type ${required} (or []${required}), not ${actual.name}`,
      );
    }
  }

  /**
   * FieldSpec.checkTagInvariants, plus the generator's "tagged versions within flexible
   * versions": within the message's (a struct has a tagged-field section only in the message's
   * flexible versions) and within the field's own override, when it has one.
   */
  private checkTagged(args: {
    tag: number | null;
    tagNode: JsonNode | undefined;
    tagged: Versions;
    taggedNode: JsonNode | undefined;
    versions: Versions;
    nullable: Versions;
    mapKey: boolean;
    fieldFlexible: Versions | undefined;
    fieldPath: string;
  }): void {
    const { tag, tagNode, tagged, taggedNode, versions, nullable, mapKey, fieldFlexible, fieldPath } = args;
    const flexible = this.flexibleVersions;
    if (tag === null) {
      if (!tagged.isEmpty()) this.fail(taggedNode, fieldPath, `"taggedVersions" requires a "tag"`);
      return;
    }
    if (tag < 0) this.fail(tagNode, fieldPath, `tag ${tag} is negative`);
    if (mapKey) this.fail(tagNode, fieldPath, `a tagged field cannot be a "mapKey"`);
    if (tagged.isEmpty()) this.fail(tagNode, fieldPath, `"tag" requires "taggedVersions"`);
    const nullableTagged = nullable.intersect(tagged);
    if (!nullableTagged.isEmpty() && !nullableTagged.equals(tagged)) {
      this.fail(
        taggedNode,
        fieldPath,
        `nullableVersions ${nullable} must cover all or none of taggedVersions ${tagged}`,
      );
    }
    if (tagged.highest !== MAX_VERSION) {
      this.fail(taggedNode, fieldPath, `taggedVersions "${tagged}" must be open-ended (e.g. "${tagged.lowest}+")`);
    }
    if (!versions.covers(tagged)) {
      this.fail(taggedNode, fieldPath, `taggedVersions ${tagged} must be within the field's versions ${versions}`);
    }
    if (!flexible.covers(tagged)) {
      this.fail(
        taggedNode,
        fieldPath,
        flexible.isEmpty()
          ? `tagged fields need flexible versions, but flexibleVersions is "none"`
          : fieldFlexible === undefined
            ? `taggedVersions ${tagged} must be within flexibleVersions ${flexible} (tagged fields exist only in flexible versions)`
            : `taggedVersions ${tagged} must be within the message's flexibleVersions ${flexible}, not just the field's ${fieldFlexible} (a struct has a tagged-field section only in the message's flexible versions)`,
      );
    }
    if (fieldFlexible !== undefined && !fieldFlexible.covers(tagged)) {
      this.fail(
        taggedNode,
        fieldPath,
        `taggedVersions ${tagged} must be within the field's flexibleVersions ${fieldFlexible}`,
      );
    }
  }
}
