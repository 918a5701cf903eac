/**
 * Debian's python3-confluent-kafka (1.7.0 on Debian's librdkafka 2.0.2) through the real-client
 * scenario of test/support/clients/harness.ts, with a classic group and transactions
 * (librdkafka 2.0.2 has no KIP-848 consumer groups).
 */

import path from "node:path";
import { ALL_CODECS, clientSuite, runDriver } from "./support/clients/harness.js";
import { DEBIAN_PYTHON, pythonModuleMissing } from "./support/clients/python.js";
import { REPO_ROOT } from "./support/shared.js";

clientSuite({
  client: "python3-confluent-kafka 1.7.0 (librdkafka 2.0.2)",
  missing: () => pythonModuleMissing("confluent_kafka", "python3-confluent-kafka"),
  codecs: ALL_CODECS,
  admin: true,
  transactions: true,
  run: (s) => runDriver(DEBIAN_PYTHON, [path.join(REPO_ROOT, "test/support/clients/confluent_kafka_python.py")], s),
});
