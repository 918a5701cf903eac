/**
 * The schema sets the page reads with: Apache Kafka's client messages (generated at build time
 * into .codecs/, see scripts/codecs.ts) and the repository's own generated/ (the KIP-1071 drafts
 * of the streams group messages, whose frames use Kafka's headers when those are there). A set
 * is field tables (what `decodeWithSpans` reads) and what framing needs of each message; the
 * codecs themselves are not in the page's bundle (see codecs.ts).
 */

import { generatedInfo, generatedTables, KAFKA_LABEL, kafkaInfo, kafkaTables } from "../.codecs/sets.js";
import type { HeaderVersionRange, MessageType, VersionRange } from "../../src/runtime/index.js";
import { parseTableVersions, type MessageTable } from "../../src/runtime/table.js";

/** What framing needs of a message beyond its table (its generated codec's metadata). */
export interface MessageInfo {
  readonly name: string;
  readonly apiKey: number | null;
  readonly type: MessageType;
  /** The schema's `headerVersions`, when it has them (KIP-1313). */
  readonly headerVersions?: readonly HeaderVersionRange[];
}

/**
 * One message of a set: its table, and the fields of its codec that the runtime's
 * `requestHeaderVersion` / `responseHeaderVersion` read (name, api key, versions, header versions).
 */
export interface SetMessage extends MessageInfo {
  readonly table: MessageTable;
  readonly validVersions: VersionRange;
  readonly flexibleVersions: VersionRange | null;
}

/** A request and its response. */
export interface SetApi {
  readonly apiKey: number;
  /** The name without Request/Response (`ApiVersions`). */
  readonly name: string;
  readonly request: SetMessage;
  readonly response: SetMessage;
}

/** What frames of a set are read with. */
export interface SetProtocol {
  /** Every API with a request and a response, by api key. */
  readonly apis: ReadonlyMap<number, SetApi>;
  readonly requestHeader: SetMessage;
  readonly responseHeader: SetMessage;
}

/** One schema set. */
export interface SchemaSet {
  /** `kafka`, `generated` or `user` (schema files opened in the page): the select's value, and the key of the set's codecs in codecs.ts. */
  readonly id: "kafka" | "generated" | "user";
  readonly label: string;
  /** Every message by name, sorted. */
  readonly messages: ReadonlyMap<string, SetMessage>;
  /** Null when the set has no request and response headers: only bodies can be read. */
  readonly protocol: SetProtocol | null;
}

function messagesOf(tables: readonly MessageTable[], info: readonly MessageInfo[]): SetMessage[] {
  const byName = new Map(info.map((i) => [i.name, i]));
  return tables.map((table) => {
    const flexible = parseTableVersions(table.flexibleVersions);
    return {
      ...byName.get(table.name)!,
      table,
      validVersions: parseTableVersions(table.validVersions),
      flexibleVersions: flexible.lowest > flexible.highest ? null : flexible,
    };
  });
}

/** Pairs requests and responses by api key (as the runtime's `defineProtocol`). */
function protocolOf(
  messages: readonly SetMessage[],
  requestHeader: SetMessage,
  responseHeader: SetMessage,
): SetProtocol {
  const responses = new Map<number, SetMessage>();
  for (const m of messages) if (m.type === "response" && m.apiKey !== null) responses.set(m.apiKey, m);
  const apis = new Map<number, SetApi>();
  for (const request of [...messages].sort((a, b) => (a.apiKey ?? 0) - (b.apiKey ?? 0))) {
    const response = request.apiKey === null ? undefined : responses.get(request.apiKey);
    if (request.type !== "request" || response === undefined) continue;
    apis.set(request.apiKey!, {
      apiKey: request.apiKey!,
      name: request.name.replace(/Request$/, ""),
      request,
      response,
    });
  }
  return { apis, requestHeader, responseHeader };
}

const byName = (list: readonly SetMessage[]): Map<string, SetMessage> =>
  new Map([...list].sort((a, b) => a.name.localeCompare(b.name)).map((m) => [m.name, m]));

/** The sets this build has, Kafka's first when it was generated. */
export function schemaSets(): SchemaSet[] {
  const own = messagesOf(generatedTables, generatedInfo);
  if (kafkaTables === null) {
    return [
      {
        id: "generated",
        label: "kafka-wire generated/ (KIP-1071 drafts; bodies only)",
        messages: byName(own),
        protocol: null,
      },
    ];
  }
  const kafka = messagesOf(kafkaTables, kafkaInfo);
  const requestHeader = kafka.find((m) => m.name === "RequestHeader")!;
  const responseHeader = kafka.find((m) => m.name === "ResponseHeader")!;
  return [
    {
      id: "kafka",
      label: `Apache Kafka (${KAFKA_LABEL})`,
      messages: byName(kafka),
      protocol: protocolOf(kafka, requestHeader, responseHeader),
    },
    {
      id: "generated",
      label: "kafka-wire generated/ (KIP-1071 drafts; Kafka's headers)",
      messages: byName(own),
      protocol: protocolOf(own, requestHeader, responseHeader),
    },
  ];
}

/**
 * The set of a user's schema files (see user-schemas.ts); frames use its own RequestHeader and
 * ResponseHeader when it has them, else those of `headersFrom` (Kafka's), else it reads bodies only.
 */
export function userSet(
  tables: readonly MessageTable[],
  info: readonly MessageInfo[],
  label: string,
  headersFrom: SchemaSet | undefined,
): SchemaSet {
  const own = messagesOf(tables, info);
  const header = (name: string, fallback: SetMessage | undefined): SetMessage | undefined =>
    own.find((m) => m.name === name && m.type === "header") ?? fallback;
  const requestHeader = header("RequestHeader", headersFrom?.protocol?.requestHeader);
  const responseHeader = header("ResponseHeader", headersFrom?.protocol?.responseHeader);
  const protocol =
    requestHeader === undefined || responseHeader === undefined ? null : protocolOf(own, requestHeader, responseHeader);
  return { id: "user", label, messages: byName(own), protocol };
}
