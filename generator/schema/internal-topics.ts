/**
 * Which schema is which record of which internal topic: derived from the schemas' `type`,
 * `apiKey` and names (Kafka's own pairing), plus the generator configuration's `internalRecords`.
 *
 * - `coordinator-key` / `coordinator-value` schemas are record types of `__consumer_offsets`
 *   (Kafka's group coordinator); the record type is their `apiKey`, and the key and the value
 *   with the same `apiKey` form one record type (Kafka's CoordinatorRecordTypeGenerator pairs
 *   them the same way).
 * - The share and transaction coordinators' schemas are recognized by name ({@link NAMED_PAIRS}):
 *   `<Stem>Key` + `<Stem>Value`. In Kafka releases where they are `"data"` schemas, Kafka's serde
 *   writes the key's version as the record type; where they are coordinator schemas, the `apiKey`.
 * - `metadata` schemas are records of `__cluster_metadata` (record type = `apiKey`), except the
 *   storage module's remote log metadata records ({@link REMOTE_LOG_METADATA}), which number their
 *   own api keys on `__remote_log_metadata`.
 * - The KRaft control records (in record batches, not a topic) by control type: {@link KRAFT_CONTROL_SCHEMAS}.
 * - `internalRecords` in the configuration registers any other schema (e.g. a `"data"` draft
 *   such as KIP-1071's StreamsGroupMemberMetadataValue) as the value of a record type.
 */

import { SchemaError } from "./errors.js";
import type { MessageSpec } from "./model.js";

/** Coordinator framing (int16 record type key, int16 version value) or metadata framing (varint frame). */
export type Framing = "coordinator" | "metadata";

/** One record type of an internal topic. */
export interface InternalRecordPlan {
  readonly recordType: number;
  /** The key schema (coordinator framing); null for metadata framing. */
  readonly key: MessageSpec | null;
  /** The version the key body is encoded at: the key schema's only version. */
  readonly keyVersion: number;
  readonly value: MessageSpec;
}

export interface InternalTopicPlan {
  readonly topic: string;
  readonly framing: Framing;
  /** By record type. */
  readonly records: readonly InternalRecordPlan[];
}

/** A configuration entry of `internalRecords`, keyed by the value schema's name. */
export interface InternalRecordRegistration {
  readonly topic: string;
  readonly recordType: number;
  /** The key schema's name; required on coordinator-framed topics. */
  readonly key?: string;
}

/** Kafka's internal topics and their framing. */
export const KNOWN_TOPICS: Readonly<Record<string, Framing>> = {
  __consumer_offsets: "coordinator",
  __transaction_state: "coordinator",
  __share_group_state: "coordinator",
  __cluster_metadata: "metadata",
  __remote_log_metadata: "metadata",
};

/** Record pairs recognized by name (`<Stem>Key`/`<Stem>Value`): the share and transaction coordinators. */
export const NAMED_PAIRS: Readonly<Record<string, string>> = {
  TransactionLog: "__transaction_state",
  ShareSnapshot: "__share_group_state",
  ShareUpdate: "__share_group_state",
};

/** The storage module's metadata records (Kafka's RemoteLogMetadataSerde), by name. */
export const REMOTE_LOG_METADATA: readonly string[] = [
  "RemoteLogSegmentMetadataRecord",
  "RemoteLogSegmentMetadataUpdateRecord",
  "RemotePartitionDeleteMetadataRecord",
  "RemoteLogSegmentMetadataSnapshotRecord",
];

/** The KRaft control record types (Kafka's ControlRecordType) and their schemas (raft's ControlRecordUtils). */
export const KRAFT_CONTROL_SCHEMAS: Readonly<Record<string, string>> = {
  LEADER_CHANGE: "LeaderChangeMessage",
  SNAPSHOT_HEADER: "SnapshotHeaderRecord",
  SNAPSHOT_FOOTER: "SnapshotFooterRecord",
  KRAFT_VERSION: "KRaftVersionRecord",
  KRAFT_VOTERS: "VotersRecord",
};

export interface InternalTopicsPlan {
  readonly topics: readonly InternalTopicPlan[];
  /** Control type name → schema, for the types whose schema is in the set. */
  readonly control: readonly { readonly type: string; readonly schema: MessageSpec }[];
}

function fail(spec: MessageSpec | null, reason: string): never {
  throw new SchemaError({ file: spec?.file ?? "internalRecords", line: 1, column: 1, reason });
}

/** The only version of a key schema (keys are read at one version). */
function keyVersionOf(key: MessageSpec): number {
  const { lowest, highest } = key.validVersions;
  if (lowest !== highest) {
    fail(key, `${key.name} is used as an internal-topic key, but has several versions (${lowest}-${highest})`);
  }
  return lowest;
}

/**
 * The internal topics of a schema set.
 * @throws SchemaError for a registration naming a missing schema, or two schemas claiming one
 *   record type of a topic.
 */
export function planInternalTopics(
  messages: readonly MessageSpec[],
  registrations: Readonly<Record<string, InternalRecordRegistration>> = {},
): InternalTopicsPlan {
  const byName = new Map(messages.map((m) => [m.name, m]));
  const topics = new Map<string, { framing: Framing; records: Map<number, InternalRecordPlan> }>();
  const add = (topic: string, framing: Framing, plan: InternalRecordPlan) => {
    let t = topics.get(topic);
    if (t === undefined) topics.set(topic, (t = { framing, records: new Map() }));
    if (t.framing !== framing) fail(plan.value, `${topic} cannot mix coordinator and metadata records`);
    const other = t.records.get(plan.recordType);
    if (other !== undefined) {
      fail(
        plan.value,
        `record type ${plan.recordType} of ${topic} is claimed by both ${other.value.name} and ${plan.value.name}`,
      );
    }
    t.records.set(plan.recordType, plan);
  };
  const registered = new Set(Object.keys(registrations));

  // Coordinator records: named pairs first, then keys and values paired by apiKey.
  const keys = new Map<number, MessageSpec>();
  const values = new Map<number, MessageSpec>();
  for (const m of messages) {
    if (registered.has(m.name)) continue;
    const stem = m.name.replace(/(Key|Value)$/, "");
    const namedTopic = stem !== m.name ? NAMED_PAIRS[stem] : undefined;
    if (namedTopic !== undefined) {
      if (!m.name.endsWith("Key")) continue;
      const value = byName.get(`${stem}Value`);
      if (value === undefined) continue;
      const keyVersion = keyVersionOf(m);
      add(namedTopic, "coordinator", {
        recordType: m.type === "coordinator-key" && m.apiKey !== null ? m.apiKey : keyVersion,
        key: m,
        keyVersion,
        value,
      });
    } else if (m.type === "coordinator-key" && m.apiKey !== null) {
      if (keys.has(m.apiKey)) fail(m, `coordinator-key apiKey ${m.apiKey} is also used by ${keys.get(m.apiKey)!.name}`);
      keys.set(m.apiKey, m);
    } else if (m.type === "coordinator-value" && m.apiKey !== null) {
      if (values.has(m.apiKey)) {
        fail(m, `coordinator-value apiKey ${m.apiKey} is also used by ${values.get(m.apiKey)!.name}`);
      }
      values.set(m.apiKey, m);
    } else if (m.type === "metadata" && m.apiKey !== null) {
      const topic = REMOTE_LOG_METADATA.includes(m.name) ? "__remote_log_metadata" : "__cluster_metadata";
      add(topic, "metadata", { recordType: m.apiKey, key: null, keyVersion: 0, value: m });
    }
  }
  for (const [apiKey, key] of [...keys].sort(([a], [b]) => a - b)) {
    const value = values.get(apiKey);
    // A key without its value (or the reverse) is not a readable record type: left out.
    if (value !== undefined) {
      add("__consumer_offsets", "coordinator", { recordType: apiKey, key, keyVersion: keyVersionOf(key), value });
    }
  }

  for (const [valueName, reg] of Object.entries(registrations)) {
    const value = byName.get(valueName) ?? fail(null, `internalRecords.${valueName}: no schema defines ${valueName}`);
    const framing = KNOWN_TOPICS[reg.topic] ?? (reg.key !== undefined ? "coordinator" : "metadata");
    if (framing === "coordinator") {
      if (reg.key === undefined) fail(null, `internalRecords.${valueName}: ${reg.topic} records need a "key" schema`);
      const key = byName.get(reg.key) ?? fail(null, `internalRecords.${valueName}: no schema defines ${reg.key}`);
      add(reg.topic, framing, { recordType: reg.recordType, key, keyVersion: keyVersionOf(key), value });
    } else {
      if (reg.key !== undefined) fail(null, `internalRecords.${valueName}: ${reg.topic} records have no key schema`);
      add(reg.topic, framing, { recordType: reg.recordType, key: null, keyVersion: 0, value });
    }
  }

  const control = Object.entries(KRAFT_CONTROL_SCHEMAS)
    .map(([type, name]) => ({ type, schema: byName.get(name) }))
    .filter((c): c is { type: string; schema: MessageSpec } => c.schema !== undefined);
  return {
    topics: [...topics]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([topic, t]) => ({
        topic,
        framing: t.framing,
        records: [...t.records.values()].sort((a, b) => a.recordType - b.recordType),
      })),
    control,
  };
}
