/**
 * The Apache Kafka messages the peers also implement are not among the committed seed codecs, and
 * generated corpus code is never committed, so the bench generates the few it needs at start from
 * `<repo>/../shared/kafka-schemas/clients/` into `bench/.generated/` (git-ignored). Generating only
 * these six schemas takes about 1.5 s, so it is done on every run: never stale.
 *
 * The generated modules are imported dynamically and typed by the interfaces below rather than by
 * `import type` from `.generated/`, so that `tsc --noEmit` passes on a clone that has never run the
 * bench. The interfaces list only what the bench touches; `create()` fills every other field.
 */

import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { generate } from "../generator/generate.js";
import type { MessageCodec } from "../src/runtime/index.js";

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = path.resolve(BENCH_DIR, "..");
export const SCHEMAS_DIR = path.resolve(REPO_ROOT, "../shared/kafka-schemas");
const OUT_DIR = path.join(BENCH_DIR, ".generated");
/** Relative to a file in bench/.generated/. */
const RUNTIME_IMPORT = "../../src/codegen/v1.js";

// ---- ConsumerGroupHeartbeat (KIP-848), api key 68 ----
export interface CghTopicPartitions {
  topicId: string;
  partitions: number[];
}
export interface ConsumerGroupHeartbeatRequest {
  groupId: string;
  memberId: string;
  memberEpoch: number;
  instanceId: string | null;
  rackId: string | null;
  rebalanceTimeoutMs: number;
  subscribedTopicNames: string[] | null;
  subscribedTopicRegex: string | null;
  serverAssignor: string | null;
  topicPartitions: CghTopicPartitions[] | null;
}
export interface ConsumerGroupHeartbeatResponse {
  throttleTimeMs: number;
  errorCode: number;
  errorMessage: string | null;
  memberId: string | null;
  memberEpoch: number;
  heartbeatIntervalMs: number;
  assignment: { topicPartitions: CghTopicPartitions[] } | null;
}

// ---- Metadata, api key 3 ----
export interface MetadataRequest {
  topics: { topicId: string; name: string | null }[] | null;
  allowAutoTopicCreation: boolean;
  includeClusterAuthorizedOperations: boolean;
  includeTopicAuthorizedOperations: boolean;
}
export interface MetadataResponsePartition {
  errorCode: number;
  partitionIndex: number;
  leaderId: number;
  leaderEpoch: number;
  replicaNodes: number[];
  isrNodes: number[];
  offlineReplicas: number[];
}
export interface MetadataResponseTopic {
  errorCode: number;
  name: string | null;
  topicId: string;
  isInternal: boolean;
  partitions: MetadataResponsePartition[];
  topicAuthorizedOperations: number;
}
export interface MetadataResponse {
  throttleTimeMs: number;
  brokers: { nodeId: number; host: string; port: number; rack: string | null }[];
  clusterId: string | null;
  controllerId: number;
  topics: MetadataResponseTopic[];
}

// ---- ListPartitionReassignments (KIP-455), api key 46 ----
export interface ListPartitionReassignmentsRequest {
  timeoutMs: number;
  topics: { name: string; partitionIndexes: number[] }[] | null;
}
export interface OngoingPartitionReassignment {
  partitionIndex: number;
  replicas: number[];
  addingReplicas: number[];
  removingReplicas: number[];
}
export interface ListPartitionReassignmentsResponse {
  throttleTimeMs: number;
  errorCode: number;
  errorMessage: string | null;
  topics: { name: string; partitions: OngoingPartitionReassignment[] }[];
}

// ---- Fetch, api key 1 (only what the record-set op touches) ----
export interface FetchResponse {
  throttleTimeMs: number;
  errorCode: number;
  sessionId: number;
  responses: {
    topicId: string;
    partitions: {
      partitionIndex: number;
      errorCode: number;
      highWatermark: bigint;
      lastStableOffset: bigint;
      logStartOffset: bigint;
      abortedTransactions: { producerId: bigint; firstOffset: bigint }[] | null;
      preferredReadReplica: number;
      records: Uint8Array | null;
    }[];
  }[];
}

/** The generated corpus codecs the bench uses. */
export interface CorpusCodecs {
  ConsumerGroupHeartbeatRequest: MessageCodec<ConsumerGroupHeartbeatRequest>;
  ConsumerGroupHeartbeatResponse: MessageCodec<ConsumerGroupHeartbeatResponse>;
  MetadataRequest: MessageCodec<MetadataRequest>;
  MetadataResponse: MessageCodec<MetadataResponse>;
  ListPartitionReassignmentsRequest: MessageCodec<ListPartitionReassignmentsRequest>;
  ListPartitionReassignmentsResponse: MessageCodec<ListPartitionReassignmentsResponse>;
  FetchResponse: MessageCodec<FetchResponse>;
}

/** The corpus messages the bench uses, by schema name. */
export const CORPUS_NAMES: readonly (keyof CorpusCodecs)[] = [
  "ConsumerGroupHeartbeatRequest",
  "ConsumerGroupHeartbeatResponse",
  "MetadataRequest",
  "MetadataResponse",
  "ListPartitionReassignmentsRequest",
  "ListPartitionReassignmentsResponse",
  "FetchResponse",
];

/**
 * Generates and loads the corpus codecs; null when the shared schemas are not there (the bench then
 * runs the seed messages only and says so).
 */
export async function loadCorpusCodecs(): Promise<CorpusCodecs | null> {
  const dir = path.join(SCHEMAS_DIR, "clients");
  if (!existsSync(dir)) return null;
  await generate({
    schemas: CORPUS_NAMES.map((n) => path.join(dir, `${n}.json`)),
    out: OUT_DIR,
    runtimeImport: RUNTIME_IMPORT,
    cwd: REPO_ROOT,
  });
  const codecs: Partial<Record<keyof CorpusCodecs, unknown>> = {};
  for (const name of CORPUS_NAMES) {
    const mod = (await import(pathToFileURL(path.join(OUT_DIR, `${name}.ts`)).href)) as Record<string, unknown>;
    if (mod[name] === undefined) throw new Error(`bench/.generated/${name}.ts does not export ${name}`);
    codecs[name] = mod[name];
  }
  return codecs as CorpusCodecs;
}
