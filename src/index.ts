/**
 * kafka-wire: byte-exact encoders and decoders for Apache Kafka protocol messages, generated from
 * Kafka's JSON schemas.
 *
 * This entry point holds every generated codec (by message name, plus the `messages` registry)
 * and the runtime's error classes and public types. Import `kafka-wire/messages/<Name>` instead
 * to load one codec (with its struct types) without the others, and `kafka-wire/runtime` for
 * the low-level runtime only.
 */

export { KafkaWireError, KafkaDecodeError, KafkaEncodeError } from "./runtime/index.js";
export type {
  KafkaWireErrorCode,
  MessageCodec,
  EncodePlan,
  Init,
  DecodeOptions,
  VersionRange,
  MessageType,
  UnknownTaggedField,
} from "./runtime/index.js";

export * from "../generated/index.js";

export { ERROR_CODES, errorCodeInfo, findErrorCodes } from "./error-codes.js";
export type { ErrorCodeInfo, ErrorCodeLookup, ErrorCodeField } from "./error-codes.js";
