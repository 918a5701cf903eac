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

/** @internal The runner's hooks, as the two adapters hand them over, and their names (for errors). */
export interface RunnerHooks {
  before(fn: () => Promise<void>, timeoutMs: number): void;
  afterEach(fn: () => Promise<void>): void;
  after(fn: () => Promise<void>): void;
  /** What the runner calls its before-all and after-all hooks: `beforeAll`/`afterAll`, `before`/`after`. */
  readonly names: { readonly before: string; readonly after: string };
}

/**
 * @internal Registers the hooks; returns a stand-in for the cluster that forwards to it once
 * started (the hooks run later than this call). Used before the start, after the close or when
 * the start failed, it throws an error that says which and what to do. It is not a thenable:
 * `await useCluster(...)` gives the stand-in (waiting for the start there would wait for a hook
 * that runs only after the file's tests are collected, that is never).
 */
export function registerCluster(
  hooks: RunnerHooks,
  setup: ClusterSetup,
  options: UseClusterOptions = {},
): RunningCluster {
  let current: RunningCluster | undefined;
  let state: "registered" | "failed" | "running" | "closed" = "registered";
  let failure: unknown;
  hooks.before(async () => {
    try {
      current = await startCluster(typeof setup === "function" ? await setup() : setup);
      state = "running";
    } catch (e) {
      state = "failed";
      failure = e;
      throw e;
    }
  }, options.timeoutMs ?? 300_000);
  if (options.reset ?? true) {
    hooks.afterEach(async () => {
      await current?.reset();
    });
  }
  hooks.after(async () => {
    const closing = current;
    current = undefined;
    state = "closed";
    await closing?.close();
  });
  const { before, after } = hooks.names;
  const unavailable = (property: string | symbol): Error => {
    const used = `useCluster's cluster was used (.${String(property)})`;
    if (state === "failed") {
      const reason = failure instanceof Error ? failure.message : String(failure);
      return new Error(`${used} but did not start (useCluster's ${before} hook failed): ${reason}`, { cause: failure });
    }
    if (state === "closed") {
      return new Error(
        `${used} after useCluster's ${after} hook closed it, at the end of the scope (file or describe block) ` +
          `useCluster was called in: use it within that scope, or call useCluster in the scope that needs it`,
      );
    }
    return new Error(
      `${used} before it started. useCluster returns at once and starts the cluster in the ${before} hook it ` +
        `registers, which runs after the tests are collected: use the cluster inside a test or a hook registered ` +
        `after useCluster (it("...", () => { cluster.${String(property)} ... })), not in the body of the file or of a describe block`,
    );
  };
  return new Proxy({} as RunningCluster, {
    get(_, property) {
      // Not a thenable: `await` (or a Promise resolved with the stand-in) gives the stand-in itself.
      if (property === "then") return undefined;
      if (current === undefined) throw unavailable(property);
      const value: unknown = Reflect.get(current, property);
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(current) : value;
    },
    has: (_, property) => current !== undefined && property in current,
  });
}
