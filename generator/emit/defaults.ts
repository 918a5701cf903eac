/**
 * Defaults: the TypeScript literal of a field's default, the "equals its default" checks Kafka
 * uses to skip tagged fields and to refuse values in versions without the field, and the
 * `X$create` functions that build a struct of defaults.
 */

import type { DefaultValue, FieldSpec, StructSpec } from "../model.js";
import { structOf } from "../wire-types.js";
import type { Code } from "./code.js";
import { fieldMark, type ModuleContext } from "./context.js";

/** The default as a TypeScript expression (a struct default calls its `X$create`). */
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
      return `${structOf(field.type)!.name}$create()`;
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
        return nullable ? `${x} !== null && ${x}.length === 0` : `${x}.length === 0`;
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

  /** Emits `X$isDefault` (after those of the structs it needs) the first time it is needed. */
  private requireIsDefault(struct: StructSpec): void {
    if (this.isDefaultEmitted.has(struct)) return;
    this.isDefaultEmitted.add(struct);
    const parts = struct.fields.map((f) => `(${this.isDefault(f, `v.${f.propertyName}`)})`);
    if (this.ctx.hasTaggedSection(struct))
      parts.push("(v._unknownTaggedFields === undefined || v._unknownTaggedFields.length === 0)");
    this.ctx.functions.push(
      `/** Whether every field of a ${struct.name} holds its default (Kafka's \`equals(new ${struct.name}())\`). */\n` +
        `function ${struct.name}$isDefault(v: ${struct.name}): boolean {\n  return ${parts.length ? parts.join(" &&\n    ") : "true"};\n}`,
    );
  }

  /** In versions where a field does not exist, a non-default value is an error unless the field is ignorable. */
  checkAbsent(code: Code, field: FieldSpec, x: string): void {
    if (field.ignorable) return;
    code.line(fieldMark(field));
    code.line(
      `if (!(${this.isDefault(field, x)})) throw ${this.ctx.rt("fieldNotInVersion")}(${JSON.stringify(field.propertyName)}, version);`,
    );
  }
}

/** `X$create()`: a struct holding every field's default. */
export function createFunction(struct: StructSpec): string {
  const fields = struct.fields.map((f) => `    ${f.propertyName}: ${literal(f.default, f)},`).join("\n");
  return `function ${struct.name}$create(): ${struct.name} {\n  return {\n${fields}\n  };\n}`;
}

/**
 * The structs that need an `X$create` but have no functions of their own (`emitted`): those
 * whose defaults a created struct holds (a field with a struct default), transitively. Listed
 * in rounds (the structs the previous round needs), each in definition order.
 */
export function extraCreates(structs: readonly StructSpec[], emitted: readonly StructSpec[]): StructSpec[] {
  const defined = new Set(emitted);
  const extra: StructSpec[] = [];
  for (;;) {
    const wanted = new Set<StructSpec>();
    for (const s of defined) {
      for (const f of s.fields) if (f.default.kind === "struct") wanted.add(structOf(f.type)!);
    }
    const round = structs.filter((s) => wanted.has(s) && !defined.has(s));
    if (round.length === 0) return extra;
    for (const s of round) defined.add(s);
    extra.push(...round);
  }
}
