/**
 * What is measured. Every op is one message, one version, one direction and one shape; every
 * contender of an op handles the very same body bytes. Per op and per contender, one timed call:
 *
 * encode
 * - kafka-wire: `codec.encode(message, version)` → a new Uint8Array of exactly the body.
 * - @platformatic/kafka: `createRequest(...args).buffer` → a Buffer of exactly the body (the
 *   Writer's buffer list concatenated, as the client does before writing to the socket). The
 *   arguments are prepared once, in plt's own format (e.g. topic ids as hex), outside the timing.
 * - kafkajs: `await request(args).encode()` → an Encoder whose `.buffer` is the body (for
 *   ListPartitionReassignments v0: the request header's tagged-field byte 0x00, then the body).
 *   The factory call is included since kafkajs makes one per request.
 * decode (the input is one Buffer holding the body, shared by every contender)
 * - kafka-wire: `codec.decode(buffer, version)`.
 * - @platformatic/kafka: `parseResponse(0, apiKey, version, Reader.from(buffer))` (the Reader
 *   wrapper is per response in plt's client too). plt also collects per-topic and per-partition
 *   error codes as it goes; every fixture has error code 0.
 * - kafkajs: `await response.decode(buffer)` (for ListPartitionReassignments v0 the buffer starts
 *   with the response header's tagged-field byte). kafkajs' separate `parse()` step, which only
 *   checks error codes, is not included.
 * memcpy (baseline): `target.set(body)` into a preallocated Uint8Array of the same length.
 *
 * Before anything is timed every contender is verified: encoders must write byte-identical bodies
 * (kafka-wire's own bytes are also checked by a decode → encode round trip), decoders must return
 * the same field values as the logical message, compared field by field on what each exposes.
 */

import { decodeWithSpans, uuidFromString, uuidToString, type MessageCodec } from "../src/runtime/index.js";
import {
  fieldTables,
  StreamsGroupDescribeResponse,
  StreamsGroupHeartbeatRequest,
  StreamsGroupHeartbeatResponse,
  StreamsGroupMemberMetadataValue,
} from "../generated/index.js";
import type { Codecs } from "./baseline.js";
import type { AsyncContender, Contender, Op, Role, SyncContender } from "./harness.js";
import type {
  CghTopicPartitions,
  ConsumerGroupHeartbeatResponse,
  CorpusCodecs,
  ListPartitionReassignmentsResponse,
  MetadataResponse,
} from "./corpus.js";
import * as fx from "./fixtures.js";
import {
  PltReader,
  kafkajsListPartitionReassignmentsV0,
  kafkajsMetadataV6,
  pltConsumerGroupHeartbeatV0,
  pltListPartitionReassignmentsV0,
  pltMetadataV12,
  pltMetadataV6,
  type KafkajsListPartitionReassignmentsV0,
  type KafkajsMetadataV6,
  type KafkajsRequest,
  type KafkajsResponse,
} from "./peers.js";

export const OURS = "kafka-wire";
/** An older build of kafka-wire (`--baseline`, see baseline.ts). */
export const BASELINE = "kafka-wire (baseline)";
export const PLT = "@platformatic/kafka";
export const KAFKAJS = "kafkajs";
export const MEMCPY = "memcpy";
/** kafka-wire's decodeWithSpans (the field-table interpreter), next to its decode (see spanOps). */
export const SPANS = "kafka-wire decodeWithSpans";

/** The project's targets for kafka-wire vs @platformatic/kafka (speed-up factors). */
export const TARGETS = { shared: 3, heartbeatEncode: 6, heartbeatDecode: 3, largeMetadataDecode: 4 } as const;

/**
 * Issue 13's targets vs the build at its start (a02f9cf): 1.3× faster on the ops where a
 * hand-written codec was clearly faster than that build, and never slower (1×) on any other.
 */
const BASELINE_TARGETS: Readonly<Record<string, number>> = {
  "StreamsGroupHeartbeatRequest v0 encode (join)": 1.3,
  "StreamsGroupHeartbeatRequest v0 decode (join)": 1.3,
  "StreamsGroupHeartbeatRequest v0 encode (steady)": 1.3,
  "StreamsGroupHeartbeatRequest v0 decode (steady)": 1.3,
  "ConsumerGroupHeartbeatRequest v0 encode (full)": 1.3,
  "MetadataRequest v6 encode": 1.3,
  "MetadataRequest v12 encode": 1.3,
  "MetadataResponse v12 decode (large: 100 topics × 10 partitions)": 1.3,
  "ListPartitionReassignmentsRequest v0 encode": 1.3,
  "ListPartitionReassignmentsResponse v0 decode": 1.3,
};

/** The speed-up over the baseline build an op must show (see {@link BASELINE_TARGETS}). */
export function baselineTarget(op: string): number {
  return BASELINE_TARGETS[op] ?? 1;
}

/** The committed seed codecs (generated/). */
export interface SeedCodecs {
  readonly StreamsGroupDescribeResponse: typeof StreamsGroupDescribeResponse;
  readonly StreamsGroupHeartbeatRequest: typeof StreamsGroupHeartbeatRequest;
  readonly StreamsGroupHeartbeatResponse: typeof StreamsGroupHeartbeatResponse;
  readonly StreamsGroupMemberMetadataValue: typeof StreamsGroupMemberMetadataValue;
}

/** This checkout's codecs and, with `--baseline`, an older build's. */
export interface Builds {
  readonly current: Codecs;
  readonly baseline: Codecs | null;
}

/** This checkout's seed codecs. */
export const CURRENT_SEEDS: SeedCodecs = {
  StreamsGroupDescribeResponse,
  StreamsGroupHeartbeatRequest,
  StreamsGroupHeartbeatResponse,
  StreamsGroupMemberMetadataValue,
};

// ------------------------------------------------------------------------------------------------
// Verification helpers
// ------------------------------------------------------------------------------------------------

function hex(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("hex");
}

/** A Buffer over the same memory (no copy). */
function asBuffer(b: Uint8Array): Buffer {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength);
}

function firstDifference(a: string, b: string): string {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  const from = Math.max(0, i - 40);
  return `at character ${i}:\n  got  …${a.slice(from, i + 60)}\n  want …${b.slice(from, i + 60)}`;
}

function assertBytes(op: string, who: string, got: Uint8Array, want: Uint8Array): void {
  const g = hex(got);
  const w = hex(want);
  if (g !== w)
    throw new Error(`${op}: ${who} wrote different bytes (${got.length} vs ${want.length}) ${firstDifference(g, w)}`);
}

/** JSON text with sorted object keys and bigints, for comparing decoded values. */
function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) => {
    if (typeof x === "bigint") return `${x}n`;
    if (x === null || typeof x !== "object" || Array.isArray(x) || ArrayBuffer.isView(x)) return x;
    return Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  });
}

function assertSame(op: string, who: string, got: unknown, want: unknown): void {
  const g = canonical(got);
  const w = canonical(want);
  if (g !== w) throw new Error(`${op}: ${who} decoded different values ${firstDifference(g, w)}`);
}

/** Kafka's uuid string (22-char base64) → 32 hex digits, the form plt writes and (hyphenated) reads. */
function uuidHex(kafkaUuid: string): string {
  const bytes = uuidFromString(kafkaUuid);
  if (bytes === null) throw new Error(`not a Kafka uuid: ${kafkaUuid}`);
  return hex(bytes);
}

/** plt's `xxxxxxxx-xxxx-…` uuid → Kafka's string form, to compare with kafka-wire's values. */
function uuidFromHyphenated(text: string): string {
  return uuidToString(Buffer.from(text.replaceAll("-", ""), "hex"), 0);
}

// ------------------------------------------------------------------------------------------------
// Contenders
// ------------------------------------------------------------------------------------------------

function memcpy(op: string, body: Uint8Array): SyncContender {
  const source = Uint8Array.from(body); // a plain Uint8Array of its own, like every other input
  const target = new Uint8Array(source.length);
  const last = source.length - 1;
  return {
    name: MEMCPY,
    role: "memcpy",
    run: () => {
      target.set(source);
      return target[last]!;
    },
    verify: async () => {
      target.fill(0).set(source);
      assertBytes(op, MEMCPY, target, body);
    },
  };
}

function encoder<T>(
  op: string,
  name: string,
  role: Role,
  codec: MessageCodec<T>,
  message: T,
  version: number,
  expected: Uint8Array | null,
): SyncContender {
  return {
    name,
    role,
    run: () => codec.encode(message, version).length,
    verify: async () => {
      const bytes = codec.encode(message, version);
      if (expected !== null) assertBytes(op, name, bytes, expected);
      assertBytes(
        op,
        `${name} (decode → encode round trip)`,
        codec.encode(codec.decode(bytes, version), version),
        bytes,
      );
    },
  };
}

/** kafka-wire's encoder of the op and, with a baseline, the baseline's (which must write the same bytes). */
function oursEncoders<T>(
  op: string,
  builds: Builds,
  pick: (c: Codecs) => MessageCodec<T> | undefined,
  message: T,
  version: number,
): SyncContender[] {
  const codec = pick(builds.current)!;
  const contenders = [encoder(op, OURS, "ours", codec, message, version, null)];
  const old = builds.baseline === null ? undefined : pick(builds.baseline);
  if (old !== undefined) {
    contenders.push(encoder(op, BASELINE, "baseline", old, message, version, codec.encode(message, version)));
  }
  return contenders;
}

/** kafka-wire's decoder of the op and, with a baseline, the baseline's. */
function oursDecoders<T>(
  op: string,
  builds: Builds,
  pick: (c: Codecs) => MessageCodec<T> | undefined,
  input: Buffer,
  version: number,
  probe: (m: T) => number,
  view: (m: T) => unknown,
  expected: unknown,
): SyncContender[] {
  const decoder = (name: string, role: Role, codec: MessageCodec<T>): SyncContender => ({
    name,
    role,
    run: () => probe(codec.decode(input, version)),
    verify: async () => assertSame(op, name, view(codec.decode(input, version)), expected),
  });
  const contenders = [decoder(OURS, "ours", pick(builds.current)!)];
  const old = builds.baseline === null ? undefined : pick(builds.baseline);
  if (old !== undefined) contenders.push(decoder(BASELINE, "baseline", old));
  return contenders;
}

interface PltWriterLike {
  readonly buffer: Buffer;
}

function pltEncoder(op: string, create: () => PltWriterLike, expected: Uint8Array): SyncContender {
  return {
    name: PLT,
    role: "peer",
    run: () => create().buffer.length,
    verify: async () => assertBytes(op, PLT, create().buffer, expected),
  };
}

function pltDecoder<R>(
  op: string,
  parse: (reader: PltReader) => R,
  input: Buffer,
  probe: (r: R) => number,
  view: (r: R) => unknown,
  expected: unknown,
): SyncContender {
  return {
    name: PLT,
    role: "peer",
    run: () => probe(parse(PltReader.from(input))),
    verify: async () => assertSame(op, PLT, view(parse(PltReader.from(input))), expected),
  };
}

/** `headerTagByte`: kafkajs writes the request header's tagged-field byte as part of the API's bytes. */
function kafkajsEncoder(
  op: string,
  request: () => KafkajsRequest,
  expected: Uint8Array,
  headerTagByte: boolean,
): AsyncContender {
  return {
    name: KAFKAJS,
    role: "peer",
    runAsync: async () => (await request().encode()).buffer.length,
    verify: async () => {
      const out = (await request().encode()).buffer;
      if (headerTagByte && out[0] !== 0)
        throw new Error(`${op}: ${KAFKAJS} did not start with the header's empty tagged-field section`);
      assertBytes(op, KAFKAJS, headerTagByte ? out.subarray(1) : out, expected);
    },
  };
}

function kafkajsDecoder<R>(
  op: string,
  response: KafkajsResponse<R>,
  input: Buffer,
  probe: (r: R) => number,
  view: (r: R) => unknown,
  expected: unknown,
): AsyncContender {
  return {
    name: KAFKAJS,
    role: "peer",
    runAsync: async () => probe(await response.decode(input)),
    verify: async () => assertSame(op, KAFKAJS, view(await response.decode(input)), expected),
  };
}

// ------------------------------------------------------------------------------------------------
// Decoded values, as compared in verification: a projection every contender can produce.
// ------------------------------------------------------------------------------------------------

/** What plt's Metadata decoders return (same field names as kafka-wire; uuids hyphenated hex). */
type PltMetadata = ReturnType<typeof pltMetadataV12.parseResponse>;

/** The Metadata response fields every contender can return (kafkajs has no v7+ fields). */
interface MetadataLike {
  readonly throttleTimeMs: number;
  readonly brokers: readonly { nodeId: number; host: string; port: number; rack: string | null | undefined }[];
  readonly clusterId: string | null | undefined;
  readonly controllerId: number;
  readonly topics: readonly {
    readonly errorCode: number;
    readonly name: string | null | undefined; // plt's NullableString admits undefined
    readonly topicId?: string;
    readonly isInternal: boolean;
    readonly topicAuthorizedOperations?: number;
    readonly partitions: readonly {
      readonly errorCode: number;
      readonly partitionIndex: number;
      readonly leaderId: number;
      readonly leaderEpoch?: number;
      readonly replicaNodes: readonly number[];
      readonly isrNodes: readonly number[];
      readonly offlineReplicas: readonly number[];
    }[];
  }[];
}

/** The fields Metadata `version` has: v6 lacks the leader epoch (v7+), topic id (v10+) and topic authorized operations (v8+). */
function metadataView(m: MetadataLike, version: number): unknown {
  return {
    throttleTimeMs: m.throttleTimeMs,
    brokers: m.brokers.map((b) => [b.nodeId, b.host, b.port, b.rack]),
    clusterId: m.clusterId,
    controllerId: m.controllerId,
    topics: m.topics.map((t) => [
      t.errorCode,
      t.name,
      version >= 10 ? t.topicId : null,
      t.isInternal,
      version >= 8 ? t.topicAuthorizedOperations : null,
      t.partitions.map((p) => [
        p.errorCode,
        p.partitionIndex,
        p.leaderId,
        version >= 7 ? p.leaderEpoch : null,
        p.replicaNodes,
        p.isrNodes,
        p.offlineReplicas,
      ]),
    ]),
  };
}

function pltMetadataAsOurs(r: PltMetadata): MetadataLike {
  return { ...r, topics: r.topics.map((t) => ({ ...t, topicId: uuidFromHyphenated(t.topicId) })) };
}

function kafkajsMetadataAsOurs(r: KafkajsMetadataV6): MetadataLike {
  return {
    // kafkajs reports the broker's throttle time as clientSideThrottleTime from v6 on (KIP-219).
    throttleTimeMs: r.clientSideThrottleTime,
    brokers: r.brokers,
    clusterId: r.clusterId,
    controllerId: r.controllerId,
    topics: r.topicMetadata.map((t) => ({
      errorCode: t.topicErrorCode,
      name: t.topic,
      isInternal: t.isInternal,
      partitions: t.partitionMetadata.map((p) => ({
        errorCode: p.partitionErrorCode,
        partitionIndex: p.partitionId,
        leaderId: p.leader,
        replicaNodes: p.replicas,
        isrNodes: p.isr,
        offlineReplicas: p.offlineReplicas,
      })),
    })),
  };
}

/** Reads the last partition of the last topic, so a lazy decoder could not skip the work. */
function metadataProbe(m: { topics: readonly { partitions: readonly { leaderId: number }[] }[] }): number {
  const t = m.topics[m.topics.length - 1]!;
  return m.topics.length + t.partitions[t.partitions.length - 1]!.leaderId;
}

function kafkajsMetadataProbe(m: KafkajsMetadataV6): number {
  const t = m.topicMetadata[m.topicMetadata.length - 1]!;
  return m.topicMetadata.length + t.partitionMetadata[t.partitionMetadata.length - 1]!.leader;
}

function cghResponseView(r: ConsumerGroupHeartbeatResponse, uuid: (id: string) => string): unknown {
  const tps = (a: readonly CghTopicPartitions[]): unknown => a.map((tp) => [uuid(tp.topicId), tp.partitions]);
  return {
    ...r,
    _unknownTaggedFields: undefined,
    assignment: r.assignment === null ? null : tps(r.assignment.topicPartitions),
  };
}

function cghResponseProbe(r: ConsumerGroupHeartbeatResponse): number {
  const tps = r.assignment?.topicPartitions;
  return r.memberEpoch + (tps === undefined ? 0 : tps[tps.length - 1]!.partitions.length);
}

function lprView(r: Omit<ListPartitionReassignmentsResponse, "errorMessage">): unknown {
  // The error message is left out: kafkajs reads it but does not return it.
  return {
    throttleTimeMs: r.throttleTimeMs,
    errorCode: r.errorCode,
    topics: r.topics.map((t) => [
      t.name,
      t.partitions.map((p) => [p.partitionIndex, p.replicas, p.addingReplicas, p.removingReplicas]),
    ]),
  };
}

function kafkajsLprAsOurs(
  r: KafkajsListPartitionReassignmentsV0,
): Omit<ListPartitionReassignmentsResponse, "errorMessage"> {
  return {
    throttleTimeMs: r.throttleTime,
    errorCode: r.errorCode,
    topics: r.topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => ({
        partitionIndex: p.partition,
        replicas: p.replicas,
        addingReplicas: p.addingReplicas,
        removingReplicas: p.removingReplicas,
      })),
    })),
  };
}

function lprProbe(r: { topics: readonly { partitions: readonly { replicas: readonly number[] }[] }[] }): number {
  const t = r.topics[r.topics.length - 1]!;
  return r.topics.length + t.partitions[t.partitions.length - 1]!.replicas.length;
}

// ------------------------------------------------------------------------------------------------
// The ops
// ------------------------------------------------------------------------------------------------

/** Ops on the Apache Kafka messages that the peers implement too. */
export function sharedOps(builds: Builds): Op[] {
  const c = builds.current.corpus!;
  const ops: Op[] = [];
  const cgh = fx.consumerGroupHeartbeat(c);

  // ConsumerGroupHeartbeat v0 (api key 68): plt only; kafkajs 2.2.4 predates KIP-848.
  const noKafkajsCgh = { name: KAFKAJS, reason: "kafkajs 2.2.4 has no ConsumerGroupHeartbeat (KIP-848) API" };
  for (const shape of ["steady", "full"] as const) {
    const msg = cgh.request[shape];
    const name = `ConsumerGroupHeartbeatRequest v0 encode (${shape})`;
    const body = c.ConsumerGroupHeartbeatRequest.encode(msg, 0);
    const topicPartitions =
      msg.topicPartitions?.map((tp) => ({ topicId: uuidHex(tp.topicId), partitions: tp.partitions })) ?? null;
    ops.push({
      name,
      direction: "encode",
      bytes: body.length,
      target: TARGETS.heartbeatEncode,
      unsupported: [noKafkajsCgh],
      contenders: [
        ...oursEncoders(name, builds, (k) => k.corpus?.ConsumerGroupHeartbeatRequest, msg, 0),
        pltEncoder(
          name,
          () =>
            pltConsumerGroupHeartbeatV0.createRequest(
              msg.groupId,
              msg.memberId,
              msg.memberEpoch,
              msg.instanceId,
              msg.rackId,
              msg.rebalanceTimeoutMs,
              msg.subscribedTopicNames,
              null,
              msg.serverAssignor,
              topicPartitions,
            ),
          body,
        ),
        memcpy(name, body),
      ],
    });
  }
  for (const shape of ["steady", "full"] as const) {
    const msg = cgh.response[shape];
    const name = `ConsumerGroupHeartbeatResponse v0 decode (${shape})`;
    const body = c.ConsumerGroupHeartbeatResponse.encode(msg, 0);
    const input = asBuffer(body);
    const expected = cghResponseView(msg, (id) => id);
    ops.push({
      name,
      direction: "decode",
      bytes: body.length,
      target: TARGETS.heartbeatDecode,
      unsupported: [noKafkajsCgh],
      contenders: [
        ...oursDecoders(
          name,
          builds,
          (k) => k.corpus?.ConsumerGroupHeartbeatResponse,
          input,
          0,
          cghResponseProbe,
          (m) => cghResponseView(m, (id) => id),
          expected,
        ),
        pltDecoder(
          name,
          (r) => pltConsumerGroupHeartbeatV0.parseResponse(0, 68, 0, r),
          input,
          (r) => cghResponseProbe(r as ConsumerGroupHeartbeatResponse),
          (r) => cghResponseView(r as ConsumerGroupHeartbeatResponse, uuidFromHyphenated),
          expected,
        ),
        memcpy(name, body),
      ],
    });
  }

  // Metadata request: v6 (both peers) and v12 (plt; kafkajs stops at v6).
  const mdReq = fx.metadataRequest(c);
  const topicNames = mdReq.topics!.map((t) => t.name!);
  for (const version of [6, 12]) {
    const name = `MetadataRequest v${version} encode`;
    const body = c.MetadataRequest.encode(mdReq, version);
    const plt = version === 6 ? pltMetadataV6 : pltMetadataV12;
    const contenders: Contender[] = [
      ...oursEncoders(name, builds, (k) => k.corpus?.MetadataRequest, mdReq, version),
      pltEncoder(
        name,
        () => plt.createRequest(topicNames, mdReq.allowAutoTopicCreation, mdReq.includeTopicAuthorizedOperations),
        body,
      ),
    ];
    if (version === 6) {
      contenders.push(
        kafkajsEncoder(
          name,
          () => kafkajsMetadataV6.request({ topics: topicNames, allowAutoTopicCreation: mdReq.allowAutoTopicCreation }),
          body,
          false,
        ),
      );
    }
    contenders.push(memcpy(name, body));
    ops.push({
      name,
      direction: "encode",
      bytes: body.length,
      target: TARGETS.shared,
      unsupported: version === 6 ? [] : [{ name: KAFKAJS, reason: "kafkajs 2.2.4 implements Metadata up to v6" }],
      contenders,
    });
  }

  // Metadata response: a typical one (3 brokers, 10 topics × 3 partitions) and a large one
  // (6 brokers, 100 topics × 10 partitions), each at v6 (both peers) and v12 (plt).
  for (const [shape, brokers, topics, partitions] of [
    ["typical", 3, 10, 3],
    ["large", 6, 100, 10],
  ] as const) {
    for (const version of [6, 12]) {
      const msg = fx.metadataResponse(c, version, brokers, topics, partitions);
      const name = `MetadataResponse v${version} decode (${shape}: ${topics} topics × ${partitions} partitions)`;
      const body = c.MetadataResponse.encode(msg, version);
      const input = asBuffer(body);
      const expected = metadataView(msg, version);
      const plt = version === 6 ? pltMetadataV6 : pltMetadataV12;
      const contenders: Contender[] = [
        ...oursDecoders(
          name,
          builds,
          (k) => k.corpus?.MetadataResponse,
          input,
          version,
          metadataProbe,
          (m) => metadataView(m, version),
          expected,
        ),
        pltDecoder(
          name,
          (r) => plt.parseResponse(0, 3, version, r),
          input,
          metadataProbe,
          (r) => metadataView(pltMetadataAsOurs(r), version),
          expected,
        ),
      ];
      if (version === 6) {
        contenders.push(
          kafkajsDecoder(
            name,
            kafkajsMetadataV6.response,
            input,
            kafkajsMetadataProbe,
            (r) => metadataView(kafkajsMetadataAsOurs(r), 6),
            expected,
          ),
        );
      }
      contenders.push(memcpy(name, body));
      ops.push({
        name,
        direction: "decode",
        bytes: body.length,
        target: shape === "large" ? TARGETS.largeMetadataDecode : TARGETS.shared,
        unsupported: version === 6 ? [] : [{ name: KAFKAJS, reason: "kafkajs 2.2.4 implements Metadata up to v6" }],
        contenders,
      });
    }
  }

  // ListPartitionReassignments v0 (api key 46, flexible): both peers.
  const lpr = fx.listPartitionReassignments(c);
  {
    const name = "ListPartitionReassignmentsRequest v0 encode";
    const msg = lpr.request;
    const body = c.ListPartitionReassignmentsRequest.encode(msg, 0);
    const kafkajsTopics = msg.topics!.map((t) => ({ topic: t.name, partitions: t.partitionIndexes }));
    ops.push({
      name,
      direction: "encode",
      bytes: body.length,
      target: TARGETS.shared,
      unsupported: [],
      contenders: [
        ...oursEncoders(name, builds, (k) => k.corpus?.ListPartitionReassignmentsRequest, msg, 0),
        pltEncoder(name, () => pltListPartitionReassignmentsV0.createRequest(msg.timeoutMs, msg.topics), body),
        kafkajsEncoder(
          name,
          () => kafkajsListPartitionReassignmentsV0.request({ topics: kafkajsTopics, timeout: msg.timeoutMs }),
          body,
          true,
        ),
        memcpy(name, body),
      ],
    });
  }
  {
    const name = "ListPartitionReassignmentsResponse v0 decode";
    const msg = lpr.response;
    const body = c.ListPartitionReassignmentsResponse.encode(msg, 0);
    const input = asBuffer(body);
    // kafkajs reads the response header's tagged-field byte inside the API decoder.
    const kafkajsInput = Buffer.concat([Buffer.from([0]), input]);
    const expected = lprView(msg);
    ops.push({
      name,
      direction: "decode",
      bytes: body.length,
      target: TARGETS.shared,
      unsupported: [],
      contenders: [
        ...oursDecoders(
          name,
          builds,
          (k) => k.corpus?.ListPartitionReassignmentsResponse,
          input,
          0,
          lprProbe,
          lprView,
          expected,
        ),
        pltDecoder(
          name,
          (r) => pltListPartitionReassignmentsV0.parseResponse(0, 46, 0, r),
          input,
          lprProbe,
          lprView,
          expected,
        ),
        kafkajsDecoder(
          name,
          kafkajsListPartitionReassignmentsV0.response,
          kafkajsInput,
          (r) => lprProbe(r),
          (r) => lprView(kafkajsLprAsOurs(r)),
          expected,
        ),
        memcpy(name, body),
      ],
    });
  }
  return ops;
}

const NO_PEER = [
  { name: PLT, reason: "no KIP-1071 (Streams group) messages" },
  { name: KAFKAJS, reason: "no KIP-1071 (Streams group) messages" },
];

type SeedName = keyof SeedCodecs;
type SeedMessage<K extends SeedName> = ReturnType<SeedCodecs[K]["create"]>;

/** Encode and decode of one seed message in one shape; kafka-wire (and its baseline) and memcpy only. */
function seedOps<K extends SeedName>(
  builds: Builds,
  name: K,
  shape: string,
  message: SeedMessage<K>,
  probe: (m: SeedMessage<K>) => number,
  directions: readonly ("encode" | "decode")[] = ["encode", "decode"],
): Op[] {
  const pick = (c: Codecs): MessageCodec<SeedMessage<K>> => c.seeds[name] as unknown as MessageCodec<SeedMessage<K>>;
  const body = pick(builds.current).encode(message, 0);
  const input = asBuffer(body);
  const expected = { ...message };
  return directions.map((direction): Op => {
    const op = `${name} v0 ${direction} (${shape})`;
    return {
      name: op,
      direction,
      bytes: body.length,
      unsupported: NO_PEER,
      contenders: [
        ...(direction === "encode"
          ? oursEncoders(op, builds, pick, message, 0)
          : oursDecoders(op, builds, pick, input, 0, probe, (m) => m, expected)),
        memcpy(op, body),
      ],
    };
  });
}

const lastLength = (a: readonly unknown[] | null): number => (a === null ? 0 : a.length);

const heartbeatResponseProbe = (m: SeedMessage<"StreamsGroupHeartbeatResponse">): number =>
  m.memberEpoch + lastLength(m.partitionsByUserEndpoint);

const describeProbe = (m: SeedMessage<"StreamsGroupDescribeResponse">): number => {
  const members = m.groups[0]!.members;
  return members.length + members[members.length - 1]!.taskOffsets.length;
};

/**
 * What byte spans cost: `decode` and `decodeWithSpans` of the same body in the same rounds (the
 * latter as the op's "peer", so the table's "vs fastest peer" is decode's time over its time).
 */
export function spanOps(builds: Builds): Op[] {
  const op = <K extends SeedName>(
    name: K,
    shape: string,
    message: SeedMessage<K>,
    probe: (m: SeedMessage<K>) => number,
  ): Op => {
    const pick = (c: Codecs): MessageCodec<SeedMessage<K>> => c.seeds[name] as unknown as MessageCodec<SeedMessage<K>>;
    const body = pick(builds.current).encode(message, 0);
    const input = asBuffer(body);
    const label = `${name} v0 decode with spans (${shape})`;
    const table = fieldTables[name];
    const spans: SyncContender = {
      name: SPANS,
      role: "peer",
      run: () => decodeWithSpans(table, input, 0).spans.length,
      verify: async () =>
        assertSame(label, SPANS, decodeWithSpans(table, input, 0).value, pick(builds.current).decode(input, 0)),
    };
    return {
      name: label,
      direction: "decode",
      bytes: body.length,
      unsupported: NO_PEER,
      contenders: [
        ...oursDecoders(label, builds, pick, input, 0, probe, (m) => m, { ...message }),
        spans,
        memcpy(label, body),
      ],
    };
  };
  return [
    op("StreamsGroupHeartbeatRequest", "join", fx.streamsGroupHeartbeatRequest.join, (m) => m.memberEpoch),
    op("StreamsGroupDescribeResponse", "10 members", fx.streamsGroupDescribeResponse.tenMembers, describeProbe),
  ];
}

/** The four KIP-1071 seed messages, two shapes each, and two larger responses (see fixtures.ts). */
export function seedMessageOps(builds: Builds): Op[] {
  const ops: Op[] = [];
  for (const shape of ["steady", "join"] as const) {
    ops.push(
      ...seedOps(
        builds,
        "StreamsGroupHeartbeatRequest",
        shape,
        fx.streamsGroupHeartbeatRequest[shape],
        (m) => m.memberEpoch + lastLength(m.taskEndOffsets),
      ),
      ...seedOps(
        builds,
        "StreamsGroupHeartbeatResponse",
        shape,
        fx.streamsGroupHeartbeatResponse[shape],
        heartbeatResponseProbe,
      ),
      ...seedOps(builds, "StreamsGroupDescribeResponse", shape, fx.streamsGroupDescribeResponse[shape], describeProbe),
      ...seedOps(
        builds,
        "StreamsGroupMemberMetadataValue",
        shape,
        fx.streamsGroupMemberMetadataValue[shape],
        (m) => m.rebalanceTimeoutMs + m.clientTags.length,
      ),
    );
  }
  ops.push(
    ...seedOps(
      builds,
      "StreamsGroupHeartbeatResponse",
      "full assignment",
      fx.streamsGroupHeartbeatResponse.fullAssignment,
      heartbeatResponseProbe,
      ["decode"],
    ),
    ...seedOps(
      builds,
      "StreamsGroupDescribeResponse",
      "10 members",
      fx.streamsGroupDescribeResponse.tenMembers,
      describeProbe,
      ["decode"],
    ),
  );
  return ops;
}
