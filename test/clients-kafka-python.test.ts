/**
 * Debian's python3-kafka (kafka-python 2.0.2) through the real-client scenario of
 * test/support/clients/harness.ts: admin, produce (none and gzip, the codecs it has without
 * further Python modules), a classic group, resume. It has no transactions.
 *
 * kafka-python 2.0.2 is older than Kafka 4's protocol baseline (KIP-896): its client keeps its
 * cluster metadata with Metadata v0 (bootstrap) and v1, which Kafka 4 no longer serves (Metadata
 * starts at v4). Without metadata it reaches no partition leader and no controller, so no step
 * can work against a Kafka 4 cluster: each asserts that the broker refuses it as Kafka 4 does.
 * (Its admin client's controller lookup uses Metadata v5, which is answered, but the client's own
 * metadata then lacks the controller.)
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
  timeoutMs: 130_000,
  // KIP-896: Kafka 4's Metadata starts at v4.
  kafka4Refuses: Object.fromEntries(
    (["admin", "produce", "group", "resume"] as const).map((step) => [
      step,
      { api: "Metadata", sends: [0, 1], kafka4Min: 4 },
    ]),
  ),
  run: (s) => runDriver(DEBIAN_PYTHON, [path.join(REPO_ROOT, "test/support/clients/kafka_python.py")], s),
});
