/**
 * Debian's python3-kafka (kafka-python 2.0.2) through the real-client scenario of
 * test/support/clients/harness.ts: admin, produce (none and gzip, the codecs it has without
 * further Python modules), a classic group, resume. It has no transactions.
 */

import path from "node:path";
import { clientSuite, runDriver } from "./support/clients/harness.js";
import { DEBIAN_PYTHON, pythonModuleMissing } from "./support/clients/python.js";
import { REPO_ROOT } from "./support/shared.js";

clientSuite({
  client: "python3-kafka (kafka-python 2.0.2)",
  missing: () => pythonModuleMissing("kafka", "python3-kafka"),
  codecs: ["none", "gzip"],
  admin: true,
  transactions: false,
  // Each step that fails waits out its 30 s; kafka-python's retries never give up by themselves.
  timeoutMs: 100_000,
  run: (s) => runDriver(DEBIAN_PYTHON, [path.join(REPO_ROOT, "test/support/clients/kafka_python.py")], s),
});
