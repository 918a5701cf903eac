/**
 * kafka-wire: byte-exact encoders and decoders for Apache Kafka protocol messages, generated from
 * Kafka's JSON schemas.
 *
 * This entry point holds every generated codec (by message name, plus the `messages` registry)
 * and the runtime's error classes and public types. Import `kafka-wire/messages/<Name>` instead
 * to load one codec (with its struct types) without the others, and `kafka-wire/runtime` for
 * the low-level runtime only.
 *
 * The public API is the lists below (test/api-report.test.ts compares them with api/index.api.md;
 * a test also checks that every codec of `messages` is exported here by name).
 *
 * @module kafka-wire
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

// The shipped codecs (generated from schemas/), each also at `kafka-wire/messages/<Name>`.
export {
  StreamsGroupDescribeRequest,
  StreamsGroupDescribeResponse,
  StreamsGroupHeartbeatRequest,
  StreamsGroupHeartbeatResponse,
  StreamsGroupMemberMetadataKey,
  StreamsGroupMemberMetadataValue,
  messages,
  internalTopics,
  type MessageName,
  type ConsumerOffsetsRecord,
  type InternalTopicRecords,
} from "../generated/index.js";

export { ERROR_CODES, errorCodeInfo, findErrorCodes } from "./error-codes.js";
export type { ErrorCodeInfo, ErrorCodeLookup, ErrorCodeField } from "./error-codes.js";
