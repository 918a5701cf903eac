/**
 * A one-node kafka-wire-broker cluster with its node's address at hand, for the tests that put
 * something (the proxy) in front of a single broker.
 */
import { startCluster, type ClusterOptions, type RunningCluster } from "../../broker/src/index.js";

/** A running one-node cluster and its node's `host` and `port`. */
export interface OneBroker extends RunningCluster {
  readonly host: string;
  readonly port: number;
}

/** Starts a one-node cluster (`brokers` is 1 whatever `options` says). */
export async function startOneBroker(options: Omit<ClusterOptions, "brokers">): Promise<OneBroker> {
  const cluster = await startCluster({ ...options, brokers: 1 });
  const node = cluster.nodes[0]!;
  return Object.assign(cluster, { host: node.host, port: node.port });
}
