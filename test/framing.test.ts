/**
 * Request/response framing with the RequestHeader and ResponseHeader codecs generated from Apache
 * Kafka's schemas. Every expected frame is worked out by hand below from the Kafka protocol guide.
 */

import { beforeAll, describe, expect, it } from "vitest";
import { FrameSplitter, KafkaDecodeError, KafkaEncodeError, type Protocol } from "../src/runtime/index.js";
import { corpusIndex } from "./support/corpus.js";
import { fromHex, toHex } from "./support/golden.js";
import { describeShared } from "./support/shared.js";

const h = (s: string) => fromHex(s.replace(/[\s|]/g, ""));

describeShared("request and response frames", "kafka-schemas", () => {
  let protocol: Protocol;
  beforeAll(async () => {
    protocol = (await corpusIndex()).protocol;
  });

  // ApiVersions v3 request, flexible, so request header v2:
  //   api key 18 = 00 12 | api version 3 = 00 03 | correlation id 7 = 00 00 00 07
  //   client id "c1": still a classic nullable string in header v2 = 00 02 63 31 | header tagged fields: 00
  //   body: ClientSoftwareName "kw" compact = (2+1) 03 6b 77 | ClientSoftwareVersion "1" = 02 31 | tagged: 00
  //   size = 13 (header) + 6 (body) = 19 = 00 00 00 13
  const apiVersionsV3Request = "00 00 00 13 | 00 12 00 03 00 00 00 07 00 02 63 31 00 | 03 6b 77 02 31 00";

  it("encodes an ApiVersions v3 request with header v2 and a client id", () => {
    const frame = protocol.encodeRequestFrame(
      { apiKey: 18, apiVersion: 3, correlationId: 7, clientId: "c1" },
      { clientSoftwareName: "kw", clientSoftwareVersion: "1" },
    );
    expect(toHex(frame)).toBe(toHex(h(apiVersionsV3Request)));
  });

  it("decodes that request frame, reading the api key and version from its header", () => {
    const decoded = protocol.decodeRequestFrame(h(apiVersionsV3Request));
    expect(decoded.api.name).toBe("ApiVersions");
    expect(decoded.headerVersion).toBe(2);
    expect(decoded.header).toMatchObject({ requestApiKey: 18, requestApiVersion: 3, correlationId: 7, clientId: "c1" });
    expect(decoded.body).toMatchObject({ clientSoftwareName: "kw", clientSoftwareVersion: "1" });
  });

  // ApiVersions v0 request: not flexible, header v1; a null client id is ff ff; the v0 body is empty.
  //   00 12 | 00 00 | 00 00 00 01 | ff ff  -> size 10 = 00 00 00 0a
  it("writes a null client id as ffff", () => {
    const frame = protocol.encodeRequestFrame({ apiKey: 18, apiVersion: 0, correlationId: 1, clientId: null }, {});
    expect(toHex(frame)).toBe("0000000a" + "0012" + "0000" + "00000001" + "ffff");
  });

  // ControlledShutdown v0 predates client ids: request header v0 = api key, version, correlation id.
  //   00 07 | 00 00 | 00 00 00 05 | BrokerId 3 = 00 00 00 03 -> size 12 = 00 00 00 0c
  it("uses request header v0 for ControlledShutdown v0", () => {
    const frame = protocol.encodeRequestFrame(
      { apiKey: 7, apiVersion: 0, correlationId: 5, clientId: "ignored" },
      { brokerId: 3 },
    );
    expect(toHex(frame)).toBe("0000000c" + "0007" + "0000" + "00000005" + "00000003");
  });

  // ApiVersions v3 response: responses of ApiVersions always use header v0 (correlation id only).
  //   header: 00 00 00 07
  //   body: ErrorCode 0 = 00 00 | ApiKeys compact array of 1 = 02 | {ApiKey 18 = 00 12, Min 0 = 00 00, Max 4 = 00 04, tagged 00}
  //         ThrottleTimeMs 0 = 00 00 00 00 | tagged fields 00
  //   size = 4 + 2 + 1 + 7 + 4 + 1 = 19 = 00 00 00 13
  const apiVersionsV3Response = "00 00 00 13 | 00 00 00 07 | 00 00 02 00 12 00 00 00 04 00 00 00 00 00 00";

  it("decodes an ApiVersions v3 response with header v0", () => {
    const decoded = protocol.decodeResponseFrame(h(apiVersionsV3Response), 18, 3);
    expect(decoded.headerVersion).toBe(0);
    expect(decoded.header.correlationId).toBe(7);
    expect(decoded.body).toMatchObject({
      errorCode: 0,
      apiKeys: [{ apiKey: 18, minVersion: 0, maxVersion: 4 }],
      throttleTimeMs: 0,
    });
    const again = protocol.encodeResponseFrame({ apiKey: 18, apiVersion: 3, correlationId: 7 }, decoded.body);
    expect(toHex(again)).toBe(toHex(h(apiVersionsV3Response)));
  });

  // Heartbeat v4 response is flexible: response header v1 = correlation id 42 (00 00 00 2a) + tagged 00.
  //   body: ThrottleTimeMs 10 = 00 00 00 0a | ErrorCode 0 = 00 00 | tagged 00 -> size 5 + 7 = 12
  it("encodes and decodes a flexible response with header v1", () => {
    const expected = "0000000c" + "0000002a" + "00" + "0000000a" + "0000" + "00";
    const frame = protocol.encodeResponseFrame(
      { apiKey: 12, apiVersion: 4, correlationId: 42 },
      { throttleTimeMs: 10, errorCode: 0 },
    );
    expect(toHex(frame)).toBe(expected);
    const decoded = protocol.decodeResponseFrame(frame, 12, 4);
    expect(decoded.headerVersion).toBe(1);
    expect(decoded.header.correlationId).toBe(42);
    expect(decoded.body).toMatchObject({ throttleTimeMs: 10, errorCode: 0 });
  });

  // KIP-511: a broker without ApiVersions v3 answers a v3 request in the v0 layout with error 35.
  //   header v0: 00 00 00 07 | ErrorCode 35 = 00 23 | ApiKeys int32 count 1 = 00 00 00 01
  //   {ApiKey 18 = 00 12, Min 0 = 00 00, Max 2 = 00 02} -> size 4 + 2 + 4 + 6 = 16 = 00 00 00 10
  const unsupportedReply = "00 00 00 10 | 00 00 00 07 | 00 23 00 00 00 01 00 12 00 00 00 02";

  it("rejects a v0-layout UNSUPPORTED_VERSION reply as v3 with a typed error", () => {
    // As v3, the byte after the error code (00) is a compact array length of null: not allowed.
    expect(() => protocol.decodeResponseFrame(h(unsupportedReply), 18, 3)).toThrow(KafkaDecodeError);
  });

  it("falls back to v0 for that reply (KIP-511)", () => {
    const decoded = protocol.decodeApiVersionsResponseFrame(h(unsupportedReply), 3);
    expect(decoded.apiVersion).toBe(0);
    expect(decoded.body).toMatchObject({ errorCode: 35, apiKeys: [{ apiKey: 18, minVersion: 0, maxVersion: 2 }] });
  });

  it("does not fall back when the v0 reading is not an UNSUPPORTED_VERSION reply", () => {
    // Same layout with error code 0: a broker that understood v3 would not send this.
    const bad = unsupportedReply.replace("00 23", "00 00");
    expect(() => protocol.decodeApiVersionsResponseFrame(h(bad), 3)).toThrow(KafkaDecodeError);
  });

  it("rejects a size prefix that disagrees with the frame, and unknown api keys", () => {
    expect(() => protocol.decodeRequestFrame(h("00 00 00 05 00 12 00 00"))).toThrow(/size prefix says 5/);
    expect(() => protocol.decodeRequestFrame(h("00 00 00 04 7f 00 00 00"))).toThrow(/api key 32512/);
  });
});

describe("FrameSplitter", () => {
  // Two frames: size 2 (00 00 00 02 | aa bb) and size 0 (00 00 00 00).
  const stream = h("00 00 00 02 aa bb 00 00 00 00");

  it("returns several frames from one chunk, as views of it", () => {
    const frames = new FrameSplitter().push(stream);
    expect(frames.map(toHex)).toEqual(["00000002aabb", "00000000"]);
    expect(frames[0]!.buffer).toBe(stream.buffer);
  });

  it("joins frames split across chunks at every byte boundary", () => {
    for (let cut = 0; cut <= stream.length; cut++) {
      const splitter = new FrameSplitter();
      const frames = [...splitter.push(stream.slice(0, cut)), ...splitter.push(stream.slice(cut))];
      expect(frames.map(toHex)).toEqual(["00000002aabb", "00000000"]);
      expect(splitter.buffered).toBe(0);
    }
  });

  it("copies only the rest of a held-back frame: the frames after it are views of the chunk", () => {
    const splitter = new FrameSplitter();
    expect(splitter.push(stream.slice(0, 5))).toEqual([]);
    // The chunk ends the first frame (bb) and holds the whole second one.
    const chunk = stream.slice(5);
    const frames = splitter.push(chunk);
    expect(frames.map(toHex)).toEqual(["00000002aabb", "00000000"]);
    expect(frames[0]!.buffer).not.toBe(chunk.buffer);
    expect(frames[1]!.buffer).toBe(chunk.buffer);
  });

  it("handles one byte at a time", () => {
    const splitter = new FrameSplitter();
    const frames: Uint8Array[] = [];
    for (const b of stream) frames.push(...splitter.push(Uint8Array.of(b)));
    expect(frames.map(toHex)).toEqual(["00000002aabb", "00000000"]);
  });

  it("rejects a frame above maxFrameSize before buffering it", () => {
    const splitter = new FrameSplitter({ maxFrameSize: 10 });
    // size 11 = 00 00 00 0b
    expect(() => splitter.push(h("00 00 00 0b 01"))).toThrow(/frame size 11 is outside 0..10/);
    const split = new FrameSplitter({ maxFrameSize: 10 });
    expect(split.push(h("00 00"))).toEqual([]);
    expect(() => split.push(h("00 0b"))).toThrow(KafkaDecodeError);
  });

  it("gives a bad size's position in the stream, across chunks", () => {
    const at = (chunks: string[]): number => {
      const splitter = new FrameSplitter({ maxFrameSize: 8 });
      try {
        for (const c of chunks) splitter.push(h(c));
      } catch (e) {
        return (e as KafkaDecodeError).offset;
      }
      return -1;
    };
    // A 7-byte frame (size 3), then a 5-byte frame (size 1) and a size of 0x63 = 99 > 8: the bad
    // size starts at byte 7 + 5 = 12 of the stream, byte 5 of the second chunk.
    expect(at(["00 00 00 03 01 02 03", "00 00 00 01 01 00 00 00 63"])).toBe(12);
    // The same bad size split over two chunks after the 7-byte frame: it starts at byte 7.
    expect(at(["00 00 00 03 01 02 03 00 00", "00 63"])).toBe(7);
  });

  it("rejects a negative size", () => {
    expect(() => new FrameSplitter().push(h("ff ff ff ff"))).toThrow(/frame size -1/);
  });

  it("keeps its own copy of partial data, so callers may reuse their chunk buffer", () => {
    const splitter = new FrameSplitter();
    const chunk = h("00 00 00 02 aa");
    expect(splitter.push(chunk)).toEqual([]);
    chunk.fill(0xee);
    expect(splitter.push(h("bb")).map(toHex)).toEqual(["00000002aabb"]);
  });
});

describe("FrameSplitter under hostile streams", () => {
  it("keeps memory near the bytes buffered when a frame trickles in one byte at a time", () => {
    const splitter = new FrameSplitter();
    // A frame of 200000 bytes: size prefix 200000 = 0x00030d40.
    const size = 200_000;
    const memory = () => process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
    const before = memory();
    splitter.push(h("00 03 0d 40"));
    const one = new Uint8Array(1);
    let frames: Uint8Array[] = [];
    for (let i = 0; i < size; i++) {
      one[0] = i & 0xff;
      frames = splitter.push(one);
    }
    expect(frames).toHaveLength(1);
    expect(frames[0]!.length).toBe(4 + size);
    expect(frames[0]![4 + 1234]).toBe(1234 & 0xff);
    // One buffer of the frame's size, allocated when the prefix came. (Keeping a copy of every
    // one-byte chunk, as an earlier version did, took about 50 MB here.)
    expect(memory() - before).toBeLessThan(16 << 20);
  });

  it("holds exactly the frame announced once its size prefix is read, not a doubled buffer", () => {
    // 40 MiB announced (0x02800000), half of it sent in 64 KiB chunks, as a slow sender would.
    // A buffer doubling as it fills would hold 32 MiB at 16 MiB received, 64 MiB at 16 MiB + 1
    // (the old and new buffers both, while copying).
    const size = 40 << 20;
    const splitter = new FrameSplitter();
    expect(splitter.push(h("02 80"))).toEqual([]);
    expect(splitter.held).toBe(2);
    expect(splitter.push(h("00 00"))).toEqual([]);
    expect(splitter.held).toBe(4 + size);
    const chunk = new Uint8Array(64 << 10).fill(7);
    for (let sent = 0; sent < size / 2; sent += chunk.length) {
      expect(splitter.push(chunk)).toEqual([]);
      expect(splitter.held).toBe(4 + size);
    }
    expect(splitter.buffered).toBe(4 + size / 2);
    // The rest, and one more frame (size 1) in the same chunk: the first comes out as the
    // buffer it was assembled in, exactly the frame; the second as a view of the chunk.
    const rest = new Uint8Array(size / 2 + 5);
    rest.set([0, 0, 0, 1, 9], size / 2);
    const frames = splitter.push(rest);
    expect(frames.map((f) => f.length)).toEqual([4 + size, 5]);
    expect(frames[0]!.buffer.byteLength).toBe(4 + size);
    expect(frames[0]![4 + size / 2 - 1]).toBe(7);
    expect(frames[1]!.buffer).toBe(rest.buffer);
    expect(splitter.held).toBe(0);
  });

  it("stays failed after a framing error, and rejects chunks that are not bytes", () => {
    const splitter = new FrameSplitter({ maxFrameSize: 10 });
    expect(() => splitter.push(h("00 00 00 0b"))).toThrow(KafkaDecodeError);
    // The stream has lost its framing: a valid frame afterwards is refused with the same error.
    expect(() => splitter.push(h("00 00 00 00"))).toThrow(/frame size 11/);
    expect(() => new FrameSplitter().push("abcd" as unknown as Uint8Array)).toThrow(KafkaDecodeError);
  });
});

describeShared("frame functions given the wrong kind of argument", "kafka-schemas", () => {
  it("answer with typed errors", async () => {
    const { protocol } = await corpusIndex();
    expect(() => protocol.encodeRequestFrame(null as never, {})).toThrow(KafkaEncodeError);
    expect(() => protocol.encodeResponseFrame(undefined as never, {})).toThrow(KafkaEncodeError);
    expect(() => protocol.decodeRequestFrame("00000000" as never)).toThrow(KafkaDecodeError);
    // A null options object is the same as none.
    const frame = protocol.encodeRequestFrame({ apiKey: 18, apiVersion: 0, correlationId: 1 }, {});
    expect(protocol.decodeRequestFrame(frame, null as never).header.correlationId).toBe(1);
  });

  it("turn a throwing getter in the header or the body into a KafkaEncodeError with it as the cause", async () => {
    const { protocol } = await corpusIndex();
    const boom = new Error("boom");
    const throwing = <T extends object>(base: T, key: string): T =>
      Object.defineProperty({ ...base }, key, {
        enumerable: true,
        get() {
          throw boom;
        },
      });
    const header = { apiKey: 18, apiVersion: 3, correlationId: 1 };
    const cases: (() => unknown)[] = [
      () => protocol.encodeRequestFrame(throwing(header, "apiKey"), {}),
      () => protocol.encodeRequestFrame(throwing(header, "clientId"), {}),
      () => protocol.encodeRequestFrame(header, throwing({ clientSoftwareName: "kw" }, "clientSoftwareVersion")),
      () => protocol.encodeResponseFrame(throwing(header, "correlationId"), {}),
      () => protocol.encodeResponseFrame(header, throwing({ errorCode: 0 }, "apiKeys")),
    ];
    for (const f of cases) {
      let error: unknown;
      try {
        f();
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(KafkaEncodeError);
      expect((error as KafkaEncodeError).code).toBe("INVALID_VALUE");
      expect((error as Error).cause).toBe(boom);
    }
  });
});
