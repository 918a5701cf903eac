/**
 * The schema sets the page can read with: Apache Kafka's client messages (generated at build
 * time into .codecs/, see scripts/codecs.ts) and the repository's own generated/ (the KIP-1071
 * drafts of the streams group messages, whose frames use Kafka's headers when those are there).
 */

import { TABLES as STREAMS_TABLES } from "../.codecs/generated-tables.js";
import { KAFKA } from "../.codecs/kafka.js";
import { messages as streams } from "../../generated/index.js";
import { defineProtocol, type ProtocolDefinition } from "../../src/codegen/v1.js";
import type { ApiCodecs, MessageCodec, RequestHeaderFields, ResponseHeaderFields } from "../../src/runtime/index.js";
import type { MessageTable } from "../../src/runtime/table.js";

/** What frames of a set are read with. */
export interface SetProtocol {
  /** Every API with a request and a response, by api key. */
  readonly apis: ReadonlyMap<number, ApiCodecs>;
  readonly requestHeaderCodec: MessageCodec<RequestHeaderFields>;
  readonly responseHeaderCodec: MessageCodec<ResponseHeaderFields>;
}

/** One schema set. */
export interface SchemaSet {
  /** Stable id (the page's `set` select and URL). */
  readonly id: string;
  readonly label: string;
  /** Every codec by message name. */
  readonly messages: ReadonlyMap<string, MessageCodec<unknown>>;
  /** Every message's field table by name (what the spans are decoded with). */
  readonly tables: ReadonlyMap<string, MessageTable>;
  /** Null when the set has no request and response headers: only bodies can be read. */
  readonly protocol: SetProtocol | null;
}

function protocolOf(def: ProtocolDefinition): SetProtocol {
  // The inspector reads every version, the unstable latest ones too.
  const { apis } = defineProtocol({ ...def, unstableVersions: true });
  return { apis, requestHeaderCodec: def.requestHeader, responseHeaderCodec: def.responseHeader };
}

function tablesByName(list: readonly MessageTable[]): Map<string, MessageTable> {
  return new Map(list.map((t) => [t.name, t]));
}

function byName(list: readonly MessageCodec<unknown>[]): Map<string, MessageCodec<unknown>> {
  return new Map([...list].sort((a, b) => a.name.localeCompare(b.name)).map((c) => [c.name, c]));
}

/** The sets this build has, Kafka's first when it was generated. */
export function schemaSets(): SchemaSet[] {
  const sets: SchemaSet[] = [];
  const own = Object.values(streams) as MessageCodec<unknown>[];
  if (KAFKA !== null) {
    const def = KAFKA.protocolDefinition;
    sets.push({
      id: "kafka",
      label: `Apache Kafka (${KAFKA.label})`,
      messages: byName(Object.values(KAFKA.messages) as MessageCodec<unknown>[]),
      tables: tablesByName(KAFKA.tables),
      protocol: protocolOf(def),
    });
    sets.push({
      id: "generated",
      label: "kafka-wire generated/ (KIP-1071 drafts; Kafka's headers)",
      messages: byName(own),
      tables: new Map(
        [...tablesByName(KAFKA.tables)]
          .filter(([n]) => n === "RequestHeader" || n === "ResponseHeader")
          .concat([...tablesByName(STREAMS_TABLES)]),
      ),
      protocol: protocolOf({ requestHeader: def.requestHeader, responseHeader: def.responseHeader, messages: own }),
    });
  } else {
    sets.push({
      id: "generated",
      label: "kafka-wire generated/ (KIP-1071 drafts; bodies only)",
      messages: byName(own),
      tables: tablesByName(STREAMS_TABLES),
      protocol: null,
    });
  }
  return sets;
}
