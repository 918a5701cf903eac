/**
 * The schema model: what the generator knows about a message after parsing and validation.
 *
 * Mirrors Apache Kafka's generator model (`MessageSpec`, `StructSpec`, `FieldSpec`, `Versions`)
 * with every reference resolved: a field's struct type points at its `StructSpec`, defaults are
 * parsed for their type, and version ranges are {@link Versions}. Emitters read this model only.
 */

// The runtime's own definition of the schema's `"type"` values (the wire vocabulary).
export type { MessageType } from "../../src/runtime/wire.js";
import type { MessageType } from "../../src/runtime/wire.js";
import type { Versions } from "./versions.js";

// Scalar and opaque types of the schema language: the runtime's too (field tables name them).
export type { PrimitiveTypeName } from "../../src/runtime/wire.js";
import type { PrimitiveTypeName } from "../../src/runtime/wire.js";

export type FieldType =
  | { readonly kind: "primitive"; readonly name: PrimitiveTypeName }
  | { readonly kind: "struct"; readonly struct: StructSpec }
  | { readonly kind: "array"; readonly element: PrimitiveFieldType | StructFieldType };

export type PrimitiveFieldType = Extract<FieldType, { kind: "primitive" }>;
export type StructFieldType = Extract<FieldType, { kind: "struct" }>;
export type ArrayFieldType = Extract<FieldType, { kind: "array" }>;

/**
 * A field's default, already parsed for its type (Kafka's semantics):
 * - no `default` key (or an unquoted JSON `null`): 0 / `""` / `false` / zero uuid / empty bytes /
 *   empty array / a struct with its own defaults;
 * - `"null"`: only on fields nullable in every version where the field exists;
 * - numeric defaults may be decimal or hex (`"0x7fffffff"`), negative, or JSON numbers.
 */
export type DefaultValue =
  | { readonly kind: "null" }
  | { readonly kind: "bool"; readonly value: boolean }
  /** int8..int64, uint16, uint32; bigint keeps int64 exact. */
  | { readonly kind: "int"; readonly value: bigint }
  | { readonly kind: "float"; readonly value: number }
  | { readonly kind: "string"; readonly value: string }
  /** uuid in Kafka's 22-character URL-safe base64 form (`AAAAAAAAAAAAAAAAAAAAAA` = zero). */
  | { readonly kind: "uuid"; readonly value: string }
  /** Empty bytes, empty records, empty array. */
  | { readonly kind: "empty" }
  /** A struct holding its own field defaults. */
  | { readonly kind: "struct" };

export interface FieldSpec {
  /** The schema's name, as written (`"ThrottleTimeMs"`). */
  readonly name: string;
  /**
   * The TypeScript property and JSON key: the schema name with only its first letter
   * lower-cased, exactly as Kafka's JsonConverter does (`KRaftVersion` -> `kRaftVersion`).
   */
  readonly propertyName: string;
  readonly type: FieldType;
  /** Versions in which the field exists, already intersected with the message's validVersions. */
  readonly versions: Versions;
  /** Versions in which null is allowed (NONE: never nullable). */
  readonly nullableVersions: Versions;
  /** The tag number for tagged fields; null for ordinary fields. */
  readonly tag: number | null;
  /** Versions in which the field is tagged (NONE unless `tag` is set). */
  readonly taggedVersions: Versions;
  /**
   * Field-level `flexibleVersions` override (e.g. RequestHeader.ClientId: `"none"`); undefined
   * when the field inherits the message's flexible versions.
   */
  readonly flexibleVersions?: Versions;
  readonly ignorable: boolean;
  readonly mapKey: boolean;
  readonly zeroCopy: boolean;
  readonly entityType: string | null;
  /** The `about` text, or "" when absent. */
  readonly about: string;
  readonly default: DefaultValue;
  /** The `default` exactly as written in the schema (a JSON string, number or boolean), if any. */
  readonly defaultText: string | null;
  /** Field path from the message root for diagnostics, e.g. `Topology.Subtopologies.SourceTopics`. */
  readonly schemaPath: string;
}

export interface StructSpec {
  /** The schema's type name (`Topology`, `TaskIds`); the message's own name for the top level. */
  readonly name: string;
  /** Versions in which the struct exists (the declaring field's versions, or the common struct's). */
  readonly versions: Versions;
  readonly fields: readonly FieldSpec[];
  /** True for entries of `commonStructs`. */
  readonly common: boolean;
}

/** A non-fatal finding (e.g. a no-break space in indentation). */
export interface Diagnostic {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly message: string;
}

export interface MessageSpec {
  readonly name: string;
  readonly type: MessageType;
  /**
   * The api key: the schema's number, or the generator configuration's for a schema that says
   * `"apiKey": TBD` (unassigned); null when neither assigns one, and always null for non-API types.
   */
  readonly apiKey: number | null;
  /** True when the schema text had `"apiKey": TBD` (KIP-1071 design pages). */
  readonly apiKeyUnassigned: boolean;
  /**
   * Empty (NONE) only for `"validVersions": "none"`: a removed API whose api key stays reserved;
   * no codec is generated for it.
   */
  readonly validVersions: Versions;
  /** NONE when `"flexibleVersions": "none"`. */
  readonly flexibleVersions: Versions;
  readonly listeners: readonly string[];
  readonly latestVersionUnstable: boolean;
  /**
   * The schema's `headerVersions` (KIP-1313): the header version of each range of api versions,
   * ascending, contiguous from 0, the last one open-ended; null when the schema has none (the
   * header version then follows from `flexibleVersions`, see the runtime's framing).
   */
  readonly headerVersions: readonly { readonly range: Versions; readonly header: number }[] | null;
  /** The top-level fields as a struct named after the message. */
  readonly struct: StructSpec;
  /** Every struct of the message, common and inline, each once, in definition order, top level first. */
  readonly structs: readonly StructSpec[];
  /** Source file path, as given to the loader (used in error messages). */
  readonly file: string;
  /**
   * The path shown in generated headers: from the schema folder given to the generator,
   * starting with that folder's name (`schemas/X.json`); independent of the working folder.
   */
  readonly source?: string;
  readonly warnings: readonly Diagnostic[];
}

/** The lowerCamelCase property name Kafka's JsonConverter uses: only the first letter lower-cased. */
export function propertyNameOf(schemaName: string): string {
  return schemaName.length === 0 ? schemaName : schemaName[0]!.toLowerCase() + schemaName.slice(1);
}
