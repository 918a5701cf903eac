/**
 * Request and response framing (Kafka protocol guide, "Requests and Responses"): every frame is
 * an int32 size followed by a header and a message body. Header versions follow from each API's
 * schema's `headerVersions` when it has them (KIP-1313), else from each API's flexible versions,
 * with Kafka's two exceptions kept in {@link HEADER_VERSION_EXCEPTIONS}.
 */

import type { EncodePlan, Init, MessageCodec } from "./codec.js";
import { KafkaDecodeError, KafkaEncodeError, withPath } from "./errors.js";
import { allocate } from "./pool.js";
import type { DecodeOptions } from "./reader.js";

/** The request header fields a caller supplies (RequestHeader schema, Kafka's `RequestHeaderData`). */
export interface RequestHeaderInit {
  /** The api key (int16). */
  readonly apiKey: number;
  /** The api version (int16). */
  readonly apiVersion: number;
  /** Chosen by the client; echoed in the response (int32). */
  readonly correlationId: number;
  /** The client id (header v1+; a classic nullable string even in flexible header v2). Default null. */
  readonly clientId?: string | null;
  /**
   * The client instance id of KIP-1313's request header v3 (a uuid, Kafka's base64 text), for a
   * header schema that has the field (header v3+); the header schema's default (the zero uuid)
   * when left out. Versions on an older header go without it. KIP-1313 is still under discussion: this follows
   * whatever `ClientInstanceId` field the RequestHeader schema in use defines.
   */
  readonly clientInstanceId?: string;
}

/** The shape of a decoded RequestHeader (from the RequestHeader schema). */
export interface RequestHeaderFields {
  /** The api key (int16). */
  requestApiKey: number;
  /** The api version of the body (int16). */
  requestApiVersion: number;
  /** Chosen by the client, echoed in the response (int32). */
  correlationId: number;
  /** The client id (header v1+), or null. */
  clientId: string | null;
  /** The client instance id (KIP-1313's header v3, when the RequestHeader schema has it). */
  clientInstanceId?: string;
}

/** The shape of a decoded ResponseHeader (from the ResponseHeader schema). */
export interface ResponseHeaderFields {
  /** The request's correlation id (int32). */
  correlationId: number;
}

/**
 * Kafka's exceptions to "header version from flexible versions", one table (Kafka's
 * `ApiMessageTypeGenerator` keeps the same two cases):
 * - ControlledShutdown (api key 7) v0 predates client ids: request header v0.
 * - ApiVersions (api key 18) responses always use response header v0, so that a client can read
 *   the reply of a broker that does not support the requested version (KIP-511).
 */
export const HEADER_VERSION_EXCEPTIONS = {
  /** ControlledShutdown (api key 7) v0 uses request header v0. */
  controlledShutdownApiKey: 7,
  /** ApiVersions (api key 18) responses always use response header v0. */
  apiVersionsApiKey: 18,
} as const;

/** Kafka's error code UNSUPPORTED_VERSION. */
export const UNSUPPORTED_VERSION_ERROR = 35;

function isFlexible(codec: MessageCodec<unknown>, version: number): boolean {
  const f = codec.flexibleVersions;
  return f !== null && version >= f.lowest && version <= f.highest;
}

/** The header version `headerVersions` gives `apiVersion`, or undefined (no table, or a version outside it). */
function fromSchema(codec: MessageCodec<unknown>, apiVersion: number): number | undefined {
  return codec.headerVersions?.find((r) => apiVersion >= r.lowest && apiVersion <= r.highest)?.header;
}

/**
 * Request header version for an api version: the schema's `headerVersions` when it has them
 * (KIP-1313); otherwise Kafka's rule: 2 when the request is flexible, else 1 (ControlledShutdown
 * v0: 0).
 */
export function requestHeaderVersion(request: MessageCodec<unknown>, apiVersion: number): number {
  const declared = fromSchema(request, apiVersion);
  if (declared !== undefined) return declared;
  if (request.apiKey === HEADER_VERSION_EXCEPTIONS.controlledShutdownApiKey && apiVersion === 0) return 0;
  return isFlexible(request, apiVersion) ? 2 : 1;
}

/**
 * Response header version for an api version: the schema's `headerVersions` when it has them;
 * otherwise 1 when the response is flexible, else 0 (ApiVersions: always 0).
 */
export function responseHeaderVersion(response: MessageCodec<unknown>, apiVersion: number): number {
  const declared = fromSchema(response, apiVersion);
  if (declared !== undefined) return declared;
  if (response.apiKey === HEADER_VERSION_EXCEPTIONS.apiVersionsApiKey) return 0;
  return isFlexible(response, apiVersion) ? 1 : 0;
}

/** One API: its request and response codecs. */
export interface ApiCodecs {
  /** The api key (int16). */
  readonly apiKey: number;
  /** The API's name without the Request/Response suffix, e.g. `ApiVersions`. */
  readonly name: string;
  /** The request body codec. */
  readonly request: MessageCodec<unknown>;
  /** The response body codec. */
  readonly response: MessageCodec<unknown>;
}

/** A decoded request frame. */
export interface DecodedRequest<H = RequestHeaderFields, K extends number = number, B = unknown> {
  /** The api key from the header (the same as `header.requestApiKey`; narrows the union of a typed protocol). */
  readonly apiKey: K;
  /** The api version from the header. */
  readonly apiVersion: number;
  /** The decoded request header. */
  readonly header: H;
  /** The request header version used (0, 1 or 2). */
  readonly headerVersion: number;
  /** The API the header's api key names. */
  readonly api: ApiCodecs;
  /** The decoded request body (the shape of `api.request`). */
  readonly body: B;
}

/** A decoded response frame. */
export interface DecodedResponse<H = ResponseHeaderFields, B = unknown> {
  /** The decoded response header. */
  readonly header: H;
  /** The response header version used (0 or 1). */
  readonly headerVersion: number;
  /** The version the body was decoded with (differs from the requested one after a KIP-511 fallback). */
  readonly apiVersion: number;
  /** The decoded response body (the shape of the API's response codec). */
  readonly body: B;
}

/** Encoding and decoding of whole frames for a set of APIs. */
export interface Protocol {
  /** Every API with both a request and a response codec, by api key. */
  readonly apis: ReadonlyMap<number, ApiCodecs>;
  /**
   * Whether the latest version of requests marked `latestVersionUnstable` is usable (the
   * definition's {@link ProtocolDefinition.unstableVersions}); when false, frames at it fail.
   */
  readonly unstableVersions: boolean;
  /** The API of an api key. @throws KafkaEncodeError `UNSUPPORTED_VERSION` when unknown. */
  api(apiKey: number): ApiCodecs;
  /**
   * `size (int32) | request header | body`. The body is an init (see `MessageCodec.create`):
   * every field it omits, at any depth, takes its schema default.
   * @throws KafkaEncodeError for an unknown api key, an api version the request lacks, or a body
   *   that does not encode.
   */
  encodeRequestFrame(header: RequestHeaderInit, body: unknown): Uint8Array;
  /**
   * Reads a size-prefixed request frame: the api key and version from the header, then the body.
   * @throws KafkaDecodeError when the size prefix disagrees with the frame length, the api key or
   *   version is unknown, or the header or body does not decode.
   */
  decodeRequestFrame(frame: Uint8Array, options?: DecodeOptions): DecodedRequest;
  /**
   * `size (int32) | response header | body` for a response to `apiKey` at `apiVersion`; omitted
   * body fields take their schema defaults, as in {@link encodeRequestFrame}.
   */
  encodeResponseFrame(
    header: { readonly apiKey: number; readonly apiVersion: number; readonly correlationId: number },
    body: unknown,
  ): Uint8Array;
  /**
   * Reads a size-prefixed response frame; the caller knows which request it answers.
   * @throws KafkaDecodeError as {@link decodeRequestFrame}.
   */
  decodeResponseFrame(frame: Uint8Array, apiKey: number, apiVersion: number, options?: DecodeOptions): DecodedResponse;
  /**
   * Reads an ApiVersions response to a request sent at `requestedVersion`, with KIP-511's
   * fallback: a broker that does not support that version answers in the v0 layout with error
   * UNSUPPORTED_VERSION (35); such a reply decodes as v0 (`apiVersion` 0 in the result), so the
   * client can retry with a version from its api key list.
   * @throws KafkaDecodeError when the frame decodes neither way.
   */
  decodeApiVersionsResponseFrame(frame: Uint8Array, requestedVersion: number, options?: DecodeOptions): DecodedResponse;
}

/** The body types of one API: what a typed protocol knows about an api key. */
export interface ApiBodies {
  /** The request body (the request codec's message type). */
  readonly request: unknown;
  /** The response body (the response codec's message type). */
  readonly response: unknown;
}

/**
 * A protocol's APIs by api key, e.g. `{ 3: { request: MetadataRequest; response: MetadataResponse } }`
 * (the generated `Apis`). An interface type qualifies: no index signature is needed.
 */
export type ApiMap<A> = { readonly [K in keyof A]: ApiBodies };

/** The api keys of an {@link ApiMap}. */
export type ApiKeyOf<A> = keyof A & number;

/**
 * A decoded request of a typed protocol: a union over its APIs, narrowed by `apiKey`
 * (`if (decoded.apiKey === ApiKey.Metadata) decoded.body.topics`).
 */
export type TypedDecodedRequest<A extends ApiMap<A>> = {
  [K in ApiKeyOf<A>]: DecodedRequest<RequestHeaderFields, K, A[K]["request"]>;
}[ApiKeyOf<A>];

/**
 * {@link Protocol} typed by api key: the same engine (what {@link defineProtocol} returns), with
 * each frame function's body type following from the api key. A body with a misspelled or
 * unknown field does not compile; omitted fields (at any depth) take their schema defaults.
 * For an api key known only at run time use {@link untyped}.
 */
export interface TypedProtocol<A extends ApiMap<A>> {
  /** Every API with both a request and a response codec, by api key. */
  readonly apis: ReadonlyMap<number, ApiCodecs>;
  /** As {@link Protocol.unstableVersions}. */
  readonly unstableVersions: boolean;
  /** The API of an api key. @throws KafkaEncodeError `UNSUPPORTED_VERSION` when unknown. */
  api(apiKey: number): ApiCodecs;
  /** The same protocol with `unknown` bodies and `number` api keys. */
  readonly untyped: Protocol;
  /**
   * `size (int32) | request header | body`; `body` is an init of the api key's request: every
   * field it omits, at any depth, takes its schema default.
   * @throws KafkaEncodeError as {@link Protocol.encodeRequestFrame}.
   */
  encodeRequestFrame<K extends ApiKeyOf<A>>(
    header: RequestHeaderInit & { readonly apiKey: K },
    body: Init<A[K]["request"]>,
  ): Uint8Array;
  /**
   * Reads a size-prefixed request frame (api key and version from its header); narrow the result
   * by `apiKey` to get the body's type.
   * @throws KafkaDecodeError as {@link Protocol.decodeRequestFrame}.
   */
  decodeRequestFrame(frame: Uint8Array, options?: DecodeOptions): TypedDecodedRequest<A>;
  /**
   * `size (int32) | response header | body` for a response to `apiKey` at `apiVersion`; omitted
   * body fields take their schema defaults.
   * @throws KafkaEncodeError as {@link Protocol.encodeResponseFrame}.
   */
  encodeResponseFrame<K extends ApiKeyOf<A>>(
    header: { readonly apiKey: K; readonly apiVersion: number; readonly correlationId: number },
    body: Init<A[K]["response"]>,
  ): Uint8Array;
  /**
   * Reads a size-prefixed response frame to a request of `apiKey` at `apiVersion`.
   * @throws KafkaDecodeError as {@link Protocol.decodeResponseFrame}.
   */
  decodeResponseFrame<K extends ApiKeyOf<A>>(
    frame: Uint8Array,
    apiKey: K,
    apiVersion: number,
    options?: DecodeOptions,
  ): DecodedResponse<ResponseHeaderFields, A[K]["response"]>;
  /**
   * Reads an ApiVersions response with KIP-511's fallback (see
   * {@link Protocol.decodeApiVersionsResponseFrame}).
   * @throws KafkaDecodeError when the frame decodes neither way.
   */
  decodeApiVersionsResponseFrame(
    frame: Uint8Array,
    requestedVersion: number,
    options?: DecodeOptions,
  ): DecodedResponse<ResponseHeaderFields, 18 extends keyof A ? A[18]["response"] : unknown>;
}

/** What a generated index hands to {@link defineProtocol}. */
export interface ProtocolDefinition {
  /** The RequestHeader codec. */
  readonly requestHeader: MessageCodec<RequestHeaderFields>;
  /** The ResponseHeader codec. */
  readonly responseHeader: MessageCodec<ResponseHeaderFields>;
  /** Every generated codec; requests and responses are paired by api key. */
  readonly messages: readonly MessageCodec<unknown>[];
  /**
   * Whether the latest version of a request marked `latestVersionUnstable` in its schema (a
   * version still under development, Kafka's `unstable.api.versions.enable`) is usable. Default
   * false: encoding or decoding a frame at that version fails with `UNSUPPORTED_VERSION`.
   */
  readonly unstableVersions?: boolean;
}

function sizePrefixed(header: EncodePlan, body: EncodePlan): Uint8Array {
  const size = header.size + body.size;
  const frame = allocate(4 + size);
  frame[0] = size >>> 24;
  frame[1] = size >>> 16;
  frame[2] = size >>> 8;
  frame[3] = size;
  body.writeTo(frame, header.writeTo(frame, 4));
  return frame;
}

/** A body init with its omitted fields at their defaults; a non-object is left for `plan` to refuse. */
function withDefaults(codec: MessageCodec<unknown>, body: unknown): unknown {
  const isObject = typeof body === "object" && body !== null && !Array.isArray(body) && !(body instanceof Uint8Array);
  return isObject ? codec.create(body) : body;
}

function checkFrame(frame: Uint8Array): void {
  if (!(frame instanceof Uint8Array)) throw new KafkaDecodeError("INVALID_VALUE", "frame must be a Uint8Array", -1);
  if (frame.length < 4)
    throw new KafkaDecodeError("BUFFER_UNDERFLOW", `a frame needs a 4-byte size prefix, got ${frame.length} bytes`, 0);
  const size = new DataView(frame.buffer, frame.byteOffset, frame.byteLength).getInt32(0);
  if (size !== frame.length - 4) {
    throw new KafkaDecodeError(
      "INVALID_LENGTH",
      `size prefix says ${size} bytes, the frame has ${frame.length - 4} after it`,
      0,
    );
  }
}

/**
 * Pairs requests and responses by api key and builds the frame functions: a {@link Protocol},
 * typed by the api map `A` when one is given (generated code passes its `Apis`; the types are
 * the caller's promise that `def.messages` holds those codecs).
 * @throws Error when two request (or response) codecs claim the same api key.
 */
export function defineProtocol<A extends ApiMap<A> = never>(
  def: ProtocolDefinition,
): [A] extends [never] ? Protocol : TypedProtocol<A> {
  return buildProtocol(def) as [A] extends [never] ? Protocol : TypedProtocol<A>;
}

function buildProtocol(def: ProtocolDefinition): Protocol & { readonly untyped: Protocol } {
  const requests = new Map<number, MessageCodec<unknown>>();
  const responses = new Map<number, MessageCodec<unknown>>();
  for (const codec of def.messages) {
    if (codec.apiKey === null || (codec.type !== "request" && codec.type !== "response")) continue;
    const table = codec.type === "request" ? requests : responses;
    const other = table.get(codec.apiKey);
    if (other !== undefined)
      throw new Error(`api key ${codec.apiKey} is claimed by both ${other.name} and ${codec.name}`);
    table.set(codec.apiKey, codec);
  }
  const apis = new Map<number, ApiCodecs>();
  for (const [apiKey, request] of [...requests].sort(([a], [b]) => a - b)) {
    const response = responses.get(apiKey);
    if (response === undefined) continue;
    apis.set(apiKey, { apiKey, name: request.name.replace(/Request$/, ""), request, response });
  }
  const requestHeader = def.requestHeader as MessageCodec<unknown>;
  // Kafka's RequestHeader (v0-2) has the four fields encodeRequest sets; a schema with more (the
  // client instance id of KIP-1313's v3) needs its defaults filled in for every header version.
  const headerHasMore = Object.keys(requestHeader.create({}) as object).length > 4;
  const responseHeader = def.responseHeader as MessageCodec<unknown>;

  function api(apiKey: number, decoding = false): ApiCodecs {
    const found = apis.get(apiKey);
    if (found === undefined) {
      const reason = `no API with api key ${apiKey} in this protocol`;
      throw decoding
        ? new KafkaDecodeError("UNSUPPORTED_VERSION", reason, -1)
        : new KafkaEncodeError("UNSUPPORTED_VERSION", reason, -1);
    }
    return found;
  }

  /** Refuses an unstable latest version unless the definition enables them. */
  function checkStable(found: ApiCodecs, apiVersion: number, decoding: boolean): void {
    const { request } = found;
    if (def.unstableVersions === true || request.latestVersionUnstable !== true) return;
    if (apiVersion !== request.validVersions.highest) return;
    const reason = `${found.name} v${apiVersion} is unstable (latestVersionUnstable); define the protocol with unstableVersions: true to use it`;
    throw decoding
      ? new KafkaDecodeError("UNSUPPORTED_VERSION", reason, -1)
      : new KafkaEncodeError("UNSUPPORTED_VERSION", reason, -1);
  }

  function decodeResponse(
    frame: Uint8Array,
    apiKey: number,
    apiVersion: number,
    options?: DecodeOptions,
  ): DecodedResponse {
    checkFrame(frame);
    const found = api(apiKey, true);
    checkStable(found, apiVersion, true);
    const { response } = found;
    const headerVersion = responseHeaderVersion(response, apiVersion);
    const header = responseHeader.decodeFrom(frame, 4, frame.length, headerVersion, options);
    const body = response.decodeFrom(frame, header.offset, frame.length, apiVersion, options);
    if (body.offset !== frame.length && options?.allowTrailingBytes !== true) {
      throw new KafkaDecodeError(
        "TRAILING_BYTES",
        `${frame.length - body.offset} bytes remain after the response body`,
        body.offset,
      );
    }
    return { header: header.message as ResponseHeaderFields, headerVersion, apiVersion, body: body.message };
  }

  function encodeRequest(init: RequestHeaderInit, body: unknown): Uint8Array {
    if (typeof init !== "object" || init === null) {
      throw new KafkaEncodeError(
        "INVALID_VALUE",
        "the request header must be an object { apiKey, apiVersion, correlationId, clientId? }",
        -1,
      );
    }
    const found = api(init.apiKey);
    checkStable(found, init.apiVersion, false);
    const { request } = found;
    const headerVersion = requestHeaderVersion(request, init.apiVersion);
    const header: RequestHeaderFields = {
      requestApiKey: init.apiKey,
      requestApiVersion: init.apiVersion,
      correlationId: init.correlationId,
      clientId: init.clientId ?? null,
    };
    // Measure the body first, so that its errors come before the header's.
    const bodyPlan = request.plan(withDefaults(request, body), init.apiVersion);
    if (!headerHasMore) return sizePrefixed(requestHeader.plan(header, headerVersion), bodyPlan);
    // The api version decides the header version: a version on a header older than v3 goes
    // without the client instance id (it cannot carry it).
    if (init.clientInstanceId !== undefined && headerVersion >= 3) header.clientInstanceId = init.clientInstanceId;
    return sizePrefixed(requestHeader.plan(withDefaults(requestHeader, header), headerVersion), bodyPlan);
  }

  function encodeResponse(init: Parameters<Protocol["encodeResponseFrame"]>[0], body: unknown): Uint8Array {
    if (typeof init !== "object" || init === null) {
      throw new KafkaEncodeError(
        "INVALID_VALUE",
        "the response header must be an object { apiKey, apiVersion, correlationId }",
        -1,
      );
    }
    const found = api(init.apiKey);
    checkStable(found, init.apiVersion, false);
    const { response } = found;
    const headerVersion = responseHeaderVersion(response, init.apiVersion);
    const bodyPlan = response.plan(withDefaults(response, body), init.apiVersion);
    return sizePrefixed(responseHeader.plan({ correlationId: init.correlationId }, headerVersion), bodyPlan);
  }

  const protocol: Protocol & { untyped: Protocol } = {
    get untyped() {
      return protocol;
    },
    apis,
    unstableVersions: def.unstableVersions === true,
    api: (apiKey) => api(apiKey),
    encodeRequestFrame(init, body) {
      try {
        return encodeRequest(init, body);
      } catch (e) {
        // A throwing getter of the caller's (in the header or the body) ends as a KafkaEncodeError too.
        throw withPath(e, "", -1, -1, false);
      }
    },
    decodeRequestFrame(frame, options) {
      checkFrame(frame);
      if (frame.length < 8)
        throw new KafkaDecodeError("BUFFER_UNDERFLOW", "a request frame needs at least an api key and version", 4);
      const view = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
      const apiKey = view.getInt16(4);
      const apiVersion = view.getInt16(6);
      const found = api(apiKey, true);
      checkStable(found, apiVersion, true);
      const headerVersion = requestHeaderVersion(found.request, apiVersion);
      const header = requestHeader.decodeFrom(frame, 4, frame.length, headerVersion, options);
      const body = found.request.decodeFrom(frame, header.offset, frame.length, apiVersion, options);
      if (body.offset !== frame.length && options?.allowTrailingBytes !== true) {
        throw new KafkaDecodeError(
          "TRAILING_BYTES",
          `${frame.length - body.offset} bytes remain after the request body`,
          body.offset,
        );
      }
      return {
        apiKey,
        apiVersion,
        header: header.message as RequestHeaderFields,
        headerVersion,
        api: found,
        body: body.message,
      };
    },
    encodeResponseFrame(init, body) {
      try {
        return encodeResponse(init, body);
      } catch (e) {
        throw withPath(e, "", -1, -1, false);
      }
    },
    decodeResponseFrame: decodeResponse,
    decodeApiVersionsResponseFrame(frame, requestedVersion, options) {
      const apiKey = HEADER_VERSION_EXCEPTIONS.apiVersionsApiKey;
      try {
        return decodeResponse(frame, apiKey, requestedVersion, options);
      } catch (first) {
        if (!(first instanceof KafkaDecodeError) || requestedVersion === 0) throw first;
        let fallback: DecodedResponse;
        try {
          fallback = decodeResponse(frame, apiKey, 0, options);
        } catch {
          throw first;
        }
        const errorCode = (fallback.body as { errorCode?: unknown }).errorCode;
        if (errorCode !== UNSUPPORTED_VERSION_ERROR) throw first;
        return fallback;
      }
    },
  };
  return protocol;
}

/** Options of {@link FrameSplitter}. */
export interface FrameSplitterOptions {
  /**
   * The largest frame accepted, size prefix excluded, in bytes. A larger size prefix fails before
   * anything is buffered. Default 104857600 (100 MiB, Kafka's `socket.request.max.bytes`).
   */
  readonly maxFrameSize?: number;
}

/**
 * Splits a byte stream (TCP chunks) into size-prefixed frames: partial chunks are kept until a
 * frame is complete, several frames in one chunk come out together. A frame inside one chunk is a
 * view of it (zero-copy); one spread over chunks is copied once, into a buffer of exactly its size
 * allocated when its size prefix is read (so memory held is that frame, never a doubled buffer:
 * see {@link FrameSplitter.held}).
 */
export class FrameSplitter {
  private readonly maxFrameSize: number;
  /** The first bytes of a size prefix split over chunks (0..3 of them are in use). */
  private readonly prefix = new Uint8Array(4);
  private prefixBytes = 0;
  /** The frame being assembled, allocated at its full size (4 + size) once its prefix is known. */
  private frame: Uint8Array | null = null;
  /** Bytes of {@link frame} received so far. */
  private filled = 0;
  private failure: KafkaDecodeError | null = null;
  /** Bytes pushed before the current chunk (errors give stream offsets). */
  private streamPos = 0;

  constructor(options: FrameSplitterOptions = {}) {
    this.maxFrameSize = options.maxFrameSize ?? 104857600;
    if (!Number.isInteger(this.maxFrameSize) || this.maxFrameSize < 0 || this.maxFrameSize > 0x7fffffff) {
      throw new RangeError(`maxFrameSize must be an integer 0..2^31-1, got ${String(options.maxFrameSize)}`);
    }
  }

  /** Bytes received of the frame not complete yet (its size prefix included). */
  get buffered(): number {
    return this.frame === null ? this.prefixBytes : this.filled;
  }

  /**
   * Bytes this splitter holds for the frame not complete yet: its whole size (4 + size, at most
   * 4 + `maxFrameSize`) from the moment its size prefix is read, else the prefix bytes so far.
   * What a server bounding its memory should count.
   */
  get held(): number {
    return this.frame === null ? this.prefixBytes : this.frame.length;
  }

  /**
   * Adds a chunk; returns every frame completed by it (each with its 4-byte size prefix). A frame
   * that lies inside `chunk` is a view of it; one assembled from several chunks is a buffer of
   * its own (exactly the frame: `byteOffset` 0, no spare room).
   * @throws KafkaDecodeError `INVALID_LENGTH` for a negative size or one above `maxFrameSize`
   *   (checked as soon as the 4 size bytes are there, before allocating for the frame; its
   *   offset is the size prefix's position in the stream, counting every byte pushed), or
   *   `INVALID_VALUE` for a chunk that is not a Uint8Array. After an error the stream has lost
   *   its framing: every later `push` throws the same error.
   */
  push(chunk: Uint8Array): Uint8Array[] {
    if (this.failure !== null) throw this.failure;
    try {
      if (!(chunk instanceof Uint8Array)) {
        throw new KafkaDecodeError("INVALID_VALUE", "a chunk must be a Uint8Array", -1);
      }
      return this.split(chunk);
    } catch (error) {
      if (error instanceof KafkaDecodeError) this.failure = error;
      throw error;
    }
  }

  private split(data: Uint8Array): Uint8Array[] {
    const frames: Uint8Array[] = [];
    let offset = 0;
    // Error offsets are positions in the stream (every byte pushed so far), not in this chunk.
    const base = this.streamPos;
    this.streamPos += data.length;
    if (this.prefixBytes > 0) {
      // A size prefix split over chunks: complete it, then start its frame.
      const prefixAt = base - this.prefixBytes;
      const n = Math.min(4 - this.prefixBytes, data.length);
      this.prefix.set(data.subarray(0, n), this.prefixBytes);
      this.prefixBytes += n;
      offset = n;
      if (this.prefixBytes < 4) return frames;
      this.prefixBytes = 0;
      this.start(this.prefix, 0, prefixAt);
    }
    if (this.frame !== null) {
      const frame = this.frame;
      const n = Math.min(frame.length - this.filled, data.length - offset);
      frame.set(data.subarray(offset, offset + n), this.filled);
      this.filled += n;
      offset += n;
      if (this.filled < frame.length) return frames;
      frames.push(frame);
      this.frame = null;
      this.filled = 0;
    }
    while (data.length - offset >= 4) {
      const size = this.sizeAt(data, offset, base + offset);
      if (data.length - offset - 4 < size) {
        // Keep a copy of the rest: the caller may reuse its chunk buffer.
        this.start(data, offset, base + offset);
        this.frame!.set(data.subarray(offset + 4), 4);
        this.filled = data.length - offset;
        return frames;
      }
      frames.push(data.subarray(offset, offset + 4 + size));
      offset += 4 + size;
    }
    this.prefix.set(data.subarray(offset), 0);
    this.prefixBytes = data.length - offset;
    return frames;
  }

  /** Allocates the frame whose size prefix is at `bytes[at..at+4)`, with the prefix copied in. */
  private start(bytes: Uint8Array, at: number, streamOffset: number): void {
    const size = this.sizeAt(bytes, at, streamOffset);
    const frame = new Uint8Array(4 + size);
    frame.set(bytes.subarray(at, at + 4), 0);
    this.frame = frame;
    this.filled = 4;
  }

  private sizeAt(bytes: Uint8Array, at: number, streamOffset: number): number {
    const size = (bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!;
    if (size < 0 || size > this.maxFrameSize) {
      throw new KafkaDecodeError(
        "INVALID_LENGTH",
        `frame size ${size} is outside 0..${this.maxFrameSize}`,
        streamOffset,
      );
    }
    return size;
  }
}
