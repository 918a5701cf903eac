/**
 * A loopback TCP proxy between a Kafka client and a broker that forwards every byte unchanged
 * and hands each whole frame, split with our {@link FrameSplitter}, to an inspector on the way.
 * Requests are paired with their responses by correlation id (per connection), so each
 * response frame arrives with the api key and version of its request.
 */

import net from "node:net";
import { FrameSplitter } from "../../src/runtime/index.js";

/** One frame that went through the proxy (a copy, safe to keep). */
export interface ProxiedFrame {
  readonly direction: "request" | "response";
  /** Which client connection (0, 1, ...), in the order they were accepted. */
  readonly connection: number;
  /** From the request header (for a response: of the request with its correlation id). */
  readonly apiKey: number;
  readonly apiVersion: number;
  readonly correlationId: number;
  /** The whole frame, size prefix included. */
  readonly frame: Uint8Array;
}

export class FrameProxy {
  /** Every frame, in the order seen. */
  readonly frames: ProxiedFrame[] = [];
  /** Framing problems (a response no request asked for, a frame too short for its header). */
  readonly problems: string[] = [];
  private target: { host: string; port: number } | null = null;
  private readonly sockets = new Set<net.Socket>();
  private connections = 0;

  private constructor(
    private readonly server: net.Server,
    readonly port: number,
  ) {}

  /** Listens on an ephemeral port of 127.0.0.1; call {@link forwardTo} before clients connect. */
  static listen(): Promise<FrameProxy> {
    return new Promise((resolve, reject) => {
      let proxy: FrameProxy | undefined;
      const server = net.createServer((socket) => proxy!.accept(socket));
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => {
        proxy = new FrameProxy(server, (server.address() as net.AddressInfo).port);
        resolve(proxy);
      });
    });
  }

  /** Where accepted connections go. */
  forwardTo(host: string, port: number): void {
    this.target = { host, port };
  }

  /** Stops listening and closes every connection. */
  close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: net.Socket): void {
    const connection = this.connections++;
    if (this.target === null) {
      this.problems.push(`connection ${connection} arrived before forwardTo()`);
      client.destroy();
      return;
    }
    const upstream = net.connect(this.target);
    for (const s of [client, upstream]) {
      this.sockets.add(s);
      s.setNoDelay(true);
      s.on("error", () => {}); // a peer that exits resets its connections; the other side is closed below
      s.on("close", () => {
        this.sockets.delete(s);
        client.destroy();
        upstream.destroy();
      });
    }
    const asked = new Map<number, { apiKey: number; apiVersion: number }>();
    const requests = new FrameSplitter();
    const responses = new FrameSplitter();
    client.on("data", (chunk: Buffer) => {
      upstream.write(chunk);
      this.inspect(requests, chunk, connection, "request", (frame, view) => {
        const header = { apiKey: view.getInt16(4), apiVersion: view.getInt16(6), correlationId: view.getInt32(8) };
        asked.set(header.correlationId, header);
        return header;
      });
    });
    upstream.on("data", (chunk: Buffer) => {
      client.write(chunk);
      this.inspect(responses, chunk, connection, "response", (frame, view) => {
        const correlationId = view.getInt32(4);
        const request = asked.get(correlationId);
        if (request === undefined) return null;
        asked.delete(correlationId);
        return { ...request, correlationId };
      });
    });
  }

  private inspect(
    splitter: FrameSplitter,
    chunk: Uint8Array,
    connection: number,
    direction: ProxiedFrame["direction"],
    header: (frame: Uint8Array, view: DataView) => { apiKey: number; apiVersion: number; correlationId: number } | null,
  ): void {
    let frames: Uint8Array[];
    try {
      frames = splitter.push(chunk);
    } catch (e) {
      this.problems.push(`connection ${connection}: ${direction}s do not frame: ${(e as Error).message}`);
      return;
    }
    for (const f of frames) {
      const frame = new Uint8Array(f); // a copy: f may be a view of a pooled chunk
      if (frame.length < (direction === "request" ? 12 : 8)) {
        this.problems.push(`connection ${connection}: a ${direction} frame of ${frame.length} bytes`);
        continue;
      }
      const h = header(frame, new DataView(frame.buffer));
      if (h === null) {
        this.problems.push(`connection ${connection}: a response matches no request`);
        continue;
      }
      this.frames.push({ direction, connection, ...h, frame });
    }
  }
}
