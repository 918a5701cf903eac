/**
 * `kafka-wire-broker/node-test`: a cluster for a node:test test file (or describe block).
 *
 *   import { it } from "node:test";
 *   import { useCluster } from "kafka-wire-broker/node-test";
 *   const cluster = useCluster({ kafka: "4.1.0", brokers: 3, topics: { orders: 3 } });
 *   it("...", async () => { cluster.fail({ apiKey: 0, errorCode: "NOT_LEADER_OR_FOLLOWER" }); ... });
 */

import { after, afterEach, before } from "node:test";
import type { RunningCluster } from "./cluster.js";
import { registerCluster, type ClusterSetup, type UseClusterOptions } from "./test-hooks.js";

export type { ClusterSetup, UseClusterOptions };

/**
 * Starts a cluster in `before`, resets it in `afterEach` (unless `reset: false`) and closes it in
 * `after`, in the scope of the call (the file, or the describe block it is called in). Returns
 * the cluster: usable inside tests and later hooks (it throws, saying what to do, before `before`
 * ran or after `after`; awaiting it gives it back).
 */
export function useCluster(setup: ClusterSetup, options: UseClusterOptions = {}): RunningCluster {
  return registerCluster(
    {
      before: (fn, timeoutMs) => before(fn, { timeout: timeoutMs }),
      afterEach: (fn) => afterEach(fn),
      after: (fn) => after(fn),
      names: { before: "before", after: "after" },
    },
    setup,
    options,
  );
}
