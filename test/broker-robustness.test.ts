/**
 * kafka-wire-broker keeps serving its other clients whatever one client sends:
 * - a request frame past `maxRequestBytes`, a frame shorter than a header, an unknown api key:
 *   that connection is closed, the next client is answered;
 * - a connection idle past `idleTimeoutMs` is closed;
 * - KIP-848 regex subscriptions are matched in linear time (broker/src/regex.ts): a pattern that
 *   makes a backtracking engine take exponential time is answered, an invalid one gets
 *   INVALID_REGULAR_EXPRESSION. The matcher agrees with JavaScript's RegExp on ordinary patterns.
 */

import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCluster, type RunningCluster } from "../broker/src/index.js";
import { compileRegex, RegexError } from "../broker/src/regex.js";
import { FrameSplitter, type Protocol } from "../src/runtime/index.js";
import { corpusIndex } from "./support/corpus.js";
import { KafkaTestClient } from "./support/kcat.js";
import { describeShared } from "./support/shared.js";

describe("the linear-time regex matcher", () => {
  it("matches whole names as RE2J's matches() does, agreeing with RegExp on ordinary patterns", () => {
    const patterns = [
      "orders-.*",
      "a|b",
      "[a-c]+\\d{2}",
      "(?:eu|us)-(orders|payments)",
      "x{2,3}y?",
      "[^.]+",
      "\\w+\\.\\w+",
      "t[0-9]{1,}",
      "",
    ];
    const names = [
      "orders-eu",
      "xorders-eu",
      "a",
      "b",
      "ab",
      "abc12",
      "cc1",
      "eu-orders",
      "us-payments",
      "eu-x",
      "xx",
      "xxxy",
      "xxxxy",
      "a.b",
      "ab",
      "t1",
      "t",
      "t123",
      "",
    ];
    for (const p of patterns) {
      const re = new RegExp(`^(?:${p})$`);
      const ours = compileRegex(p);
      for (const n of names) expect(ours.matches(n), `${p} on "${n}"`).toBe(re.test(n));
    }
    // Anchors are accepted (the whole name is matched anyway).
    expect(compileRegex("^orders$").matches("orders")).toBe(true);
  });

  it("answers a pattern that makes backtracking exponential", () => {
    // (a+)+$ against a's followed by "!": RegExp backtracks 2^n ways; the NFA walks the input once.
    const name = "a".repeat(5000) + "!";
    expect(compileRegex("(a+)+$").matches(name)).toBe(false);
    expect(compileRegex("(a|aa)*b").matches("a".repeat(5000))).toBe(false);
    expect(compileRegex("(a|aa)*").matches("a".repeat(5000))).toBe(true);
  });

  it("refuses what RE2 does not have, and patterns too large", () => {
    for (const bad of ["(?=x)", "(a)\\1", "(", "a)", "*a", "[z-a]", "a{2000}", "x".repeat(1001)]) {
      expect(() => compileRegex(bad), bad).toThrow(RegexError);
    }
  });
});

describeShared("kafka-wire-broker under hostile clients", "kafka-schemas", () => {
  let protocol: Protocol;
  let cluster: RunningCluster;
  const logs: string[] = [];

  beforeAll(async () => {
    ({ protocol } = await corpusIndex());
    cluster = await startCluster({
      protocol,
      brokers: 1,
      topics: { ["a".repeat(200)]: 1 },
      maxRequestBytes: 4096,
      idleTimeoutMs: 300,
      log: (line) => logs.push(line),
    });
  });

  afterAll(async () => {
    await cluster?.close();
  });

  /** A raw connection; resolves when the broker closes it (or after `waitMs`, with false). */
  function rawSession(bytes: Uint8Array | null, waitMs = 3000): Promise<boolean> {
    const node = cluster.nodes[0]!;
    return new Promise((resolve) => {
      const socket = net.connect({ host: node.host, port: node.port }, () => {
        if (bytes !== null) socket.write(bytes);
      });
      const timer = setTimeout(() => {
        socket.destroy();
        resolve(false);
      }, waitMs);
      socket.on("error", () => {});
      socket.on("close", () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  /** An ApiVersions round trip on a fresh connection: the broker still serves. */
  async function stillServes(): Promise<void> {
    const node = cluster.nodes[0]!;
    const client = await KafkaTestClient.connect(node.host, node.port, protocol, { timeoutMs: 3000 });
    try {
      const reply = await client.call<{ errorCode: number }>(18, 3, {
        clientSoftwareName: "t",
        clientSoftwareVersion: "0",
      });
      expect(reply.body.errorCode).toBe(0);
    } finally {
      client.close();
    }
  }

  it("closes a connection whose frame is larger than maxRequestBytes, before reading it", async () => {
    // A size prefix of 0x00100000 (1 MiB) > 4096, then a few bytes: closed on the prefix alone.
    expect(await rawSession(Buffer.from("00100000" + "0012000300000001", "hex"))).toBe(true);
    expect(logs.some((l) => /4096|maxFrameSize|size/i.test(l))).toBe(true);
    await stillServes();
  });

  it("closes a connection sending a frame shorter than a request header, or an unknown api key", async () => {
    // Size 2: two bytes of body, no room for api key, version and correlation id.
    expect(await rawSession(Buffer.from("00000002" + "0012", "hex"))).toBe(true);
    // Api key 0x7ff0 v0, correlation id 1, client id null: no such API.
    expect(await rawSession(Buffer.from("0000000a" + "7ff0" + "0000" + "00000001" + "ffff", "hex"))).toBe(true);
    await stillServes();
  });

  it("answers the requests pipelined before one it closes the connection for", async () => {
    // One write: ApiVersions v3 (correlation id 7), then api key 0x7ff0 (no such API). The
    // broker answers the first (its responses wait for the end of the turn) before closing.
    const first = protocol.encodeRequestFrame(
      { apiKey: 18, apiVersion: 3, correlationId: 7, clientId: "t" },
      { clientSoftwareName: "t", clientSoftwareVersion: "0" },
    );
    const bad = Buffer.from("0000000a" + "7ff0" + "0000" + "00000008" + "ffff", "hex");
    const node = cluster.nodes[0]!;
    const received = await new Promise<Buffer>((resolve) => {
      const chunks: Buffer[] = [];
      const socket = net.connect({ host: node.host, port: node.port }, () => socket.write(Buffer.concat([first, bad])));
      const timer = setTimeout(() => socket.destroy(), 3000);
      socket.on("data", (c: Buffer) => chunks.push(c));
      socket.on("error", () => {});
      socket.on("close", () => {
        clearTimeout(timer);
        resolve(Buffer.concat(chunks));
      });
    });
    const frames = new FrameSplitter().push(received);
    expect(frames.length).toBe(1);
    const reply = protocol.decodeResponseFrame(frames[0]!, 18, 3);
    expect(reply.header.correlationId).toBe(7);
    expect((reply.body as { errorCode: number }).errorCode).toBe(0);
  });

  it("closes a connection idle for idleTimeoutMs", async () => {
    expect(await rawSession(null, 3000)).toBe(true);
    expect(logs.some((l) => l.includes("idle for 300 ms"))).toBe(true);
  });

  it("answers a KIP-848 regex that would hang a backtracking engine, and refuses an invalid one", async () => {
    const node = cluster.nodes[0]!;
    const client = await KafkaTestClient.connect(node.host, node.port, protocol, { timeoutMs: 5000 });
    try {
      const join = (regex: string) =>
        client.call<{ errorCode: number; errorMessage: string | null }>(68, 1, {
          groupId: "regex-group",
          memberId: `member-${regex.length}`,
          memberEpoch: 0,
          rebalanceTimeoutMs: 5000,
          subscribedTopicNames: null,
          subscribedTopicRegex: regex,
          serverAssignor: null,
          topicPartitions: [],
        });
      // Against the topic of 200 a's: exponential for RegExp (no "!" to find), one pass here.
      const slow = await join("(a+)+!");
      expect(slow.body.errorCode).toBe(0);
      const invalid = await join("(?<=a)b");
      expect(invalid.body.errorCode).toBe(128); // INVALID_REGULAR_EXPRESSION
      expect(invalid.body.errorMessage).toMatch(/not supported/);
    } finally {
      client.close();
    }
    await stillServes();
  });

  it("past maxBufferedBytes, closes the connection holding the most and keeps serving the others", async () => {
    const small = await startCluster({ protocol, maxRequestBytes: 8000, maxBufferedBytes: 10_000 });
    try {
      const node = small.nodes[0]!;
      /** A connection that announces a 7000-byte frame and sends `bytes` of it. */
      const partial = (bytes: number) =>
        new Promise<{ socket: net.Socket; closed: Promise<void> }>((resolve) => {
          const socket = net.connect({ host: node.host, port: node.port }, () => {
            const data = Buffer.alloc(4 + bytes);
            data.writeInt32BE(7000, 0);
            socket.write(data, () => setTimeout(() => resolve({ socket, closed }), 100));
          });
          const closed = new Promise<void>((r) => socket.on("close", () => r()));
          socket.on("error", () => {});
          socket.resume();
        });
      const a = await partial(6000);
      const b = await partial(5000);
      // Each holds the whole frame (7004 bytes, its prefix included) from its size prefix on:
      // 7004 + 7004 > 10000, so one goes: of two holding as much, the one that sent less (b).
      await b.closed;
      expect(a.socket.destroyed).toBe(false);
      // What the first holds: the 7000-byte frame it announced and the 4-byte size prefix.
      expect(small.cluster.bufferedBytes).toBe(7004);
      const client = await KafkaTestClient.connect(node.host, node.port, protocol, { timeoutMs: 3000 });
      try {
        const reply = await client.call<{ errorCode: number }>(18, 3, {
          clientSoftwareName: "t",
          clientSoftwareVersion: "0",
        });
        expect(reply.body.errorCode).toBe(0);
      } finally {
        client.close();
      }
      a.socket.destroy();
    } finally {
      await small.close();
    }
  });
});
