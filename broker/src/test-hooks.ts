/**
 * What `kafka-wire-broker/vitest` and `kafka-wire-broker/node-test` share: one cluster for a test
 * file (or a describe block), started before its first test, reset after each test and closed
 * after the last, registered through the runner's own hooks.
 */

import { startCluster, type ClusterOptions, type RunningCluster } from "./cluster.js";

/** The cluster's options, or a function giving them (called in the before hook: it may load codecs). */
export type ClusterSetup = ClusterOptions | (() => ClusterOptions | Promise<ClusterOptions>);

/** How {@link useCluster} runs the cluster. */
export interface UseClusterOptions {
  /** `cluster.reset()` after each test (default true): topics as at the start, groups, faults and the request log gone. */
  readonly reset?: boolean;
  /** The before hook's timeout (ms, default 300000): the first start with `kafka` downloads and generates the codecs. */
  readonly timeoutMs?: number;
}

/** @internal The runner's hooks, as the two adapters hand them over. */
export interface RunnerHooks {
  before(fn: () => Promise<void>, timeoutMs: number): void;
  afterEach(fn: () => Promise<void>): void;
  after(fn: () => Promise<void>): void;
}

/**
 * @internal Registers the hooks; returns a stand-in for the cluster that forwards to it once
 * started (the hooks run later than this call), and throws when used before or after.
 */
export function registerCluster(
  hooks: RunnerHooks,
  setup: ClusterSetup,
  options: UseClusterOptions = {},
): RunningCluster {
  let current: RunningCluster | undefined;
  hooks.before(async () => {
    current = await startCluster(typeof setup === "function" ? await setup() : setup);
  }, options.timeoutMs ?? 300_000);
  if (options.reset ?? true) {
    hooks.afterEach(async () => {
      await current?.reset();
    });
  }
  hooks.after(async () => {
    const closing = current;
    current = undefined;
    await closing?.close();
  });
  return new Proxy({} as RunningCluster, {
    get(_, property) {
      if (current === undefined) {
        throw new Error(
          "useCluster's cluster runs from its before hook to its after hook: use it inside a test or a later hook",
        );
      }
      const value: unknown = Reflect.get(current, property);
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(current) : value;
    },
    has: (_, property) => current !== undefined && property in current,
  });
}
