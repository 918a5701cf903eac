/**
 * Debian's Go client, Shopify/sarama 1.22.1 (golang-github-shopify-sarama-dev, built offline by
 * .ci/build-sarama.sh with Debian's Go 1.19), through the real-client scenario of
 * test/support/clients/harness.ts: admin, produce under all five codecs, resume. sarama 1.22.1 has
 * no transactions.
 *
 * sarama 1.22.1 is older than Kafka 4's protocol baseline (KIP-896): it hard-codes JoinGroup v1,
 * which Kafka 4 no longer serves (JoinGroup starts at v2), so it cannot join a classic group of a
 * Kafka 4 cluster. The group step asserts that the broker refuses it as Kafka 4 does; the resume
 * step uses what Kafka 4 does serve it: an offset manager commits and fetches the group's offsets
 * (OffsetCommit v2, OffsetFetch v1) and partition consumers read from them. Its produce works
 * since the broker recomputes the maxTimestamp -1 that sarama 1.22 writes, as Kafka's LogValidator
 * does.
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
  // KIP-896: Kafka 4's JoinGroup starts at v2; sarama 1.22.1 sends v1 only.
  kafka4Refuses: { group: { api: "JoinGroup", sends: [1], kafka4Min: 2 } },
  resumeBy: "a partition consumer (no group member: JoinGroup v1 is refused)",
  run: (s) => runDriver(BINARY, [], s),
});
