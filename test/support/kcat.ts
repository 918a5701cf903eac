/**
 * A real peer for the interop test (test/interop-kcat.test.ts): Debian's kcat, whose librdkafka
 * (2.0.2 on Debian bookworm) has a built-in mock cluster, plus a minimal Kafka client over
 * node:net that frames with our {@link FrameSplitter} and matches responses by correlation id.
 */

import { spawn, type ChildProcess } from "node:child_process";
import { accessSync, constants } from "node:fs";
import net from "node:net";
import path from "node:path";
import { crc32c as recordsCrc32c, encodeRecordBatch } from "../../src/records/index.js";
import { FrameSplitter, type DecodedResponse, type Protocol } from "../../src/runtime/index.js";

/** The absolute path of `kcat` on PATH, or null when it is not installed. */
export function findKcat(env: NodeJS.ProcessEnv = process.env): string | null {
  for (const dir of (env["PATH"] ?? "").split(path.delimiter)) {
    if (dir === "") continue;
    const candidate = path.join(dir, "kcat");
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

/** A running `kcat` mock cluster (one broker). */
export interface KcatMock {
  /** The broker's listener, as the mock reports it (`127.0.0.1`). */
  readonly host: string;
  readonly port: number;
  /** Everything kcat wrote on stderr so far (capped), for failure messages. */
  stderr(): string;
  /** Stops kcat: SIGTERM, then SIGKILL if it has not exited within `graceMs`. Idempotent. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * How kcat reports its mock cluster. `-X test.mock.num.brokers=N` makes librdkafka start an
 * in-process mock cluster and log one notice (level 5, so no `-d` flag is needed) on stderr:
 *
 *   %5|1795956907.984|MOCK|rdkafka#consumer-1| [thrd:app]: Mock cluster enabled: original
 *   bootstrap.servers and security.protocol ignored and replaced with 127.0.0.1:43717
 *
 * (one line). The mock listens on an ephemeral port of 127.0.0.1; with several brokers the list
 * is comma-separated, and we take the first.
 */
export const MOCK_CLUSTER_LINE = /Mock cluster enabled:.*? replaced with (\d{1,3}(?:\.\d{1,3}){3}):(\d{1,5})/;

/**
 * Starts `kcat -C -t <topic>` against a one-broker mock cluster and resolves once (a) the mock
 * has reported its port and (b) kcat has reached the end of `<topic>` partition 0 — proof that
 * the mock has auto-created the topic (it does so for the Metadata request of kcat's consumer;
 * before that, a Produce to the topic fails with UNKNOWN_TOPIC_OR_PARTITION). kcat logs
 * `% Reached end of topic <topic> [0] at offset 0` on stderr for that.
 * Rejects (after stopping kcat) when either does not happen within `timeoutMs`, or kcat exits.
 */
export async function startKcatMock(options: { kcat: string; topic: string; timeoutMs: number }): Promise<KcatMock> {
  const { kcat, topic, timeoutMs } = options;
  const child = spawn(kcat, ["-b", "localhost:1", "-X", "test.mock.num.brokers=1", "-C", "-t", topic], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const mock: KcatMock = {
    host: "",
    port: 0,
    stderr: () => stderr,
    stop: (graceMs = 5000) => stopChild(child, exited, graceMs),
  };
  const reachedEnd = `Reached end of topic ${topic} [0]`;
  try {
    const { host, port } = await new Promise<{ host: string; port: number }>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`kcat did not start its mock cluster and topic ${topic} within ${timeoutMs} ms`)),
        timeoutMs,
      );
      const done = (f: () => void) => {
        clearTimeout(timer);
        f();
      };
      child.once("error", (e) => done(() => reject(e)));
      child.once("exit", (code, signal) =>
        done(() => reject(new Error(`kcat exited early (code ${code}, signal ${signal})`))),
      );
      child.stderr!.setEncoding("utf8");
      child.stderr!.on("data", (chunk: string) => {
        if (stderr.length < 65536) stderr += chunk;
        const m = MOCK_CLUSTER_LINE.exec(stderr);
        if (m !== null && stderr.includes(reachedEnd)) done(() => resolve({ host: m[1]!, port: Number(m[2]) }));
      });
    });
    return { ...mock, host, port };
  } catch (e) {
    await mock.stop();
    throw new Error(`${(e as Error).message}; kcat stderr:\n${stderr}`, { cause: e });
  }
}

async function stopChild(child: ChildProcess, exited: Promise<void>, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const within = (ms: number) =>
    Promise.race([exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms).unref())]);
  child.kill("SIGTERM");
  if (await within(graceMs)) return;
  child.kill("SIGKILL");
  await within(2000);
}

/** One request sent and its response frame, undecoded. */
export interface Exchange {
  readonly apiKey: number;
  readonly apiVersion: number;
  readonly correlationId: number;
  readonly request: Uint8Array;
  /** The whole response frame, size prefix included (a copy: safe to keep). */
  readonly response: Uint8Array;
}

/**
 * A minimal Kafka client on one TCP connection: every request gets a fresh correlation id, and a
 * response is handed to the request whose id it carries (every response header starts with the
 * int32 correlation id). Every wait is bounded.
 */
export class KafkaTestClient {
  /** Every request sent, in order. */
  readonly sent: { apiKey: number; apiVersion: number; correlationId: number }[] = [];
  private nextCorrelationId = 1000;
  private readonly pending = new Map<number, { resolve: (frame: Uint8Array) => void; reject: (e: Error) => void }>();
  private failure: Error | null = null;

  private constructor(
    private readonly socket: net.Socket,
    readonly protocol: Protocol,
    private readonly clientId: string,
  ) {
    const splitter = new FrameSplitter();
    socket.on("data", (chunk: Buffer) => {
      let frames: Uint8Array[];
      try {
        frames = splitter.push(chunk);
      } catch (e) {
        this.fail(e as Error);
        return;
      }
      for (const frame of frames) {
        if (frame.length < 8) {
          this.fail(new Error(`response frame of ${frame.length} bytes has no correlation id`));
          return;
        }
        const id = new DataView(frame.buffer, frame.byteOffset, frame.byteLength).getInt32(4);
        const waiter = this.pending.get(id);
        if (waiter === undefined) {
          this.fail(new Error(`response with correlation id ${id} matches no pending request`));
          return;
        }
        this.pending.delete(id);
        // A plain Uint8Array copy: the frame may be a view of a pooled Buffer chunk.
        const copy = new Uint8Array(frame.length);
        copy.set(frame);
        waiter.resolve(copy);
      }
    });
    socket.on("error", (e) => this.fail(e));
    socket.on("close", () => this.fail(new Error("the peer closed the connection")));
  }

  /** Connects within `timeoutMs`. */
  static connect(
    host: string,
    port: number,
    protocol: Protocol,
    options: { timeoutMs: number; clientId?: string },
  ): Promise<KafkaTestClient> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host, port });
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`could not connect to ${host}:${port} within ${options.timeoutMs} ms`));
      }, options.timeoutMs);
      socket.once("error", (e) => {
        clearTimeout(timer);
        reject(e);
      });
      socket.once("connect", () => {
        clearTimeout(timer);
        socket.setNoDelay(true);
        resolve(new KafkaTestClient(socket, protocol, options.clientId ?? "kafka-wire-interop"));
      });
    });
  }

  /** Sends one request; resolves with its response frame within `timeoutMs`. */
  async exchange(apiKey: number, apiVersion: number, body: unknown, timeoutMs = 5000): Promise<Exchange> {
    if (this.failure !== null) throw this.failure;
    const correlationId = this.nextCorrelationId++;
    const request = this.protocol.encodeRequestFrame(
      { apiKey, apiVersion, correlationId, clientId: this.clientId },
      body,
    );
    this.sent.push({ apiKey, apiVersion, correlationId });
    const response = await new Promise<Uint8Array>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(correlationId);
        reject(
          new Error(
            `no response to ${this.protocol.api(apiKey).name} v${apiVersion} (correlation id ${correlationId}) within ${timeoutMs} ms`,
          ),
        );
      }, timeoutMs);
      this.pending.set(correlationId, {
        resolve: (frame) => {
          clearTimeout(timer);
          resolve(frame);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      this.socket.write(request);
    });
    return { apiKey, apiVersion, correlationId, request, response };
  }

  /**
   * Sends a request built with the API's `create(init)` and decodes the response strictly with
   * the same version; also checks that the response carries the request's correlation id.
   */
  async call<B = Record<string, unknown>>(
    apiKey: number,
    apiVersion: number,
    init: Record<string, unknown>,
    timeoutMs = 5000,
  ): Promise<{ exchange: Exchange; decoded: DecodedResponse; body: B }> {
    const body = this.protocol.api(apiKey).request.create(init);
    const exchange = await this.exchange(apiKey, apiVersion, body, timeoutMs);
    const decoded = this.protocol.decodeResponseFrame(exchange.response, apiKey, apiVersion);
    if (decoded.header.correlationId !== exchange.correlationId) {
      throw new Error(
        `response carries correlation id ${decoded.header.correlationId}, the request ${exchange.correlationId}`,
      );
    }
    return { exchange, decoded, body: decoded.body as B };
  }

  /** Closes the connection; pending requests fail. */
  close(): void {
    this.fail(new Error("client closed"));
    this.socket.destroy();
  }

  private fail(e: Error): void {
    this.failure ??= e;
    for (const waiter of this.pending.values()) waiter.reject(e);
    this.pending.clear();
  }
}

/** Lower-case hex of bytes (for failure messages and comments). */
export function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");
}

/** CRC-32C (Castagnoli), the checksum of Kafka's record batches: the library's. */
export function crc32c(bytes: Uint8Array): number {
  return recordsCrc32c(bytes);
}

/** A record batch (magic 2) with one record, no compression, no producer id, base offset 0: the library's builder. */
export function recordBatch(key: Uint8Array | null, value: Uint8Array, timestamp: bigint): Uint8Array {
  return encodeRecordBatch({ records: [{ key, value, timestamp }] }) as Uint8Array;
}

/** What a finished kcat run printed, and how it ended. */
export interface KcatRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  /** True when it was killed for running longer than `timeoutMs`. */
  readonly timedOut: boolean;
}

/**
 * Runs kcat to its end with stdin closed; SIGKILL after `timeoutMs`. `env` is added to this
 * process's environment (e.g. `LD_LIBRARY_PATH` to run it on another librdkafka).
 */
export function runKcat(
  kcat: string,
  args: readonly string[],
  options: { timeoutMs: number; env?: Record<string, string> },
): Promise<KcatRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(kcat, args, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...options.env } });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    child.stdout!.setEncoding("utf8").on("data", (s: string) => {
      if (stdout.length < 65536) stdout += s;
    });
    child.stderr!.setEncoding("utf8").on("data", (s: string) => {
      if (stderr.length < 65536) stderr += s;
    });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, options.timeoutMs);
    child.once("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, timedOut });
    });
  });
}
