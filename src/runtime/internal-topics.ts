/**
 * Kafka's internal-topic records: the keys and values the coordinators write to
 * `__consumer_offsets`, `__transaction_state` and `__share_group_state`, and the metadata log
 * records of `__cluster_metadata` and `__remote_log_metadata`. A generated `internal-topics.ts`
 * lists which schema is which record type on which topic and calls `defineInternalTopics`;
 * this module holds the two framings:
 *
 * - coordinator framing (Kafka's `CoordinatorRecordSerde`, `MessageUtil.toCoordinatorTypePrefixedBytes`
 *   and `toVersionPrefixedBytes`): key = int16 record type + key body; value = int16 version +
 *   value body; a null value is a tombstone (the key's record is deleted by compaction).
 * - metadata framing (`AbstractApiMessageSerde`, used by `MetadataRecordSerde` and the remote log
 *   metadata serde): value = unsigned varint frame version (1) + unsigned varint api key +
 *   unsigned varint version + body, nothing after it; the key is not used (raft writes null).
 */

import type { MessageCodec } from "./codec.js";
import { KafkaDecodeError, KafkaEncodeError, KafkaWireError } from "./errors.js";
import type { DecodeOptions } from "./reader.js";
import { Reader } from "./reader.js";
import { uvarintSize } from "./writer.js";

/** How a topic's records are framed (see the module comment). */
export type InternalTopicFraming = "coordinator" | "metadata";

/** One record type of an internal topic, as a generated `internal-topics.ts` declares it. */
export interface InternalRecordSchema {
  /**
   * The record type: the key's int16 prefix (coordinator framing: the schemas' `apiKey`, or for
   * `"data"` keys the key's version, which Kafka's serde writes in that place), or the value's
   * api key (metadata framing).
   */
  readonly recordType: number;
  /** The key's codec (coordinator framing); null for metadata framing. */
  readonly key: MessageCodec<any> | null;
  /** The version the key body is encoded at (the key schema's only version). */
  readonly keyVersion: number;
  /** The value's codec. */
  readonly value: MessageCodec<any>;
}

/** One internal topic of an {@link InternalTopicsDefinition}. */
export interface InternalTopicDefinition {
  /** How the topic's keys and values are framed. */
  readonly framing: InternalTopicFraming;
  /** Its record types. */
  readonly records: readonly InternalRecordSchema[];
}

/** What a generated `internal-topics.ts` declares: each internal topic by name. */
export type InternalTopicsDefinition = Readonly<Record<string, InternalTopicDefinition>>;

/**
 * A decoded internal-topic record. Generated code narrows it into a union over the topic's
 * record types, discriminated by `keySchema` / `valueSchema`.
 */
export interface InternalRecord<
  RecordType extends number = number,
  KeySchema extends string | null = string | null,
  Key = unknown,
  ValueSchema extends string = string,
  Value = unknown,
> {
  /** The record type (see {@link InternalRecordSchema.recordType}). */
  readonly recordType: RecordType;
  /** The key schema's name; null for metadata framing. */
  readonly keySchema: KeySchema;
  /** The value schema's name; null for a tombstone. */
  readonly valueSchema: ValueSchema | null;
  /** The value's version as written (int16 prefix or varint); null for a tombstone. */
  readonly valueVersion: number | null;
  /** The decoded key body; null for metadata framing. */
  readonly key: Key;
  /** The decoded value body; null for a tombstone. */
  readonly value: Value | null;
}

/**
 * The parts of a record {@link InternalTopics.encode} needs: `recordType`, `key`, `valueVersion`
 * (any number when `value` is null) and `value` (null writes a tombstone), typed per record type.
 */
export type InternalRecordInit<R extends InternalRecord = InternalRecord> = R extends InternalRecord
  ? Pick<R, "recordType" | "key" | "valueVersion" | "value">
  : never;

/** A record's key and value as Kafka's serdes write them (what a Produce request's record carries). */
export interface InternalRecordBytes {
  /** The key (null for metadata framing, whose records have no key). */
  readonly key: Uint8Array | null;
  /** The value; null for a tombstone. */
  readonly value: Uint8Array | null;
}

/** A topic's records by topic name, e.g. `{ __consumer_offsets: ConsumerOffsetsRecord }`. */
export type InternalTopicRecords = Record<string, InternalRecord>;

/**
 * Decoder and encoder of the internal topics of a generated schema set.
 * Errors are {@link KafkaDecodeError} / {@link KafkaEncodeError} whose path starts with `key` or
 * `value` and whose byte offset is within that key or value; an unknown topic or record type is
 * `UNKNOWN_RECORD_TYPE`.
 */
export interface InternalTopics<M extends Record<keyof M, InternalRecord> = InternalTopicRecords> {
  /** The topics this schema set has records for. */
  readonly topics: readonly (keyof M & string)[];
  /** The record types of `topic` (empty for a topic it does not know). */
  schemasOf(topic: string): readonly InternalRecordSchema[];
  /**
   * Decodes a record's key and value (a Kafka record's `key` and `value`, e.g. from
   * `kafka-wire/records`).
   * @throws KafkaDecodeError `UNKNOWN_RECORD_TYPE` naming the topic and type, or the body codec's
   *   errors (`UNSUPPORTED_VERSION` for a value version the schema lacks, `TRAILING_BYTES`...).
   */
  decode<T extends keyof M & string>(
    topic: T,
    key: Uint8Array | null,
    value: Uint8Array | null,
    options?: DecodeOptions,
  ): M[T];
  /**
   * Encodes a record's key and value as Kafka's serde does; `value: null` writes a tombstone.
   * @throws KafkaEncodeError `UNKNOWN_RECORD_TYPE`, or the body codec's errors.
   */
  encode<T extends keyof M & string>(topic: T, record: InternalRecordInit<M[T]>): InternalRecordBytes;
  /**
   * A decoded record as one JSON object: `recordType`, `keySchema`, `key`, `valueSchema`,
   * `valueVersion` and `value`, the key and value in Kafka's JSON form (JsonConverter).
   */
  toJson<T extends keyof M & string>(topic: T, record: M[T]): string;
}

/** The version a body is read and written at: Kafka's generated code for a single-version schema has no version checks, so any version prefix reads as that layout (ShareUpdateValue is written with version 1 but declares "0"). */
function bodyVersion(codec: MessageCodec<unknown>, version: number): number {
  const { lowest, highest } = codec.validVersions;
  return lowest === highest && version >= 0 ? lowest : version;
}

function inPart<E extends KafkaWireError>(e: unknown, part: "key" | "value"): unknown {
  return e instanceof KafkaWireError ? (e as E).prependPath(part) : e;
}

/**
 * Builds the internal-topic decoder/encoder from a generated definition.
 * @internal
 */
export function defineInternalTopics<M extends Record<keyof M, InternalRecord>>(
  def: InternalTopicsDefinition,
): InternalTopics<M> {
  const byTopic = new Map<string, { framing: InternalTopicFraming; types: Map<number, InternalRecordSchema> }>();
  for (const [topic, { framing, records }] of Object.entries(def)) {
    byTopic.set(topic, { framing, types: new Map(records.map((r) => [r.recordType, r])) });
  }
  const topicOf = (topic: string, decoding: boolean) => {
    const t = byTopic.get(topic);
    if (t === undefined) {
      const reason = `no records are known for topic ${JSON.stringify(topic)} (known: ${[...byTopic.keys()].join(", ")})`;
      throw decoding
        ? new KafkaDecodeError("UNKNOWN_RECORD_TYPE", reason, -1)
        : new KafkaEncodeError("UNKNOWN_RECORD_TYPE", reason, -1);
    }
    return t;
  };
  const unknownType = (topic: string, type: number, part: string, decoding: boolean) => {
    const reason = `unknown record type ${type} in ${topic}`;
    return decoding
      ? new KafkaDecodeError("UNKNOWN_RECORD_TYPE", reason, 0, part)
      : new KafkaEncodeError("UNKNOWN_RECORD_TYPE", reason, -1, part);
  };

  function decodeBody(
    codec: MessageCodec<unknown>,
    bytes: Uint8Array,
    at: number,
    version: number,
    part: "key" | "value",
    options: DecodeOptions | undefined,
  ): unknown {
    try {
      const { message, offset } = codec.decodeFrom(bytes, at, bytes.length, bodyVersion(codec, version), options);
      if (offset !== bytes.length && options?.allowTrailingBytes !== true) {
        throw new KafkaDecodeError(
          "TRAILING_BYTES",
          `${bytes.length - offset} bytes remain after the ${codec.name}`,
          offset,
        );
      }
      return message;
    } catch (e) {
      throw inPart(e, part);
    }
  }

  function int16(bytes: Uint8Array, part: "key" | "value"): number {
    if (bytes.length < 2) {
      throw new KafkaDecodeError(
        "BUFFER_UNDERFLOW",
        `a ${part} needs an int16 prefix, found ${bytes.length} bytes`,
        0,
        part,
      );
    }
    return ((bytes[0]! << 24) >> 16) | bytes[1]!;
  }

  const api: InternalTopics<M> = {
    topics: [...byTopic.keys()] as (keyof M & string)[],
    schemasOf(topic) {
      return [...(byTopic.get(topic)?.types.values() ?? [])];
    },
    decode(topic, key, value, options) {
      const t = topicOf(topic, true);
      if (t.framing === "metadata") {
        if (value === null) {
          throw new KafkaDecodeError("NULL_NOT_ALLOWED", `a ${topic} record needs a value`, -1, "value");
        }
        const r = new Reader(value, 0, value.length);
        let frame: number, apiKey: number, version: number;
        try {
          frame = r.uvarint();
          if (frame !== 1) {
            throw new KafkaDecodeError("INVALID_VALUE", `unsupported frame version ${frame} (expected 1)`, 0);
          }
          apiKey = r.uvarint();
          version = r.uvarint();
        } catch (e) {
          throw inPart(e, "value");
        }
        const schema = t.types.get(apiKey);
        if (schema === undefined) throw unknownType(topic, apiKey, "value", true);
        const decoded = decodeBody(schema.value, value, r.pos, version, "value", options);
        return {
          recordType: apiKey,
          keySchema: null,
          valueSchema: schema.value.name,
          valueVersion: version,
          key: null,
          value: decoded,
        } as unknown as M[typeof topic];
      }
      if (key === null) throw new KafkaDecodeError("NULL_NOT_ALLOWED", `a ${topic} record needs a key`, -1, "key");
      const type = int16(key, "key");
      const schema = t.types.get(type);
      if (schema === undefined) throw unknownType(topic, type, "key", true);
      const decodedKey = decodeBody(schema.key!, key, 2, schema.keyVersion, "key", options);
      if (value === null) {
        return {
          recordType: type,
          keySchema: schema.key!.name,
          valueSchema: null,
          valueVersion: null,
          key: decodedKey,
          value: null,
        } as unknown as M[typeof topic];
      }
      const version = int16(value, "value");
      if (version < 0) {
        throw new KafkaDecodeError("UNSUPPORTED_VERSION", `negative value version ${version}`, 0, "value");
      }
      return {
        recordType: type,
        keySchema: schema.key!.name,
        valueSchema: schema.value.name,
        valueVersion: version,
        key: decodedKey,
        value: decodeBody(schema.value, value, 2, version, "value", options),
      } as unknown as M[typeof topic];
    },
    encode(topic, record) {
      const t = topicOf(topic, false);
      const schema = t.types.get(record.recordType);
      if (schema === undefined) throw unknownType(topic, record.recordType, "", false);
      const version = record.valueVersion;
      if (record.value !== null && (typeof version !== "number" || !Number.isInteger(version) || version < 0)) {
        throw new KafkaEncodeError(
          "UNSUPPORTED_VERSION",
          `a value needs a valueVersion, got ${String(version)}`,
          -1,
          "valueVersion",
        );
      }
      const body = (codec: MessageCodec<unknown>, message: unknown, v: number, part: "key" | "value") => {
        try {
          return codec.encode(message, bodyVersion(codec, v));
        } catch (e) {
          throw inPart(e, part);
        }
      };
      if (t.framing === "metadata") {
        if (record.value === null)
          throw new KafkaEncodeError("NULL_NOT_ALLOWED", `a ${topic} record needs a value`, -1, "value");
        const v = version!;
        const b = body(schema.value, record.value, v, "value");
        const head = [1, schema.recordType, v];
        const out = new Uint8Array(head.reduce((n, x) => n + uvarintSize(x), 0) + b.length);
        let pos = 0;
        for (let x of head) {
          while (x >= 0x80) {
            out[pos++] = (x & 0x7f) | 0x80;
            x >>>= 7;
          }
          out[pos++] = x;
        }
        out.set(b, pos);
        return { key: null, value: out };
      }
      const prefixed = (prefix: number, b: Uint8Array) => {
        const out = new Uint8Array(2 + b.length);
        out[0] = (prefix >> 8) & 0xff;
        out[1] = prefix & 0xff;
        out.set(b, 2);
        return out;
      };
      const keyBytes = prefixed(schema.recordType, body(schema.key!, record.key, schema.keyVersion, "key"));
      if (record.value === null) return { key: keyBytes, value: null };
      return { key: keyBytes, value: prefixed(version!, body(schema.value, record.value, version!, "value")) };
    },
    toJson(topic, record) {
      const t = topicOf(topic, false);
      const schema = t.types.get(record.recordType);
      if (schema === undefined) throw unknownType(topic, record.recordType, "", false);
      const key = schema.key === null ? "null" : schema.key.toJson(record.key, schema.keyVersion);
      const value =
        record.value === null
          ? "null"
          : schema.value.toJson(record.value, bodyVersion(schema.value, record.valueVersion!));
      const name = (n: string | null) => (n === null ? "null" : JSON.stringify(n));
      return (
        `{"recordType":${record.recordType},"keySchema":${name(schema.key?.name ?? null)},"key":${key},` +
        `"valueSchema":${name(record.value === null ? null : schema.value.name)},"valueVersion":${record.valueVersion ?? "null"},"value":${value}}`
      );
    },
  };
  return api;
}

/**
 * A `controlDecoder` for `decodeRecords` (kafka-wire/records) from the KRaft control record
 * schemas by control type name (`LEADER_CHANGE: LeaderChangeMessage`, ...). KRaft control
 * values have no version prefix: the body is read at version 0 (raft's `ControlRecordUtils`);
 * types without a schema decode to undefined (kept raw by the record decoder).
 * @internal
 */
export function defineControlDecoder<T>(
  byType: Readonly<Record<string, MessageCodec<any>>>,
): (type: string, typeId: number, value: Uint8Array | null) => T | undefined {
  return (type, _typeId, value) => {
    const codec = Object.prototype.hasOwnProperty.call(byType, type) ? byType[type] : undefined;
    if (codec === undefined) return undefined;
    if (value === null) throw new KafkaDecodeError("NULL_NOT_ALLOWED", `a ${type} control record needs a value`, -1);
    return codec.decode(value, 0) as T;
  };
}
