/**
 * Who is connected to a listening port, from Linux's /proc/net/tcp and /proc/net/tcp6: for the
 * proxy tests' "the broker sees connections only from the proxy". Each established connection
 * to one of `ports` is listed with its peer's port (the connecting side's local port).
 */

import { readFileSync } from "node:fs";

/** The peer ports of established TCP connections whose local port is one of `ports`. */
export function peersOf(ports: ReadonlySet<number>): Set<number> {
  const peers = new Set<number>();
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      continue;
    }
    // "  sl  local_address rem_address   st ...": addresses are hex IP:port; state 01 is ESTABLISHED.
    for (const line of text.split("\n").slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length < 4 || cols[3] !== "01") continue;
      const local = parseInt(cols[1]!.split(":")[1]!, 16);
      const remote = parseInt(cols[2]!.split(":")[1]!, 16);
      if (ports.has(local)) peers.add(remote);
    }
  }
  return peers;
}

/** True when this machine has /proc/net/tcp (Linux). */
export function canSeePeers(): boolean {
  try {
    readFileSync("/proc/net/tcp", "utf8");
    return true;
  } catch {
    return false;
  }
}

/** Samples {@link peersOf} every `everyMs` until stopped; `stop()` returns every peer port seen. */
export function watchPeers(ports: ReadonlySet<number>, everyMs = 20): { stop(): Set<number> } {
  const seen = new Set<number>();
  const sample = (): void => {
    for (const p of peersOf(ports)) seen.add(p);
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return seen;
    },
  };
}
