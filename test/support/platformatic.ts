/** Whether @platformatic/kafka is installed where test/support/platformatic-peer.mjs imports it from (bench/'s package). */

import { existsSync } from "node:fs";
import path from "node:path";
import { REPO_ROOT } from "./shared.js";

/** Why @platformatic/kafka cannot be run (for the one-line skip, or the CI failure), or null when it can. */
export function platformaticMissing(): string | null {
  return existsSync(path.join(REPO_ROOT, "bench", "node_modules", "@platformatic", "kafka", "package.json"))
    ? null
    : "bench/ has no @platformatic/kafka (run: npm ci --prefix bench)";
}
