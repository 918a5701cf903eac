/**
 * What every part of a message's emitter shares: the message, the runtime names the module
 * imports, the versions each struct's functions can be called with, and the module's functions
 * in the order they are emitted.
 */

import type { FieldSpec, MessageSpec, StructSpec } from "../schema/model.js";
import type { Versions } from "../schema/versions.js";
import { flexibleVersionsOf, structOf } from "../schema/wire-types.js";
import { Code } from "./code.js";

export interface EmitOptions {
  /** Module specifier the generated code imports the runtime from. */
  readonly runtimeImport: string;
  /** The schema path shown in the header, e.g. `schemas/StreamsGroupHeartbeatRequest.json`. */
  readonly sourceLabel: string;
  /** kafka-wire's version, for the header. */
  readonly generatorVersion: string;
  /** The command that regenerates the module, for the header. */
  readonly command: string;
}

export class ModuleContext {
  private readonly runtime = new Set<string>();
  /** The versions each struct's functions can be called with (absent: no function is emitted). */
  private readonly contexts = new Map<StructSpec, Versions>();
  /** The module's functions, in emission order. */
  readonly functions: string[] = [];

  constructor(
    readonly spec: MessageSpec,
    readonly options: EmitOptions,
  ) {
    this.collectContexts(spec.struct, spec.validVersions);
  }

  private collectContexts(struct: StructSpec, range: Versions): void {
    const known = this.contexts.get(struct);
    const merged = known === undefined ? range : known.hull(range);
    if (known && known.equals(merged)) return;
    this.contexts.set(struct, merged);
    for (const field of struct.fields) {
      const inner = structOf(field.type);
      const effective = field.versions.intersect(merged);
      if (inner && !effective.isEmpty()) this.collectContexts(inner, effective);
    }
  }

  /** The versions `struct`'s functions can be called with; undefined when no field uses it. */
  contextOf(struct: StructSpec): Versions | undefined {
    return this.contexts.get(struct);
  }

  /** A runtime name the module uses (imported from the runtime). */
  rt(name: string): string {
    this.runtime.add(name);
    return name;
  }

  /** Every runtime name used, sorted. */
  runtimeNames(): string[] {
    return [...this.runtime].sort();
  }

  /** The versions in which `field` (the message itself when omitted) is flexible. */
  flexibleVersions(field?: FieldSpec): Versions {
    return field ? flexibleVersionsOf(field, this.spec.flexibleVersions) : this.spec.flexibleVersions;
  }

  /**
   * Whether `struct`'s interface has `_unknownTaggedFields`: it has a tagged-field section in
   * some version its functions see, or it has no functions (a common struct no field uses).
   */
  keepsUnknownTaggedFields(struct: StructSpec): boolean {
    return this.hasTaggedSection(struct) || this.contexts.get(struct) === undefined;
  }

  /** Whether `struct` has a tagged-field section in some version its functions see. */
  hasTaggedSection(struct: StructSpec): boolean {
    const ctx = this.contexts.get(struct);
    return ctx !== undefined && !this.spec.flexibleVersions.intersect(ctx).isEmpty();
  }
}

/** The tagged fields of a struct, by tag. */
export function taggedFields(struct: StructSpec): FieldSpec[] {
  return struct.fields.filter((f) => f.tag !== null).sort((a, b) => a.tag! - b.tag!);
}

/** `f = "<property>";`: names the field that a later error is about. */
export function fieldMark(field: FieldSpec): string {
  return `f = ${JSON.stringify(field.propertyName)};`;
}

/** The depth of a {@link structFunction}'s body: inside the function and its `try`. */
export const BODY_DEPTH = 2;

/**
 * A struct function whose body runs in a try/catch that adds the field path to errors: `f`
 * names the field, `i` the array index (see the runtime's `withPath`). Parameters the body never
 * reads get a `_` prefix ({@link unusedPrefixed}).
 */
export function structFunction(
  ctx: ModuleContext,
  struct: StructSpec,
  name: string,
  params: readonly string[],
  returnType: string,
  body: Code,
  decoding: boolean,
  offset: string,
): string {
  const usesArrays = struct.fields.some((f) => f.type.kind === "array");
  const text = body.toString();
  const fn = new Code();
  fn.block(signature(fn, `function ${name}(`, unusedPrefixed(params, `${text}\n${offset}`), `): ${returnType}`), () => {
    fn.line('let f = "";');
    // No arrays: no index (-1) to name in errors.
    if (usesArrays) fn.line("let i = -1;");
    fn.block("try", () => fn.append(text), "} catch (e) {");
    fn.indented(() =>
      fn.line(`throw ${ctx.rt("withPath")}(e, f, ${usesArrays ? "i" : "-1"}, ${offset}, ${decoding});`),
    );
    fn.line("}");
  });
  return fn.toCompactString();
}

/**
 * A function signature as prettier lays it out: on one line with its ` {` when that fits, else
 * each parameter on a line of its own. Emits all but the last line and returns that (the head
 * of the body's block).
 */
export function signature(code: Code, open: string, params: readonly string[], close: string): string {
  const one = `${open}${params.join(", ")}${close}`;
  if (code.fits(`${one} {`)) return one;
  code.line(open);
  code.indented(() => params.forEach((p) => code.line(`${p},`)));
  return close;
}

/**
 * `params` with a `_` prefix on those `body` never reads, so that generated code compiles under
 * `noUnusedParameters` (a size function of fixed-size fields needs no `lens`, a struct whose
 * fields exist in every version no `version`). Reads are found in the body with its strings and
 * comments removed; a `name:` object key or a `.name` property is not a read.
 */
export function unusedPrefixed(params: readonly string[], body: string): string[] {
  const code = body.replace(
    /"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`|\/\/[^\n]*|\/\*[\s\S]*?\*\//g,
    '""',
  );
  return params.map((p) => {
    const name = /^[A-Za-z$][\w$]*/.exec(p)?.[0];
    if (name === undefined || name.startsWith("_")) return p;
    const read = new RegExp(`(?<![\\w$.])${name.replace(/\$/g, "\\$")}(?![\\w$])(?!\\s*:(?!:))`);
    return read.test(code) ? p : `_${p}`;
  });
}
