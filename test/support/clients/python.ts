/** Debian's Python 3 and its packaged Kafka clients, for test/clients-*-python.test.ts. */

import { spawnSync } from "node:child_process";

/** Debian's interpreter (apt's python3-* packages are installed for it, not for another python3 on PATH). */
export const DEBIAN_PYTHON = "/usr/bin/python3";

/**
 * Null when Debian's python3 imports `module`, else why not (for the one-line skip or the CI
 * failure), naming the apt package that provides it.
 */
export function pythonModuleMissing(module: string, aptPackage: string): { title: string; reason: string } | null {
  const probe = spawnSync(DEBIAN_PYTHON, ["-c", `import ${module}`], { encoding: "utf8", timeout: 30_000 });
  if (probe.status === 0) return null;
  return {
    title: aptPackage,
    reason: `${DEBIAN_PYTHON} cannot import ${module} (Debian: apt-get install ${aptPackage}; .ci/run installs it)`,
  };
}
