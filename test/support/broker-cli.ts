/**
 * `kafka-wire broker` as a child process (the workspaces' sources under tsx): waits for the
 * lines it prints (`bootstrap=...`, and `control=...` with --control-port) and stops it by
 * closing its stdin, as a test script would.
 */

import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { REPO_ROOT } from "./shared.js";

/** A running `kafka-wire broker`. */
export interface BrokerCli {
  readonly bootstrap: string;
  /** The `control=` URL, or null without --control-port. */
  readonly control: string | null;
  readonly child: ChildProcess;
  /** Everything printed on stderr so far (at most 64 KiB). */
  stderr(): string;
  /** Closes stdin and resolves with the exit code (SIGKILL after `timeoutMs`). */
  stop(timeoutMs?: number): Promise<number | null>;
}

/** Spawns the CLI with `args`; resolves once it printed the lines it prints before serving. */
export function startBrokerCli(args: readonly string[], timeoutMs = 60_000): Promise<BrokerCli> {
  const child = spawn(
    process.execPath,
    ["--conditions=source", "--import", "tsx", path.join(REPO_ROOT, "cli/cli.ts"), "broker", ...args],
    { cwd: REPO_ROOT, stdio: ["pipe", "pipe", "pipe"] },
  );
  const wantsControl = args.includes("--control-port");
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (s: string) => {
    if (stderr.length < 65536) stderr += s;
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const stop = async (ms = 30_000): Promise<number | null> => {
    const kill = setTimeout(() => child.kill("SIGKILL"), ms);
    child.stdin!.end();
    try {
      return await exited;
    } finally {
      clearTimeout(kill);
    }
  };
  return new Promise<BrokerCli>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`kafka-wire broker printed no address in ${timeoutMs} ms; stderr: ${stderr}`));
    }, timeoutMs);
    let stdout = "";
    child.stdout!.setEncoding("utf8").on("data", (s: string) => {
      stdout += s;
      const bootstrap = /^bootstrap=(\S+)$/m.exec(stdout)?.[1];
      const control = /^control=(\S+)$/m.exec(stdout)?.[1] ?? null;
      if (bootstrap === undefined || (wantsControl && control === null)) return;
      clearTimeout(timer);
      resolve({ bootstrap, control, child, stderr: () => stderr, stop });
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`kafka-wire broker exited (${code}) before printing its addresses; stderr: ${stderr}`));
    });
  });
}
