/**
 * JSON syntax tree -> validated {@link MessageSpec}.
 *
 * The rules are Apache Kafka's generator rules (MessageSpec, StructSpec, FieldSpec, FieldType,
 * Versions, StructRegistry, MessageDataGenerator, EntityType, HeaderVersions), including the
 * coercions its Jackson `ObjectMapper` applies (a JSON number where a string is expected, a
 * numeric string for `tag`, a single value where a list is expected). Where Kafka would only
 * fail later (javac, or a NullPointerException at run time) we fail here, with the field path
 * and the position in the file.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { SchemaError } from "./errors.js";
import { parseSchemaDocument, type JsonNode, type SchemaDocument } from "./parse.js";
import {
  propertyNameOf,
  type DefaultValue,
  type Diagnostic,
  type FieldSpec,
  type FieldType,
  type MessageSpec,
  type MessageType,
  type PrimitiveTypeName,
  type StructSpec,
} from "./model.js";
import { editDistance } from "./edit-distance.js";
import { reservedNameReason } from "./emit/names.js";
import { MAX_VERSION, Versions, VersionsSyntaxError } from "./versions.js";
import { PRIMITIVES, PRIMITIVE_NAMES } from "./wire-types.js";

/** Options for {@link loadSchema}. */
export interface LoadOptions {
  /**
   * Api keys by message name, for schemas that say `"apiKey": TBD`
   * (e.g. `{ StreamsGroupHeartbeatRequest: 88 }`). An entry for a schema with a different
   * numeric apiKey, or with no apiKey at all, is an error.
   */
  readonly apiKeys?: Readonly<Record<string, number>>;
}

/**
 * Parses and validates one schema. Throws {@link SchemaError}
 * (`file:line:column: FieldPath: reason`) on the first problem.
 */
export function loadSchema(text: string, file: string, options: LoadOptions = {}): MessageSpec {
  return new Loader(parseSchemaDocument(text, file), options).load();
}

/** Reads a schema file (UTF-8) and loads it with {@link loadSchema}; errors name `filePath`. */
export function loadSchemaFile(filePath: string, options: LoadOptions = {}): MessageSpec {
  return loadSchema(readFileSync(filePath, "utf8"), filePath, options);
}

// ---------------------------------------------------------------------------------------------
// Kafka's vocabulary

/** MessageSpec's @JsonProperty names (headerVersions is newer Kafka's; accepted and checked). */
const MESSAGE_KEYS = [
  "apiKey",
  "type",
  "listeners",
  "name",
  "validVersions",
  "deprecatedVersions",
  "flexibleVersions",
  "headerVersions",
  "fields",
  "commonStructs",
  "latestVersionUnstable",
] as const;

/** StructSpec's @JsonProperty names (entries of `commonStructs`). */
const STRUCT_KEYS = ["name", "versions", "deprecatedVersions", "fields"] as const;

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

const MESSAGE_TYPES: readonly MessageType[] = [
  "request",
  "response",
  "header",
  "data",
  "metadata",
  "coordinator-key",
  "coordinator-value",
];

/** RequestListenerType's JSON names. */
const LISTENERS = ["zkBroker", "broker", "controller"] as const;

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
const VALID_TYPE_NAME = /^[A-Z][A-Za-z0-9]*$/;
/** How many struct levels may nest inside one another (the message's own fields are level 0). */
export const MAX_STRUCT_DEPTH = 64;
const ZERO_UUID = "AAAAAAAAAAAAAAAAAAAAAA";

/**
 * Java's String.trim, which Kafka's Versions.parse and FieldType.parse and Jackson's
 * string-to-number coercion use: strips characters <= U+0020 only (JavaScript's trim also
 * strips U+00A0 and the other Unicode spaces, so Kafka would reject what it accepts).
 */
function javaTrim(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && text.charCodeAt(start) <= 0x20) start++;
  while (end > start && text.charCodeAt(end - 1) <= 0x20) end--;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

/** Whitespace that JavaScript's trim and `\s` know but Java's trim does not, plus invisible look-alikes. */
const UNICODE_SPACE = /[\u0085\u00a0\u1680\u180e\u2000-\u200b\u2028\u2029\u202f\u205f\u3000\ufeff]/;

/** Names the first Unicode space in `text` ("no-break space (U+00A0)"), or undefined. */
function unicodeSpaceIn(text: string): string | undefined {
  const match = UNICODE_SPACE.exec(text);
  if (!match) return undefined;
  const ch = match[0].charCodeAt(0);
  const code = `U+${ch.toString(16).toUpperCase().padStart(4, "0")}`;
  const names: Record<number, string> = {
    0x00a0: "no-break space",
    0x202f: "narrow no-break space",
    0x200b: "zero-width space",
    0xfeff: "zero-width no-break space",
    0x2028: "line separator",
    0x2029: "paragraph separator",
    0x3000: "ideographic space",
  };
  return `${names[ch] ?? "Unicode space"} (${code})`;
}

/** A value quoted for a one-line message: JSON escapes, plus Unicode spaces made visible. */
function quote(text: string): string {
  return JSON.stringify(text).replace(
    new RegExp(UNICODE_SPACE.source, "g"),
    (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** " (it contains a no-break space (U+00A0) ...)" when `text` has a Unicode space, else "". */
function spaceHint(text: string): string {
  const space = unicodeSpaceIn(text);
  return space ? ` (it contains a ${space}, which Kafka's parser does not treat as whitespace)` : "";
}

// ---------------------------------------------------------------------------------------------
// Internal shapes

/** Parsed `type`, before struct names are resolved. */
type PrimitiveRef = { readonly kind: "primitive"; readonly name: PrimitiveTypeName };
type StructRef = { readonly kind: "struct"; readonly name: string };
type TypeRef = PrimitiveRef | StructRef | { readonly kind: "array"; readonly element: PrimitiveRef | StructRef };

/** A StructSpec under construction: fields are appended after registration so references resolve. */
interface StructBuilder {
  name: string;
  versions: Versions;
  fields: FieldSpec[];
  common: boolean;
}

interface StructEntry {
  readonly spec: StructBuilder;
  /** Offset of the definition (declaring field or commonStructs entry), for definition order. */
  readonly offset: number;
  /** Where it was defined, for "defined twice" messages. */
  readonly definedBy: string;
}

/** A field object whose fields list still has to be built (common structs). */
interface PendingCommon {
  readonly entry: StructEntry;
  readonly items: readonly JsonNode[];
  readonly path: string;
}

/** An object node with its properties by name (JSON `null` values count as absent, as in Jackson). */
class JsonObject {
  private readonly props = new Map<string, { readonly key: JsonNode; readonly value: JsonNode }>();

  constructor(readonly node: JsonNode) {}

  set(name: string, key: JsonNode, value: JsonNode): boolean {
    const duplicate = this.props.has(name);
    this.props.set(name, { key, value });
    return duplicate;
  }

  /** The value node, or undefined when absent or JSON null. */
  get(name: string): JsonNode | undefined {
    const value = this.props.get(name)?.value;
    return value === undefined || value.type === "null" ? undefined : value;
  }

  /** The key node if present (even with a null value), for positions. */
  key(name: string): JsonNode | undefined {
    return this.props.get(name)?.key;
  }
}

// ---------------------------------------------------------------------------------------------

class Loader {
  private readonly file: string;
  private readonly warnings: Diagnostic[];
  private readonly structsByName = new Map<string, StructEntry>();
  private messageName = "";
  private validVersions: Versions = Versions.of(0);
  private flexibleVersions: Versions = Versions.NONE;

  constructor(
    private readonly doc: SchemaDocument,
    private readonly options: LoadOptions,
  ) {
    this.file = doc.file;
    this.warnings = [...doc.warnings];
  }

  load(): MessageSpec {
    const root = this.doc.root;
    if (root.type !== "object") this.fail(root, undefined, `a schema must be a JSON object, not ${describeNode(root)}`);
    const msg = this.object(root, MESSAGE_KEYS, undefined, "the message");

    // name, type
    const nameNode = this.required(msg, "name", undefined);
    const name = this.string(nameNode, undefined, "name");
    this.checkTypeName(name, "message", nameNode, undefined);
    this.messageName = name;
    const typeNode = this.required(msg, "type", undefined);
    const typeText = this.string(typeNode, undefined, "type");
    const type = MESSAGE_TYPES.find((t) => t === typeText);
    if (!type) {
      this.fail(
        typeNode,
        undefined,
        `unknown message type ${quote(typeText)} (expected ${MESSAGE_TYPES.join(", ")})${spaceHint(typeText)}`,
      );
    }

    // Versions (Kafka: StructSpec requires validVersions, MessageSpec requires flexibleVersions).
    const validNode = this.required(msg, "validVersions", undefined);
    const valid = this.versions(validNode, undefined, "validVersions");
    if (valid === undefined) this.fail(validNode, undefined, `"validVersions" is empty`);
    if (valid.isEmpty()) {
      // Kafka accepts it but generates no classes for such a message; there is nothing to emit.
      this.fail(validNode, undefined, `"validVersions": "none" is not supported (Kafka generates no code for it)`);
    }
    if (valid.highest === MAX_VERSION) {
      // MessageDataGenerator: "Message X does not specify a maximum version."
      this.fail(validNode, undefined, `validVersions "${valid}" must have a maximum version (e.g. "0-3")`);
    }
    this.validVersions = valid;
    this.optionalVersions(msg, "deprecatedVersions", undefined);

    const flexNode = msg.get("flexibleVersions");
    if (!flexNode) {
      this.fail(
        msg.key("flexibleVersions") ?? root,
        undefined,
        `missing required key "flexibleVersions" (use "0+" for new messages, "none" for none)`,
      );
    }
    const flexible = this.versions(flexNode, undefined, "flexibleVersions") ?? Versions.NONE;
    if (!flexible.isEmpty() && flexible.highest !== MAX_VERSION) {
      this.fail(flexNode, undefined, `flexibleVersions "${flexible}" must be "none" or open-ended (e.g. "2+")`);
    }
    this.flexibleVersions = flexible;

    // listeners, latestVersionUnstable, headerVersions: request-only (response too for headers).
    const listeners = this.listeners(msg);
    if (listeners.length > 0 && type !== "request") {
      this.fail(msg.get("listeners"), undefined, `"listeners" is only valid for messages of type request`);
    }
    const unstableNode = msg.get("latestVersionUnstable");
    const latestVersionUnstable = this.boolean(unstableNode, undefined, "latestVersionUnstable");
    if (latestVersionUnstable && type !== "request") {
      this.fail(unstableNode, undefined, `"latestVersionUnstable" is only valid for messages of type request`);
    }
    const headerNode = msg.get("headerVersions");
    if (headerNode) {
      if (type !== "request" && type !== "response") {
        this.fail(headerNode, undefined, `"headerVersions" is only valid for messages of type request or response`);
      }
      this.checkHeaderVersions(headerNode);
    }

    // Kafka's ApiMessageTypeGenerator derives the API name by stripping these suffixes.
    if (type === "request" && !name.endsWith("Request")) {
      this.fail(nameNode, undefined, `a request's name must end with "Request" (found "${name}")`);
    }
    if (type === "response" && !name.endsWith("Response")) {
      this.fail(nameNode, undefined, `a response's name must end with "Response" (found "${name}")`);
    }

    const apiKey = this.apiKey(msg, name, type);
    if (type === "coordinator-key") {
      if (valid.lowest !== 0 || valid.highest !== 0) {
        this.fail(validNode, undefined, `a coordinator-key message must have "validVersions": "0"`);
      }
      if (!flexible.isEmpty())
        this.fail(flexNode, undefined, `a coordinator-key message must have "flexibleVersions": "none"`);
    }

    // Structs: common structs first (so any field can reference them), then the fields.
    const pending = this.registerCommonStructs(msg);
    const topFields = this.fields(msg.get("fields"), "", name, true, 0);
    for (const { entry, items, path: structPath } of pending) {
      entry.spec.fields.push(...this.fields(items, structPath, structPath, false, 1));
    }

    const struct: StructSpec = { name, versions: valid, fields: topFields, common: false };
    const structs: StructSpec[] = [
      struct,
      ...[...this.structsByName.values()].sort((a, b) => a.offset - b.offset).map((e) => e.spec),
    ];

    this.checkFileName(name, nameNode);

    return {
      name,
      type,
      apiKey,
      apiKeyUnassigned: this.doc.apiKeyUnassigned,
      validVersions: valid,
      flexibleVersions: flexible,
      listeners,
      latestVersionUnstable,
      struct,
      structs,
      file: this.file,
      warnings: this.warnings,
    };
  }

  // -------------------------------------------------------------------------------------------
  // Message-level pieces

  private apiKey(msg: JsonObject, name: string, type: MessageType): number | null {
    const assigned = this.options.apiKeys?.[name];
    if (assigned !== undefined && !(Number.isInteger(assigned) && assigned >= 0 && assigned <= MAX_VERSION)) {
      this.fail(msg.get("name"), undefined, `the apiKeys option gives ${name} an invalid api key ${String(assigned)}`);
    }
    const requiresKey = type === "coordinator-key" || type === "coordinator-value";
    if (this.doc.apiKeyUnassigned) {
      if (assigned === undefined && requiresKey) {
        const at = this.doc.apiKeyTbdProperty ?? msg.node;
        this.warn(
          at,
          `a ${type} message needs an apiKey; "apiKey": TBD is not assigned (pass it in the apiKeys option)`,
        );
      }
      return assigned ?? null;
    }
    const node = msg.get("apiKey");
    if (node) {
      const key = this.integer(node, undefined, "apiKey", 0, MAX_VERSION);
      if (assigned !== undefined && assigned !== key) {
        this.fail(node, undefined, `apiKey ${key} conflicts with the apiKeys option, which assigns ${assigned}`);
      }
      return key;
    }
    if (assigned !== undefined) {
      this.fail(
        msg.get("name"),
        undefined,
        `the apiKeys option assigns ${assigned}, but the schema has no "apiKey" (only "apiKey": TBD can be assigned)`,
      );
    }
    if (requiresKey) this.fail(msg.key("type"), undefined, `a ${type} message must have an "apiKey"`);
    return null;
  }

  private listeners(msg: JsonObject): string[] {
    const node = msg.get("listeners");
    if (!node) return [];
    return this.items(node, undefined, "listeners").map((item) => {
      const value = this.string(item, undefined, "listeners");
      if (!LISTENERS.some((l) => l === value)) {
        this.fail(
          item,
          undefined,
          `unknown listener ${quote(value)} (expected ${LISTENERS.join(", ")})${spaceHint(value)}`,
        );
      }
      return value;
    });
  }

  /** HeaderVersions.parse: ranges from 0, contiguous, only the last open-ended, none above validVersions. */
  private checkHeaderVersions(node: JsonNode): void {
    if (node.type !== "object")
      this.fail(node, undefined, `"headerVersions" must be an object of version range -> header version`);
    const entries: { range: Versions; node: JsonNode }[] = [];
    for (const prop of node.children ?? []) {
      const [keyNode, valueNode] = prop.children ?? [];
      if (!keyNode || !valueNode) continue;
      const keyText = String(keyNode.value);
      const range = this.parseVersionText(keyText, keyNode, undefined, "headerVersions key");
      if (range.isEmpty()) this.fail(keyNode, undefined, `invalid version range "${keyText}" in headerVersions`);
      this.integer(valueNode, undefined, `headerVersions["${keyText}"]`, 0, MAX_VERSION);
      entries.push({ range, node: keyNode });
    }
    if (entries.length === 0) this.fail(node, undefined, `"headerVersions" is empty`);
    entries.sort((a, b) => a.range.lowest - b.range.lowest);
    if (entries[0]!.range.lowest !== 0) {
      this.fail(entries[0]!.node, undefined, `headerVersions must start at version 0`);
    }
    for (let i = 1; i < entries.length; i++) {
      const previous = entries[i - 1]!.range;
      const current = entries[i]!;
      if (previous.highest === MAX_VERSION) {
        this.fail(current.node, undefined, `only the last headerVersions range may be open-ended (${previous})`);
      }
      if (current.range.lowest !== previous.highest + 1) {
        this.fail(
          current.node,
          undefined,
          `headerVersions ranges must be contiguous: expected a range starting at ${previous.highest + 1}`,
        );
      }
    }
    const lastEntry = entries[entries.length - 1]!;
    if (lastEntry.range.highest !== MAX_VERSION) {
      this.fail(lastEntry.node, undefined, `the last headerVersions range must be open-ended (e.g. "2+")`);
    }
    for (const entry of entries) {
      if (entry.range.lowest > this.validVersions.highest) {
        this.fail(
          entry.node,
          undefined,
          `headerVersions range ${entry.range} starts above the highest valid version ${this.validVersions.highest}`,
        );
      }
    }
  }

  private registerCommonStructs(msg: JsonObject): PendingCommon[] {
    const node = msg.get("commonStructs");
    if (!node) return [];
    return this.items(node, undefined, "commonStructs").map((item, index) => {
      const fallbackPath = `commonStructs[${index}]`;
      if (item.type !== "object")
        this.fail(item, fallbackPath, `a common struct must be a JSON object, not ${describeNode(item)}`);
      const nameNode = findProperty(item, "name");
      const rawName = nameNode?.type === "string" ? String(nameNode.value) : undefined;
      const structPath = rawName ? `commonStructs.${rawName}` : fallbackPath;
      const obj = this.object(item, STRUCT_KEYS, structPath, "a common struct");
      const name = this.string(this.required(obj, "name", structPath), structPath, "name");
      // StructRegistry: "the first letter of structure names must be capitalized".
      this.checkTypeName(name, "struct", obj.get("name"), structPath);
      if (name === this.messageName) this.fail(obj.get("name"), structPath, `a struct cannot have the message's name`);
      const existing = this.structsByName.get(name);
      if (existing) this.fail(obj.get("name"), structPath, `common struct ${name} is defined twice`);
      const versionsNode = this.required(obj, "versions", structPath);
      const versions = this.versions(versionsNode, structPath, "versions");
      if (versions === undefined) this.fail(versionsNode, structPath, `"versions" is empty`);
      this.optionalVersions(obj, "deprecatedVersions", structPath);
      const fieldsNode = obj.get("fields");
      const entry: StructEntry = {
        spec: { name, versions: versions.intersect(this.validVersions), fields: [], common: true },
        offset: item.offset,
        definedBy: structPath,
      };
      this.structsByName.set(name, entry);
      return { entry, items: fieldsNode ? this.items(fieldsNode, structPath, "fields") : [], path: structPath };
    });
  }

  /** A message or common struct name: PascalCase, and usable by the generated TypeScript. */
  private checkTypeName(
    name: string,
    what: "message" | "struct",
    node: JsonNode | undefined,
    fieldPath: string | undefined,
  ): void {
    const reserved = reservedNameReason(name, what);
    if (reserved !== undefined) this.fail(node, fieldPath, `invalid ${what} name ${quote(name)}: ${reserved}`);
    if (!VALID_TYPE_NAME.test(name)) {
      this.fail(
        node,
        fieldPath,
        `invalid ${what} name ${quote(name)} (letters and digits only, starting with a capital letter)${spaceHint(name)}`,
      );
    }
  }

  private checkFileName(name: string, nameNode: JsonNode | undefined): void {
    // Kafka names classes after "name" and never looks at the file name, so this is a warning.
    // Only file names that look like schema names (FetchRequest.json) are compared.
    const base = path.basename(this.file).replace(/\.json$/i, "");
    if (VALID_TYPE_NAME.test(base) && base !== name) {
      this.warn(
        nameNode ?? this.doc.root,
        `message name "${name}" differs from the file name "${path.basename(this.file)}"`,
      );
    }
  }

  // -------------------------------------------------------------------------------------------
  // Fields

  /**
   * Builds the fields of one struct (the message, an inline struct or a common struct) and
   * applies StructSpec's checks: unique names, unique tags, tags contiguous from 0.
   * `depth` is the struct's nesting level: 0 for the message, 1 for a common struct or a
   * struct declared by a top-level field, and so on.
   */
  private fields(
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
    const defaultText = defaultNode ? this.defaultText(defaultNode, fieldPath) : null;

    const resolve = (structRef: StructRef): StructSpec =>
      this.resolveStruct(structRef.name, obj, fieldPath, effectiveVersions, typeNode, depth + 1);
    let type: FieldType;
    if (typeRef.kind === "primitive") type = typeRef;
    else if (typeRef.kind === "struct") type = { kind: "struct", struct: resolve(typeRef) };
    else if (typeRef.element.kind === "primitive") type = { kind: "array", element: typeRef.element };
    else type = { kind: "array", element: { kind: "struct", struct: resolve(typeRef.element) } };

    const fieldDefault = this.parseDefault(typeRef, defaultText ?? "", defaultNode, fieldPath, versions, nullable);

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

  // -------------------------------------------------------------------------------------------
  // Defaults (FieldSpec.fieldDefault)

  /** The default as Kafka's Jackson sees it: a string; JSON numbers and booleans as written. */
  private defaultText(node: JsonNode, fieldPath: string): string {
    if (node.type === "string") return String(node.value);
    if (node.type === "number" || node.type === "boolean") return this.raw(node);
    this.fail(node, fieldPath, `"default" must be a string, number or boolean, not ${describeNode(node)}`);
  }

  private parseDefault(
    typeRef: TypeRef,
    text: string,
    node: JsonNode | undefined,
    fieldPath: string,
    versions: Versions,
    nullable: Versions,
  ): DefaultValue {
    const typeName =
      typeRef.kind === "primitive"
        ? typeRef.name
        : typeRef.kind === "struct"
          ? typeRef.name
          : `[]${typeRef.element.name}`;
    const invalid = (why: string): never =>
      this.fail(node, fieldPath, `invalid default ${quote(text)} for ${typeName}: ${why}`);
    const nullDefault = (): DefaultValue => {
      // validateNullDefault: nullableVersions must contain all of the field's versions.
      if (!nullable.covers(versions)) {
        this.fail(
          node,
          fieldPath,
          `default "null" needs the field to be nullable in all its versions (versions ${versions}, nullableVersions ${nullable})`,
        );
      }
      return { kind: "null" };
    };
    const emptyOrNull = (empty: DefaultValue, what: string): DefaultValue => {
      if (text === "") return empty;
      if (text === "null") return nullDefault();
      return invalid(`the only valid defaults for ${what} are empty and "null"`);
    };

    // Only a string default is free text; every other default is parsed without trimming
    // Unicode spaces (Kafka's number parsing trims ASCII whitespace at most).
    const space = typeRef.kind === "primitive" && typeRef.name === "string" ? undefined : unicodeSpaceIn(text);
    if (space !== undefined) {
      this.fail(node, fieldPath, `${space} in a default: ${quote(text)} is not a valid default for ${typeName}`);
    }

    if (typeRef.kind === "array") return emptyOrNull({ kind: "empty" }, "an array");
    if (typeRef.kind === "struct") return emptyOrNull({ kind: "struct" }, "a struct");
    const primitive = typeRef.name;
    switch (primitive) {
      case "bool":
        if (text === "") return { kind: "bool", value: false };
        // Kafka compares case-insensitively.
        if (/^true$/i.test(text)) return { kind: "bool", value: true };
        if (/^false$/i.test(text)) return { kind: "bool", value: false };
        return invalid(`expected "true" or "false"`);
      case "int8":
      case "int16":
      case "uint16":
      case "int32":
      case "uint32":
      case "int64": {
        if (text === "") return { kind: "int", value: 0n };
        // Kafka: an optional "0x" prefix selects base 16, otherwise a signed decimal.
        const hex = /^0x([0-9a-fA-F]+)$/.exec(text);
        if (!hex && !/^[+-]?[0-9]+$/.test(text)) {
          return invalid(
            text === "null" ? `${primitive} fields cannot be null` : "expected a decimal or 0x-prefixed hex integer",
          );
        }
        const value = hex ? BigInt(`0x${hex[1]}`) : BigInt(text);
        const [min, max] = PRIMITIVES[primitive].intRange!;
        if (value < min || value > max) return invalid(`out of range ${min}..${max}`);
        return { kind: "int", value };
      }
      case "float64":
        if (text === "") return { kind: "float", value: 0 };
        if (!/^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$|^[+-]?Infinity$|^NaN$/.test(text)) {
          return invalid("expected a decimal floating-point number");
        }
        return { kind: "float", value: Number(text) };
      case "string":
        return text === "null" ? nullDefault() : { kind: "string", value: text };
      case "uuid": {
        if (text === "") return { kind: "uuid", value: ZERO_UUID };
        // Uuid.fromString: 16 bytes in URL-safe base64 (22 characters; Java's decoder also takes "==").
        const match = /^([A-Za-z0-9_-]{22})(?:==)?$/.exec(text);
        if (!match)
          return invalid(
            text === "null" ? "uuid fields cannot be null" : "expected a 22-character URL-safe base64 uuid",
          );
        return { kind: "uuid", value: Buffer.from(match[1]!, "base64url").toString("base64url") };
      }
      case "bytes":
        return emptyOrNull({ kind: "empty" }, "bytes");
      case "records":
        // Kafka ignores a records default and always starts with null records; mirror that where
        // null is writable (nullable in every version), else start empty.
        if (text !== "" && text !== "null") return invalid(`the only valid defaults for records are empty and "null"`);
        if (text === "null") return nullDefault();
        return nullable.covers(versions) ? { kind: "null" } : { kind: "empty" };
    }
  }

  // -------------------------------------------------------------------------------------------
  // JSON access with Jackson's coercions

  /** Collects an object's properties, rejecting unknown keys (Jackson's FAIL_ON_UNKNOWN_PROPERTIES). */
  private object(node: JsonNode, allowed: readonly string[], fieldPath: string | undefined, what: string): JsonObject {
    const obj = new JsonObject(node);
    for (const prop of node.children ?? []) {
      const [keyNode, valueNode] = prop.children ?? [];
      if (!keyNode || !valueNode) continue;
      const key = String(keyNode.value);
      if (!allowed.includes(key)) {
        const hint = suggest(key, allowed);
        this.fail(
          keyNode,
          fieldPath,
          `unknown key "${key}" in ${what}${hint ? ` (did you mean "${hint}"?)` : ""}; allowed keys: ${allowed.join(", ")}`,
        );
      }
      if (obj.set(key, keyNode, valueNode)) {
        this.warn(
          keyNode,
          `${fieldPath ? `${fieldPath}: ` : ""}duplicate key "${key}"; the last one wins (as in Kafka's JSON parser)`,
        );
      }
    }
    return obj;
  }

  private required(obj: JsonObject, key: string, fieldPath: string | undefined): JsonNode {
    const value = obj.get(key);
    if (!value) this.fail(obj.key(key) ?? obj.node, fieldPath, `missing required key "${key}"`);
    return value;
  }

  /** Jackson's List deserialisation with ACCEPT_SINGLE_VALUE_AS_ARRAY. */
  private items(node: JsonNode, fieldPath: string | undefined, key: string): JsonNode[] {
    if (node.type === "array") return node.children ?? [];
    this.warn(
      node,
      `${fieldPath ? `${fieldPath}: ` : ""}"${key}" should be an array; a single value is read as a one-element array`,
    );
    return [node];
  }

  /** A string; numbers and booleans are taken as written (Jackson coerces scalars to String). */
  private string(node: JsonNode, fieldPath: string | undefined, key: string): string {
    if (node.type === "string") return String(node.value);
    if (node.type === "number" || node.type === "boolean") return this.raw(node);
    this.fail(node, fieldPath, `"${key}" must be a string, not ${describeNode(node)}`);
  }

  /** A boolean; absent or null is false; "true"/"false" strings are coerced as Jackson does. */
  private boolean(node: JsonNode | undefined, fieldPath: string | undefined, key: string): boolean {
    if (!node) return false;
    if (node.type === "boolean") return node.value === true;
    if (node.type === "string" && /^(true|false)$/i.test(String(node.value))) return /^true$/i.test(String(node.value));
    this.fail(node, fieldPath, `"${key}" must be true or false, not ${describeNode(node)}`);
  }

  /** An integer (JSON integer or a numeric string, as Jackson coerces) within [min, max]. */
  private integer(node: JsonNode, fieldPath: string | undefined, key: string, min: number, max: number): number {
    // Jackson trims a numeric string with Java's String.trim.
    const text =
      node.type === "number" ? this.raw(node) : node.type === "string" ? javaTrim(String(node.value)) : undefined;
    const space = text === undefined ? undefined : unicodeSpaceIn(text);
    if (space !== undefined) {
      this.fail(
        node,
        fieldPath,
        `${space} in "${key}": ${quote(String(node.value))} (Kafka's parser trims only ASCII whitespace)`,
      );
    }
    if (text === undefined || !/^[+-]?[0-9]+$/.test(text)) {
      this.fail(node, fieldPath, `"${key}" must be an integer, not ${describeNode(node)}`);
    }
    const value = Number(text);
    if (value < min || value > max) this.fail(node, fieldPath, `"${key}" ${text} is out of range ${min}..${max}`);
    return value;
  }

  /** A version range value: undefined when absent or empty (Kafka's Versions.parse default). */
  private versions(node: JsonNode | undefined, fieldPath: string | undefined, key: string): Versions | undefined {
    if (!node) return undefined;
    const text = this.string(node, fieldPath, key);
    if (javaTrim(text) === "") return undefined;
    return this.parseVersionText(text, node, fieldPath, key);
  }

  private optionalVersions(obj: JsonObject, key: string, fieldPath: string | undefined): void {
    this.versions(obj.get(key), fieldPath, key);
  }

  /**
   * Versions.parse (see versions.ts), with the error at `node`; a Unicode space is named rather
   * than reported as a syntax error (Java's String.trim strips ASCII blanks only).
   */
  private parseVersionText(
    text: string,
    node: JsonNode | undefined,
    fieldPath: string | undefined,
    key: string,
  ): Versions {
    const space = unicodeSpaceIn(javaTrim(text));
    if (space !== undefined) {
      this.fail(node, fieldPath, `${space} in ${key}: ${quote(text)} (Kafka's parser trims only ASCII whitespace)`);
    }
    try {
      return Versions.parse(text);
    } catch (e) {
      if (!(e instanceof VersionsSyntaxError)) throw e;
      this.fail(node, fieldPath, `invalid ${key} ${quote(text)}${e.detail}`);
    }
  }

  /** The source text of a scalar node (keeps int64 digits and float spelling exact). */
  private raw(node: JsonNode): string {
    return this.doc.text.slice(node.offset, node.offset + node.length);
  }

  // -------------------------------------------------------------------------------------------
  // Diagnostics

  private where(node: JsonNode): string {
    const { line, column } = this.doc.position(node.offset);
    return `${line}:${column}`;
  }

  private warn(node: JsonNode, message: string): void {
    const { line, column } = this.doc.position(node.offset);
    this.warnings.push({ file: this.file, line, column, message });
  }

  private fail(node: JsonNode | undefined, fieldPath: string | undefined, reason: string): never {
    const { line, column } = this.doc.position((node ?? this.doc.root).offset);
    throw new SchemaError({ file: this.file, line, column, reason, ...(fieldPath ? { path: fieldPath } : {}) });
  }
}

// ---------------------------------------------------------------------------------------------
// Helpers

function isNodeList(value: JsonNode | readonly JsonNode[]): value is readonly JsonNode[] {
  return Array.isArray(value);
}

function findProperty(node: JsonNode, key: string): JsonNode | undefined {
  if (node.type !== "object") return undefined;
  let found: JsonNode | undefined;
  for (const prop of node.children ?? []) {
    if (prop.children?.[0]?.value === key) found = prop.children[1];
  }
  return found;
}

function describeNode(node: JsonNode): string {
  switch (node.type) {
    case "object":
      return "an object";
    case "array":
      return "an array";
    case "string":
      return `the string ${JSON.stringify(node.value)}`;
    default:
      return `${node.type} ${String(node.value)}`;
  }
}

/** The allowed key closest to a misspelt one (case-insensitive match or edit distance <= 2). */
function suggest(key: string, allowed: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of allowed) {
    const distance = candidate.toLowerCase() === key.toLowerCase() ? 0 : editDistance(key, candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}
