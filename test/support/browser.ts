/**
 * Helpers for the tests that run kafka-wire where its users run it: bundling with esbuild (as a
 * web app's bundler would), measuring minified + gzipped size, and driving Debian's headless
 * Chromium through playwright-core.
 *
 * Chromium is a machine tool, not an npm package (the machine has no network but the package
 * registries, so Playwright cannot download its own browser): `.ci/run` installs Debian's
 * `chromium`. Where it is missing, {@link chromiumStatus} tells the test to skip with a one-line
 * warning, except in CI (`CI` set), where a missing browser is a failing test.
 */
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { build, type BuildOptions } from "esbuild";
import { chromium, type Page } from "playwright-core";
import { describe, it } from "vitest";
import { isCi } from "./shared.js";

/** Debian's Chromium (package `chromium`); `CHROMIUM_PATH` overrides it. */
export const CHROMIUM_PATH = process.env["CHROMIUM_PATH"] ?? "/usr/bin/chromium";

/**
 * Chromium's command line. The machine's network is closed: without the background-networking
 * flags Chromium keeps trying (and logging) connections to its own services.
 */
export const CHROMIUM_ARGS: readonly string[] = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** What a test that needs Chromium should do: run, fail (CI without it), or skip (a developer machine without it). */
export function chromiumStatus(exists: (p: string) => boolean = existsSync): "present" | "missing-in-ci" | "missing" {
  if (exists(CHROMIUM_PATH)) return "present";
  return isCi() ? "missing-in-ci" : "missing";
}

/**
 * Starts Chromium with a fresh profile folder, gives `fn` a blank page (about:blank: nothing is
 * loaded from anywhere), then closes the browser and removes the profile.
 */
export async function withChromiumPage<T>(fn: (page: Page) => Promise<T>): Promise<T> {
  const userDataDir = await mkdtemp(path.join(os.tmpdir(), "kafka-wire-chromium-"));
  try {
    const context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: [...CHROMIUM_ARGS],
      timeout: 60_000,
    });
    try {
      const page = context.pages()[0] ?? (await context.newPage());
      return await fn(page);
    } finally {
      await context.close();
    }
  } finally {
    await rm(userDataDir, { recursive: true, force: true });
  }
}

/** One bundle: its code, and its minified + gzipped size in bytes. */
export interface Bundle {
  readonly code: string;
  readonly bytes: number;
  readonly gzipBytes: number;
}

/**
 * Bundles `source` (an entry module given as text; imports resolve from `resolveDir`) for the
 * browser, minified, as a bundler would for a web app. A Node.js built-in reached from the entry
 * fails the build (esbuild's `browser` platform does not know them).
 */
export async function bundleForBrowser(
  source: string,
  resolveDir: string,
  options: Pick<BuildOptions, "format" | "globalName" | "plugins"> = {},
): Promise<Bundle> {
  const result = await build({
    stdin: { contents: source, resolveDir, loader: "ts", sourcefile: "entry.ts" },
    bundle: true,
    write: false,
    platform: "browser",
    format: options.format ?? "esm",
    ...(options.globalName === undefined ? {} : { globalName: options.globalName }),
    ...(options.plugins === undefined ? {} : { plugins: options.plugins }),
    target: "es2022",
    minify: true,
    treeShaking: true,
    legalComments: "none",
    logLevel: "silent",
  });
  const file = result.outputFiles[0];
  if (file === undefined) throw new Error("esbuild produced no output");
  return { code: file.text, bytes: file.contents.length, gzipBytes: gzipSync(file.contents, { level: 9 }).length };
}

/**
 * `describe` for tests that need Chromium. Present: runs. Missing in CI: one failing test.
 * Missing on a developer machine: skipped, with a one-line warning on stderr.
 */
export function describeChromium(title: string, fn: () => void): void {
  const status = chromiumStatus();
  const missing = `no Chromium at ${CHROMIUM_PATH} (install Debian's: apt-get install chromium)`;
  if (status === "present") {
    describe(title, fn);
  } else if (status === "missing-in-ci") {
    describe(title, () => {
      it("needs Chromium", () => {
        throw new Error(`${missing}; CI is set, so this is a failure, not a skip`);
      });
    });
  } else {
    console.warn(`[skip] ${title}: ${missing}`);
    describe.skip(title, () => {
      it("needs Chromium", () => {});
    });
  }
}
