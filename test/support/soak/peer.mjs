/**
 * What every soak driver of this folder shares (test/broker-soak.test.ts runs them as child
 * processes): its JSON argument, JSON lines on stdout (`emit`), "stop" on stdin (or stdin
 * closed) to end gracefully, and a deadline after which it exits on its own (code 2).
 */

import { createInterface } from "node:readline";

export const args = JSON.parse(process.argv[process.argv.length - 1]);

/** One JSON line on stdout (the test reads them as they come). */
export function emit(event) {
  process.stdout.write(`${JSON.stringify(event)}\n`);
}

let stopping = false;
const stoppers = [];
/** True once the test asked the driver to stop. */
export const stopped = () => stopping;
/** Runs `f` (once) when the test asks the driver to stop. */
export function onStop(f) {
  if (stopping) void f();
  else stoppers.push(f);
}
createInterface({ input: process.stdin }).on("line", (line) => {
  if (line.trim() === "stop") stop();
});
process.stdin.on("end", stop);
function stop() {
  if (stopping) return;
  stopping = true;
  for (const f of stoppers.splice(0)) void f();
}

const deadline = setTimeout(() => {
  console.error(`${args.role}: not done within ${args.timeoutMs} ms`);
  process.exit(2);
}, args.timeoutMs);
deadline.unref();

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The next `count` record ids of a producer: `<prefix>-<n>`, n zero-padded. */
function ids(prefix, from, count) {
  return Array.from({ length: count }, (_, i) => `${prefix}-${String(from + i).padStart(6, "0")}`);
}

/**
 * The `produce` role: `{ ready }`, then `args.batch` numbered records (key and value: the id)
 * every `args.intervalMs` until stopped (or `args.max`), through `send(ids, index)` (the index-th
 * send); `{ acked: ids }` when it resolves, `{ failed: ids, error }` when it rejects (those ids
 * are never sent again). Resolves with how many were sent.
 */
export async function produceNumbered(send) {
  emit({ ready: true });
  let n = 0;
  for (let index = 0; !stopped() && n < args.max; index++) {
    const batch = ids(args.prefix, n, args.batch);
    n += batch.length;
    try {
      await send(batch, index);
      emit({ acked: batch });
    } catch (e) {
      emit({ failed: batch, error: describe(e) });
    }
    await sleep(args.intervalMs);
  }
  return n;
}

/** Emits `{ held: [partitions] }` whenever `held()` (the member's partitions of `args.topic`) changes; returns a stopper. */
export function reportHeld(held) {
  let last = "";
  const timer = setInterval(() => {
    const now = JSON.stringify([...held()].sort((a, b) => a - b));
    if (now !== last) emit({ held: JSON.parse((last = now)) });
  }, 100);
  return () => clearInterval(timer);
}

/** Ends the driver: a last line, then exit 0 (clients' sockets and timers do not hold it). */
export function finish(event) {
  emit({ ...event, done: true });
  process.exit(0);
}

export const describe = (e) => (e instanceof Error ? `${e.name}: ${e.message}` : String(e));
