/**
 * The wire vocabulary: the few names that the runtime, generated code and the generator all
 * speak. It imports nothing, so the generator can take its types without reaching into the
 * runtime's implementation.
 */

/** Message types of Kafka's schemas (the `"type"` key). */
export type MessageType =
  "request" | "response" | "header" | "data" | "metadata" | "coordinator-key" | "coordinator-value";

/** Scalar and opaque types of the schema language (the schema's `"type"` of a field that is no struct or array). */
export type PrimitiveTypeName =
  | "bool"
  | "int8"
  | "int16"
  | "uint16"
  | "int32"
  | "uint32"
  | "int64"
  | "float64"
  | "string"
  | "bytes"
  | "records"
  | "uuid";

/** An inclusive version range; `highest` is 32767 for an open-ended range (`"N+"`). */
export interface VersionRange {
  /** The lowest version (0..32767). */
  readonly lowest: number;
  /** The highest version (0..32767; 32767 for an open-ended range). */
  readonly highest: number;
}

/** An unknown tagged field kept from decoding, re-emitted as is: `data` is its payload. */
export interface UnknownTaggedField {
  /** The tag number, 0..2^31-1. */
  readonly tag: number;
  /** The raw payload bytes (a view into the decoded input). */
  readonly data: Uint8Array;
}

/** Kafka's limit on a string's UTF-8 length (Java's `Short.MAX_VALUE`), in every version. */
export const MAX_STRING_BYTES = 0x7fff;
