/**
 * The codecs a command works on: the shipped ones (the library's root module, loaded lazily), or
 * a schema set's (`--schemas`, `--kafka`, `--kafka-source`; generated once into the cache, see
 * codecs.ts), with the options that choose them and the lookups of a message or a version.
 *
 * Heavy or possibly missing modules are loaded lazily, so each command only pays for what it
 * uses: the codecs come from `src/index.ts` (which re-exports `generated/`; the CLI package
 * bundles it), and only for the commands that decode or encode; `generate` works while
 * `generated/` is missing or stale.
 */

import type { Command } from "commander";
import type { MessageCodec } from "../src/runtime/index.js";
import { editDistance } from "../generator/schema/edit-distance.js";
import type { CodecSet as LoadedCodecs } from "./codecs.js";
import { CliError, oneLine, type CliIO } from "./context.js";

/** The codecs a command works on, and whether they are the shipped ones. */
export type CodecSet = LoadedCodecs & { readonly shipped: boolean };

/** The package root module's codecs (the shipped ones), loaded lazily. */
let shippedPromise: Promise<CodecSet> | undefined;

/**
 * Loads the library's root module (`src/index.ts`, which needs `generated/`) once; the CLI
 * package's build bundles it in a chunk of its own, loaded only by the commands that need codecs.
 * @throws CliError when the generated codecs cannot be loaded.
 */
function loadShipped(): Promise<CodecSet> {
  // generated/index.ts is the module src/index.ts re-exports the codecs from: its field tables cost no other module.
  shippedPromise ??= Promise.all([import("../src/index.js"), import("../generated/index.js")]).then(
    ([mod, generated]): CodecSet => {
      // What the shipped schema set has beyond its codecs (src/index.ts re-exports generated/).
      const extra = mod as unknown as {
        internalTopics?: CodecSet["internalTopics"];
        controlDecoder?: CodecSet["controlDecoder"];
      };
      return {
        messages: mod.messages,
        fieldTables: generated.fieldTables,
        shipped: true,
        ...(extra.internalTopics === undefined ? {} : { internalTopics: extra.internalTopics }),
        ...(extra.controlDecoder === undefined ? {} : { controlDecoder: extra.controlDecoder }),
      };
    },
    (error: unknown) => {
      shippedPromise = undefined;
      const detail = error instanceof Error ? error.message.split("\n")[0] : String(error);
      throw new CliError(`cannot load the generated codecs (${detail}); run \`npm run generate\` first`);
    },
  );
  return shippedPromise;
}

/** The options that choose a schema set instead of the shipped codecs. */
export interface SchemaSetFlags {
  readonly schemas?: readonly string[];
  readonly kafka?: string;
  readonly kafkaSource?: string;
  readonly kafkaMirror?: string;
  readonly cacheDir?: string;
}

/**
 * The codecs a command works on: a schema set's (`--schemas`, `--kafka`, `--kafka-source`;
 * generated once into the cache, see codecs.ts), else the shipped ones.
 * @throws CliError for conflicting options, a Kafka release that cannot be had, or an unusable
 *   cache; CliError for a schema that does not load.
 */
export async function loadCodecs(io: CliIO, flags: SchemaSetFlags): Promise<CodecSet> {
  if (flags.kafka === undefined && flags.kafkaMirror !== undefined)
    throw new CliError("--kafka-mirror needs --kafka <version>");
  const fromKafka = flags.kafka !== undefined || flags.kafkaSource !== undefined;
  if (!fromKafka && flags.schemas === undefined) {
    if (flags.cacheDir !== undefined) throw new CliError("--cache-dir needs --schemas, --kafka or --kafka-source");
    return loadShipped();
  }
  if (fromKafka && flags.schemas !== undefined) {
    throw new CliError("--schemas cannot be combined with --kafka or --kafka-source");
  }
  const { loadSchemaSet } = await import("./codecs.js");
  const { SchemaError } = await import("../generator/schema/errors.js");
  const { KafkaReleaseError } = await import("./kafka-release.js");
  try {
    const loaded = await loadSchemaSet({
      cwd: io.cwd ?? process.cwd(),
      ...flags,
      onStatus: (line) => void io.stderr.write(`${line}\n`),
    });
    return { ...loaded.codecs, shipped: false };
  } catch (error) {
    if (error instanceof SchemaError) throw new CliError(oneLine(error.message));
    if (error instanceof KafkaReleaseError) throw new CliError(error.message);
    throw error;
  }
}

/** Adds the options that pick the codecs: a schema set, or (without them) the shipped codecs. */
export function withSchemaSet(command: Command): Command {
  return command
    .option("--schemas <path...>", "use the codecs of these schema files or folders instead of the shipped ones")
    .option("--kafka <version>", "use the codecs of a Kafka release's schemas (downloaded and cached), e.g. 4.1.0")
    .option("--kafka-source <path>", "use the codecs of a local Kafka source archive (.tgz) or checkout")
    .option("--kafka-mirror <url>", "base URL holding <version>/kafka-<version>-src.tgz (default Apache's archive)")
    .option("--cache-dir <dir>", "cache folder (default $KAFKA_WIRE_CACHE_DIR, else ~/.cache/kafka-wire)");
}

/** The help text of every command with {@link withSchemaSet}'s options. */
export const SCHEMA_SET_HELP =
  "\nCodecs: the shipped ones (the four KIP-1071 messages), or with --schemas/--kafka/--kafka-source\n" +
  "those of any schema set, generated on first use and kept in the cache folder. Options may come\n" +
  "before or after the arguments.";

// ---------------------------------------------------------------------------------------------
// Message lookup

/**
 * Up to three known names closest to `name`: case-insensitive matches, names containing it (or
 * contained in it), then names within an edit distance of about a third of its length; only
 * the best of these (and those one step behind) are returned.
 */
export function closestNames(name: string, known: readonly string[]): string[] {
  const lower = name.toLowerCase();
  const scored: { name: string; score: number }[] = [];
  const limit = Math.max(2, Math.floor(name.length / 3));
  for (const k of known) {
    const kl = k.toLowerCase();
    let score: number;
    if (kl === lower) score = -2;
    else if (lower.length >= 3 && (kl.includes(lower) || lower.includes(kl))) score = -1;
    else score = editDistance(name, k);
    if (score <= limit) scored.push({ name: k, score });
  }
  scored.sort((x, y) => x.score - y.score || x.name.localeCompare(y.name));
  const best = scored[0]?.score ?? 0;
  return scored
    .filter((s) => s.score <= best + 1)
    .slice(0, 3)
    .map((s) => s.name);
}

/** The codec named `name`. @throws CliError suggesting the closest known names. */
export function findCodec(codecs: CodecSet, name: string): MessageCodec<unknown> {
  const registry = codecs.messages;
  const codec = Object.hasOwn(registry, name) ? registry[name] : undefined;
  if (codec !== undefined) return codec;
  const suggestions = closestNames(name, Object.keys(registry));
  const hint =
    suggestions.length > 0
      ? `did you mean ${suggestions.join(", ")}?`
      : codecs.shipped
        ? "the shipped codecs are the four KIP-1071 messages (`kafka-wire list`); for others pass --schemas <folder> or --kafka <version>"
        : "run `kafka-wire list` with the same options to see the known messages";
  throw new CliError(`unknown message ${JSON.stringify(name)}; ${hint}`);
}

/** A version argument: a decimal integer (range checks are the codec's). @throws CliError */
export function parseVersion(text: string): number {
  if (!/^-?\d{1,6}$/.test(text.trim())) {
    throw new CliError(`version must be an integer, got ${JSON.stringify(text)}`);
  }
  return Number(text.trim());
}
