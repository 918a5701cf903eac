/**
 * The broker's slab reader (broker/src/frame-reader.ts): size-prefixed frames read into a slab
 * reused from read to read. Frames come out as views whose bytes stay as read until they are
 * given back; a slab is written again only when every frame of it was given back and none was
 * kept; a frame of more than half the slab gets a buffer of its own; bad size prefixes fail with
 * their stream offset. Driven as Node drives it: region() → bytes into that region → filled(n).
 */

import net from "node:net";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SlabFrameReader, useSlabReads } from "../broker/src/frame-reader.js";
import { KafkaDecodeError } from "../src/runtime/index.js";

const SLAB = 32 * 1024; // the smallest slab (2 × the 16 KiB minimum read), so that tests wrap it often

/** A frame: int32 size, then `size` bytes of `fill` (big-endian prefix, as Kafka's). */
function frame(size: number, fill: number): Uint8Array {
  const f = new Uint8Array(4 + size).fill(fill & 0xff);
  new DataView(f.buffer).setInt32(0, size);
  return f;
}

/** Writes `bytes` (at most the region's length) into the next region and reports the read. */
function read(reader: SlabFrameReader, bytes: Uint8Array): readonly Uint8Array[] {
  const region = reader.region();
  expect(bytes.length).toBeLessThanOrEqual(region.length);
  region.set(bytes);
  return reader.filled(bytes.length);
}

/**
 * Feeds `stream` in reads of at most `chunk` bytes (each also bounded by the region), giving each
 * frame to `check` and then back to the reader; returns every frame.
 */
function feed(
  reader: SlabFrameReader,
  stream: Uint8Array,
  chunk: number,
  check: (f: Uint8Array) => void = () => {},
): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let at = 0; at < stream.length;) {
    const n = Math.min(chunk, stream.length - at, reader.region().length);
    for (const f of read(reader, stream.subarray(at, at + n))) {
      out.push(f);
      check(f);
      reader.done(f, false);
    }
    at += n;
  }
  return out;
}

const concat = (parts: Uint8Array[]) => new Uint8Array(Buffer.concat(parts));

describe("SlabFrameReader", () => {
  it("hands out the frames of one read as views of one slab, bytes as sent", () => {
    const reader = new SlabFrameReader(1 << 20, SLAB);
    const sent = [frame(8, 1), frame(0, 2), frame(100, 3)];
    const frames = read(reader, concat(sent));
    expect(frames.map((f) => Buffer.from(f).toString("hex"))).toEqual(sent.map((f) => Buffer.from(f).toString("hex")));
    expect(new Set(frames.map((f) => f.buffer)).size).toBe(1);
    expect(frames.every((f) => reader.isView(f))).toBe(true);
  });

  it("a frame and its size prefix split over one-byte reads come out whole, still a view (the next read lands after the last)", () => {
    const reader = new SlabFrameReader(1 << 20, SLAB);
    const sent = frame(300, 7);
    const frames = feed(reader, sent, 1);
    expect(frames).toHaveLength(1);
    expect(Buffer.from(frames[0]!).equals(Buffer.from(sent))).toBe(true);
    expect(reader.isView(frames[0]!)).toBe(true);
  });

  it("counts what a partial frame holds: the prefix bytes, then the whole frame once its size is known", () => {
    const reader = new SlabFrameReader(1 << 20, SLAB);
    const sent = frame(100, 1);
    read(reader, sent.subarray(0, 2));
    expect([reader.buffered, reader.held]).toEqual([2, 2]);
    read(reader, sent.subarray(2, 14));
    expect([reader.buffered, reader.held]).toEqual([14, 104]);
    expect(read(reader, sent.subarray(14))).toHaveLength(1);
    expect([reader.buffered, reader.held]).toEqual([0, 0]);
  });

  it("reads a frame of more than half the slab into a buffer of exactly its size, the reads going straight into it", () => {
    const reader = new SlabFrameReader(1 << 20, SLAB);
    const sent = frame(SLAB, 9); // 4 + 32768 bytes: more than half of a 32 KiB slab
    read(reader, sent.subarray(0, 10));
    expect(reader.held).toBe(SLAB + 4);
    // The next region is the rest of that frame's own buffer.
    expect(reader.region().length).toBe(SLAB + 4 - 10);
    const frames = feed(reader, sent.subarray(10), 5000);
    expect(frames).toHaveLength(1);
    expect(frames[0]!.byteOffset).toBe(0);
    expect(frames[0]!.buffer.byteLength).toBe(SLAB + 4);
    expect(reader.isView(frames[0]!)).toBe(false);
    expect(Buffer.from(frames[0]!).equals(Buffer.from(sent))).toBe(true);
  });

  it("writes a slab again once its frames are given back, so steady traffic allocates no new slab", () => {
    const reader = new SlabFrameReader(1 << 20, SLAB);
    const sent = Array.from({ length: 400 }, (_, i) => frame(1000 + (i % 37), i));
    let n = 0;
    const check = (f: Uint8Array) =>
      expect(Buffer.from(f).equals(Buffer.from(sent[n++]!)), `frame ${n - 1}`).toBe(true);
    const stream = concat(sent);
    feed(reader, stream.subarray(0, 100_000), 4096, check);
    const slab = reader.region().buffer;
    feed(reader, stream.subarray(100_000), 4096, check);
    expect(reader.region().buffer).toBe(slab);
    expect(n).toBe(400);
  });

  it("never writes over a frame not given back, nor over one kept (pinned)", () => {
    const reader = new SlabFrameReader(1 << 20, SLAB);
    const sent = Array.from({ length: 300 }, (_, i) => frame(500 + ((i * 97) % 3000), i));
    const stream = concat(sent);
    const held: { frame: Uint8Array; i: number }[] = [];
    let n = 0;
    for (let at = 0; at < stream.length;) {
      const k = Math.min(3000, stream.length - at, reader.region().length);
      for (const f of read(reader, stream.subarray(at, at + k))) {
        const i = n++;
        // Frames 10 and 11 are kept after being given back; every fifth one is held back a while.
        if (i === 10 || i === 11) reader.done(f, true);
        if (i % 5 === 0 || i === 10 || i === 11) held.push({ frame: f, i });
        else reader.done(f, false);
      }
      // The held frames (but 10 and 11) are given back after a few more reads.
      if (held.length > 6) {
        const { frame: f, i } = held.shift()!;
        expect(Buffer.from(f).equals(Buffer.from(sent[i]!)), `frame ${i}`).toBe(true);
        if (i !== 10 && i !== 11) reader.done(f, false);
      }
      at += k;
    }
    expect(n).toBe(300);
    for (const { frame: f, i } of held) expect(Buffer.from(f).equals(Buffer.from(sent[i]!)), `frame ${i}`).toBe(true);
  });

  it("any frames, any reads, any order of giving back, idle or not: every frame is as sent until given back", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 40_000 }), { minLength: 1, maxLength: 60 }),
        fc.array(fc.integer({ min: 1, max: 20_000 }), { minLength: 1, maxLength: 20 }),
        fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 1, maxLength: 20 }),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 20 }),
        (sizes, chunks, holds, idle) => {
          // A 64 KiB slab: its first slab is the 32 KiB one, so shrinking changes something.
          const reader = new SlabFrameReader(1 << 20, 2 * SLAB);
          const sent = sizes.map((s, i) => frame(s, i + 1));
          const stream = concat(sent);
          const out: { f: Uint8Array; i: number; until: number }[] = [];
          let n = 0;
          let reads = 0;
          // As Node drives it: one region asked for after each read, the read landing in it.
          let region = reader.region();
          for (let at = 0; at < stream.length; reads++) {
            const k = Math.min(chunks[reads % chunks.length]!, stream.length - at, region.length);
            region.set(stream.subarray(at, at + k));
            for (const f of reader.filled(k)) {
              out.push({ f, i: n, until: reads + holds[n % holds.length]! });
              n++;
            }
            at += k;
            for (const o of out.filter((o) => o.until <= reads)) {
              if (!Buffer.from(o.f).equals(Buffer.from(sent[o.i]!))) return false;
              reader.done(o.f, false);
              out.splice(out.indexOf(o), 1);
            }
            region = reader.region();
            // The cluster's timer, between reads: the connection looks idle now and then.
            if (idle[reads % idle.length]!) reader.shrink();
          }
          return n === sent.length && out.every((o) => Buffer.from(o.f).equals(Buffer.from(sent[o.i]!)));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("once idle (shrink), goes back to a small slab at its next read with nothing partial, and grows again when busy", () => {
    const reader = new SlabFrameReader(1 << 20); // the default: 32 KiB first, 256 KiB once busy
    const sent = Array.from({ length: 100 }, (_, i) => frame(5000, i));
    let n = 0;
    feed(reader, concat(sent), 8000, (f) => expect(Buffer.from(f).equals(Buffer.from(sent[n++]!))).toBe(true));
    // What Node holds for the next read (it asks for a region once after each read).
    const held = reader.region();
    expect(held.buffer.byteLength).toBe(256 * 1024);
    reader.shrink();
    // The region Node holds is not moved: the next read lands in the full slab...
    const small = frame(10, 1);
    held.set(small);
    const got = reader.filled(small.length);
    expect(got.map((f) => Buffer.from(f).toString("hex"))).toEqual([Buffer.from(small).toString("hex")]);
    // ...and while its frame is not given back, the slab stays.
    expect(reader.region().buffer.byteLength).toBe(256 * 1024);
    reader.done(got[0]!, false);
    const again = read(reader, frame(3, 2));
    for (const f of again) reader.done(f, false);
    expect(reader.region().buffer.byteLength).toBe(32 * 1024);
    n = 0;
    feed(reader, concat(sent), 8000, (f) => expect(Buffer.from(f).equals(Buffer.from(sent[n++]!))).toBe(true));
    expect(reader.region().buffer.byteLength).toBe(256 * 1024);
  });

  it("fails on a size prefix outside 0..maxFrameSize with its offset in the stream, and keeps failing", () => {
    const reader = new SlabFrameReader(1000, SLAB);
    read(reader, frame(10, 1)); // bytes 0..13
    const bad = new Uint8Array([0, 0, 0x03, 0xe9]); // 1001
    let error: unknown;
    try {
      read(reader, concat([frame(5, 2), bad])); // the bad prefix at stream offset 14 + 9 = 23
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(KafkaDecodeError);
    expect((error as KafkaDecodeError).code).toBe("INVALID_LENGTH");
    expect((error as KafkaDecodeError).offset).toBe(23);
    expect(() => read(reader, frame(1, 1))).toThrow(KafkaDecodeError);
    const negative = new SlabFrameReader(1000, SLAB);
    expect(() => read(negative, new Uint8Array([0xff, 0xff, 0xff, 0xfe]))).toThrow(
      /frame size -2 is outside 0\.\.1000/,
    );
  });

  it("useSlabReads leaves a socket without Node's user-buffer reads as it is, and reads a real one into the slab", async () => {
    const fake = new net.Socket();
    expect(useSlabReads(fake, new SlabFrameReader(1000), () => true)).toBe(false); // no handle yet
    fake.destroy();

    const got: string[] = [];
    const server = net.createServer({ pauseOnConnect: true }, (socket) => {
      const reader = new SlabFrameReader(1 << 20);
      const installed = useSlabReads(socket, reader, (nread) => {
        for (const f of reader.filled(nread)) {
          got.push(Buffer.from(f.subarray(4)).toString());
          reader.done(f, false);
        }
        return true;
      });
      got.push(`installed ${installed}`);
      socket.resume();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const client = net.connect((server.address() as net.AddressInfo).port, "127.0.0.1");
    const text = (s: string) => {
      const b = Buffer.alloc(4 + s.length);
      b.writeInt32BE(s.length);
      b.write(s, 4);
      return b;
    };
    const all = Buffer.concat([text("hello"), text("world"), text("x".repeat(70_000))]);
    client.write(all.subarray(0, 7));
    await new Promise((r) => setTimeout(r, 20));
    client.end(all.subarray(7));
    for (let i = 0; i < 200 && got.length < 4; i++) await new Promise((r) => setTimeout(r, 10));
    client.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    expect(got).toEqual(["installed true", "hello", "world", "x".repeat(70_000)]);
  });
});
