/**
 * A loopback proxy between a Kafka client and a broker that records every whole frame on the
 * way, for tests that check what real peers sent: kafka-wire-proxy (proxy/) with a tap. Frames are
 * recorded as received, before the proxy changes anything; with codecs it also replaces broker
 * addresses in responses, so the client stays on the proxy.
 */

import { startProxy, type Proxy, type TappedFrame } from "../../proxy/src/index.js";
import type { Protocol } from "../../src/runtime/index.js";

/** One frame that went through the proxy (a copy, safe to keep). */
export type ProxiedFrame = TappedFrame;

/** Why the proxy closes a connection when nothing went wrong. */
const ORDINARY_CLOSE = new Set([
  "the client closed the connection",
  "the broker closed the connection",
  "the proxy is closing",
]);

export class FrameProxy {
  /** Every frame, in the order seen. */
  readonly frames: ProxiedFrame[] = [];
  /** Connections closed for a protocol problem (a frame too large or short, a response to no request). */
  readonly problems: string[] = [];
  private proxy: Proxy | null = null;

  private constructor() {}

  /** Listens on an ephemeral port of 127.0.0.1, forwarding to `host:port` (the bootstrap broker). */
  static async start(host: string, port: number, protocol?: Protocol): Promise<FrameProxy> {
    const self = new FrameProxy();
    self.proxy = await startProxy({
      upstream: { host, port },
      ...(protocol === undefined ? {} : { protocol }),
      tap: (f) => self.frames.push({ ...f, frame: new Uint8Array(f.frame) }),
      log: (e) => {
        // An error on the client's socket is the client going away too: one that exits with
        // requests in flight (kcat, after its last message) has its kernel reset or end the
        // connection while responses are on their way (read ECONNRESET, "ended by the other
        // party"). Problems of the proxy's own (frames, pairing, the broker's side) still count.
        if (
          e.direction === "connection" &&
          e.event === "close" &&
          !ORDINARY_CLOSE.has(e.detail) &&
          !e.detail.startsWith("client: ")
        ) {
          self.problems.push(`connection ${e.connection}: ${e.detail}`);
        }
      },
    });
    return self;
  }

  /** The first listener's port. */
  get port(): number {
    return this.proxy!.port;
  }

  /** Stops listening and closes every connection. */
  close(): Promise<void> {
    return this.proxy!.close();
  }
}
