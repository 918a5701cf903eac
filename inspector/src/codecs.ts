/**
 * The generated codecs, for what field tables cannot do: encoding (a proxy log's Kafka JSON back
 * to bytes). They are most of the code generated from Kafka's schemas, so they are a bundle of
 * their own (assets/codecs.js, vite.codecs.config.ts), loaded as a classic script (file:// pages
 * cannot import modules) the first time a log needs them.
 */

import type { MessageCodec } from "../../src/runtime/index.js";

/** Codecs by message name, for each set. */
export interface CodecSets {
  readonly kafka: Readonly<Record<string, MessageCodec<unknown>>> | null;
  readonly generated: Readonly<Record<string, MessageCodec<unknown>>>;
}

/** The global the codecs bundle sets (its IIFE's name, see vite.codecs.config.ts). */
export const CODECS_GLOBAL = "kafkaWireInspectorCodecs";

const loading = new Map<string, Promise<unknown>>();

/**
 * Loads `./assets/<file>` once as a classic script and gives the global it sets (its IIFE's
 * name), or null when it cannot be loaded.
 */
export function loadScript<T>(file: string, global: string): Promise<T | null> {
  let p = loading.get(file);
  if (p === undefined) {
    p = new Promise((resolve) => {
      const script = document.createElement("script");
      script.src = `./assets/${file}`;
      script.onload = () => resolve((globalThis as Record<string, unknown>)[global] ?? null);
      script.onerror = () => resolve(null);
      document.head.append(script);
    });
    loading.set(file, p);
  }
  return p as Promise<T | null>;
}

/** Loads assets/codecs.js once; null when it cannot be loaded. */
export function loadCodecs(): Promise<CodecSets | null> {
  return loadScript<CodecSets>("codecs.js", CODECS_GLOBAL);
}
