/**
 * Talking to a broker with Kafka's codecs: ApiVersions with KIP-511's fallback, versions chosen
 * from the overlap of both sides, a Metadata request and its reply, responses paired with their
 * requests by correlation id. Node.js only for the socket (`node:net`); every wait is bounded.
 *
 * The codecs come from `npx kafka-wire generate --kafka 4.1.0 --out kafka`, next to this file:
 *
 *   npx tsx client.ts 127.0.0.1:9092 [topic...]
 *
 * prints what it sent and what the broker answered, and exits 1 on an error.
 */

import net from "node:net";
import { pathToFileURL } from "node:url";
import { FrameSplitter, KafkaDecodeError, type Init } from "kafka-wire/runtime";
import { ApiKey, protocol, type Apis } from "./kafka/index.js";

/** How long any reply may take. */
const TIMEOUT_MS = 10_000;
/** KIP-511: the error a broker answers an ApiVersions request of a version it does not speak with. */
const UNSUPPORTED_VERSION = 35;

/**
 * One TCP connection to a broker. Each request gets the next correlation id; a response frame
 * (its header starts with the int32 correlation id) goes to the request that carries it, so
 * several requests can be in flight.
 */
export class Connection {
  private nextCorrelationId = 1;
  private readonly pending = new Map<number, (frame: Uint8Array | Error) => void>();

  private constructor(private readonly socket: net.Socket) {
    const splitter = new FrameSplitter();
    socket.on("data", (chunk: Uint8Array) => {
      try {
        for (const frame of splitter.push(chunk)) {
          const id = new DataView(frame.buffer, frame.byteOffset, frame.byteLength).getInt32(4);
          const waiting = this.pending.get(id);
          if (waiting === undefined) throw new Error(`a response with correlation id ${id}, which no request has`);
          this.pending.delete(id);
          waiting(frame.slice()); // a copy: the splitter's view may share the socket's chunk
        }
      } catch (e) {
        this.close(e as Error);
      }
    });
    socket.on("error", (e) => this.close(e));
    socket.on("close", () => this.close(new Error("the broker closed the connection")));
  }

  /** Connects to `host:port`. */
  static open(host: string, port: number): Promise<Connection> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host, port, timeout: TIMEOUT_MS });
      socket.once("connect", () => {
        socket.setTimeout(0);
        resolve(new Connection(socket));
      });
      socket.once("timeout", () => socket.destroy(new Error(`no connection to ${host}:${port} in ${TIMEOUT_MS} ms`)));
      socket.once("error", reject);
    });
  }

  /**
   * Sends a request (its body type follows from the api key; omitted fields take their schema
   * defaults) and resolves with the response frame that carries its correlation id.
   */
  send<K extends keyof Apis & number>(
    apiKey: K,
    apiVersion: number,
    body: Init<Apis[K]["request"]>,
  ): Promise<{ correlationId: number; frame: Uint8Array }> {
    const correlationId = this.nextCorrelationId++;
    const request = protocol.encodeRequestFrame(
      { apiKey, apiVersion, correlationId, clientId: "kafka-wire-example" },
      body,
    );
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(correlationId);
        reject(new Error(`no reply to ${protocol.api(apiKey).name} v${apiVersion} in ${TIMEOUT_MS} ms`));
      }, TIMEOUT_MS);
      this.pending.set(correlationId, (frame) => {
        clearTimeout(timer);
        if (frame instanceof Error) reject(frame);
        else resolve({ correlationId, frame });
      });
      this.socket.write(request);
    });
  }

  /** Closes the connection; requests still waiting fail with `reason`. */
  close(reason = new Error("connection closed")): void {
    for (const waiting of this.pending.values()) waiting(reason);
    this.pending.clear();
    this.socket.destroy();
  }
}

/** The versions of each api key the broker speaks, from its ApiVersions reply. */
export type BrokerVersions = ReadonlyMap<number, { readonly min: number; readonly max: number }>;

/**
 * ApiVersions, newest layout first. A broker that does not speak the version answers in the v0
 * layout with UNSUPPORTED_VERSION and its own range (KIP-511): retry with the highest version
 * both sides have. A reply that decodes in no version at all (librdkafka's mock answers v3 so)
 * falls back to v2, the last version before the flexible layout, as Kafka's clients do.
 */
export async function negotiate(conn: Connection, log: (line: string) => void): Promise<BrokerVersions> {
  let version = 3;
  for (let attempt = 0; attempt < 4; attempt++) {
    const body = version >= 3 ? { clientSoftwareName: "kafka-wire-example", clientSoftwareVersion: "1.0" } : {};
    const { correlationId, frame } = await conn.send(ApiKey.ApiVersions, version, body);
    let reply;
    try {
      reply = protocol.decodeApiVersionsResponseFrame(frame, version);
    } catch (e) {
      if (!(e instanceof KafkaDecodeError) || version <= 2) throw e;
      log(`ApiVersions v${version}: the reply decodes in no version (${e.message}); retrying at v2`);
      version = 2;
      continue;
    }
    if (reply.header.correlationId !== correlationId) throw new Error("ApiVersions reply for another request");
    const { errorCode, apiKeys } = reply.body;
    if (errorCode === UNSUPPORTED_VERSION && version > 0) {
      const theirs = apiKeys.find((k) => k.apiKey === ApiKey.ApiVersions)?.maxVersion ?? 0;
      log(`ApiVersions v${version}: unsupported, the broker speaks up to v${theirs}`);
      version = Math.min(theirs, version - 1);
      continue;
    }
    if (errorCode !== 0) throw new Error(`ApiVersions v${version} failed with error code ${errorCode}`);
    log(`ApiVersions v${version}: the broker speaks ${apiKeys.length} APIs`);
    return new Map(apiKeys.map((k) => [k.apiKey, { min: k.minVersion, max: k.maxVersion }]));
  }
  throw new Error("ApiVersions: no version agreed");
}

/** The highest version of `apiKey` that the broker and our request and response codecs all have, or null. */
export function chooseVersion(apiKey: keyof Apis & number, broker: BrokerVersions): number | null {
  const theirs = broker.get(apiKey);
  if (theirs === undefined) return null;
  const { request, response } = protocol.api(apiKey);
  const low = Math.max(theirs.min, request.validVersions.lowest, response.validVersions.lowest);
  const high = Math.min(theirs.max, request.validVersions.highest, response.validVersions.highest);
  return low <= high ? high : null;
}

/** Connects, negotiates, asks for the metadata of `topics` (all topics when none) and prints it. */
export async function main(args: readonly string[], log: (line: string) => void = console.log): Promise<void> {
  const [address, ...topics] = args;
  const m = /^(.+):(\d+)$/.exec(address ?? "");
  if (m === null) throw new Error("usage: client.ts <host:port> [topic...]");
  const conn = await Connection.open(m[1]!, Number(m[2]));
  try {
    const broker = await negotiate(conn, log);
    const version = chooseVersion(ApiKey.Metadata, broker);
    if (version === null) {
      const theirs = broker.get(ApiKey.Metadata);
      log(`Metadata: no version in common (the broker: ${theirs ? `${theirs.min}-${theirs.max}` : "none"})`);
      return;
    }
    // Two requests in flight at once: the replies are told apart by correlation id.
    const [all, some] = await Promise.all([
      conn.send(ApiKey.Metadata, version, { topics: null }),
      conn.send(ApiKey.Metadata, version, { topics: topics.map((name) => ({ name })) }),
    ]);
    for (const { correlationId, frame } of [all, some]) {
      let reply;
      try {
        reply = protocol.decodeResponseFrame(frame, ApiKey.Metadata, version);
      } catch (e) {
        // librdkafka's mock ends flexible Metadata replies with one stray byte.
        if (!(e instanceof KafkaDecodeError) || e.code !== "TRAILING_BYTES") throw e;
        log(`Metadata v${version}: ${e.message}; read without them`);
        reply = protocol.decodeResponseFrame(frame, ApiKey.Metadata, version, { allowTrailingBytes: true });
      }
      if (reply.header.correlationId !== correlationId) throw new Error("Metadata reply for another request");
      const { brokers, topics: found } = reply.body;
      const names: (string | null)[] = found.map((t) => t.name);
      log(
        `Metadata v${version} (correlation id ${correlationId}): ` +
          `brokers ${brokers.map((b) => `${b.nodeId}=${b.host}:${b.port}`).join(", ")}; ` +
          `topics ${names.join(", ") || "none"}` +
          found.map((t) => ` [${t.name}: ${t.partitions.length} partitions, error code ${t.errorCode}]`).join(""),
      );
    }
  } finally {
    conn.close();
  }
}

// Run as a script (not when imported).
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).catch((e: unknown) => {
    console.error(`error: ${e instanceof Error ? e.message : String(e)}`);
    process.exitCode = 1;
  });
}
