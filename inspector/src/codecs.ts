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

let loading: Promise<CodecSets | null> | null = null;

/** Loads assets/codecs.js once; null when it cannot be loaded. */
export function loadCodecs(): Promise<CodecSets | null> {
  loading ??= new Promise((resolve) => {
    const script = document.createElement("script");
    script.src = "./assets/codecs.js";
    script.onload = () => resolve(((globalThis as Record<string, unknown>)[CODECS_GLOBAL] as CodecSets) ?? null);
    script.onerror = () => resolve(null);
    document.head.append(script);
  });
  return loading;
}
