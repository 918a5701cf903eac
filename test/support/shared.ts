/**
 * The shared folder (`<repo>/../shared`: Apache Kafka's schemas, golden vectors) lives next to
 * the repository, not in it. Tests that need it go through this module so that:
 * - when the folder is there, they run;
 * - in CI (`CI` set), a missing folder is a failing test, never a silent pass;
 * - on a developer machine without it, they are skipped with a one-line warning.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it } from "vitest";

/** The repository root (this file is `<repo>/test/support/shared.ts`). */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** `<repo>/../shared`. */
export const SHARED_DIR = path.resolve(REPO_ROOT, "../shared");

/** What a test that needs part of the shared folder should do. */
export type SharedStatus = "present" | "missing-in-ci" | "missing";

/** True when the `CI` environment variable is set to anything but "", "0" or "false". */
export function isCi(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = env["CI"]?.trim().toLowerCase();
  return value !== undefined && value !== "" && value !== "0" && value !== "false";
}

/** Absolute path of `subpath` inside the shared folder (whether or not it exists). */
export function sharedPath(subpath = ""): string {
  return path.resolve(SHARED_DIR, subpath);
}

/** Decides how to treat `<shared>/subpath`; `exists` and `env` are injectable for testing. */
export function sharedStatus(
  subpath = "",
  env: NodeJS.ProcessEnv = process.env,
  exists: (p: string) => boolean = existsSync,
): SharedStatus {
  if (exists(sharedPath(subpath))) return "present";
  return isCi(env) ? "missing-in-ci" : "missing";
}

/** The absolute path of `<shared>/subpath` when it exists, else null. */
export function sharedDir(subpath = ""): string | null {
  const dir = sharedPath(subpath);
  return existsSync(dir) ? dir : null;
}

/** The absolute path of `<shared>/subpath`; throws a clear error when it does not exist. */
export function requireShared(subpath = ""): string {
  const dir = sharedDir(subpath);
  if (dir === null) throw new Error(missingMessage(subpath));
  return dir;
}

/**
 * `describe` for tests that need `<shared>/subpath`: `fn` receives the absolute path.
 * Present: runs. Missing in CI: one failing test naming the path. Missing locally: skipped,
 * with a one-line warning on stderr.
 */
export function describeShared(title: string, subpath: string, fn: (dir: string) => void): void {
  const status = sharedStatus(subpath);
  if (status === "present") {
    describe(title, () => fn(sharedPath(subpath)));
  } else if (status === "missing-in-ci") {
    describe(title, () => {
      it("needs the shared folder", () => {
        throw new Error(`${missingMessage(subpath)} (CI is set, so this is a failure, not a skip)`);
      });
    });
  } else {
    console.warn(`[skip] ${title}: ${missingMessage(subpath)}`);
    describe.skip(title, () => {
      it("needs the shared folder", () => {});
    });
  }
}

function missingMessage(subpath: string): string {
  return `${sharedPath(subpath)} not found (expected the shared folder next to the repository)`;
}
