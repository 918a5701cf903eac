/**
 * Defaults: the TypeScript literal of a field's default, the "equals its default" checks Kafka
 * uses to skip tagged fields and to refuse values in versions without the field, and the
 * exported `createX(init)` functions that fill what an init omits with defaults, at any depth.
 */

import type { DefaultValue, FieldSpec, StructSpec } from "../schema/model.js";
import { structOf } from "../schema/wire-types.js";
import { Code, stringLiteral } from "./code.js";
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
      return stringLiteral(value.value);
    case "empty":
      return field.type.kind === "array" ? "[]" : "new Uint8Array(0)";
    case "struct":
      return `${createName(structOf(field.type)!)}()`;
  }
}

/** `!expr`, with parentheses unless `expr` is a call (as prettier keeps them). */
export function not(expr: string): string {
  return /^[\w$.]+\([^()]*\)$/.test(expr) ? `!${expr}` : `!(${expr})`;
}

/** Emits the default checks and `$isDefault` functions of one module, each once. */
export class Defaults {
  private readonly isDefaultEmitted = new Set<StructSpec>();

  constructor(private readonly ctx: ModuleContext) {}

  /** An expression that is true when `x` equals the field's default (Kafka's semantics). */
  isDefault(field: FieldSpec, x: string): string {
    return this.isDefaultParts(field, x).join(" && ");
  }

  /** {@link isDefault} as the operands of its `&&`. */
  private isDefaultParts(field: FieldSpec, x: string): string[] {
    const d = field.default;
    const nullable = !field.nullableVersions.isEmpty();
    switch (d.kind) {
      case "null":
        return [`${x} === null`];
      case "empty":
        // undefined (a missing field) is not the default: it goes on to be reported as missing.
        return [nullable ? `${x} != null` : `${x} !== undefined`, `${x}.length === 0`];
      case "struct": {
        const s = structOf(field.type)!;
        this.requireIsDefault(s);
        return nullable ? [`${x} !== null`, `${s.name}$isDefault(${x})`] : [`${s.name}$isDefault(${x})`];
      }
      case "float":
        // NaN equals nothing with ===: compare it as a value.
        return [Number.isNaN(d.value) ? `Number.isNaN(${x})` : `${x} === ${literal(d, field)}`];
      default:
        return [`${x} === ${literal(d, field)}`];
    }
  }

  /**
   * Emits `X$isDefault` (after those of the structs it needs) the first time it is needed; an
   * undefined struct (a missing field) is not the default.
   */
  private requireIsDefault(struct: StructSpec): void {
    if (this.isDefaultEmitted.has(struct)) return;
    this.isDefaultEmitted.add(struct);
    const parts = ["v !== undefined", ...struct.fields.flatMap((f) => this.isDefaultParts(f, `v.${f.propertyName}`))];
    if (this.ctx.hasTaggedSection(struct))
      parts.push(`(${this.ctx.rt("ownUnknownTaggedFields")}(v)?.length ?? 0) === 0`);
    const fn = new Code();
    fn.line(
      `/** Whether every field of a ${struct.name} holds its default (Kafka's \`equals(new ${struct.name}())\`). */`,
    );
    fn.block(`function ${struct.name}$isDefault(v: ${struct.name}): boolean`, () => {
      // As prettier lays out a long `&&` chain: on one line, in parentheses, or one operand a line.
      const chain = parts.join(" && ");
      if (fn.fits(`return ${chain};`)) fn.line(`return ${chain};`);
      else {
        fn.nest(
          "return (",
          () => {
            if (fn.fits(chain)) fn.line(chain);
            else parts.forEach((p, k) => fn.line(k < parts.length - 1 ? `${p} &&` : p));
          },
          ");",
        );
      }
    });
    this.ctx.functions.push(fn.toString());
  }

  /** In versions where a field does not exist, a non-default value is an error unless the field is ignorable. */
  checkAbsent(code: Code, field: FieldSpec, x: string): void {
    if (field.ignorable) return;
    code.line(fieldMark(field));
    // undefined is a missing field, reported as such (and never read as a struct's fields).
    const conditions = [`${x} === undefined`, not(this.isDefault(field, x))];
    const fail = `throw ${this.ctx.rt("fieldNotInVersion")}(${JSON.stringify(field.propertyName)}, version, ${x});`;
    const head = `if (${conditions.join(" || ")})`;
    if (code.fits(head)) {
      code.lineOrBreak(head, fail);
    } else {
      code.line("if (");
      code.indented(() => code.line(`${conditions[0]} ||`).line(conditions[1]!));
      code.line(")");
      code.indented(() => code.line(fail));
    }
  }
}

/**
 * `createX(init)`: a new struct with `init`'s fields and every omitted one at its default; struct
 * fields and arrays of structs go through their own `createY`, so defaults fill every depth. The
 * runtime does it from the field table (`tableCreate`); the module defines the table first.
 */
export function createFunction(ctx: ModuleContext, struct: StructSpec, table: string): string {
  const S = struct.name;
  const fn = new Code();
  fn.line(`/** A new ${S}: the fields of \`init\`, and every field it omits (at any depth) at its schema default. */`);
  // Typed by tableCreate: `(init?: Init<S>) => S`.
  const head = `export const ${createName(struct)} =`;
  const call = `/*@__PURE__*/ ${ctx.rt("tableCreate")}<${S}>(`;
  const args = [table, JSON.stringify(S)];
  // As prettier breaks it: the arguments first, the call after `=` when even its head is too long.
  if (fn.fits(`${head} ${call}${args.join(", ")});`)) fn.line(`${head} ${call}${args.join(", ")});`);
  else if (fn.fits(`${head} ${call}`)) fn.list(`${head} ${call}`, args, ");");
  else fn.line(head).indented(() => fn.list(call, args, ");"));
  return fn.toString();
}
