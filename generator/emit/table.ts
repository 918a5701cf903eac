/**
 * The field table of a message: `export const <Name>$fields: MessageTable`, its schema as data
 * for the runtime's interpreters (format: the runtime's table.ts). One row per field, one line
 * per row, so that the text is already as prettier lays it out (rows stay under the print width
 * but for very long defaults, which prettier then wraps).
 */

import type { DefaultValue, FieldSpec, MessageSpec, StructSpec } from "../schema/model.js";
import { schemaTypeName } from "../schema/wire-types.js";
import type { ModuleContext } from "./context.js";
import { ZERO_UUID } from "../schema/load-defaults.js";
import { PRINT_WIDTH } from "./code.js";
import { jsDoc } from "./names.js";

/** The exported name of a message's field table: `<Name>$fields` (`$`: no schema name has one). */
export function tableName(spec: MessageSpec): string {
  return `${spec.name}$fields`;
}

/** The default as a table literal, or undefined when it is the type's zero value. */
export function tableDefault(value: DefaultValue, field: FieldSpec): string | undefined {
  switch (value.kind) {
    case "null":
      return "null";
    case "bool":
      return value.value ? "true" : undefined;
    case "int": {
      if (value.value === 0n) return undefined;
      const int64 = field.type.kind === "primitive" && field.type.name === "int64";
      return int64 ? `${value.value}n` : String(value.value);
    }
    case "float":
      if (Object.is(value.value, 0)) return undefined;
      return Object.is(value.value, -0) ? "-0" : String(value.value);
    case "string":
      return value.value === "" ? undefined : JSON.stringify(value.value);
    case "uuid":
      return value.value === ZERO_UUID ? undefined : JSON.stringify(value.value);
    case "empty":
    case "struct":
      return undefined;
  }
}

/** A row's options (`key: value` parts), empty when every option is at its default. */
function optionParts(field: FieldSpec): string[] {
  const parts: string[] = [];
  if (!field.nullableVersions.isEmpty()) parts.push(`nullable: "${field.nullableVersions}"`);
  if (field.tag !== null) parts.push(`tag: ${field.tag}`, `tagged: "${field.taggedVersions}"`);
  if (field.flexibleVersions !== undefined) parts.push(`flexible: "${field.flexibleVersions}"`);
  const d = tableDefault(field.default, field);
  if (d !== undefined) parts.push(`default: ${d}`);
  if (field.ignorable) parts.push("ignorable: true");
  if (field.entityType !== null) parts.push(`entityType: ${JSON.stringify(field.entityType)}`);
  if (field.mapKey) parts.push("mapKey: true");
  if (field.zeroCopy) parts.push("zeroCopy: true");
  return parts;
}

/** The row's elements: property, type, versions, and the options object when there is one. */
function rowElements(field: FieldSpec): string[] {
  const elements = [
    JSON.stringify(field.propertyName),
    JSON.stringify(schemaTypeName(field.type)),
    `"${field.versions}"`,
  ];
  const parts = optionParts(field);
  if (parts.length > 0) elements.push(`{ ${parts.join(", ")} }`);
  return elements;
}

/** One field's row on one line: `["property", "type", "versions", { options }]`. */
function row(field: FieldSpec): string {
  return `[${rowElements(field).join(", ")}]`;
}

/**
 * A row's lines at `indent`, as prettier lays them out: one line when it fits the width, else
 * one element a line (and the options one key a line when they do not fit either).
 */
function rowLines(field: FieldSpec, indent: string): string[] {
  const line = `${indent}${row(field)},`;
  if (line.length <= PRINT_WIDTH) return [line];
  const inner = `${indent}  `;
  const lines = [`${indent}[`];
  for (const e of rowElements(field)) {
    if (e.startsWith("{") && `${inner}${e},`.length > PRINT_WIDTH) {
      lines.push(`${inner}{`, ...optionParts(field).map((p) => `${inner}  ${p},`), `${inner}},`);
    } else lines.push(`${inner}${e},`);
  }
  lines.push(`${indent}],`);
  return lines;
}

/** A struct's rows, the object at `pad`. */
function structRows(struct: StructSpec, pad: string): string[] {
  const key = `${pad}    ${struct.name}:`;
  // Prettier keeps a key unquoted when it is an identifier; struct names always are.
  if (struct.fields.length === 0) return [`${key} [],`];
  // Prettier breaks an array of two or more arrays; one that fits the width stays on its line.
  if (struct.fields.length === 1) {
    const line = `${key} [${row(struct.fields[0]!)}],`;
    if (line.length <= PRINT_WIDTH) return [line];
  }
  return [`${key} [`, ...struct.fields.flatMap((f) => rowLines(f, `${pad}      `)), `${pad}    ],`];
}

/** The table's declaration (the runtime's `MessageTable` type is imported by the module). */
export function emitTable(ctx: ModuleContext): string {
  const s = ctx.spec;
  const doc = jsDoc(
    `The field table of ${s.name}: its schema as data, for interpreters (decoding with byte spans,\n` +
      "Kafka's JSON form). Rows are `[property, type, versions, options?]`; see `MessageTable` in the runtime.",
  );
  const head = `export const ${tableName(s)}: ${ctx.rt("MessageTable")} =`;
  // As prettier breaks a declaration too long for its `{`: the object on the next line, one level deeper.
  const broken = `${head} {`.length > PRINT_WIDTH;
  const pad = broken ? "  " : "";
  return [
    doc.replace(/\n$/, ""),
    ...(broken ? [head, `${pad}{`] : [`${head} {`]),
    `${pad}  name: ${JSON.stringify(s.name)},`,
    `${pad}  validVersions: "${s.validVersions}",`,
    `${pad}  flexibleVersions: "${s.flexibleVersions}",`,
    `${pad}  structs: {`,
    ...s.structs.flatMap((struct) => structRows(struct, pad)),
    `${pad}  },`,
    `${pad}};`,
  ].join("\n");
}
