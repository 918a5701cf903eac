/**
 * Installs bench/'s own package (bench/package.json: @platformatic/kafka, which needs Node.js
 * >= 22 and so is not the root's) with `npm ci --prefix bench` when it is missing or not the
 * version bench/package.json pins. Run by `npm run bench`, `bench:profile` and `typecheck`.
 */

import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const bench = path.dirname(fileURLToPath(import.meta.url));
const read = (file) => JSON.parse(readFileSync(file, "utf8"));
const wanted = read(path.join(bench, "package.json")).dependencies;
const installed = (name) => {
  try {
    return read(path.join(bench, "node_modules", name, "package.json")).version;
  } catch {
    return null;
  }
};
const stale = Object.entries(wanted).filter(([name, version]) => installed(name) !== version);
if (stale.length > 0) {
  console.error(`bench/: installing ${stale.map(([n, v]) => `${n}@${v}`).join(", ")} (npm ci --prefix bench)`);
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const r = spawnSync(npm, ["ci", "--prefix", bench, "--no-audit", "--no-fund"], { stdio: "inherit" });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
