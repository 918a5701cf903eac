/**
 * @platformatic/kafka 2.12.1 on Node.js 24 (test/runtimes) through the real-client scenario of
 * test/support/clients/harness.ts: with a classic group (and transactions), and with a KIP-848
 * consumer group.
 */

import { existsSync } from "node:fs";
import path from "node:path";
import { ALL_CODECS, clientSuite, runDriver } from "./support/clients/harness.js";
import { NODE24 } from "./support/clients/installed.js";
import { platformaticMissing } from "./support/platformatic.js";
import { REPO_ROOT } from "./support/shared.js";
const DRIVER = path.join(REPO_ROOT, "test/support/clients/platformatic.mjs");
const missing = () => {
  if (!existsSync(NODE24)) {
    return { title: "Node.js 24", reason: "test/runtimes has no Node.js 24 (run: npm ci --prefix test/runtimes)" };
  }
  const reason = platformaticMissing();
  return reason === null ? null : { title: "@platformatic/kafka", reason };
};

for (const groupProtocol of ["classic", "consumer"] as const) {
  clientSuite({
    client: `@platformatic/kafka 2.12.1 (${groupProtocol} group)`,
    missing,
    codecs: ALL_CODECS,
    groupProtocol,
    admin: true,
    // Transactions do not depend on the group protocol: run once.
    transactions: groupProtocol === "classic",
    // Headers are a Map in this client: no repeated keys.
    headers: [
      ["trace", "abc"],
      ["empty", ""],
    ],
    run: (s) => runDriver(NODE24, [DRIVER], s),
  });
}
