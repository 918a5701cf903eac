/**
 * A connection's request frames read into a slab that is reused from read to read, so that a
 * client's steady traffic allocates no ArrayBuffer per socket read.
 *
 * Why: a socket read through Node's streams is a new Buffer, whose bytes V8 counts as external
 * memory, and V8 answers external memory with full GCs. Measured with kcat producing 1,000,000
 * records of 100 bytes (110 MB of batches) to three brokers: mark-compacts after startup in three
 * produces went 23 → 15 with these slabs, the broker's GC time in five produces 843 → 414 ms
 * (`--trace-gc`, `--cpu-prof`). Node reads into a buffer of the caller's own through `onread`
 * (net.Socket), which accepted server sockets do not expose: {@link useSlabReads} sets it up on
 * them, and says so when this Node.js does not have what it needs (the connection then reads
 * through 'data' events and a FrameSplitter, as before).
 *
 * The slab: reads fill it from the end of the bytes already there; a frame complete in it is
 * handed out as a view (zero-copy), a frame spread over reads stays where it is and the next read
 * lands right after it, so it is a view too. When less than {@link MIN_READ} bytes are left the
 * partial frame moves to the front: in place when every frame handed out of the slab has been
 * given back ({@link SlabFrameReader.done}), else into a new slab (the old one lives on in the
 * views still held; a new connection's small first slab is replaced by a full one, and an idle
 * connection's full slab by a small one: {@link SlabFrameReader.shrink}). A frame of more than
 * half the (full) slab still partial after a read goes on in a buffer of exactly its size, which
 * the next reads fill directly (as FrameSplitter assembles it).
 */

import type net from "node:net";
import { KafkaDecodeError } from "../../src/runtime/index.js";

/** Bytes of a busy connection's slab: a few of kcat's Produce requests (10–30 KB at linger.ms 5). */
export const SLAB_BYTES = 256 * 1024;
/** A read is given at least this much room: with less left, the partial frame moves to the front. */
const MIN_READ = 16 * 1024;
/** A new connection's first slab; it grows to the full size the first time it fills (a busy connection). */
const FIRST_SLAB_BYTES = 2 * MIN_READ;
/**
 * Full slabs a connection keeps besides its current one, for when the current one fills while
 * frames of it are still being answered (a Produce waiting for its turn, a yield between record
 * sets): most of kcat's slabs are reused from these rather than allocated.
 */
const MAX_SPARE_SLABS = 3;
const NO_FRAMES: readonly Uint8Array[] = Object.freeze([]);

/** What a connection needs of a frame reader: complete frames and what it holds. */
export interface FrameSource {
  /** Bytes received of the frame not complete yet (its size prefix included). */
  readonly buffered: number;
  /** Bytes counted for the frame not complete yet: its whole size from its size prefix on, else the prefix bytes. */
  readonly held: number;
}

/** A slab and what is handed out of it. */
class Slab {
  /** Frames handed out of it and not given back. */
  pending = 0;
  /** A frame of it was kept after its answer: it is never written again. */
  pinned = false;
  constructor(readonly bytes: Uint8Array) {}
  get free(): boolean {
    return this.pending === 0 && !this.pinned;
  }
}

export class SlabFrameReader implements FrameSource {
  private slab: Slab | null = null;
  /** Full slabs used before, kept for reuse once every frame of theirs is given back. */
  private readonly spare: Slab[] = [];
  /** The first byte not handed out (a partial frame or size prefix starts there). */
  private start = 0;
  /** The end of the bytes read into the slab. */
  private end = 0;
  /** A frame of more than half the slab, read into a buffer of its own. */
  private big: Uint8Array | null = null;
  private bigFilled = 0;
  /** The connection went idle ({@link shrink}): the next region is in a new small slab, when nothing is partial. */
  private shrinking = false;
  /** Bytes read so far (error offsets are stream positions). */
  private streamPos = 0;
  private failure: KafkaDecodeError | null = null;

  /**
   * @param maxFrameSize the largest frame accepted, size prefix excluded (bytes, 0..2^31-1)
   * @param slabBytes the slab's size (bytes; at least 2 × MIN_READ)
   */
  constructor(
    private readonly maxFrameSize: number,
    private readonly slabBytes = SLAB_BYTES,
  ) {
    if (slabBytes < 2 * MIN_READ) throw new RangeError(`slabBytes must be at least ${2 * MIN_READ}`);
  }

  get buffered(): number {
    return this.big !== null ? this.bigFilled : this.end - this.start;
  }

  get held(): number {
    if (this.big !== null) return this.big.length;
    const n = this.end - this.start;
    // A size prefix in the slab was checked by filled(): at most maxFrameSize.
    return n < 4 ? n : 4 + readSize(this.slab!.bytes, this.start);
  }

  /**
   * The region the next read fills (Node keeps it until that read): the rest of a large frame,
   * else the slab's room after the bytes read so far. Only here do bytes move, as no read is
   * outstanding while this runs.
   */
  region(): Uint8Array {
    if (this.big !== null) return this.big.subarray(this.bigFilled);
    let slab = this.slab;
    if (slab === null) {
      slab = this.slab = this.firstSlab();
    } else if (this.start === this.end && slab.free) {
      // Nothing partial and nothing handed out: start again at the front (no copy at all), in a
      // small slab again once the connection went idle.
      if (this.shrinking && slab.bytes.length > FIRST_SLAB_BYTES) slab = this.slab = this.firstSlab();
      this.shrinking = false;
      this.start = this.end = 0;
    } else if (slab.bytes.length - this.end < MIN_READ) {
      const rest = this.end - this.start;
      if (slab.free && slab.bytes.length === this.slabBytes) {
        slab.bytes.copyWithin(0, this.start, this.end);
      } else {
        const i = this.spare.findIndex((s) => s.free);
        const next = i >= 0 ? this.spare.splice(i, 1)[0]! : new Slab(new Uint8Array(this.slabBytes));
        next.bytes.set(slab.bytes.subarray(this.start, this.end));
        if (!slab.pinned && slab.bytes.length === this.slabBytes) {
          // Its frames are still being answered: reused once they are given back.
          this.spare.push(slab);
          if (this.spare.length > MAX_SPARE_SLABS) this.spare.shift();
        }
        slab = this.slab = next;
      }
      this.start = 0;
      this.end = rest;
    }
    return slab.bytes.subarray(this.end);
  }

  /** A new (or idle) connection's small slab. */
  private firstSlab(): Slab {
    return new Slab(new Uint8Array(Math.min(FIRST_SLAB_BYTES, this.slabBytes)));
  }

  /**
   * `nread` bytes were read into the last {@link region}; returns the frames they complete (each
   * with its size prefix; views of the slab, or a large frame's own buffer). Give each frame back
   * with {@link done} once nothing reads it any more.
   * @throws KafkaDecodeError `INVALID_LENGTH` for a size prefix below 0 or above maxFrameSize
   *   (offset: its position in the stream); every later call throws it again.
   */
  filled(nread: number): readonly Uint8Array[] {
    if (this.failure !== null) throw this.failure;
    this.streamPos += nread;
    const big = this.big;
    if (big !== null) {
      this.bigFilled += nread;
      if (this.bigFilled < big.length) return NO_FRAMES;
      this.big = null;
      return [big];
    }
    this.end += nread;
    const slab = this.slab!.bytes;
    const end = this.end;
    let at = this.start;
    let frames: Uint8Array[] | null = null;
    while (end - at >= 4) {
      const size = readSize(slab, at);
      if (size < 0 || size > this.maxFrameSize) {
        this.start = at;
        this.failure = new KafkaDecodeError(
          "INVALID_LENGTH",
          `frame size ${size} is outside 0..${this.maxFrameSize}`,
          this.streamPos - (end - at),
        );
        throw this.failure;
      }
      const total = 4 + size;
      if (end - at < total) {
        if (total > this.slabBytes >> 1) {
          // Too large to wait in the slab: its own buffer, which the next reads fill directly.
          const own = new Uint8Array(total);
          own.set(slab.subarray(at, end));
          this.big = own;
          this.bigFilled = end - at;
          at = end;
        }
        break;
      }
      (frames ??= []).push(slab.subarray(at, at + total));
      this.slab!.pending++;
      at += total;
    }
    this.start = at;
    return frames ?? NO_FRAMES;
  }

  /**
   * The connection is idle: the spare slabs go now, and a full slab is replaced by a small one at
   * the next read's end when nothing of it is partial or handed out (the region Node holds for
   * that read stays as it is). A busy connection grows again as before.
   */
  shrink(): void {
    this.spare.length = 0;
    this.shrinking = true;
  }

  /** Whether `frame` (from {@link filled}) is a view of the slab, not a buffer of its own. */
  isView(frame: Uint8Array): boolean {
    return this.slab !== null && frame.buffer === this.slab.bytes.buffer;
  }

  /**
   * A frame handed out by {@link filled} is no longer read. `kept`: something may still hold it
   * (an onExchange callback, a test's interceptor, a plugin's handler), so its slab is never
   * written again.
   */
  done(frame: Uint8Array, kept: boolean): void {
    const buffer = frame.buffer;
    let slab = this.slab;
    if (slab === null) return;
    if (slab.bytes.buffer !== buffer) {
      slab = null;
      for (const s of this.spare) if (s.bytes.buffer === buffer) slab = s;
      // A frame of its own (a large one), or of a slab no longer kept.
      if (slab === null) return;
    }
    slab.pending--;
    if (kept) slab.pinned = true;
  }
}

function readSize(bytes: Uint8Array, at: number): number {
  return (bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!;
}

/** Node's own names for net.Socket's `onread` state (lib/net.js), found on a socket by description. */
const ONREAD_SYMBOLS = ["kBuffer", "kBufferCb", "kBufferGen"] as const;

/**
 * Makes an accepted socket (created paused: `pauseOnConnect`) read into `reader`'s regions and
 * call `onRead(nread)` after each read, as `net.connect`'s `onread` option does; returning false
 * from `onRead` stops reading until `socket.resume()`. Returns false, changing nothing, when this
 * Node.js lacks what it takes (the caller then reads 'data' events).
 */
export function useSlabReads(socket: net.Socket, reader: SlabFrameReader, onRead: (nread: number) => boolean): boolean {
  const handle = (socket as unknown as { _handle?: { useUserBuffer?: unknown } | null })._handle;
  if (handle == null || typeof handle.useUserBuffer !== "function") return false;
  const found = new Map<string, symbol>();
  for (const s of Object.getOwnPropertySymbols(socket)) {
    if ((ONREAD_SYMBOLS as readonly (string | undefined)[]).includes(s.description)) found.set(s.description!, s);
  }
  if (found.size !== ONREAD_SYMBOLS.length) return false;
  const state = socket as unknown as Record<symbol, unknown>;
  // Node reads into state[kBuffer], calls state[kBufferCb](nread, buffer), then asks
  // state[kBufferGen]() for the next read's buffer.
  const first = reader.region();
  state[found.get("kBufferGen")!] = () => reader.region();
  state[found.get("kBufferCb")!] = (nread: number) => onRead(nread);
  state[found.get("kBuffer")!] = first;
  (handle.useUserBuffer as (buffer: Uint8Array) => void).call(handle, first);
  return true;
}
