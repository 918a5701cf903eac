/**
 * Debian's Go client, Shopify/sarama 1.22.1 (golang-github-shopify-sarama-dev, built offline by
 * .ci/build-sarama.sh with Debian's Go 1.19), through the real-client scenario of
 * test/support/clients/harness.ts: admin, produce under all five codecs, a classic group, resume.
 * sarama 1.22.1 has no transactions.
 */

import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { ALL_CODECS, clientSuite, runDriver } from "./support/clients/harness.js";
import { librdkafkaDir } from "./support/librdkafka.js";
import { REPO_ROOT } from "./support/shared.js";

const SOURCE = path.join(REPO_ROOT, "test/support/clients/sarama/main.go");
const DIR = path.join(path.dirname(librdkafkaDir()), "sarama-1.22.1");
const BINARY = path.join(DIR, "sarama-client");

/** Null when the program is built from the current source, else why not. */
function missing(): { title: string; reason: string } | null {
  const stamp = path.join(DIR, "sarama-client.stamp");
  const rebuild = "(run: bash .ci/build-sarama.sh)";
  if (!existsSync(BINARY) || !existsSync(stamp)) {
    return { title: "sarama 1.22.1", reason: `the Go client is not built in ${DIR} ${rebuild}` };
  }
  const sum = createHash("sha256").update(readFileSync(SOURCE)).digest("hex");
  if (!readFileSync(stamp, "utf8").startsWith(`${sum} `)) {
    return { title: "sarama 1.22.1", reason: `${BINARY} was built from another version of ${SOURCE} ${rebuild}` };
  }
  return null;
}

clientSuite({
  client: "sarama 1.22.1 (Go 1.19)",
  missing,
  codecs: ALL_CODECS,
  admin: true,
  transactions: false,
  timeoutMs: 100_000,
  run: (s) => runDriver(BINARY, [], s),
});
