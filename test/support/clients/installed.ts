/** Where the client peers that live outside the repository's node_modules are installed. */

import path from "node:path";
import { librdkafkaDir } from "../librdkafka.js";
import { REPO_ROOT } from "../shared.js";

/** Node.js 24 from test/runtimes (installed by `npm ci --prefix test/runtimes`): @platformatic/kafka needs it. */
export const NODE24 = path.join(
  REPO_ROOT,
  "test/runtimes/node_modules",
  `node24-${process.platform}-${process.arch}`,
  "bin",
  "node",
);

/** @confluentinc/kafka-javascript 1.10.1 as .ci/install-kafka-javascript.sh installs it (beside librdkafka's build). */
export const KAFKA_JAVASCRIPT = path.join(
  path.dirname(librdkafkaDir()),
  "kafka-javascript-1.10.1",
  "node_modules",
  "@confluentinc",
  "kafka-javascript",
);

/** Its native addon, built for this Node.js (its ABI is part of the install's stamp). */
export const KAFKA_JAVASCRIPT_ADDON = path.join(
  KAFKA_JAVASCRIPT,
  "build",
  "Release",
  "confluent-kafka-javascript.node",
);
