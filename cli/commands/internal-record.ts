/**
 * `kafka-wire internal-record <topic>`: one internal-topic key/value pair (__consumer_offsets,
 * __transaction_state, __cluster_metadata, ...) as Kafka JSON.
 */

import type { Command } from "commander";
import { CliError, contextOf, type CliContext } from "../context.js";
import { loadCodecs, withSchemaSet, type SchemaSetFlags } from "../schema-set.js";
import { parseHex } from "../text-io.js";

interface InternalRecordFlags extends SchemaSetFlags {
  readonly key?: string;
  readonly value?: string;
}

async function internalRecordCommand(context: CliContext, topic: string, flags: InternalRecordFlags): Promise<void> {
  const codecSet = await loadCodecs(context.io, flags);
  const internal = codecSet.internalTopics;
  if (internal === undefined || !internal.topics.includes(topic)) {
    const known = internal === undefined || internal.topics.length === 0 ? "none" : internal.topics.join(", ");
    throw new CliError(
      `no records of ${topic} in ${codecSet.shipped ? "the shipped codecs" : "this schema set"} (its internal topics: ${known})` +
        (codecSet.shipped ? "; pass --kafka <version> for Kafka's coordinator and metadata records" : ""),
    );
  }
  const key = flags.key === undefined ? null : parseHex(flags.key);
  const value = flags.value === undefined ? null : parseHex(flags.value);
  context.io.stdout.write(`${internal.toJson(topic, internal.decode(topic, key, value))}\n`);
}

/** Registers `internal-record` on the program. */
export function registerInternalRecord(program: Command): void {
  withSchemaSet(
    program
      .command("internal-record")
      .description(
        "decode one internal-topic record (__consumer_offsets, __transaction_state, __share_group_state, __cluster_metadata, ...) as JSON",
      )
      .argument("<topic>", "the internal topic, e.g. __consumer_offsets"),
  )
    .option("--key <hex>", "the record key as hex (coordinator topics)")
    .option("--value <hex>", "the record value as hex; omit for a tombstone")
    .addHelpText(
      "after",
      "\nPrints {recordType, keySchema, key, valueSchema, valueVersion, value} with the key and value in\n" +
        "Kafka's JSON form. The shipped codecs know only the KIP-1071 seed's streams member metadata\n" +
        "(record type 19); --kafka <version> gives every record type of that release.\n\nExample:\n" +
        "  kafka-wire internal-record __consumer_offsets --key 0013000a6f72646572732d6170700003... --value 0000...",
    )
    .action(async (topic: string, flags: InternalRecordFlags, command: Command) => {
      await internalRecordCommand(contextOf(command), topic, flags);
    });
}
