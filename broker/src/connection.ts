/**
 * One client connection of a broker node: frames split with the request size limit, requests
 * answered one at a time in order (as Kafka does), reading paused while too many requests wait or
 * while the socket's write buffer is full, closed after `idleTimeoutMs` without traffic or when a
 * request frame (or the first request) takes longer than `requestTimeoutMs` to arrive.
 *
 * A class, not closures made per connection: V8 keeps type feedback and optimized code per
 * closure, so closures made for each connection start cold on every new connection (measured:
 * kcat's 1,000,000-record produce on new connections cost the broker about 0.2 s more CPU than on
 * warm ones); prototype methods are shared by all connections.
 */

import type net from "node:net";
import { FrameSplitter, KafkaDecodeError, UNSUPPORTED_VERSION_ERROR } from "../../src/runtime/index.js";
import type { BrokerNode, Cluster, ClusterOptions, ConnectionHolder, Exchange } from "./cluster.js";
import { SlabFrameReader, useSlabReads, type FrameSource } from "./frame-reader.js";
import { COPYING_HANDLERS } from "./handlers/core.js";
import { CLOSE_AFTER_RESPONSE, saslAllows } from "./handlers/sasl.js";
import type { ApiKey, Connection, RequestContext } from "./types.js";

/** Produce's api key (the request header's first field, bytes 4..5 of the frame). */
const PRODUCE_API_KEY = 0;
const ALLOW_TRAILING_BYTES = { allowTrailingBytes: true } as const;
const NO_HANDLER = {};

export class ConnectionServer implements ConnectionHolder {
  readonly nodeId: number;
  private readonly connection: Connection;
  /** Where frames come from: the slab reader, or (where Node.js has no user-buffer reads) 'data' events split. */
  private readonly frames: FrameSource;
  private readonly reader: SlabFrameReader | null;
  private readonly splitter: FrameSplitter | null;
  private readonly queue: Uint8Array[] = [];
  private readonly limit: number;
  private readonly maxBytes: number;
  private readonly requestTimeoutMs: number;
  /** Bytes of the queued frames and of the splitter's partial frame: what this connection holds. */
  private heldBytes = 0;
  private busy = false;
  private paused = false;
  /** No complete request yet: `requestTimeoutMs` runs from the connection's start. */
  private first = true;
  /** When the frame being received (or the wait for the first request) started; null: none. */
  private receivingSince: number | null = performance.now();
  /** When the socket's write buffer filled (the client does not read its responses); null: it has room. */
  private blockedSince: number | null = null;
  /** When the connection last had nothing in flight. */
  private idleSince = performance.now();
  private deadline: ReturnType<typeof setTimeout> | null = null;
  private corked = false;
  private readonly checkDeadline = () => this.onDeadline();
  private readonly uncork = () => {
    this.corked = false;
    this.socket.uncork();
  };

  constructor(
    private readonly cluster: Cluster,
    node: BrokerNode,
    private readonly socket: net.Socket,
    private readonly id: number,
    private readonly onExchange: ClusterOptions["onExchange"],
  ) {
    this.nodeId = node.nodeId;
    this.connection = {
      id,
      node,
      remoteAddress: socket.remoteAddress ?? "",
      remotePort: socket.remotePort ?? 0,
      session: new Map(),
    };
    const config = cluster.config;
    this.limit = config.maxQueuedRequests;
    this.maxBytes = config.maxRequestBytes;
    this.requestTimeoutMs = config.requestTimeoutMs;
    socket.setNoDelay(true);
    socket.setTimeout(config.idleTimeoutMs, () => this.drop(`idle for ${config.idleTimeoutMs} ms`));
    cluster.holders.set(id, this);
    this.armDeadline();
    socket.on("error", () => {});
    const reader = new SlabFrameReader(config.maxRequestBytes);
    if (config.slabReads && useSlabReads(socket, reader, (nread) => this.onRead(nread))) {
      this.reader = reader;
      this.splitter = null;
      this.frames = reader;
    } else {
      this.reader = null;
      this.splitter = new FrameSplitter({ maxFrameSize: config.maxRequestBytes });
      this.frames = this.splitter;
      socket.on("data", (chunk: Buffer) => this.onData(chunk));
    }
    // The server accepts sockets paused (pauseOnConnect), so that reads start here, into the slab.
    socket.resume();
  }

  held(): number {
    return this.heldBytes;
  }

  tidy(now: number): void {
    // Idle for a second: the spare slabs go, and the slab shrinks at its next read.
    if (this.reader !== null && !this.busy && this.queue.length === 0 && now - this.idleSince >= 1000)
      this.reader.shrink();
  }

  received(): number {
    return this.heldBytes - this.frames.held + this.frames.buffered;
  }

  standing(): { readonly kind: "stuck" | "idle" | "busy"; readonly since: number } {
    const stuck = Math.min(this.blockedSince ?? Infinity, this.paused ? Infinity : (this.receivingSince ?? Infinity));
    if (stuck !== Infinity) return { kind: "stuck", since: stuck };
    return this.busy || this.queue.length > 0
      ? { kind: "busy", since: this.idleSince }
      : { kind: "idle", since: this.idleSince };
  }

  drop(why: string): void {
    this.cluster.log(`node ${this.nodeId} connection ${this.id}: ${why}; closing it`);
    // The responses written before this one go out first (they wait for the end of the turn).
    if (this.corked) this.uncork();
    this.socket.destroy();
    this.release();
  }

  /** Gives back what the connection holds (at once: the close event comes later). */
  release(): void {
    this.cluster.holders.delete(this.id);
    this.hold(-this.heldBytes);
    this.queue.length = 0;
    if (this.deadline !== null) clearTimeout(this.deadline);
    this.deadline = null;
  }

  /** The connection closed: what it holds and its session go. */
  closed(): void {
    this.release();
    this.connection.session.clear();
  }

  private hold(delta: number): void {
    this.heldBytes += delta;
    this.cluster.bufferedBytes += delta;
  }

  /** Arms the `requestTimeoutMs` check for the frame being received (one timer, re-armed only when it fires). */
  private armDeadline(): void {
    if (this.deadline !== null || this.receivingSince === null || this.paused || this.socket.destroyed) return;
    this.deadline = setTimeout(
      this.checkDeadline,
      Math.max(1, this.receivingSince + this.requestTimeoutMs - performance.now()),
    );
    this.deadline.unref();
  }

  private onDeadline(): void {
    this.deadline = null;
    if (this.receivingSince === null || this.paused || this.socket.destroyed) return;
    if (performance.now() - this.receivingSince < this.requestTimeoutMs) return this.armDeadline();
    const frames = this.frames;
    const part = frames.buffered > 0 ? ` (${frames.buffered} of ${frames.held} bytes received)` : "";
    this.drop(
      this.first
        ? `no complete request within requestTimeoutMs (${this.requestTimeoutMs} ms) of connecting${part}`
        : `a request frame not complete within requestTimeoutMs (${this.requestTimeoutMs} ms)${part}`,
    );
  }

  // Reading stops while this connection holds too many requests or bytes, or while the client
  // does not read its responses.
  private full(): boolean {
    return this.queue.length >= this.limit || this.heldBytes >= this.maxBytes;
  }

  private resumeIfRoom(): void {
    if (
      this.paused &&
      !this.socket.destroyed &&
      this.queue.length < this.limit / 2 &&
      this.heldBytes < this.maxBytes / 2 &&
      !this.socket.writableNeedDrain
    ) {
      this.paused = false;
      this.socket.resume();
      // The time not read was the broker's: the frame being received gets its full time again.
      if (this.receivingSince !== null) this.receivingSince = performance.now();
      this.armDeadline();
    }
  }

  private pause(): void {
    if (this.paused) return;
    this.paused = true;
    this.socket.pause();
  }

  /**
   * The cluster-wide bound: past maxBufferedBytes, the connection holding the most is closed
   * (pausing instead could leave every connection waiting for another's partial frame); of two
   * holding as much, the one that has sent less of it (a size prefix alone, rather than a frame
   * nearly complete).
   */
  private enforceClusterBound(): void {
    const cluster = this.cluster;
    while (cluster.bufferedBytes > cluster.config.maxBufferedBytes) {
      let largest: ConnectionHolder | undefined;
      for (const h of cluster.holders.values()) {
        if (
          largest === undefined ||
          h.held() > largest.held() ||
          (h.held() === largest.held() && h.received() < largest.received())
        )
          largest = h;
      }
      if (largest === undefined || largest.held() === 0) return;
      largest.drop(
        `the connections hold more than maxBufferedBytes (${cluster.config.maxBufferedBytes}); this one the most`,
      );
    }
  }

  /**
   * Writes a response; the responses written in the same turn of the event loop (a client's
   * pipelined requests, answered one after another) go out together, in one write, once the
   * turn's I/O callbacks have run (setImmediate: after every chunk read in this turn is answered,
   * not after the first response as process.nextTick would).
   */
  private write(response: Uint8Array): boolean {
    if (!this.corked) {
      this.corked = true;
      this.socket.cork();
      setImmediate(this.uncork);
    }
    return this.socket.write(response);
  }

  private async pump(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    const { cluster, socket, queue } = this;
    try {
      while (queue.length > 0 && !socket.destroyed) {
        const frame = queue.shift()!;
        this.hold(-frame.length);
        this.resumeIfRoom();
        // An interceptor (control), onExchange or a Produce handler of a plugin's may keep the
        // request's bytes: its slab is not written again.
        // (Worked out only where frames are views of a slab: the 'data' path copies or owns them.)
        const kept =
          this.reader !== null &&
          (this.onExchange !== undefined ||
            cluster.control.active ||
            !COPYING_HANDLERS.has(cluster.handlers.get(PRODUCE_API_KEY)?.handler ?? NO_HANDLER));
        const exchange = cluster.requestLog.enabled
          ? await cluster.requestLog.record(() => answer(cluster, this.connection, frame))
          : await answer(cluster, this.connection, frame);
        this.onExchange?.(exchange);
        this.reader?.done(frame, kept);
        await cluster.breathe();
        if (exchange.error !== null) {
          this.drop(`api key ${exchange.apiKey} v${exchange.apiVersion}: ${exchange.error.message}`);
          break;
        }
        if (this.connection.session.get(CLOSE_AFTER_RESPONSE) === true) {
          // The answer is the connection's last (a failed SASL authentication).
          if (exchange.response !== null) socket.end(exchange.response);
          else socket.end();
          break;
        }
        if (exchange.response !== null && !socket.destroyed && !this.write(exchange.response)) {
          // Backpressure: the client does not read its responses; stop reading its requests.
          this.blockedSince = performance.now();
          this.pause();
          await new Promise<void>((resolve) => {
            const done = () => {
              socket.off("drain", done);
              socket.off("close", done);
              resolve();
            };
            socket.once("drain", done);
            socket.once("close", done);
          });
          this.blockedSince = null;
          this.resumeIfRoom();
        }
      }
    } finally {
      this.busy = false;
      this.idleSince = performance.now();
    }
  }

  /** After a read into the slab reader's region (see useSlabReads); false stops reading. */
  private onRead(nread: number): boolean {
    const reader = this.reader!;
    let frames: readonly Uint8Array[];
    const before = reader.held;
    try {
      frames = reader.filled(nread);
    } catch (e) {
      this.drop((e as Error).message);
      return false;
    }
    this.hold(reader.held - before);
    this.take(frames, null);
    return !this.socket.destroyed;
  }

  private onData(chunk: Buffer): void {
    const splitter = this.splitter!;
    let frames: Uint8Array[];
    // What the splitter holds for a partial frame: all of it from its size prefix on.
    const before = splitter.held;
    try {
      frames = splitter.push(chunk);
    } catch (e) {
      this.drop((e as Error).message);
      return;
    }
    this.hold(splitter.held - before);
    this.take(frames, chunk.buffer);
  }

  /**
   * Queues the frames a read completed. `chunk`: the buffer of the 'data' chunk they were split
   * from; null: they come from the slab reader.
   */
  private take(frames: readonly Uint8Array[], chunk: ArrayBufferLike | null): void {
    const reader = this.reader;
    for (const f of frames) {
      if (f.length < 12) {
        this.drop("a request frame shorter than its header");
        return;
      }
      // A Produce request that is a view of the chunk (or slab) stays one: the log copies its
      // record batches, and nothing else of it is kept, so the chunk is held (the slab not
      // written) only until it is answered. Any other view is copied, as its handler may keep
      // views of it (group member metadata, assignments) that would hold the whole chunk or see
      // the slab written again. A frame assembled from several reads is a buffer of its own.
      const view = reader === null ? f.buffer === chunk : reader.isView(f);
      if (view && ((f[4]! << 8) | f[5]!) !== PRODUCE_API_KEY) {
        this.queue.push(new Uint8Array(f));
        reader?.done(f, false);
      } else {
        this.queue.push(f);
      }
      this.hold(f.length);
    }
    const source = this.frames;
    if (frames.length > 0) this.first = false;
    // A frame still partial after this chunk: its deadline runs from its first byte (a frame
    // completed here and another begun restarts it).
    if (source.buffered === 0 && !this.first) this.receivingSince = null;
    else if (this.receivingSince === null || (frames.length > 0 && source.buffered > 0))
      this.receivingSince = performance.now();
    if (this.full()) this.pause();
    this.enforceClusterBound();
    if (this.socket.destroyed) return;
    this.armDeadline();
    void this.pump();
  }
}

/**
 * Before a new connection of node `nodeId` is served: when the node has `maxConnections` open,
 * closes the one stuck longest, else idle longest, else the one busy since longest ago.
 */
export function makeRoom(cluster: Cluster, nodeId: number): void {
  let open = 0;
  let victim: ConnectionHolder | undefined;
  let best = { rank: Infinity, since: Infinity };
  const RANK = { stuck: 0, idle: 1, busy: 2 } as const;
  for (const h of cluster.holders.values()) {
    if (h.nodeId !== nodeId) continue;
    open++;
    const s = h.standing();
    const rank = RANK[s.kind];
    if (rank < best.rank || (rank === best.rank && s.since < best.since)) {
      best = { rank, since: s.since };
      victim = h;
    }
  }
  if (open < cluster.config.maxConnections || victim === undefined) return;
  const kind = (["stuck", "idle", "busy"] as const)[best.rank]!;
  victim.drop(
    `maxConnections (${cluster.config.maxConnections}) reached on node ${nodeId}; a new connection takes the place of this one, ${kind} for ${Math.round(performance.now() - best.since)} ms`,
  );
}

/** An exchange, always of one shape (one hidden class for every request answered). */
function exchange(
  connection: Connection,
  frame: Uint8Array,
  apiKey: number,
  apiVersion: number,
  correlationId: number,
  decoded: Exchange["decoded"],
  response: Uint8Array | null,
  error: Error | null,
): Exchange {
  return {
    connection: connection.id,
    nodeId: connection.node.nodeId,
    apiKey,
    apiVersion,
    correlationId,
    request: frame,
    decoded,
    response,
    error,
  };
}

/** Answers one request frame. Never throws: a failure is the exchange's `error` (the connection closes). */
async function answer(cluster: Cluster, connection: Connection, frame: Uint8Array): Promise<Exchange> {
  // The request header's first fields (the frame is at least 12 bytes: ConnectionServer.onData).
  const apiKey = (((frame[4]! << 8) | frame[5]!) << 16) >> 16;
  const apiVersion = (((frame[6]! << 8) | frame[7]!) << 16) >> 16;
  const correlationId = (frame[8]! << 24) | (frame[9]! << 16) | (frame[10]! << 8) | frame[11]!;
  const protocol = cluster.protocol.untyped;
  try {
    const range = cluster.versions().get(apiKey);
    if (apiKey === 18 && range !== undefined && apiVersion > range.max) {
      // KIP-511: an ApiVersions version this broker cannot parse gets the v0 layout,
      // UNSUPPORTED_VERSION and the ApiVersions range, so that the client retries with one it has.
      const response = protocol.encodeResponseFrame(
        { apiKey, apiVersion: 0, correlationId },
        { errorCode: UNSUPPORTED_VERSION_ERROR, apiKeys: [{ apiKey, minVersion: range.min, maxVersion: range.max }] },
      );
      return exchange(connection, frame, apiKey, apiVersion, correlationId, null, response, null);
    }
    if (range === undefined || apiVersion < range.min || apiVersion > range.max) {
      throw new KafkaDecodeError("UNSUPPORTED_VERSION", `api key ${apiKey} v${apiVersion} is not supported`, 4);
    }
    if (cluster.saslRequired && !saslAllows(connection, apiKey)) {
      throw new Error(`Unexpected Kafka request of api key ${apiKey} during SASL authentication`);
    }
    // Kafka parses the request struct and ignores what is left in the frame (librdkafka 2.15's
    // all-topics Metadata v13 carries 3 stray bytes); a body that is short still fails.
    const decoded = protocol.decodeRequestFrame(frame, ALLOW_TRAILING_BYTES);
    const context: RequestContext = {
      apiKey: apiKey as ApiKey,
      apiVersion,
      header: decoded.header as RequestContext["header"],
      connection,
      node: connection.node,
      cluster,
    };
    const handler = cluster.handlers.get(apiKey)!.handler;
    // Faults and interceptors only when a test registered some: otherwise straight to the handler.
    const body = cluster.control.active
      ? await cluster.control.serve(decoded.body as Record<string, unknown>, context, handler)
      : await handler(decoded.body as never, context);
    const response =
      body === null
        ? null
        : // encodeResponseFrame fills the fields the handler left out (the response codec's create).
          protocol.encodeResponseFrame({ apiKey, apiVersion, correlationId }, body);
    return exchange(connection, frame, apiKey, apiVersion, correlationId, decoded, response, null);
  } catch (e) {
    return exchange(connection, frame, apiKey, apiVersion, correlationId, null, null, e as Error);
  }
}
