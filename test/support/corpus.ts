/** Where tests find the codecs generated from Apache Kafka's schemas (see corpus-setup.ts). */

import path from "node:path";
import { pathToFileURL } from "node:url";
import { inject } from "vitest";
import type { MessageCodec, Protocol } from "../../src/runtime/index.js";

/** The folder of this run's generated corpus codecs ("" when the shared schemas are absent). */
export const CORPUS_OUT: string = inject("corpusDir");

/** The generated codec of one corpus message. */
export async function corpusCodec(name: string): Promise<MessageCodec<unknown>> {
  const mod = (await import(pathToFileURL(path.join(CORPUS_OUT, `${name}.ts`)).href)) as Record<
    string,
    MessageCodec<unknown>
  >;
  const codec = mod[name];
  if (codec === undefined) throw new Error(`${name}.ts does not export ${name}`);
  return codec;
}

/** The generated index of the corpus: every codec by name and the request/response framing. */
export async function corpusIndex(): Promise<{ messages: Record<string, MessageCodec<unknown>>; protocol: Protocol }> {
  return (await import(pathToFileURL(path.join(CORPUS_OUT, "index.ts")).href)) as {
    messages: Record<string, MessageCodec<unknown>>;
    protocol: Protocol;
  };
}
