/**
 * librdkafka 2.15.1, built by `.ci/build-librdkafka.sh` (from the C source in the npm tarball of
 * @confluentinc/kafka-javascript 1.10.1) together with test/support/mock-cluster.c: where the build
 * leaves it and how its mock cluster is started. No vitest here, so that benchmarks (bench/) use
 * it too; test/support/librdkafka.ts re-exports it with the tests' helpers.
 */

import { spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import os from "node:os";
import path from "node:path";

/** The librdkafka version the build script pins (its VERSION). */
export const LIBRDKAFKA_VERSION = "2.15.1";

/**
 * What the build reports as `rd_kafka_version_str()` (mock-cluster's `version=`, kcat's `-V`):
 * the version alone, the build being optimized (an unoptimized one appends -O0).
 */
export const LIBRDKAFKA_VERSION_STRING = LIBRDKAFKA_VERSION;

/** What `.ci/build-librdkafka.sh` leaves in its cache folder. */
export interface Librdkafka {
  /** The folder of `librdkafka.so.1`: `LD_LIBRARY_PATH` for Debian's kcat to run on it. */
  readonly libDir: string;
  /** The compiled test/support/mock-cluster.c. */
  readonly mockCluster: string;
}

/** The build script's output folder: `$KAFKA_WIRE_CACHE` (or `~/.cache/kafka-wire`) `/librdkafka-2.15.1`. */
export function librdkafkaDir(env: NodeJS.ProcessEnv = process.env): string {
  const root =
    env["KAFKA_WIRE_CACHE"] ||
    path.join(env["XDG_CACHE_HOME"] || path.join(env["HOME"] || os.homedir(), ".cache"), "kafka-wire");
  return path.join(root, `librdkafka-${LIBRDKAFKA_VERSION}`);
}

/** The built library and mock program, or null when `.ci/build-librdkafka.sh` has not run. */
export function findLibrdkafka(env: NodeJS.ProcessEnv = process.env): Librdkafka | null {
  const dir = librdkafkaDir(env);
  const found = {
    libDir: path.join(dir, "lib"),
    mockCluster: path.join(dir, "bin", "mock-cluster"),
  };
  try {
    accessSync(path.join(found.libDir, "librdkafka.so.1"), constants.R_OK);
    accessSync(found.mockCluster, constants.X_OK);
    return found;
  } catch {
    return null;
  }
}

/** Why the 2.15.1 peer is absent, for the one-line skip (or the CI failure). */
export function librdkafkaMissing(): string {
  return `librdkafka ${LIBRDKAFKA_VERSION} is not built in ${librdkafkaDir()} (run: bash .ci/build-librdkafka.sh)`;
}

/** A running mock-cluster process. */
export interface MockCluster {
  /** The first broker's listener (127.0.0.1 and an ephemeral port). */
  readonly host: string;
  readonly port: number;
  /** `host:port,...` of every broker, as the mock reports it. */
  readonly bootstrap: string;
  /** librdkafka's version string (`rd_kafka_version_str()`). */
  readonly version: string;
  /** The process id (for its CPU time in /proc). */
  readonly pid: number;
  /** Everything it wrote on stderr so far (capped): librdkafka's logs, an assertion that aborted it. */
  stderr(): string;
  /** Resolves when the process has exited, with its exit code or signal. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Closes its stdin (it then exits), SIGKILL after `graceMs`. Idempotent. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Starts test/support/mock-cluster.c's program with the given topics (created before it reports
 * its address) and resolves when it has printed `version=` and `bootstrap=`, within `timeoutMs`.
 */
export async function startMockCluster(options: {
  mockCluster: string;
  topics?: readonly { name: string; partitions: number }[];
  /** How many brokers (the mock's default: 1). */
  brokers?: number;
  /** The classic group's initial rebalance delay (the mock's default: 3000 ms). */
  rebalanceDelayMs?: number;
  /** `host:port` that broker 1 names in Metadata and FindCoordinator (a proxy in front of it). */
  advertise?: string;
  timeoutMs: number;
}): Promise<MockCluster> {
  const args: string[] = [];
  if (options.brokers !== undefined) args.push("--brokers", String(options.brokers));
  for (const t of options.topics ?? []) args.push("--topic", `${t.name}:${t.partitions}`);
  if (options.rebalanceDelayMs !== undefined) args.push("--rebalance-delay-ms", String(options.rebalanceDelayMs));
  if (options.advertise !== undefined) args.push("--advertise", options.advertise);
  const child = spawn(options.mockCluster, args, { stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk: string) => {
    if (stderr.length < 65536) stderr += chunk;
  });
  // Closing stdin is how it is told to stop; a write error after it died is not ours to report.
  child.stdin.on("error", () => {});
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  const stop = async (graceMs = 5000): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.stdin.end();
    const within = (ms: number) =>
      Promise.race([exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms).unref())]);
    if (await within(graceMs)) return;
    child.kill("SIGKILL");
    await within(2000);
  };
  try {
    const lines = await new Promise<{ version: string; bootstrap: string }>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`mock-cluster did not report its address within ${options.timeoutMs} ms`)),
        options.timeoutMs,
      );
      const done = (f: () => void) => {
        clearTimeout(timer);
        f();
      };
      child.once("error", (e) => done(() => reject(e)));
      void exited.then(({ code, signal }) =>
        done(() => reject(new Error(`mock-cluster exited early (code ${code}, signal ${signal})`))),
      );
      child.stdout.setEncoding("utf8");
      child.stdout.on("data", (chunk: string) => {
        stdout += chunk;
        const version = /^version=(.+)$/m.exec(stdout);
        const bootstrap = /^bootstrap=(.+)$/m.exec(stdout);
        if (version !== null && bootstrap !== null) {
          done(() => resolve({ version: version[1]!, bootstrap: bootstrap[1]! }));
        }
      });
    });
    const first = /^(\d{1,3}(?:\.\d{1,3}){3}):(\d{1,5})(?:,|$)/.exec(lines.bootstrap);
    if (first === null) throw new Error(`mock-cluster reported an unexpected address: ${lines.bootstrap}`);
    return {
      host: first[1]!,
      port: Number(first[2]),
      bootstrap: lines.bootstrap,
      version: lines.version,
      pid: child.pid!,
      stderr: () => stderr,
      exited,
      stop,
    };
  } catch (e) {
    await stop();
    throw new Error(`${(e as Error).message}; stderr:\n${stderr}`, { cause: e });
  }
}
