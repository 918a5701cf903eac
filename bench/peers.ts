/**
 * In-process access to the two peers' message codecs, without a broker or a socket.
 *
 * @platformatic/kafka 2.12.1 (ESM, typed): every API version is a public module namespace
 * (`metadataV12`, …) with `createRequest(...args): Writer` and
 * `parseResponse(correlationId, apiKey, apiVersion, reader: Reader)`. Both work on the message
 * BODY: the connection prepends the size, api key, version, correlation id, client id and (for
 * flexible versions) the header's tagged-field byte, and skips the response header before calling
 * `parseResponse`. A Writer holds a list of Buffers (@platformatic/dynamic-buffer); `.buffer`
 * concatenates them, which the client also does (once, after prepending the header) before the
 * socket write.
 *
 * kafkajs 2.2.4 (CommonJS, untyped internals): `src/protocol/requests/<api>/v<N>/request.js` is a
 * factory `(args) => { apiKey, apiVersion, encode(): Promise<Encoder> }` and `response.js` has
 * `decode(buffer): Promise<object>` and `parse(object)` (error-code checks). Both are async
 * functions whose work is synchronous. kafkajs always writes request header v1 (no tagged-field
 * section) and reads response header v0, so for flexible versions the API code itself writes the
 * request header's tagged-field byte before the body and reads the response header's one before
 * the body: its "body" for ListPartitionReassignments v0 is one byte longer on both sides.
 */

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

export {
  Reader as PltReader,
  consumerGroupHeartbeatV0 as pltConsumerGroupHeartbeatV0,
  listPartitionReassignmentsV0 as pltListPartitionReassignmentsV0,
  metadataV12 as pltMetadataV12,
  metadataV6 as pltMetadataV6,
} from "@platformatic/kafka";

const require = createRequire(import.meta.url);

/** kafkajs' Encoder as far as the bench uses it. */
export interface KafkajsEncoder {
  /** The bytes written so far (a view of the encoder's growing buffer). */
  readonly buffer: Buffer;
}

export interface KafkajsRequest {
  readonly apiKey: number;
  readonly apiVersion: number;
  encode(): Promise<KafkajsEncoder>;
}

export interface KafkajsResponse<T> {
  decode(raw: Buffer): Promise<T>;
  parse(decoded: T): Promise<T>;
}

/** `metadata/v6/response.js` decode result. */
export interface KafkajsMetadataV6 {
  /** Always 0 from v6 on: kafkajs moves the broker's throttle time to `clientSideThrottleTime` (KIP-219). */
  throttleTime: number;
  clientSideThrottleTime: number;
  brokers: { nodeId: number; host: string; port: number; rack: string | null }[];
  clusterId: string | null;
  controllerId: number;
  topicMetadata: {
    topicErrorCode: number;
    topic: string;
    isInternal: boolean;
    partitionMetadata: {
      partitionErrorCode: number;
      partitionId: number;
      leader: number;
      replicas: number[];
      isr: number[];
      offlineReplicas: number[];
    }[];
  }[];
}

/** `listPartitionReassignments/v0/response.js` decode result (the error message is read and dropped). */
export interface KafkajsListPartitionReassignmentsV0 {
  throttleTime: number;
  errorCode: number;
  topics: {
    name: string;
    partitions: { partition: number; replicas: number[]; addingReplicas: number[]; removingReplicas: number[] }[];
  }[];
}

const REQUESTS = "kafkajs/src/protocol/requests";

export const kafkajsMetadataV6 = {
  request: require(`${REQUESTS}/metadata/v6/request.js`) as (args: {
    topics: string[];
    allowAutoTopicCreation: boolean;
  }) => KafkajsRequest,
  response: require(`${REQUESTS}/metadata/v6/response.js`) as KafkajsResponse<KafkajsMetadataV6>,
};

export const kafkajsListPartitionReassignmentsV0 = {
  request: require(`${REQUESTS}/listPartitionReassignments/v0/request.js`) as (args: {
    topics: { topic: string; partitions: number[] }[] | null;
    timeout: number;
  }) => KafkajsRequest,
  response: require(
    `${REQUESTS}/listPartitionReassignments/v0/response.js`,
  ) as KafkajsResponse<KafkajsListPartitionReassignmentsV0>,
};

/**
 * Installed versions, for the report. Read from node_modules/ directly: @platformatic/kafka's
 * `exports` map does not export its package.json. It is bench/'s own dependency (see
 * bench/package.json), the others the root's.
 */
export function installedVersions(repoRoot: string): Record<string, string> {
  const version = (pkg: string, dir = repoRoot): string =>
    (JSON.parse(readFileSync(path.join(dir, "node_modules", pkg, "package.json"), "utf8")) as { version: string })
      .version;
  return {
    "@platformatic/kafka": version("@platformatic/kafka", path.join(repoRoot, "bench")),
    kafkajs: version("kafkajs"),
    mitata: version("mitata"),
  };
}
