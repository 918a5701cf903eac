/**
 * Emits one TypeScript module per message: the runtime import, an interface per struct, and for
 * every struct its size and write functions (one walk, encode.ts), read (decode.ts), Kafka's
 * JSON form (json.ts) and create (defaults.ts), then the codec. Version conditions are pruned
 * against the versions each function can be called with (versions.ts). The text is laid out as
 * prettier would lay it out (code.ts): no formatter runs after.
 */

import type { MessageSpec, StructSpec } from "../schema/model.js";
import { tsFieldType } from "../schema/wire-types.js";
import { Code, importLine } from "./code.js";
import { ModuleContext, type EmitOptions } from "./context.js";
import { DecodeEmitter } from "./decode.js";
import { createFunction, createName, Defaults } from "./defaults.js";
import { EncodeEmitter } from "./encode.js";
import { emitTable, tableName } from "./table.js";
import { RUNTIME_TYPES } from "../schema/reserved-names.js";
import { fieldDoc, header, jsDoc, structDocs } from "./names.js";

export type { EmitOptions } from "./context.js";

/** The TypeScript module for one message. */
export function emitMessage(spec: MessageSpec, options: EmitOptions): string {
  const ctx = new ModuleContext(spec, options);
  const defaults = new Defaults(ctx);
  const encode = new EncodeEmitter(ctx, defaults);
  const decode = new DecodeEmitter(ctx);
  const emitted: StructSpec[] = [];
  for (const struct of spec.structs) {
    const versions = ctx.contextOf(struct);
    if (versions === undefined) continue; // a common struct no field uses: its interface is enough
    encode.emitStruct(struct, versions);
    decode.emitStruct(struct, versions);
    emitted.push(struct);
  }
  // Every struct has its exported factory, also those without functions of their own; after the
  // table they are made from.
  const creates = [...emitted, ...spec.structs.filter((s) => !emitted.includes(s))].map((s) =>
    createFunction(ctx, s, tableName(spec)),
  );

  const out = new Code();
  out.append(header({ version: options.generatorVersion, source: options.sourceLabel, command: options.command }));
  const body = new Code();
  spec.structs.forEach((struct, k) => {
    if (k > 0) body.line("");
    emitInterface(body, ctx, struct);
  });
  // No blank line between the last interface and the first function (kept from earlier output).
  body.append(ctx.functions.join("\n\n"));
  body.line("");
  // Before the codec, which refers to it (Kafka's JSON form is interpreted from it).
  body.append(emitTable(ctx));
  body.line("");
  body.append(creates.join("\n\n"));
  body.line("");
  emitCodec(body, spec);
  // The import last: only now is every runtime name the module uses known.
  ctx.rt("defineMessage");
  ctx.rt("MessageCodec");
  const typeOnly = new Set(RUNTIME_TYPES);
  const imports = ctx.runtimeNames().map((n) => (typeOnly.has(n) ? `type ${n}` : n));
  importLine(out, imports, options.runtimeImport);
  out.line("");
  return `${out}\n${body}\n`;
}

/** The codec: what the module exports under the message's name. */
function emitCodec(code: Code, s: MessageSpec): void {
  // The message's facts are documented once, on its interface.
  const doc = `The codec of ${s.name} (see its interface): encode, decode, size, create and Kafka's JSON form, for versions ${s.validVersions}.`;
  const one = jsDoc(doc);
  code.append(code.fits(one) ? one : jsDoc(`\n${doc}`));
  // The api key as a literal type: `MetadataRequest.apiKey` is `3`, not `number | null`.
  const apiKey = s.apiKey === null ? "null" : String(s.apiKey);
  // Laid out as prettier does: the type arguments go on lines of their own when the line is too long.
  const head = `export const ${s.name}: MessageCodec<${s.name}, ${apiKey}> = /*@__PURE__*/ defineMessage<`;
  const fields = (): void => {
    code.line(`name: ${JSON.stringify(s.name)},`);
    code.line(`apiKey: ${apiKey},`);
    code.line(`type: ${JSON.stringify(s.type)},`);
    code.line(`validVersions: ${rangeLiteral(s.validVersions.toRange())},`);
    code.line(`flexibleVersions: ${rangeLiteral(s.flexibleVersions.toRange())},`);
    // Only when the schema has them: without, framing keeps deriving them (older output unchanged).
    const headers = headerVersionsLiteral(s);
    if (headers !== null) code.line(`headerVersions: ${headers},`);
    if (s.latestVersionUnstable) code.line("latestVersionUnstable: true,");
    for (const fn of ["size", "write", "read"]) code.line(`${fn}: ${s.name}$${fn},`);
    code.line(`create: ${createName(s.struct)},`);
    code.line(`fields: ${tableName(s)},`);
  };
  const call = `defineMessage<${s.name}, ${apiKey}>(`;
  if (code.fits(`${head}${s.name}, ${apiKey}>({`)) {
    code.nest(`${head.slice(0, -"defineMessage<".length)}${call}{`, fields, "});");
  } else if (code.fits(`${head}${s.name}, ${apiKey}>(`)) {
    // The object no longer hugs the parenthesis.
    code.line(`${head.slice(0, -"defineMessage<".length)}${call}`);
    code.indented(() => code.nest("{", fields, "},"));
    code.line(");");
  } else if (code.fits(head)) {
    code.line(head).indented(() => code.line(`${s.name},`).line(apiKey));
    code.nest(">({", fields, "});");
  } else if (code.fits(`export const ${s.name}: MessageCodec<${s.name}, ${apiKey}> =`)) {
    code.line(`export const ${s.name}: MessageCodec<${s.name}, ${apiKey}> =`);
    code.indented(() => code.nest(`/*@__PURE__*/ ${call}{`, fields, "});"));
  } else {
    // Even the declaration is too long: its type arguments go on lines of their own, then the call's.
    code.line(`export const ${s.name}: MessageCodec<`).indented(() => code.line(`${s.name},`).line(apiKey));
    if (code.fits(`> = /*@__PURE__*/ ${call}{`)) {
      code.nest(`> = /*@__PURE__*/ ${call}{`, fields, "});");
    } else if (code.fits(`> = /*@__PURE__*/ ${call}`)) {
      // The object no longer hugs the parenthesis.
      code.line(`> = /*@__PURE__*/ ${call}`);
      code.indented(() => code.nest("{", fields, "},"));
      code.line(");");
    } else {
      code.line("> = /*@__PURE__*/ defineMessage<").indented(() => code.line(`${s.name},`).line(apiKey));
      code.nest(">({", fields, "});");
    }
  }
}

/** The schema's `headerVersions` within its valid versions, as the runtime's `HeaderVersionRange[]`; null without. */
function headerVersionsLiteral(s: MessageSpec): string | null {
  if (s.headerVersions === null) return null;
  const entries = s.headerVersions.flatMap(({ range, header }) => {
    const within = range.intersect(s.validVersions);
    return within.isEmpty() ? [] : [`{ lowest: ${within.lowest}, highest: ${within.highest}, header: ${header} }`];
  });
  return `[${entries.join(", ")}]`;
}

/** The runtime's `VersionRange | null` as a TypeScript literal. */
function rangeLiteral(range: { readonly lowest: number; readonly highest: number } | null): string {
  return range === null ? "null" : `{ lowest: ${range.lowest}, highest: ${range.highest} }`;
}

/** A struct's interface: its fields, and the unknown tagged fields where it has a tagged section. */
function emitInterface(code: Code, ctx: ModuleContext, struct: StructSpec): void {
  code.append(jsDoc(structDocs(ctx.spec, struct, ctx.options.sourceLabel)));
  code.block(`export interface ${struct.name}`, () => {
    for (const f of struct.fields) {
      code.append(fieldDoc(f, (line) => code.fits(line)));
      code.line(`${f.propertyName}: ${tsFieldType(f)};`);
    }
    if (ctx.keepsUnknownTaggedFields(struct)) {
      code.append(
        jsDoc(
          "Tagged fields this schema does not know, kept from decoding and written back in ascending tag order (KIP-482).",
        ),
      );
      code.line(`_unknownTaggedFields?: ${ctx.rt("UnknownTaggedField")}[];`);
    }
  });
}
