/**
 * Debian's kcat through the real-client scenario of test/support/clients/harness.ts (produce,
 * group, resume: kcat has no admin API and no transactions): on Debian's librdkafka 2.0.2 with a
 * classic group, and on librdkafka 2.15.1 (.ci/build-librdkafka.sh, through LD_LIBRARY_PATH) with
 * a classic group and a KIP-848 consumer group (`group.protocol=consumer`).
 */

import { ALL_CODECS, clientSuite } from "./support/clients/harness.js";
import { runKcat } from "./support/clients/kcat.js";
import { findKcat } from "./support/kcat.js";
import { findLibrdkafka, LIBRDKAFKA_VERSION, librdkafkaMissing } from "./support/librdkafka.js";

const kcat = findKcat();
const kcatMissing = {
  title: "kcat",
  reason: "kcat is not on PATH (Debian: apt-get install kcat; .ci/run installs it)",
};
const librdkafka = findLibrdkafka();

clientSuite({
  client: "kcat on librdkafka 2.0.2 (classic group)",
  missing: () => (kcat === null ? kcatMissing : null),
  codecs: ALL_CODECS,
  admin: false,
  transactions: false,
  run: (s) => runKcat(kcat!, s),
});

for (const groupProtocol of ["classic", "consumer"] as const) {
  clientSuite({
    client: `kcat on librdkafka ${LIBRDKAFKA_VERSION} (${groupProtocol} group)`,
    missing: () =>
      kcat === null
        ? kcatMissing
        : librdkafka === null
          ? { title: `librdkafka ${LIBRDKAFKA_VERSION}`, reason: librdkafkaMissing() }
          : null,
    codecs: ALL_CODECS,
    groupProtocol,
    admin: false,
    transactions: false,
    run: (s) => runKcat(kcat!, s, { LD_LIBRARY_PATH: librdkafka!.libDir }),
  });
}
