/**
 * @confluentinc/kafka-javascript 1.10.1 (its KafkaJS-compatible API) on librdkafka 2.15.1 through
 * the real-client scenario of test/support/clients/harness.ts, with a classic group (and
 * transactions) and a KIP-848 consumer group. Installed by .ci/install-kafka-javascript.sh into
 * a cache folder, its addon linked to the librdkafka of .ci/build-librdkafka.sh.
 */

import { existsSync } from "node:fs";
import path from "node:path";
import { ALL_CODECS, clientSuite, runDriver } from "./support/clients/harness.js";
import { KAFKA_JAVASCRIPT as PACKAGE, KAFKA_JAVASCRIPT_ADDON as ADDON } from "./support/clients/installed.js";
import { REPO_ROOT } from "./support/shared.js";

const DRIVER = path.join(REPO_ROOT, "test/support/clients/kafka-javascript.mjs");

for (const groupProtocol of ["classic", "consumer"] as const) {
  clientSuite({
    client: `@confluentinc/kafka-javascript 1.10.1 (${groupProtocol} group)`,
    missing: () =>
      existsSync(ADDON)
        ? null
        : {
            title: "@confluentinc/kafka-javascript 1.10.1",
            reason: `its addon is not built in ${ADDON} (run: bash .ci/install-kafka-javascript.sh)`,
          },
    codecs: ALL_CODECS,
    groupProtocol,
    admin: true,
    transactions: groupProtocol === "classic",
    // The addon was built for this Node.js (its ABI is part of the install's stamp).
    run: (s) => runDriver(process.execPath, [DRIVER, PACKAGE], s),
  });
}
