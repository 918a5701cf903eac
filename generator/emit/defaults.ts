/**
 * Defaults: the TypeScript literal of a field's default, the "equals its default" checks Kafka
 * uses to skip tagged fields and to refuse values in versions without the field, and the
 * exported `createX(init)` functions that fill what an init omits with defaults, at any depth.
 */

import type { DefaultValue, FieldSpec, StructSpec } from "../schema/model.js";
import { structOf, tsFieldType } from "../schema/wire-types.js";
import type { Code } from "./code.js";
import { fieldMark, type ModuleContext } from "./context.js";

/** The name of a struct's exported factory: `createTopology` for `Topology`. */
export function createName(struct: StructSpec): string {
  return `create${struct.name}`;
}

/** The default as a TypeScript expression (a struct default calls its `createX`). */
export function literal(value: DefaultValue, field: FieldSpec): string {
  switch (value.kind) {
    case "null":
      return "null";
    case "bool":
      return String(value.value);
    case "int":
      return field.type.kind === "primitive" && field.type.name === "int64" ? `${value.value}n` : String(value.value);
    case "float":
      return Object.is(value.value, -0) ? "-0" : Number.isNaN(value.value) ? "NaN" : String(value.value);
    case "string":
    case "uuid":
      return JSON.stringify(value.value);
    case "empty":
      return field.type.kind === "array" ? "[]" : "new Uint8Array(0)";
    case "struct":
      return `${createName(structOf(field.type)!)}()`;
  }
}

/** Emits the default checks and `$isDefault` functions of one module, each once. */
export class Defaults {
  private readonly isDefaultEmitted = new Set<StructSpec>();

  constructor(private readonly ctx: ModuleContext) {}

  /** An expression that is true when `x` equals the field's default (Kafka's semantics). */
  isDefault(field: FieldSpec, x: string): string {
    const d = field.default;
    const nullable = !field.nullableVersions.isEmpty();
    switch (d.kind) {
      case "null":
        return `${x} === null`;
      case "empty":
        // undefined (a missing field) is not the default: it goes on to be reported as missing.
        return nullable ? `${x} != null && ${x}.length === 0` : `${x} !== undefined && ${x}.length === 0`;
      case "struct": {
        const s = structOf(field.type)!;
        this.requireIsDefault(s);
        return nullable ? `${x} !== null && ${s.name}$isDefault(${x})` : `${s.name}$isDefault(${x})`;
      }
      case "float":
        // NaN equals nothing with ===: compare it as a value.
        return Number.isNaN(d.value) ? `Number.isNaN(${x})` : `${x} === ${literal(d, field)}`;
      default:
        return `${x} === ${literal(d, field)}`;
    }
  }

  /**
   * Emits `X$isDefault` (after those of the structs it needs) the first time it is needed; an
   * undefined struct (a missing field) is not the default.
   */
  private requireIsDefault(struct: StructSpec): void {
    if (this.isDefaultEmitted.has(struct)) return;
    this.isDefaultEmitted.add(struct);
    const parts = struct.fields.map((f) => `(${this.isDefault(f, `v.${f.propertyName}`)})`);
    if (this.ctx.hasTaggedSection(struct))
      parts.push(`(${this.ctx.rt("ownUnknownTaggedFields")}(v)?.length ?? 0) === 0`);
    this.ctx.functions.push(
      `/** Whether every field of a ${struct.name} holds its default (Kafka's \`equals(new ${struct.name}())\`). */\n` +
        `function ${struct.name}$isDefault(v: ${struct.name}): boolean {\n  return ${["v !== undefined", ...parts].join(" &&\n    ")};\n}`,
    );
  }

  /** In versions where a field does not exist, a non-default value is an error unless the field is ignorable. */
  checkAbsent(code: Code, field: FieldSpec, x: string): void {
    if (field.ignorable) return;
    code.line(fieldMark(field));
    // undefined is a missing field, reported as such (and never read as a struct's fields).
    code.line(
      `if (${x} === undefined || !(${this.isDefault(field, x)})) throw ${this.ctx.rt("fieldNotInVersion")}(${JSON.stringify(field.propertyName)}, version, ${x});`,
    );
  }
}

/**
 * `createX(init)`: a new struct with `init`'s fields and every omitted one at its default; struct
 * fields and arrays of structs go through their own `createY`, so defaults fill every depth.
 */
export function createFunction(ctx: ModuleContext, struct: StructSpec): string {
  const S = struct.name;
  // Every field reads only an own property of `init`, into a local: neither a member of
  // Object.prototype (`toString`) nor a value a polluted prototype adds stands in for an omitted field.
  const locals = struct.fields
    .map((f) => `  const ${f.propertyName}$ = ${ctx.rt("ownField")}(init, ${JSON.stringify(f.propertyName)});\n`)
    .join("");
  const fields = struct.fields
    .map((f) => `    ${f.propertyName}: ${initValue(ctx, f, `${f.propertyName}$`)},`)
    .join("\n");
  const unknown = ctx.keepsUnknownTaggedFields(struct)
    ? `  const unknown = ${ctx.rt("ownUnknownTaggedFields")}(init);\n  if (unknown !== undefined) v._unknownTaggedFields = unknown;\n`
    : "";
  return (
    `/** A new ${S}: the fields of \`init\`, and every field it omits (at any depth) at its schema default. */\n` +
    `export function ${createName(struct)}(init: ${ctx.rt("Init")}<${S}> = {}): ${S} {\n` +
    `${locals}  const v: ${S} = {\n${fields}\n  };\n${unknown}  return v;\n}`
  );
}

/** A field's value in `createX`: its default when `init` omits it, else `init`'s (created when a struct). */
function initValue(ctx: ModuleContext, field: FieldSpec, x: string): string {
  const struct = structOf(field.type);
  let value = x;
  if (struct !== null) {
    const helper = ctx.rt(field.type.kind === "array" ? "initStructs" : "initStruct");
    value = `${helper}(${x}, ${createName(struct)})`;
    if (tsFieldType(field).endsWith(" | null")) value = `${x} === null ? null : ${value}`;
  }
  return `${x} === undefined ? ${literal(field.default, field)} : ${value}`;
}
