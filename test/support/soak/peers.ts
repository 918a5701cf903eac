/**
 * The soak's client processes (test/broker-soak.test.ts): each driver of this folder runs in a
 * process group of its own, takes its JSON argument, reports JSON lines on stdout and stops on
 * "stop" on stdin (see peer.mjs). A peer can be killed (SIGKILL to its group, as a crashed
 * application dies: no LeaveGroup, no last heartbeat).
 */

import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";

/** One line a driver printed. */
export type PeerEvent = Record<string, unknown>;

export class Peer {
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** True once the process has exited. */
  gone = false;
  /** True when the test killed it on purpose. */
  killed = false;
  private readonly child: ChildProcess;
  private stderrTail = "";
  private readyResolve!: () => void;
  /** Resolves on the driver's `{ ready: true }`. */
  readonly ready = new Promise<void>((resolve) => (this.readyResolve = resolve));

  constructor(
    readonly name: string,
    command: string,
    args: readonly string[],
    json: Record<string, unknown>,
    onEvent: (peer: Peer, event: PeerEvent) => void,
  ) {
    this.child = spawn(command, [...args, JSON.stringify(json)], {
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
    });
    createInterface({ input: this.child.stdout! }).on("line", (line) => {
      let event: PeerEvent;
      try {
        event = JSON.parse(line) as PeerEvent;
      } catch {
        this.stderrTail = `${this.stderrTail}\n[stdout] ${line}`.slice(-8000);
        return;
      }
      if (event["ready"] === true) this.readyResolve();
      onEvent(this, event);
    });
    this.child.stderr!.setEncoding("utf8").on("data", (s: string) => {
      this.stderrTail = (this.stderrTail + s).slice(-8000);
    });
    this.child.stdin!.on("error", () => {});
    this.exited = new Promise((resolve) => {
      this.child.once("close", (code, signal) => {
        this.gone = true;
        this.killGroup();
        resolve({ code, signal });
      });
      this.child.once("error", (e) => {
        this.stderrTail += `\nspawn: ${e.message}`;
        this.gone = true;
        resolve({ code: null, signal: null });
      });
    });
  }

  /** What it wrote on stderr lately (for failure messages). */
  stderr(): string {
    return this.stderrTail;
  }

  /** Waits for `{ ready: true }` within `timeoutMs`; rejects if the process ends first. */
  async waitReady(timeoutMs: number): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      await Promise.race([
        this.ready,
        this.exited.then(({ code, signal }) => {
          throw new Error(`${this.name} exited (${code ?? signal}) before it was ready:\n${this.stderrTail}`);
        }),
        new Promise((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`${this.name} not ready within ${timeoutMs} ms:\n${this.stderrTail}`)),
            timeoutMs,
          );
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Asks it to stop ("stop" on stdin) and waits up to `timeoutMs` for it to exit, then kills it. */
  async stop(timeoutMs: number): Promise<{ code: number | null; signal: NodeJS.Signals | null; timedOut: boolean }> {
    if (!this.gone) this.child.stdin!.write("stop\n");
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = await Promise.race([
      this.exited.then(() => false),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), timeoutMs))),
    ]);
    clearTimeout(timer);
    if (timedOut) this.kill();
    return { ...(await this.exited), timedOut };
  }

  /** SIGKILL to its whole process group. */
  kill(): void {
    this.killed = true;
    this.killGroup();
  }

  private killGroup(): void {
    try {
      process.kill(-this.child.pid!, "SIGKILL");
    } catch {
      // already gone
    }
  }
}

/** A seeded PRNG (mulberry32): the same seed, the same fault schedule. */
export function rng(seed: number): {
  next(): number;
  int(lo: number, hi: number): number;
  pick<T>(xs: readonly T[]): T;
} {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    /** An integer in lo..hi (both included). */
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: (xs) => xs[Math.floor(next() * xs.length)]!,
  };
}
