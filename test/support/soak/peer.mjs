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
export function ids(prefix, from, count) {
  return Array.from({ length: count }, (_, i) => `${prefix}-${String(from + i).padStart(6, "0")}`);
}

/** Ends the driver: a last line, then exit 0 (clients' sockets and timers do not hold it). */
export function finish(event) {
  emit({ ...event, done: true });
  process.exit(0);
}

export const describe = (e) => (e instanceof Error ? `${e.name}: ${e.message}` : String(e));
