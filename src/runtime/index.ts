/**
 * The kafka-wire runtime for users (`kafka-wire/runtime`): errors, the codec interface, the
 * reader and writer, frames and headers, uuids, field tables and decoding with byte spans.
 * Uint8Array and DataView only, no Node.js APIs, so it runs in browsers, Deno, Bun and workers.
 *
 * What generated code imports is a separate, versioned contract: `kafka-wire/codegen/v1`.
 *
 * @module kafka-wire/runtime
 */
export { KafkaWireError, KafkaDecodeError, KafkaEncodeError, type KafkaWireErrorCode } from "./errors.js";
export { MAX_STRING_BYTES, type MessageType, type VersionRange, type UnknownTaggedField } from "./wire.js";
export type { MessageCodec, EncodePlan, HeaderVersionRange, Init, InitValue } from "./codec.js";
export { Reader, type DecodeOptions } from "./reader.js";
export type {
  InternalRecord,
  InternalRecordBytes,
  InternalRecordInit,
  InternalRecordSchema,
  InternalTopicDefinition,
  InternalTopicsDefinition,
  InternalTopicFraming,
  InternalTopicRecords,
  InternalTopics,
} from "./internal-topics.js";
export { Writer } from "./writer.js";
export type { FieldOptions, FieldRow, MessageTable, TableDefault } from "./table.js";
export {
  decodeWithSpans,
  spansOf,
  type ByteSpan,
  type DecodedWithSpans,
  type RecordSpanner,
  type SpanDecodeOptions,
  type SpanKind,
} from "./spans.js";
export { ZERO_UUID, uuidFromString, uuidToString } from "./base64.js";
export {
  FrameSplitter,
  HEADER_VERSION_EXCEPTIONS,
  UNSUPPORTED_VERSION_ERROR,
  requestHeaderVersion,
  responseHeaderVersion,
  type ApiBodies,
  type ApiCodecs,
  type ApiKeyOf,
  type ApiMap,
  type DecodedRequest,
  type DecodedResponse,
  type FrameSplitterOptions,
  type Protocol,
  type RequestHeaderFields,
  type RequestHeaderInit,
  type ResponseHeaderFields,
  type TypedDecodedRequest,
  type TypedProtocol,
} from "./framing.js";
