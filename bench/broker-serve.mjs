/**
 * Our side of `npm run bench:broker:throughput` (bench/broker-throughput.ts starts it): a
 * kafka-wire-broker cluster as users run it, from broker/dist with its codecs from kafka-wire-cli's
 * codec cache (built on cli/dist), in plain Node.js: no tsx, whose transform of the sources wraps
 * every function made at run time in a keepNames `__name` call. argv[2]: JSON `{ schemas, brokers,
 * topics }`. Prints `bootstrap=<list>` once listening; closes the cluster when stdin ends.
 */

import { once } from "node:events";
import { startCluster } from "kafka-wire-broker";

const { schemas, brokers, topics } = JSON.parse(process.argv[2]);
const cluster = await startCluster({ schemas, brokers, topics });
process.stdout.write(`bootstrap=${cluster.bootstrap}\n`);
process.stdin.resume();
await once(process.stdin, "end");
await cluster.close();
process.stdin.destroy();
