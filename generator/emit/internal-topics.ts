/**
 * The generated `internal-topics.ts`: `internalTopics` (decode/encode of the internal topics'
 * keys and values, typed per topic) and `controlDecoder` (the KRaft control records of record
 * batches), for a schema set that has such schemas (see ../internal-topics.ts for which). Its
 * own module, so that importing a codec from the index does not keep these tables in a bundle.
 */

import { SchemaError } from "../schema/errors.js";
import type { InternalTopicsPlan } from "../schema/internal-topics.js";
import type { MessageSpec } from "../schema/model.js";
import { Code, importLine } from "./code.js";
import { header, jsDoc, type HeaderFacts } from "./names.js";

/** The generated module's file name (without `.ts`). */
export const INTERNAL_TOPICS_MODULE = "internal-topics";

/** Names the module imports from the runtime. */
const RUNTIME_NAMES = ["defineControlDecoder", "defineInternalTopics", "InternalRecord", "InternalTopics"];

/** `__consumer_offsets` → `ConsumerOffsetsRecord`. */
export function topicTypeName(topic: string): string {
  const words = topic.split(/[^A-Za-z0-9]+/).filter((w) => w !== "");
  return `${words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join("")}Record`;
}

/** True when the schema set has anything for the module. */
export function hasInternalTopics(plan: InternalTopicsPlan): boolean {
  return plan.topics.length > 0 || plan.control.length > 0;
}

/** The names the module exports (the index re-exports them all). */
export function internalTopicsExports(plan: InternalTopicsPlan): string[] {
  const names: string[] = [];
  if (plan.topics.length > 0) {
    names.push("internalTopics", "InternalTopicRecords", ...plan.topics.map((t) => topicTypeName(t.topic)));
  }
  if (plan.control.length > 0) names.push("controlDecoder", "controlSchemas", "KRaftControlRecord");
  return names;
}

/** The module text. @throws SchemaError when a message name clashes with a name the module defines or imports. */
export function internalTopicsModule(
  plan: InternalTopicsPlan,
  facts: Omit<HeaderFacts, "source"> & { readonly sources: string },
  runtimeImport: string,
  messageNames: readonly string[],
): string {
  const own = new Set([...internalTopicsExports(plan), ...RUNTIME_NAMES]);
  for (const name of messageNames) {
    if (own.has(name)) {
      throw new SchemaError({
        file: name,
        line: 1,
        column: 1,
        reason: `message ${name} clashes with ${name} in the generated ${INTERNAL_TOPICS_MODULE}.ts`,
      });
    }
  }
  const used = new Set<string>();
  for (const t of plan.topics) for (const r of t.records) for (const s of [r.key, r.value]) if (s) used.add(s.name);
  for (const c of plan.control) used.add(c.schema.name);

  const code = new Code();
  code.append(header({ version: facts.version, source: facts.sources, command: facts.command }));
  const runtime = [
    ...(plan.control.length > 0 ? ["defineControlDecoder"] : []),
    ...(plan.topics.length > 0 ? ["defineInternalTopics", "type InternalRecord", "type InternalTopics"] : []),
  ];
  importLine(code, runtime, runtimeImport);
  for (const n of [...used].sort()) code.line(`import { ${n} } from "./${n}.js";`);

  const literal = (s: MessageSpec | null) => (s === null ? "null" : JSON.stringify(s.name));
  const type = (s: MessageSpec | null) => (s === null ? "null" : s.name);
  for (const t of plan.topics) {
    code.line("");
    code.append(
      jsDoc(
        `A decoded record of \`${t.topic}\` (${t.framing === "coordinator" ? "int16 record type + key; int16 version + value, null for a tombstone" : "value: varint frame version 1, api key, version, body"}), by record type.`,
      ),
    );
    const members = t.records.map((r) => [
      String(r.recordType),
      literal(r.key),
      type(r.key),
      literal(r.value),
      type(r.value),
    ]);
    unionType(code, `export type ${topicTypeName(t.topic)} =`, "InternalRecord", members);
  }
  if (plan.topics.length > 0) {
    code.line("");
    code.line("/** Each internal topic's decoded records. */");
    code.line("export interface InternalTopicRecords {");
    for (const t of plan.topics) {
      code.line(`  /** The records of \`${t.topic}\`. */`);
      code.line(`  ${t.topic}: ${topicTypeName(t.topic)};`);
    }
    code.line("}");
    code.line("");
    code.append(
      jsDoc(
        "Kafka's internal-topic records of this schema set: `decode(topic, key, value)` returns the record type,\n" +
          "key and value schema names, the value version and the typed key and value (value null for a\n" +
          "tombstone); `encode` writes them as Kafka's serdes do. Unknown record types are `UNKNOWN_RECORD_TYPE`.",
      ),
    );
    // Too long for one line: prettier puts the call on the next one.
    code.line("export const internalTopics: InternalTopics<InternalTopicRecords> =");
    code.indented(() =>
      code.nest(
        "/*@__PURE__*/ defineInternalTopics<InternalTopicRecords>({",
        () => {
          for (const t of plan.topics) {
            code.block(
              `${t.topic}:`,
              () => {
                code.line(`framing: ${JSON.stringify(t.framing)},`);
                const entries = t.records.map((r) => [
                  `recordType: ${r.recordType}`,
                  `key: ${type(r.key)}`,
                  `keyVersion: ${r.keyVersion}`,
                  `value: ${r.value.name}`,
                ]);
                // Prettier keeps a single object on the line of its array; more go one a line.
                const single = `records: [{ ${entries[0]!.join(", ")} }],`;
                if (entries.length === 1 && code.fits(single)) code.line(single);
                else code.nest("records: [", () => entries.forEach((e) => code.list("{ ", e, " },")), "],");
              },
              "},",
            );
          }
        },
        "});",
      ),
    );
  }
  if (plan.control.length > 0) {
    code.line("");
    code.line("/** A decoded KRaft control record value. */");
    unionType(
      code,
      "export type KRaftControlRecord =",
      null,
      plan.control.map((c) => [c.schema.name]),
    );
    code.line("");
    code.line("/** The KRaft control record schemas by control type (Kafka's ControlRecordType). */");
    code.line("export const controlSchemas = {");
    for (const c of plan.control) code.line(`  ${c.type}: ${c.schema.name},`);
    code.line("} as const;");
    code.line("");
    code.append(
      jsDoc(
        "`decodeRecords(bytes, { controlDecoder })` (kafka-wire/records): decodes KRaft control records\n" +
          "(version 0 bodies, no version prefix) into `record.control.decoded`.",
      ),
    );
    code.line("export const controlDecoder = /*@__PURE__*/ defineControlDecoder<KRaftControlRecord>(controlSchemas);");
  }
  return `${code}\n`;
}

/**
 * `head A | B | …;` for members `generic<args>` (or the bare name when `generic` is null), laid
 * out as prettier does: on one line; else the members on the next line; else one member a line,
 * each led by `|`, with its type arguments one a line when it is still too long (a single
 * member keeps its place after `=` and only breaks its type arguments).
 */
function unionType(code: Code, head: string, generic: string | null, members: readonly (readonly string[])[]): void {
  const member = (args: readonly string[]): string => (generic === null ? args[0]! : `${generic}<${args.join(", ")}>`);
  const flat = members.map(member).join(" | ");
  if (code.fits(`${head} ${flat};`)) {
    code.line(`${head} ${flat};`);
    return;
  }
  if (members.length === 1) {
    code.nest(
      `${head} ${generic}<`,
      () => members[0]!.forEach((a, k) => code.line(k < members[0]!.length - 1 ? `${a},` : a)),
      ">;",
    );
    return;
  }
  code.line(head);
  code.indented(() => {
    if (code.fits(`${flat};`)) {
      code.line(`${flat};`);
      return;
    }
    members.forEach((args, k) => {
      const end = k === members.length - 1 ? ";" : "";
      if (code.fits(`| ${member(args)}${end}`)) {
        code.line(`| ${member(args)}${end}`);
        return;
      }
      code.line(`| ${generic}<`);
      code.indented(() => code.indented(() => args.forEach((a, j) => code.line(j < args.length - 1 ? `${a},` : a))));
      code.indented(() => code.line(`>${end}`));
    });
  });
}
