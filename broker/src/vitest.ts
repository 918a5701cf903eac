/**
 * `kafka-wire-broker/vitest`: a cluster for a vitest test file (or describe block).
 *
 *   import { useCluster } from "kafka-wire-broker/vitest";
 *   const cluster = useCluster({ kafka: "4.1.0", brokers: 3, topics: { orders: 3 } });
 *   it("...", async () => { cluster.fail({ apiKey: 0, errorCode: "NOT_LEADER_OR_FOLLOWER" }); ... });
 *
 * vitest is an optional peer dependency: this module is the only one that imports it.
 */

import { afterAll, afterEach, beforeAll } from "vitest";
import type { RunningCluster } from "./cluster.js";
import { registerCluster, type ClusterSetup, type UseClusterOptions } from "./test-hooks.js";

export type { ClusterSetup, UseClusterOptions };

/**
 * Starts a cluster in `beforeAll`, resets it in `afterEach` (unless `reset: false`) and closes
 * it in `afterAll`, in the scope of the call (the file, or the describe block it is called in).
 * Returns the cluster: usable inside tests and later hooks (it throws, saying what to do, before
 * `beforeAll` ran or after `afterAll`; awaiting it gives it back).
 */
export function useCluster(setup: ClusterSetup, options: UseClusterOptions = {}): RunningCluster {
  return registerCluster(
    {
      before: (fn, timeoutMs) => beforeAll(fn, timeoutMs),
      afterEach: (fn) => afterEach(fn),
      after: (fn) => afterAll(fn),
      names: { before: "beforeAll", after: "afterAll" },
    },
    setup,
    options,
  );
}
