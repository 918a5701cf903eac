/**
 * The streams group's state as the records of `__consumer_offsets` (KIP-1071 page 002,
 * "Records"; Kafka's group-coordinator schemas StreamsGroup*Key/Value give the record types and
 * fields the pages leave out). Record type 19, the member metadata, uses the seed's value schema
 * (`schemas/StreamsGroupMemberMetadataValue.json`); the others Kafka's schemas, whose codecs the
 * broker generates from Kafka's schemas at run time, so they are typed here by hand, field for field.
 *
 * {@link StreamsRecordCodec} merges the two schema sets into one `InternalTopics` and writes
 * record batches with `kafka-wire/records`; {@link decodeStreamsRecords} reads them back.
 */

import { encodeRecordBatch, decodeRecords, dataRecords, type RecordBatchInit } from "../../../src/records/index.js";
import { defineInternalTopics } from "../../../src/codegen/v1.js";
import type { InternalRecord, InternalTopics } from "../../../src/runtime/index.js";
import { seedInternalTopics, type StreamsGroupMemberMetadataValue } from "./messages.js";

export const CONSUMER_OFFSETS = "__consumer_offsets";

/** The record types (the key schemas' `apiKey`s in Kafka's group-coordinator schemas). */
export const RECORD_TYPE = {
  StreamsGroupMetadata: 17,
  StreamsGroupPartitionMetadata: 18,
  StreamsGroupMemberMetadata: 19,
  StreamsGroupTargetAssignmentMetadata: 20,
  StreamsGroupTargetAssignmentMember: 21,
  StreamsGroupCurrentMemberAssignment: 22,
  StreamsGroupTopology: 23,
} as const;

export interface WireTaskIds {
  subtopologyId: string;
  partitions: number[];
}

export interface GroupKey {
  groupId: string;
}
export interface MemberKey {
  groupId: string;
  memberId: string;
}

/** StreamsGroupMetadataValue: the group epoch. */
export interface StreamsGroupMetadataValue {
  epoch: number;
}

/** StreamsGroupPartitionMetadataValue: the input topics' partition counts when the target assignment was computed. */
export interface StreamsGroupPartitionMetadataValue {
  topics: {
    topicId: string;
    topicName: string;
    numPartitions: number;
    partitionMetadata: { partition: number; racks: string[] }[];
  }[];
}

export interface StreamsGroupTargetAssignmentMetadataValue {
  assignmentEpoch: number;
}

export interface StreamsGroupTargetAssignmentMemberValue {
  activeTasks: WireTaskIds[];
  standbyTasks: WireTaskIds[];
  warmupTasks: WireTaskIds[];
}

export interface StreamsGroupCurrentMemberAssignmentValue {
  memberEpoch: number;
  previousMemberEpoch: number;
  /** Kafka's MemberState: 0 unknown, 1 stable, 2 unrevoked tasks, 3 unreleased tasks. */
  state: number;
  activeTasks: WireTaskIds[];
  standbyTasks: WireTaskIds[];
  warmupTasks: WireTaskIds[];
  activeTasksPendingRevocation: WireTaskIds[];
  standbyTasksPendingRevocation: WireTaskIds[];
  warmupTasksPendingRevocation: WireTaskIds[];
}

interface TopicInfoValue {
  name: string;
  partitions: number;
  replicationFactor: number;
  topicConfigs: { key: string; value: string }[];
}

/** StreamsGroupTopologyValue: the topology the group was initialized with (note its `key`/`value` config fields). */
export interface StreamsGroupTopologyValue {
  epoch: number;
  subtopologies: {
    subtopologyId: string;
    sourceTopics: string[];
    sourceTopicRegex: string[];
    stateChangelogTopics: TopicInfoValue[];
    repartitionSinkTopics: string[];
    repartitionSourceTopics: TopicInfoValue[];
    copartitionGroups: { sourceTopics: number[]; sourceTopicRegex: number[]; repartitionSourceTopics: number[] }[];
  }[];
}

/** One record the coordinator writes; `value: null` is a tombstone. */
export type StreamsRecord =
  | { recordType: 17; key: GroupKey; value: StreamsGroupMetadataValue | null }
  | { recordType: 18; key: GroupKey; value: StreamsGroupPartitionMetadataValue | null }
  | { recordType: 19; key: MemberKey; value: StreamsGroupMemberMetadataValue | null }
  | { recordType: 20; key: GroupKey; value: StreamsGroupTargetAssignmentMetadataValue | null }
  | { recordType: 21; key: MemberKey; value: StreamsGroupTargetAssignmentMemberValue | null }
  | { recordType: 22; key: MemberKey; value: StreamsGroupCurrentMemberAssignmentValue | null }
  | { recordType: 23; key: GroupKey; value: StreamsGroupTopologyValue | null };

/** The Kafka schema names of each record type (for logs and tests). */
export const RECORD_NAMES: Record<number, string> = {
  17: "StreamsGroupMetadata",
  18: "StreamsGroupPartitionMetadata",
  19: "StreamsGroupMemberMetadata",
  20: "StreamsGroupTargetAssignmentMetadata",
  21: "StreamsGroupTargetAssignmentMember",
  22: "StreamsGroupCurrentMemberAssignment",
  23: "StreamsGroupTopology",
};

/**
 * One `InternalTopics` for `__consumer_offsets`: record type 19 from the seed codecs, every other
 * record type from `kafka` (the `internalTopics` generated from Kafka's schemas).
 * @throws Error when `kafka` lacks one of the streams record types 17–23 (other than 19).
 */
export function streamsInternalTopics(kafka: InternalTopics): InternalTopics {
  const seed = seedInternalTopics.schemasOf(CONSUMER_OFFSETS);
  const theirs = kafka.schemasOf(CONSUMER_OFFSETS);
  for (const t of Object.values(RECORD_TYPE))
    if (t !== 19 && !theirs.some((s) => s.recordType === t))
      throw new Error(`the given internalTopics have no __consumer_offsets record type ${t} (${RECORD_NAMES[t]})`);
  return defineInternalTopics<Record<string, InternalRecord>>({
    [CONSUMER_OFFSETS]: {
      framing: "coordinator",
      records: [...theirs.filter((s) => !seed.some((x) => x.recordType === s.recordType)), ...seed],
    },
  });
}

/** Writes and reads the coordinator's records as `__consumer_offsets` record batches. */
export class StreamsRecordCodec {
  readonly internal: InternalTopics;

  /** @param kafka the `internalTopics` generated from Kafka's group-coordinator schemas. */
  constructor(kafka: InternalTopics) {
    this.internal = streamsInternalTopics(kafka);
  }

  /** Key and value bytes of one record, as Kafka's coordinator serde writes them (value version 0). */
  encode(record: StreamsRecord): { key: Uint8Array; value: Uint8Array | null } {
    const bytes = this.internal.encode(CONSUMER_OFFSETS, {
      recordType: record.recordType,
      key: record.key,
      valueVersion: 0,
      value: record.value,
    });
    return { key: bytes.key!, value: bytes.value };
  }

  /**
   * One uncompressed record batch holding `records` (what one coordinator write appends,
   * atomically, as Kafka's coordinator runtime does). `timestamp` in ms.
   */
  batch(records: readonly StreamsRecord[], timestamp: number): Uint8Array {
    const init: RecordBatchInit = {
      baseTimestamp: timestamp,
      records: records.map((r) => ({ ...this.encode(r), timestamp })),
    };
    return encodeRecordBatch(init) as Uint8Array;
  }

  /** Every record of a record set (batches back to back), decoded through `internalTopics`, in order. */
  decode(recordSet: Uint8Array): StreamsRecord[] {
    const set = decodeRecords(recordSet);
    if (set instanceof Promise) throw new Error("__consumer_offsets batches are uncompressed");
    const out: StreamsRecord[] = [];
    for (const r of dataRecords(set)) {
      const d = this.internal.decode(CONSUMER_OFFSETS, r.key, r.value);
      out.push({ recordType: d.recordType, key: d.key, value: d.value } as StreamsRecord);
    }
    return out;
  }
}
