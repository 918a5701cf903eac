/** Where the corpus tests find the codecs generated from Apache Kafka's schemas (see corpus-setup.ts). */

import path from "node:path";
import { pathToFileURL } from "node:url";
import type { MessageCodec } from "../../src/runtime/index.js";
import { REPO_ROOT } from "./shared.js";

export const CORPUS_OUT = path.join(REPO_ROOT, ".corpus", "generated");
export const CORPUS_RUNTIME_IMPORT = "../../src/runtime/index.js";

/** The generated codec of one corpus message. */
export async function corpusCodec(name: string): Promise<MessageCodec<unknown>> {
  const mod = (await import(pathToFileURL(path.join(CORPUS_OUT, `${name}.ts`)).href)) as Record<string, MessageCodec<unknown>>;
  const codec = mod[name];
  if (codec === undefined) throw new Error(`${name}.ts does not export ${name}`);
  return codec;
}
