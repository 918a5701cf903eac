/**
 * Who is connected to a listening port, from Linux's /proc/net/tcp and /proc/net/tcp6: for the
 * proxy tests' "the broker sees connections only from the proxy". Each established connection
 * to one of `ports` is listed with its peer's port (the connecting side's local port).
 */

import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/** Every established TCP connection of this machine: local and remote port, socket inode. */
function* established(): Generator<{ local: number; remote: number; inode: string }> {
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      continue;
    }
    // "  sl  local_address rem_address   st ... inode": addresses are hex IP:port; state 01 is ESTABLISHED.
    for (const line of text.split("\n").slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length < 10 || cols[3] !== "01") continue;
      yield {
        local: parseInt(cols[1]!.split(":")[1]!, 16),
        remote: parseInt(cols[2]!.split(":")[1]!, 16),
        inode: cols[9]!,
      };
    }
  }
}

/** The peer ports of established TCP connections whose local port is one of `ports`. */
export function peersOf(ports: ReadonlySet<number>): Set<number> {
  const peers = new Set<number>();
  for (const c of established()) if (ports.has(c.local)) peers.add(c.remote);
  return peers;
}

/** The remote ports of a process's established TCP connections (its socket inodes in /proc/<pid>/fd). */
export function remotePortsOf(pid: number): Set<number> {
  const inodes = new Set<string>();
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (m !== null) inodes.add(m[1]!);
      } catch {
        // closed meanwhile
      }
    }
  } catch {
    return new Set();
  }
  const ports = new Set<number>();
  for (const c of established()) if (inodes.has(c.inode)) ports.add(c.remote);
  return ports;
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
