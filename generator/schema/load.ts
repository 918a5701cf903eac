/**
 * JSON syntax tree -> validated {@link MessageSpec}.
 *
 * The rules are Apache Kafka's generator rules (MessageSpec, StructSpec, FieldSpec, FieldType,
 * Versions, StructRegistry, MessageDataGenerator, EntityType, HeaderVersions), including the
 * coercions its Jackson `ObjectMapper` applies (a JSON number where a string is expected, a
 * numeric string for `tag`, a single value where a list is expected). Where Kafka would only
 * fail later (javac, or a NullPointerException at run time) we fail here, with the field path
 * and the position in the file.
 *
 * This file reads the message itself; load-fields.ts its fields and structs, load-defaults.ts
 * their defaults, schema-reader.ts the JSON (with Jackson's coercions and located errors).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { SchemaError } from "./errors.js";
import { parseSchemaDocument, type JsonNode, type SchemaDocument } from "./parse.js";
import type { MessageSpec, MessageType, StructSpec } from "./model.js";
import { reservedNameReason } from "./reserved-names.js";
import { describeNode, findProperty, quote, spaceHint, type JsonObject } from "./schema-reader.js";
import { FieldLoader, VALID_TYPE_NAME, type StructEntry } from "./load-fields.js";
import { MAX_VERSION, Versions } from "./versions.js";

export { MAX_STRUCT_DEPTH } from "./load-fields.js";

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

// ---------------------------------------------------------------------------------------------
// Internal shapes

/** A field object whose fields list still has to be built (common structs). */
interface PendingCommon {
  readonly entry: StructEntry;
  readonly items: readonly JsonNode[];
  readonly path: string;
}

// ---------------------------------------------------------------------------------------------

class Loader extends FieldLoader {
  constructor(
    doc: SchemaDocument,
    private readonly options: LoadOptions,
  ) {
    super(doc);
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
    // "none": a removed API whose api key stays reserved; Kafka generates no classes for it, and
    // neither do we (generate.ts), but its api key still counts.
    if (!valid.isEmpty() && valid.highest === MAX_VERSION) {
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
    let headerVersions: { range: Versions; header: number }[] | null = null;
    if (headerNode) {
      if (type !== "request" && type !== "response") {
        this.fail(headerNode, undefined, `"headerVersions" is only valid for messages of type request or response`);
      }
      headerVersions = this.checkHeaderVersions(headerNode);
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
      headerVersions,
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
  private checkHeaderVersions(node: JsonNode): { range: Versions; header: number }[] {
    if (node.type !== "object")
      this.fail(node, undefined, `"headerVersions" must be an object of version range -> header version`);
    const entries: { range: Versions; header: number; node: JsonNode }[] = [];
    for (const prop of node.children ?? []) {
      const [keyNode, valueNode] = prop.children ?? [];
      if (!keyNode || !valueNode) continue;
      const keyText = String(keyNode.value);
      const range = this.parseVersionText(keyText, keyNode, undefined, "headerVersions key");
      if (range.isEmpty()) this.fail(keyNode, undefined, `invalid version range "${keyText}" in headerVersions`);
      const header = this.integer(valueNode, undefined, `headerVersions["${keyText}"]`, 0, MAX_VERSION);
      entries.push({ range, header, node: keyNode });
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
      // A message with no valid versions keeps its table (KIP-1313 makes it mandatory).
      if (!this.validVersions.isEmpty() && entry.range.lowest > this.validVersions.highest) {
        this.fail(
          entry.node,
          undefined,
          `headerVersions range ${entry.range} starts above the highest valid version ${this.validVersions.highest}`,
        );
      }
    }
    return entries.map(({ range, header }) => ({ range, header }));
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
}
