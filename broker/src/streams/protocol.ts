/**
 * The cluster's protocol with StreamsGroupHeartbeat (api key 88) and StreamsGroupDescribe (89)
 * served by the seed codecs (KIP-1071's pages, `schemas/`), not by Kafka's own StreamsGroup*
 * schemas, whose fields differ (Kafka's request has no CurrentAssignmentEpoch, for one). Every
 * other api key goes to the base protocol unchanged.
 *
 * Both seed requests are flexible from version 0, so their frames carry request header v2 and
 * response header v1 (Kafka's rule); those headers are read and written here.
 */

import {
  StreamsGroupDescribeRequest,
  StreamsGroupDescribeResponse,
  StreamsGroupHeartbeatRequest,
  StreamsGroupHeartbeatResponse,
} from "./messages.js";
import {
  KafkaDecodeError,
  Reader,
  type ApiCodecs,
  type DecodedRequest,
  type DecodedResponse,
  type DecodeOptions,
  type MessageCodec,
  type Protocol,
  type RequestHeaderInit,
} from "../../../src/runtime/index.js";

export const STREAMS_GROUP_HEARTBEAT = 88;
export const STREAMS_GROUP_DESCRIBE = 89;

/** The seed APIs, by api key (the keys kafka-wire.config.json gives them). */
export const SEED_STREAMS_APIS: ReadonlyMap<number, ApiCodecs> = new Map<number, ApiCodecs>([
  [
    STREAMS_GROUP_HEARTBEAT,
    {
      apiKey: STREAMS_GROUP_HEARTBEAT,
      name: "StreamsGroupHeartbeat",
      request: StreamsGroupHeartbeatRequest as MessageCodec<unknown>,
      response: StreamsGroupHeartbeatResponse as MessageCodec<unknown>,
    },
  ],
  [
    STREAMS_GROUP_DESCRIBE,
    {
      apiKey: STREAMS_GROUP_DESCRIBE,
      name: "StreamsGroupDescribe",
      request: StreamsGroupDescribeRequest as MessageCodec<unknown>,
      response: StreamsGroupDescribeResponse as MessageCodec<unknown>,
    },
  ],
]);

const utf8 = new TextEncoder();

/** Skips a flexible header's tagged fields (none are defined for these headers). */
function skipTaggedFields(r: Reader): void {
  const n = r.uvarint();
  for (let i = 0; i < n; i++) {
    r.uvarint();
    r.skip(r.uvarint());
  }
}

function checkSize(frame: Uint8Array): void {
  const size = new DataView(frame.buffer, frame.byteOffset, frame.byteLength).getInt32(0);
  if (frame.length < 4 || size !== frame.length - 4)
    throw new KafkaDecodeError(
      "INVALID_LENGTH",
      `size prefix says ${size} bytes, the frame has ${frame.length - 4} after it`,
      0,
    );
}

function checkVersion(api: ApiCodecs, version: number, at: number, decoding: boolean): void {
  const v = api.request.validVersions;
  if (version < v.lowest || version > v.highest) {
    const msg = `${api.name} has no version ${version} (valid ${v.lowest}-${v.highest})`;
    if (decoding) throw new KafkaDecodeError("UNSUPPORTED_VERSION", msg, at);
    throw new Error(msg);
  }
}

/** `size | request header v2 | body` for a seed API. */
export function encodeSeedRequestFrame(api: ApiCodecs, header: RequestHeaderInit, body: unknown): Uint8Array {
  checkVersion(api, header.apiVersion, 0, false);
  const clientId = header.clientId === null || header.clientId === undefined ? null : utf8.encode(header.clientId);
  const encoded = api.request.encode(api.request.create(body as never), header.apiVersion);
  const headerSize = 2 + 2 + 4 + 2 + (clientId?.length ?? 0) + 1;
  const frame = new Uint8Array(4 + headerSize + encoded.length);
  const v = new DataView(frame.buffer);
  v.setInt32(0, headerSize + encoded.length);
  v.setInt16(4, header.apiKey);
  v.setInt16(6, header.apiVersion);
  v.setInt32(8, header.correlationId);
  v.setInt16(12, clientId === null ? -1 : clientId.length);
  if (clientId !== null) frame.set(clientId, 14);
  frame[14 + (clientId?.length ?? 0)] = 0; // no tagged fields
  frame.set(encoded, 4 + headerSize);
  return frame;
}

/** `size | response header v1 | body` for a seed API. */
export function encodeSeedResponseFrame(
  api: ApiCodecs,
  apiVersion: number,
  correlationId: number,
  body: unknown,
): Uint8Array {
  const encoded = api.response.encode(api.response.create(body as never), apiVersion);
  const frame = new Uint8Array(4 + 5 + encoded.length);
  const v = new DataView(frame.buffer);
  v.setInt32(0, 5 + encoded.length);
  v.setInt32(4, correlationId);
  frame[8] = 0;
  frame.set(encoded, 9);
  return frame;
}

/** The base protocol with api keys 88 and 89 from the seed codecs (see the module comment). */
export function withSeedStreamsApis(base: Protocol): Protocol & { readonly untyped: Protocol } {
  const apis = new Map(base.apis);
  for (const [k, a] of SEED_STREAMS_APIS) apis.set(k, a);
  const seed = (apiKey: number) => SEED_STREAMS_APIS.get(apiKey);
  const protocol: Protocol & { untyped: Protocol } = {
    apis,
    unstableVersions: base.unstableVersions,
    api: (apiKey) => seed(apiKey) ?? base.api(apiKey),
    encodeRequestFrame(header, body) {
      const api = seed(header.apiKey);
      return api === undefined ? base.encodeRequestFrame(header, body) : encodeSeedRequestFrame(api, header, body);
    },
    decodeRequestFrame(frame, options?: DecodeOptions): DecodedRequest {
      checkSize(frame);
      const apiKey = new DataView(frame.buffer, frame.byteOffset, frame.byteLength).getInt16(4);
      const api = seed(apiKey);
      if (api === undefined) return base.decodeRequestFrame(frame, options);
      const r = new Reader(frame, 4, frame.length, options);
      const requestApiKey = r.int16();
      const requestApiVersion = r.int16();
      checkVersion(api, requestApiVersion, 6, true);
      const correlationId = r.int32();
      const clientId = r.nullableString();
      skipTaggedFields(r);
      const body = api.request.decode(frame.subarray(r.pos), requestApiVersion, options);
      return {
        apiKey,
        apiVersion: requestApiVersion,
        header: { requestApiKey, requestApiVersion, correlationId, clientId },
        headerVersion: 2,
        api,
        body,
      };
    },
    encodeResponseFrame(header, body) {
      const api = seed(header.apiKey);
      return api === undefined
        ? base.encodeResponseFrame(header, body)
        : encodeSeedResponseFrame(api, header.apiVersion, header.correlationId, body);
    },
    decodeResponseFrame(frame, apiKey, apiVersion, options?: DecodeOptions): DecodedResponse {
      const api = seed(apiKey);
      if (api === undefined) return base.decodeResponseFrame(frame, apiKey, apiVersion, options);
      checkSize(frame);
      const r = new Reader(frame, 4, frame.length, options);
      const correlationId = r.int32();
      skipTaggedFields(r);
      return {
        header: { correlationId },
        headerVersion: 1,
        apiVersion,
        body: api.response.decode(frame.subarray(r.pos), apiVersion, options),
      };
    },
    decodeApiVersionsResponseFrame: (frame, requestedVersion, options) =>
      base.decodeApiVersionsResponseFrame(frame, requestedVersion, options),
    untyped: undefined as unknown as Protocol,
  };
  protocol.untyped = protocol;
  return protocol;
}
