/**
 * The per-user cache folder of kafka-wire: Kafka source releases (`kafka/<version>/`, see
 * kafka-release.ts) and the CLI's compiled codecs of schema sets (`codecs/<key>/`). A module of
 * its own (Node built-ins only) so that a cache hit loads nothing heavier.
 */

import { homedir } from "node:os";
import path from "node:path";

/** Environment variable that overrides the cache folder (`--cache-dir` overrides it). */
export const CACHE_DIR_ENV = "KAFKA_WIRE_CACHE_DIR";

/** The per-user cache folder: `$KAFKA_WIRE_CACHE_DIR`, else `$XDG_CACHE_HOME/kafka-wire`, else `~/.cache/kafka-wire`. */
export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const own = env[CACHE_DIR_ENV];
  if (own !== undefined && own !== "") return path.resolve(own);
  const xdg = env["XDG_CACHE_HOME"];
  // The XDG spec says to ignore a relative XDG_CACHE_HOME.
  if (xdg !== undefined && path.isAbsolute(xdg)) return path.join(xdg, "kafka-wire");
  return path.join(homedir(), ".cache", "kafka-wire");
}

/** The cache folder to use: `cacheDir` (a `--cache-dir`, relative to `cwd`) when given, else {@link defaultCacheDir}. */
export function resolveCacheDir(
  options: { readonly cacheDir?: string; readonly cwd?: string; readonly env?: NodeJS.ProcessEnv } = {},
): string {
  return options.cacheDir !== undefined
    ? path.resolve(options.cwd ?? process.cwd(), options.cacheDir)
    : defaultCacheDir(options.env ?? process.env);
}
