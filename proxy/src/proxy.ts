/**
 * The proxy: one listener per upstream broker, one upstream connection per client connection,
 * frames split with the runtime's {@link FrameSplitter} and paired by correlation id.
 *
 * What goes out is the bytes that came in, unless the proxy or a filter changed the message:
 * - responses that name brokers (see addresses.ts) are decoded, and re-encoded only when an
 *   address in them was replaced by a proxy listener's;
 * - ApiVersions responses are re-encoded only to lower a version the codecs cannot decode for
 *   an API the proxy must read (the address-naming APIs and those with filters), so clients never
 *   pick a version the proxy would have to pass through unread;
 * - a frame whose api key or version the codecs do not know, or that does not decode, passes
 *   through as it is (logged as opaque);
 * - filters may change, answer or close (filters.ts).
 *
 * Requests are pipelined: each is forwarded as soon as it is handled, and responses go back in
 * request order (Kafka's order on a connection), also when a filter answered one itself.
 * Memory per connection is bounded: a frame is at most `maxFrameSize`, and reading stops on a
 * side while the other side's socket needs to drain, while more than `maxQueuedBytes` wait to be
 * handled, or while `maxInFlight` requests wait for their responses. A connection that breaks
 * the protocol (a frame too large or too short, a response to no request), whose filter throws,
 * or whose broker cannot be reached is closed alone; the proxy serves its other clients.
 */

import net from "node:net";
import {
  FrameSplitter,
  type ApiCodecs,
  type ApiMap,
  type Protocol,
  type RequestHeaderFields,
  type TypedProtocol,
} from "../../src/runtime/index.js";
import type { Codecs } from "../../src/records/index.js";
import { ADDRESS_APIS, rewriteAddresses } from "./addresses.js";
import {
  actions,
  Filters,
  type ConnectionInfo,
  type FilterAction,
  type ProxyRequest,
  type ProxyResponse,
  type UntypedApis,
} from "./filters.js";
import { bodyJson, type LogEntry } from "./log.js";

/** A host and port. */
export interface Address {
  readonly host: string;
  readonly port: number;
}

/** One frame as the proxy received it (before any change), for taps. */
export interface TappedFrame {
  readonly direction: "request" | "response";
  readonly connection: number;
  /** From the request header (for a response: of the request with its correlation id). */
  readonly apiKey: number;
  readonly apiVersion: number;
  readonly correlationId: number;
  /** The whole frame, size prefix included: a view of the received bytes (copy it to keep it). */
  readonly frame: Uint8Array;
}

export interface ProxyOptions<A extends ApiMap<A> = UntypedApis> {
  /** The bootstrap broker, `host:port`. */
  readonly upstream: string | Address;
  /** The first listener (for the bootstrap broker), `host:port`; default `127.0.0.1:0` (ephemeral). */
  readonly listen?: string | Address;
  /** The host the proxy names in rewritten addresses; default the listen host (`127.0.0.1` for `0.0.0.0`/`::`). */
  readonly advertisedHost?: string;
  /**
   * The codecs (a generated index's `protocol`). Without them every frame passes through opaque
   * and no address is rewritten (clients then leave the proxy for the brokers' own addresses).
   */
  readonly protocol?: Protocol | TypedProtocol<A>;
  /** Filters by api key (applied in order; several sets are concatenated). */
  readonly filters?: Filters<A> | readonly Filters<A>[];
  /** Told about every request, response and connection event (see log.ts; `formatLogLine` gives JSON lines). */
  readonly log?: (entry: LogEntry) => void;
  /** Log the records inside Produce and Fetch (else a summary per batch); `codecs` decompress them. */
  readonly records?: boolean | { readonly codecs?: Codecs };
  /** Replace broker addresses in responses by the proxy's listeners. Default true. */
  readonly rewriteAddresses?: boolean;
  /** Every frame as received, before any change (for tests and capture tools). */
  readonly tap?: (frame: TappedFrame) => void;
  /** The largest frame accepted from either side, size prefix excluded. Default 104857600 (100 MiB, Kafka's `socket.request.max.bytes`). */
  readonly maxFrameSize?: number;
  /** Requests per connection awaiting a response before the proxy stops reading the client. Default 1000. */
  readonly maxInFlight?: number;
  /** Bytes of complete frames per direction waiting to be handled before the proxy stops reading that side. Default 16 MiB. */
  readonly maxQueuedBytes?: number;
  /** How long to wait for a broker to accept a connection. Default 10000 ms. */
  readonly connectTimeoutMs?: number;
}

/** A running proxy. */
export interface Proxy {
  /** The first listener (the bootstrap broker's). */
  readonly host: string;
  readonly port: number;
  /** `host:port` of the first listener, for a client's bootstrap servers. */
  readonly bootstrap: string;
  /** Every listener and the broker it forwards to, in the order they were opened. */
  listeners(): { readonly host: string; readonly port: number; readonly upstream: Address }[];
  /** The local address of every upstream connection the proxy has opened (for tests: who the brokers see). */
  upstreamSockets(): Address[];
  /** Stops listening and closes every connection. */
  close(): Promise<void>;
}

/** `host:port` (IPv6 in brackets) to an address. @throws Error naming the option for a bad one. */
export function parseAddress(text: string | Address, what: string): Address {
  if (typeof text !== "string") {
    checkPort(text.port, what);
    return { host: text.host, port: text.port };
  }
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(text.trim());
  if (m === null) throw new Error(`${what} must be host:port, got ${JSON.stringify(text)}`);
  const host = m[1] ?? m[2] ?? "";
  const port = Number(m[3]);
  checkPort(port, what);
  return { host: host === "" ? "127.0.0.1" : host, port };
}

function checkPort(port: number, what: string): void {
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`${what}: port ${port} is outside 0..65535`);
}

const key = (a: Address): string => `${a.host}:${a.port}`;

/** KIP-951: Produce v10+ and Fetch v16+ carry `nodeEndpoints`; below, their responses name no broker. */
const NODE_ENDPOINTS_FROM: ReadonlyMap<number, number> = new Map([
  [0, 10],
  [1, 16],
]);

const API_VERSIONS = 18;
const PRODUCE = 0;
/**
 * Bytes waiting in a socket's write buffer before the proxy stops reading the other side. Not the
 * stream's 16 KiB high-water mark: a single 64 KiB produce would then pause the client after every
 * frame (measured: half the throughput of a re-encoding filter's path, which wrote later).
 */
const MAX_WRITE_BACKLOG = 1024 * 1024;
/** Messages per connection waiting to be formatted for the log before new ones are dropped (memory stays bounded). */
const MAX_PENDING_LOGS = 10000;

/**
 * Starts a proxy for the cluster behind `upstream`; resolves once its first listener listens.
 * @throws Error for bad options, or when the listen address cannot be bound.
 */
export async function startProxy<A extends ApiMap<A> = UntypedApis>(options: ProxyOptions<A>): Promise<Proxy> {
  const state = new ProxyState(options as ProxyOptions<UntypedApis>);
  await state.start();
  return {
    host: state.first!.host,
    port: state.first!.port,
    bootstrap: key(state.first!),
    listeners: () => [...state.opened].map((l) => ({ host: l.host, port: l.port, upstream: l.upstream })),
    upstreamSockets: () => [...state.upstreamAddresses],
    close: () => state.close(),
  };
}

interface Listener {
  readonly server: net.Server;
  readonly host: string;
  readonly port: number;
  readonly upstream: Address;
}

class ProxyState {
  readonly protocol: Protocol | null;
  readonly filters: Filters<UntypedApis>;
  readonly listenAddress: Address;
  readonly upstream: Address;
  readonly advertisedHost: string;
  readonly rewrite: boolean;
  readonly maxFrameSize: number;
  readonly maxInFlight: number;
  readonly maxQueuedBytes: number;
  readonly connectTimeoutMs: number;
  readonly log: ((entry: LogEntry) => void) | null;
  readonly records: { readonly codecs?: Codecs } | null;
  readonly tap: ((frame: TappedFrame) => void) | null;
  /** Listeners by the upstream address they forward to (a promise while one is being opened). */
  private readonly byUpstream = new Map<string, Promise<Listener>>();
  /** The proxy's own listening addresses: never proxied again (a broker advertising the proxy). */
  private readonly own = new Set<string>();
  readonly opened: Listener[] = [];
  readonly connections = new Set<Connection>();
  /** Local addresses of open upstream sockets, and of closed ones (for tests), capped. */
  readonly upstreamAddresses: Address[] = [];
  first: Listener | null = null;
  private nextConnection = 0;
  private closing = false;

  constructor(options: ProxyOptions<UntypedApis>) {
    this.upstream = parseAddress(options.upstream, "upstream");
    if (this.upstream.port === 0) throw new Error("upstream: port 0 is not a broker's port");
    this.listenAddress = parseAddress(options.listen ?? "127.0.0.1:0", "listen");
    const anyHost = this.listenAddress.host === "0.0.0.0" || this.listenAddress.host === "::";
    this.advertisedHost = options.advertisedHost ?? (anyHost ? "127.0.0.1" : this.listenAddress.host);
    const p = options.protocol;
    this.protocol = p === undefined ? null : "untyped" in p ? p.untyped : (p as Protocol);
    const sets =
      options.filters === undefined ? [] : Array.isArray(options.filters) ? options.filters : [options.filters];
    this.filters = (sets as Filters<UntypedApis>[]).reduce((all, f) => all.concat(f), new Filters<UntypedApis>());
    if (this.protocol === null && (this.filters.requests.size > 0 || this.filters.responses.size > 0)) {
      throw new Error("filters need the codecs: pass `protocol`");
    }
    this.rewrite = options.rewriteAddresses !== false && this.protocol !== null;
    this.maxFrameSize = positive(options.maxFrameSize, 104857600, "maxFrameSize");
    this.maxInFlight = positive(options.maxInFlight, 1000, "maxInFlight");
    this.maxQueuedBytes = positive(options.maxQueuedBytes, 16 * 1024 * 1024, "maxQueuedBytes");
    this.connectTimeoutMs = positive(options.connectTimeoutMs, 10000, "connectTimeoutMs");
    this.log = options.log ?? null;
    this.records =
      options.records === undefined || options.records === false
        ? null
        : options.records === true
          ? {}
          : options.records;
    this.tap = options.tap ?? null;
  }

  async start(): Promise<void> {
    this.first = await this.open(this.upstream, this.listenAddress.port);
    this.byUpstream.set(key(this.upstream), Promise.resolve(this.first));
  }

  /** The listener address clients should use for a broker (opening a listener for a new one), or null to leave it. */
  async addressFor(host: string, port: number): Promise<Address | null> {
    const k = `${host}:${port}`;
    if (this.own.has(k) || this.closing) return null;
    let listener = this.byUpstream.get(k);
    if (listener === undefined) {
      listener = this.open({ host, port }, 0);
      this.byUpstream.set(k, listener);
      // A listener that failed to open is retried next time.
      listener.catch(() => this.byUpstream.delete(k));
    }
    const l = await listener;
    return { host: this.advertisedHost, port: l.port };
  }

  private open(upstream: Address, port: number): Promise<Listener> {
    return new Promise((resolve, reject) => {
      const server = net.createServer({ noDelay: true });
      server.once("error", reject);
      server.listen(port, this.listenAddress.host, () => {
        server.off("error", reject);
        // After listening, an error (EMFILE on accept) must not crash the process.
        server.on("error", () => {});
        const addr = server.address() as net.AddressInfo;
        const listener: Listener = { server, host: this.listenAddress.host, port: addr.port, upstream };
        this.own.add(`${this.advertisedHost}:${addr.port}`);
        this.own.add(`${addr.address}:${addr.port}`);
        this.opened.push(listener);
        server.on("connection", (socket) => this.accept(socket, listener));
        if (this.closing) server.close();
        resolve(listener);
      });
    });
  }

  private accept(client: net.Socket, listener: Listener): void {
    if (this.closing) {
      client.destroy();
      return;
    }
    const connection = new Connection(this, client, listener.upstream, this.nextConnection++);
    this.connections.add(connection);
  }

  async close(): Promise<void> {
    this.closing = true;
    for (const c of this.connections) c.close("the proxy is closing");
    await Promise.all(
      this.opened.map(
        (l) => new Promise<void>((resolve) => (l.server.listening ? l.server.close(() => resolve()) : resolve())),
      ),
    );
  }
}

function positive(value: number | undefined, dflt: number, name: string): number {
  if (value === undefined) return dflt;
  if (!Number.isInteger(value) || value <= 0) throw new RangeError(`${name} must be a positive integer, got ${value}`);
  return value;
}

/** A request waiting for its response, in request order. */
interface Slot {
  readonly correlationId: number;
  readonly apiKey: number;
  readonly apiVersion: number;
  readonly api: ApiCodecs | null;
  readonly receivedAt: number;
  /** The request as forwarded (null when opaque). */
  readonly request: ProxyRequest<unknown> | null;
  /** The response bytes to send once every earlier slot is sent (undefined: not yet there; null: nothing to send). */
  out: Uint8Array | null | undefined;
  /** Whether the broker was asked and has answered (false until then; true for answers of the proxy's own). */
  answered: boolean;
}

class Connection {
  readonly info: ConnectionInfo;
  private readonly upstream: net.Socket;
  private readonly requestFrames: FrameSplitter;
  private readonly responseFrames: FrameSplitter;
  private readonly awaiting = new Map<number, Slot>();
  private readonly order: Slot[] = [];
  private readonly requestQueue: Uint8Array[] = [];
  private readonly responseQueue: Uint8Array[] = [];
  private requestBytes = 0;
  private responseBytes = 0;
  private requestBusy = false;
  private responseBusy = false;
  private closed = false;
  private logChain: Promise<void> = Promise.resolve();
  /** Log entries still being formatted; past {@link MAX_PENDING_LOGS} new ones are dropped (and counted). */
  private pendingLogs = 0;
  private droppedLogs = 0;

  constructor(
    private readonly proxy: ProxyState,
    private readonly client: net.Socket,
    upstreamAddress: Address,
    readonly id: number,
  ) {
    this.requestFrames = new FrameSplitter({ maxFrameSize: proxy.maxFrameSize });
    this.responseFrames = new FrameSplitter({ maxFrameSize: proxy.maxFrameSize });
    this.info = {
      id,
      client: { address: client.remoteAddress ?? "", port: client.remotePort ?? 0 },
      upstream: upstreamAddress,
      state: new Map(),
    };
    client.setNoDelay(true);
    const upstream = net.connect({ host: upstreamAddress.host, port: upstreamAddress.port, noDelay: true });
    this.upstream = upstream;
    const timer = setTimeout(
      () => this.close(`${key(upstreamAddress)} did not accept within ${proxy.connectTimeoutMs} ms`),
      proxy.connectTimeoutMs,
    );
    upstream.once("connect", () => {
      clearTimeout(timer);
      if (proxy.upstreamAddresses.length < 100000) {
        proxy.upstreamAddresses.push({ host: upstream.localAddress ?? "", port: upstream.localPort ?? 0 });
      }
    });
    client.on("error", (e) => this.close(`client: ${e.message}`));
    upstream.on("error", (e) => this.close(`upstream ${key(upstreamAddress)}: ${e.message}`));
    client.on("close", () => this.close("the client closed the connection"));
    upstream.on("close", () => {
      clearTimeout(timer);
      this.close("the broker closed the connection");
    });
    client.on("data", (chunk: Buffer) => this.received(chunk, "request"));
    upstream.on("data", (chunk: Buffer) => this.received(chunk, "response"));
    client.on("drain", () => this.flow());
    upstream.on("drain", () => this.flow());
    this.logEvent("open", `${this.info.client.address}:${this.info.client.port} -> ${key(upstreamAddress)}`);
  }

  close(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.client.destroy();
    this.upstream.destroy();
    this.proxy.connections.delete(this);
    this.logEvent("close", reason);
  }

  /** Pauses a side while the other's write buffer is full or too much waits; resumes otherwise (on 'drain', a response, a handled frame). */
  private flow(): void {
    if (this.closed) return;
    const holdClient =
      this.upstream.writableLength > MAX_WRITE_BACKLOG ||
      this.requestBytes > this.proxy.maxQueuedBytes ||
      this.awaiting.size >= this.proxy.maxInFlight;
    const holdUpstream =
      this.client.writableLength > MAX_WRITE_BACKLOG || this.responseBytes > this.proxy.maxQueuedBytes;
    if (holdClient !== this.client.isPaused()) holdClient ? this.client.pause() : this.client.resume();
    if (holdUpstream !== this.upstream.isPaused()) holdUpstream ? this.upstream.pause() : this.upstream.resume();
  }

  private received(chunk: Buffer, direction: "request" | "response"): void {
    if (this.closed) return;
    let frames: Uint8Array[];
    try {
      frames = (direction === "request" ? this.requestFrames : this.responseFrames).push(chunk);
    } catch (e) {
      this.close(`the ${direction}s do not frame: ${(e as Error).message}`);
      return;
    }
    const queue = direction === "request" ? this.requestQueue : this.responseQueue;
    for (const f of frames) {
      queue.push(f);
      if (direction === "request") this.requestBytes += f.length;
      else this.responseBytes += f.length;
    }
    this.pump(direction);
  }

  /** Handles queued frames one at a time, in order; a handler may take a while (filters, a new listener). */
  private pump(direction: "request" | "response"): void {
    const request = direction === "request";
    if (request ? this.requestBusy : this.responseBusy) return;
    const queue = request ? this.requestQueue : this.responseQueue;
    this.drain(queue, request, direction);
    this.flow();
  }

  private drain(queue: Uint8Array[], request: boolean, direction: "request" | "response"): void {
    while (queue.length > 0 && !this.closed) {
      // A chunk may hold many requests: past maxInFlight they wait here until responses come back.
      if (request && this.awaiting.size >= this.proxy.maxInFlight) return;
      const frame = queue.shift()!;
      let pending: Promise<void> | void;
      try {
        pending = request ? this.handleRequest(frame) : this.handleResponse(frame);
      } catch (e) {
        this.close(`${direction} handling failed: ${(e as Error).message}`);
        return;
      }
      const done = (): void => {
        if (request) this.requestBytes -= frame.length;
        else this.responseBytes -= frame.length;
      };
      if (pending !== undefined) {
        if (request) this.requestBusy = true;
        else this.responseBusy = true;
        pending.then(
          () => {
            done();
            if (request) this.requestBusy = false;
            else this.responseBusy = false;
            this.pump(direction);
          },
          (e: unknown) => this.close(`${direction} handling failed: ${(e as Error)?.message ?? String(e)}`),
        );
        return;
      }
      done();
    }
  }

  private handleRequest(frame: Uint8Array): Promise<void> | void {
    if (frame.length < 12) {
      this.close(`a request frame of ${frame.length} bytes has no header`);
      return;
    }
    const view = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
    const apiKey = view.getInt16(4);
    const apiVersion = view.getInt16(6);
    const correlationId = view.getInt32(8);
    this.proxy.tap?.({ direction: "request", connection: this.id, apiKey, apiVersion, correlationId, frame });
    const receivedAt = performance.now();
    const protocol = this.proxy.protocol;
    const api = protocol === null ? null : knownApi(protocol, apiKey, apiVersion);
    // Unknown to the codecs, or not decodable: byte for byte, and its response too.
    const opaque = (error?: unknown): void => {
      this.expect({
        correlationId,
        apiKey,
        apiVersion,
        api: null,
        receivedAt,
        request: null,
        out: undefined,
        answered: false,
      });
      this.forwardRequest(frame);
      this.logMessage("request", { apiKey, apiVersion, correlationId, api, frame, opaque: true, error });
    };
    if (api === null) return opaque();
    let decoded: ReturnType<Protocol["decodeRequestFrame"]>;
    try {
      decoded = protocol!.decodeRequestFrame(frame);
    } catch (e) {
      return opaque(e);
    }
    const request: ProxyRequest<unknown> = {
      apiKey,
      apiVersion,
      correlationId,
      header: decoded.header as RequestHeaderFields,
      headerVersion: decoded.headerVersion,
      body: decoded.body,
      frame,
    };
    const filters = this.proxy.filters.requests.get(apiKey);
    if (filters === undefined) {
      this.sendRequest(request, api, frame, receivedAt, false);
      return;
    }
    return this.runRequestFilters(filters, request, api, receivedAt);
  }

  private async runRequestFilters(
    filters: readonly ((r: ProxyRequest<unknown>, ctx: never) => unknown)[],
    original: ProxyRequest<unknown>,
    api: ApiCodecs,
    receivedAt: number,
  ): Promise<void> {
    let request = original;
    let changed = false;
    const ctx = { connection: this.info, ...actions };
    for (const filter of filters) {
      const action = ((await filter(request, ctx as never)) ?? actions.forward()) as FilterAction;
      if (action.kind === "close") {
        this.logMessage("request", {
          ...request,
          api,
          frame: request.frame,
          action: `closed by a filter: ${action.reason}`,
        });
        this.close(`a filter closed the connection: ${action.reason}`);
        return;
      }
      if (action.kind === "respond") {
        const bytes = this.proxy.protocol!.encodeResponseFrame(
          { apiKey: request.apiKey, apiVersion: request.apiVersion, correlationId: request.correlationId },
          action.body,
        );
        this.logMessage("request", { ...request, api, frame: request.frame, changed, action: "answered by a filter" });
        if (!expectsResponse(request)) return;
        const slot: Slot = { ...request, api, receivedAt, request, out: undefined, answered: true };
        this.order.push(slot);
        this.answer(slot, bytes, { api, request, changed: true, action: "answered by a filter" });
        return;
      }
      if (action.body !== undefined) {
        changed = true;
        // Re-decoded from the encoded frame, so later filters and the log see what goes out.
        const frame = this.proxy.protocol!.encodeRequestFrame(
          {
            apiKey: request.apiKey,
            apiVersion: request.apiVersion,
            correlationId: request.correlationId,
            clientId: request.header.clientId,
          },
          action.body,
        );
        const again = this.proxy.protocol!.decodeRequestFrame(frame);
        request = { ...request, header: again.header as RequestHeaderFields, body: again.body, frame };
      }
    }
    this.sendRequest(request, api, request.frame, receivedAt, changed);
  }

  private sendRequest(
    request: ProxyRequest<unknown>,
    api: ApiCodecs,
    frame: Uint8Array,
    receivedAt: number,
    changed: boolean,
  ): void {
    if (expectsResponse(request)) {
      this.expect({ ...request, api, receivedAt, request, out: undefined, answered: false });
    }
    this.forwardRequest(frame);
    this.logMessage("request", { ...request, api, frame, changed });
  }

  private expect(slot: Slot): void {
    this.awaiting.set(slot.correlationId, slot);
    this.order.push(slot);
  }

  private forwardRequest(frame: Uint8Array): void {
    this.upstream.write(frame);
  }

  private handleResponse(frame: Uint8Array): Promise<void> | void {
    if (frame.length < 8) {
      this.close(`a response frame of ${frame.length} bytes has no header`);
      return;
    }
    const correlationId = new DataView(frame.buffer, frame.byteOffset, frame.byteLength).getInt32(4);
    const slot = this.awaiting.get(correlationId);
    if (slot === undefined) {
      this.close(`a response with correlation id ${correlationId} answers no request`);
      return;
    }
    this.awaiting.delete(correlationId);
    slot.answered = true;
    // A broker answers in request order: a request before this one still unanswered gets no
    // response (Produce with acks=0 the codecs could not read), so stop waiting for it.
    for (const earlier of this.order) {
      if (earlier === slot) break;
      if (!earlier.answered) {
        earlier.answered = true;
        earlier.out = null;
        this.awaiting.delete(earlier.correlationId);
      }
    }
    const { apiKey, apiVersion } = slot;
    this.proxy.tap?.({ direction: "response", connection: this.id, apiKey, apiVersion, correlationId, frame });
    if (slot.api === null || slot.request === null) {
      if (this.proxy.rewrite && ADDRESS_APIS.has(apiKey) && apiVersion >= (NODE_ENDPOINTS_FROM.get(apiKey) ?? 0)) {
        this.logEvent(
          "warning",
          `api key ${apiKey} v${apiVersion} is not readable with these codecs: broker addresses in its response pass unchanged, and clients may leave the proxy`,
        );
      }
      this.answer(slot, frame, { api: slot.api, request: null, opaque: true });
      return;
    }
    const filters = this.proxy.filters.responses.get(apiKey);
    const mustRead =
      filters !== undefined ||
      apiKey === API_VERSIONS ||
      (this.proxy.rewrite && ADDRESS_APIS.has(apiKey) && apiVersion >= (NODE_ENDPOINTS_FROM.get(apiKey) ?? 0));
    if (!mustRead) {
      this.answer(slot, frame, { api: slot.api, request: slot.request });
      return;
    }
    let decoded: ReturnType<Protocol["decodeResponseFrame"]>;
    try {
      decoded =
        apiKey === API_VERSIONS
          ? this.proxy.protocol!.decodeApiVersionsResponseFrame(frame, apiVersion)
          : // Lenient about bytes after the body (librdkafka 2.15's mock ends Metadata with one):
            // a rewritten reply is re-encoded without them.
            this.proxy.protocol!.decodeResponseFrame(frame, apiKey, apiVersion, { allowTrailingBytes: true });
    } catch (e) {
      if (ADDRESS_APIS.has(apiKey)) {
        this.logEvent(
          "warning",
          `${slot.api.name} v${apiVersion} response does not decode: broker addresses in it pass unchanged`,
        );
      }
      this.answer(slot, frame, { api: slot.api, request: slot.request, opaque: true, error: e });
      return;
    }
    return this.reworkResponse(slot, frame, decoded, filters ?? []);
  }

  private async reworkResponse(
    slot: Slot,
    frame: Uint8Array,
    decoded: ReturnType<Protocol["decodeResponseFrame"]>,
    filters: readonly ((r: ProxyResponse<unknown>, ctx: never) => unknown)[],
  ): Promise<void> {
    const protocol = this.proxy.protocol!;
    const { apiKey, correlationId } = slot;
    const apiVersion = decoded.apiVersion;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    let body = decoded.body as Record<string, any>;
    let changed: string | undefined;
    if (apiKey === API_VERSIONS) {
      const clamped = clampVersions(body, protocol, this.proxy);
      if (clamped !== null) {
        body = clamped;
        changed = "api versions";
      }
    } else if (this.proxy.rewrite) {
      const rewritten = await rewriteAddresses(apiKey, body, (h, p) => this.proxy.addressFor(h, p));
      if (rewritten !== null) {
        body = rewritten;
        changed = "addresses";
      }
    }
    let response: ProxyResponse<unknown> = {
      apiKey,
      apiVersion,
      correlationId,
      headerVersion: decoded.headerVersion,
      body,
      frame,
      request: slot.request!,
    };
    const ctx = { connection: this.info, ...actions, respond: undefined };
    for (const filter of filters) {
      const action = ((await filter(response, ctx as never)) ?? actions.forward()) as FilterAction;
      if (action.kind === "close") {
        this.answer(slot, null, {
          api: slot.api,
          request: slot.request,
          response,
          action: `closed by a filter: ${action.reason}`,
        });
        this.close(`a filter closed the connection: ${action.reason}`);
        return;
      }
      const next = action.kind === "forward" ? action.body : undefined;
      if (next !== undefined) {
        changed = changed === undefined ? "filter" : `${changed}, filter`;
        const bytes = protocol.encodeResponseFrame({ apiKey, apiVersion, correlationId }, next);
        response = { ...response, body: protocol.decodeResponseFrame(bytes, apiKey, apiVersion).body, frame: bytes };
      }
    }
    if (changed !== undefined && response.frame === frame) {
      response = {
        ...response,
        frame: protocol.encodeResponseFrame({ apiKey, apiVersion, correlationId }, response.body),
      };
    }
    this.answer(slot, response.frame, {
      api: slot.api,
      request: slot.request,
      response,
      changed: changed !== undefined,
      why: changed,
    });
  }

  /** Sets a slot's bytes and sends every slot, in order, whose bytes are there. */
  private answer(
    slot: Slot,
    bytes: Uint8Array | null,
    log: Omit<MessageLog, "apiKey" | "apiVersion" | "correlationId" | "frame">,
  ): void {
    slot.out = bytes;
    const latencyMs = performance.now() - slot.receivedAt;
    if (bytes !== null) {
      this.logMessage("response", {
        ...log,
        apiKey: slot.apiKey,
        apiVersion: log.response?.apiVersion ?? slot.apiVersion,
        correlationId: slot.correlationId,
        frame: bytes,
        latencyMs,
      });
    }
    while (this.order.length > 0 && this.order[0]!.out !== undefined) {
      const next = this.order.shift()!;
      if (next.out != null && !this.closed) this.client.write(next.out);
    }
    // A slot came free: requests held back by maxInFlight may go on.
    if (this.requestQueue.length > 0 && !this.requestBusy && !this.closed) this.pump("request");
  }

  private logEvent(event: "open" | "close" | "warning", detail: string): void {
    const log = this.proxy.log;
    if (log === null) return;
    const entry: LogEntry = {
      time: new Date().toISOString(),
      connection: this.id,
      direction: "connection",
      event,
      detail,
    };
    this.logChain = this.logChain.then(() => log(entry)).catch(() => {});
  }

  private logMessage(direction: "request" | "response", m: MessageLog): void {
    const log = this.proxy.log;
    if (log === null) return;
    const time = new Date().toISOString();
    const records = this.proxy.records;
    const task = async (): Promise<void> => {
      const entry: LogEntry = {
        time,
        connection: this.id,
        direction,
        apiKey: m.apiKey,
        api: m.api?.name ?? null,
        apiVersion: m.apiVersion,
        correlationId: m.correlationId,
        ...(m.latencyMs === undefined ? {} : { latencyMs: Math.round(m.latencyMs * 1000) / 1000 }),
        size: m.frame.length,
        ...(m.opaque === true ? { opaque: true } : {}),
        ...(m.error === undefined ? {} : { error: (m.error as Error)?.message ?? String(m.error) }),
        ...(m.changed === true ? { changed: m.why ?? "filter" } : {}),
        ...(m.action === undefined ? {} : { action: m.action }),
      };
      if (m.opaque !== true && m.api !== null) {
        const codec = direction === "request" ? m.api.request : m.api.response;
        const body = direction === "request" ? m.body : m.response?.body;
        if (body !== undefined) {
          entry.body = await bodyJson(codec, body, m.apiVersion, records);
        } else if (direction === "response" && m.request !== null && m.request !== undefined) {
          // Not read on the way (nothing to change in it): decoded now, for the log only.
          try {
            const d =
              m.apiKey === API_VERSIONS
                ? this.proxy.protocol!.decodeApiVersionsResponseFrame(m.frame, m.apiVersion)
                : this.proxy.protocol!.decodeResponseFrame(m.frame, m.apiKey, m.apiVersion, {
                    allowTrailingBytes: true,
                  });
            entry.apiVersion = d.apiVersion;
            entry.body = await bodyJson(codec, d.body, d.apiVersion, records);
          } catch (e) {
            entry.opaque = true;
            entry.error = (e as Error)?.message ?? String(e);
          }
        }
      }
      log(entry);
    };
    if (this.pendingLogs >= MAX_PENDING_LOGS) {
      this.droppedLogs++;
      return;
    }
    this.pendingLogs++;
    this.logChain = this.logChain
      .then(task)
      .catch(() => {})
      .then(() => {
        this.pendingLogs--;
        if (this.droppedLogs > 0 && this.pendingLogs === 0) {
          const dropped = this.droppedLogs;
          this.droppedLogs = 0;
          this.logEvent("warning", `${dropped} log entries dropped: the log fell behind the traffic`);
        }
      });
  }
}

interface MessageLog {
  readonly apiKey: number;
  readonly apiVersion: number;
  readonly correlationId: number;
  readonly api: ApiCodecs | null;
  readonly frame: Uint8Array;
  readonly body?: unknown;
  readonly request?: ProxyRequest<unknown> | null;
  readonly response?: ProxyResponse<unknown>;
  readonly opaque?: boolean;
  readonly error?: unknown;
  readonly changed?: boolean;
  readonly why?: string | undefined;
  readonly action?: string;
  readonly latencyMs?: number;
}

/** The API when the codecs know both its request and response at this version, else null. */
function knownApi(protocol: Protocol, apiKey: number, apiVersion: number): ApiCodecs | null {
  const api = protocol.apis.get(apiKey);
  if (api === undefined) return null;
  const inRange = (r: { lowest: number; highest: number }) => apiVersion >= r.lowest && apiVersion <= r.highest;
  return inRange(api.request.validVersions) && inRange(api.response.validVersions) ? api : null;
}

/** Produce with acks=0 gets no response (Kafka's `ProduceRequest`: the broker sends none). */
function expectsResponse(request: ProxyRequest<unknown>): boolean {
  return !(request.apiKey === PRODUCE && (request.body as { acks?: number }).acks === 0);
}

/**
 * ApiVersions with each API the proxy must read (address-naming ones, those with filters) capped
 * at the codecs' highest version; null when no cap applies.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function clampVersions(body: Record<string, any>, protocol: Protocol, proxy: ProxyState): Record<string, any> | null {
  const keys: unknown = body["apiKeys"];
  if (!Array.isArray(keys)) return null;
  let changed = false;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const out = keys.map((k: Record<string, any>) => {
    const apiKey = k["apiKey"] as number;
    const read =
      (proxy.rewrite && ADDRESS_APIS.has(apiKey)) ||
      proxy.filters.requests.has(apiKey) ||
      proxy.filters.responses.has(apiKey);
    if (!read) return k;
    const api = protocol.apis.get(apiKey);
    if (api === undefined) return k;
    const highest = Math.min(api.request.validVersions.highest, api.response.validVersions.highest);
    if (k["maxVersion"] <= highest || k["minVersion"] > highest) return k;
    changed = true;
    return { ...k, maxVersion: highest };
  });
  return changed ? { ...body, apiKeys: out } : null;
}
