/**
 * The cluster's store for record batches of up to 64 KiB: 1 MiB segments in WebAssembly.Memory
 * arenas, filled one after another by the batches of every partition.
 *
 * Why not ArrayBuffers: V8 counts their bytes as external memory and starts a full mark-compact
 * GC for about every 64 MB more of it, so a broker storing 110 MB of batches paid for several
 * full GCs of its whole heap. When the pool landed, a WebAssembly.Memory's pages looked exempt
 * (measured with kcat producing 1,000,000 records of 100 bytes to 32 partitions: 7 mark-compacts
 * in the produce became none; in interleaved runs the broker's CPU went 0.59 → 0.54 s, its wall
 * time 0.99 → 0.93 s). They are not, on Node 20.20 (V8 11.3): making 40 arenas of 16 MiB set off
 * 5 mark-compacts, 40 ArrayBuffers as large 6; a new arena costs about what 16 MiB of
 * ArrayBuffers do. The memories are arenas of 16 segments, made as needed and never grown
 * (growing would detach every view of one); an arena whose segments are all free again is
 * dropped, so its memory goes back when the garbage collector takes it.
 * (Node's `process.memoryUsage().external` counts each arena whole, as the pages it may use.)
 *
 * Memory held: every segment in use (holding a live batch, or the open one) counts whole. A
 * segment is closed when the next batch does not fit in its rest (under 64 KiB, a sixteenth);
 * batches deleted (retention, DeleteRecords, the cleaner, a topic deleted) leave holes, and when
 * the segments in use pass 1.1875 × the live bytes + two segments, {@link SegmentPool.sparse}
 * names the emptiest ones for the cluster to move their batches out of (see
 * `Cluster.compactSegments`), down to 1.0625 × + one segment. Appends add at most 16/15 of
 * their bytes, and one segment opened ahead: so the pool holds at most 1.1875 × the bytes of its
 * batches, plus 2 MiB. A segment left empty is reused only after
 * {@link QUARANTINE_MS}: a request may still be reading the views of the batches just deleted
 * (Fetch, the inspector and the cleaner read stored batches across awaits).
 */

/** Segment size (bytes). */
export const SEGMENT_BYTES = 1 << 20;
/** The largest batch stored in a segment (bytes); a larger one gets a buffer of the log's. */
export const POOLED_MAX = SEGMENT_BYTES >> 4;
/** How long an emptied segment waits before reuse (ms). */
const QUARANTINE_MS = 1000;
/** Past this × the live bytes (+ two segments) in use, the emptiest segments are moved out ... */
const COMPACT_AT = 1.1875;
/** ... down to this × (+ one segment). */
const COMPACT_TO = 1.0625;
/** Segments an arena (one WebAssembly.Memory) holds. */
const ARENA_SEGMENTS = 16;
/** WebAssembly pages (64 KiB) of an arena. */
const ARENA_PAGES = (ARENA_SEGMENTS * SEGMENT_BYTES) / 65536;

export class SegmentPool {
  /** The arenas by id (null: dropped), and the id of each one's buffer. */
  private readonly arenas: (Uint8Array | null)[] = [];
  private readonly arenaOf = new Map<ArrayBufferLike, number>();
  /** Free segments of each arena (an arena all free is dropped). */
  private readonly arenaFree: number[] = [];
  private readonly maxArenas: number;
  /** No memory could be had: every batch goes to the logs' own buffers from then on. */
  private failed = false;
  /** Live bytes of each segment (by id: arena × ARENA_SEGMENTS + index). */
  private readonly live: number[] = [];
  /** Segments free to use. */
  private free: number[] = [];
  /** Segments emptied, with when: free after QUARANTINE_MS. */
  private readonly quarantine: { segment: number; at: number }[] = [];
  private open = -1;
  private openUsed = 0;
  /** Segments holding live batches, the open one included. */
  private inUse = 0;
  /** Bytes of the live batches. */
  liveBytes = 0;

  /** `capacity`: the bytes of batches the pool must be able to hold (the cluster's maxLogBytes). */
  constructor(capacity: number) {
    const bytes = capacity * COMPACT_AT + 2 * SEGMENT_BYTES;
    this.maxArenas = Number.isFinite(bytes) ? Math.ceil(bytes / (ARENA_SEGMENTS * SEGMENT_BYTES)) : 4096;
  }

  /** Bytes of the segments in use (what the pool holds, less the free ones kept for reuse). */
  get heldBytes(): number {
    return this.inUse * SEGMENT_BYTES;
  }

  /** Bytes of the arenas made and not dropped (what the pool has taken from the system). */
  get arenaBytes(): number {
    return this.arenaOf.size * ARENA_SEGMENTS * SEGMENT_BYTES;
  }

  /** Room for a batch of `n` bytes (1..POOLED_MAX), or null: larger, or no segment left. */
  alloc(n: number): Uint8Array | null {
    if (n > POOLED_MAX || n <= 0 || this.failed) return null;
    if (this.open < 0 || SEGMENT_BYTES - this.openUsed < n) {
      if (!this.openSegment()) return null;
    }
    const at = (this.open % ARENA_SEGMENTS) * SEGMENT_BYTES + this.openUsed;
    this.openUsed += n;
    this.live[this.open]! += n;
    this.liveBytes += n;
    return this.arenas[Math.floor(this.open / ARENA_SEGMENTS)]!.subarray(at, at + n);
  }

  /** Whether `bytes` lies in one of this pool's arenas. */
  owns(bytes: Uint8Array): boolean {
    return this.arenaOf.has(bytes.buffer);
  }

  /** The segment holding `bytes` (which must be {@link owns owned}). */
  segmentOf(bytes: Uint8Array): number {
    return this.arenaOf.get(bytes.buffer)! * ARENA_SEGMENTS + Math.floor(bytes.byteOffset / SEGMENT_BYTES);
  }

  /** A stored batch's bytes are no longer held (a no-op for bytes not in the pool). */
  release(bytes: Uint8Array): void {
    if (!this.owns(bytes)) return;
    const segment = this.segmentOf(bytes);
    this.live[segment]! -= bytes.length;
    this.liveBytes -= bytes.length;
    if (this.live[segment] === 0 && segment !== this.open) this.retire(segment);
  }

  /**
   * The segments whose batches should be moved to new room (the emptiest first) when those in use
   * exceed the bound, else null. The open segment is never among them.
   */
  sparse(): Set<number> | null {
    if (this.heldBytes <= COMPACT_AT * this.liveBytes + 2 * SEGMENT_BYTES) return null;
    const candidates: number[] = [];
    for (let s = 0; s < this.live.length; s++) if (s !== this.open && this.live[s]! > 0) candidates.push(s);
    candidates.sort((a, b) => this.live[a]! - this.live[b]!);
    const chosen = new Set<number>();
    // Moving segment s frees it and takes live[s] bytes of new room.
    let held = this.heldBytes;
    for (const s of candidates) {
      if (held <= COMPACT_TO * this.liveBytes + SEGMENT_BYTES) break;
      chosen.add(s);
      held -= SEGMENT_BYTES - this.live[s]!;
    }
    return chosen.size === 0 ? null : chosen;
  }

  /**
   * Frees the segments whose quarantine is over and drops the arenas left all free; closes the
   * open segment when it holds nothing (so that its arena can go too). The cluster calls it each
   * second: without it, a pool no longer written to would keep what it had.
   */
  tidy(): void {
    if (this.open >= 0 && this.live[this.open] === 0) {
      this.retire(this.open);
      this.open = -1;
      this.openUsed = 0;
    }
    this.thaw();
  }

  private retire(segment: number): void {
    this.inUse--;
    this.quarantine.push({ segment, at: performance.now() });
  }

  private openSegment(): boolean {
    const previous = this.open;
    this.thaw();
    let next = this.free.pop();
    if (next === undefined && this.addArena()) next = this.free.pop();
    if (next === undefined) return false;
    this.arenaFree[Math.floor(next / ARENA_SEGMENTS)]!--;
    this.open = next;
    this.openUsed = 0;
    this.live[next] = 0;
    this.inUse++;
    // The segment closed: if its batches are all gone already, it is free.
    if (previous >= 0 && this.live[previous] === 0) this.retire(previous);
    return true;
  }

  /** Segments out of quarantine become free; an arena all free is dropped. */
  private thaw(): void {
    const now = performance.now();
    let dropped = false;
    while (this.quarantine.length > 0 && now - this.quarantine[0]!.at >= QUARANTINE_MS) {
      const { segment } = this.quarantine.shift()!;
      const arena = Math.floor(segment / ARENA_SEGMENTS);
      this.free.push(segment);
      if (++this.arenaFree[arena]! === ARENA_SEGMENTS) {
        this.arenaOf.delete(this.arenas[arena]!.buffer);
        this.arenas[arena] = null;
        dropped = true;
      }
    }
    if (dropped) this.free = this.free.filter((s) => this.arenas[Math.floor(s / ARENA_SEGMENTS)] !== null);
  }

  private addArena(): boolean {
    if (this.arenaOf.size >= this.maxArenas) return false;
    let memory: Uint8Array;
    try {
      memory = new Uint8Array(new WebAssembly.Memory({ initial: ARENA_PAGES, maximum: ARENA_PAGES }).buffer);
    } catch {
      // No memory for it: the logs' own buffers from now on.
      this.failed = true;
      return false;
    }
    // A dropped arena's id is reused (the segment ids stay small).
    let id = this.arenas.indexOf(null);
    if (id < 0) id = this.arenas.push(null) - 1;
    this.arenas[id] = memory;
    this.arenaOf.set(memory.buffer, id);
    this.arenaFree[id] = ARENA_SEGMENTS;
    for (let i = ARENA_SEGMENTS - 1; i >= 0; i--) {
      this.free.push(id * ARENA_SEGMENTS + i);
      this.live[id * ARENA_SEGMENTS + i] = 0;
    }
    return true;
  }
}
