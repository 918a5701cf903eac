/**
 * What every part of a message's emitter shares: the message, the runtime names the module
 * imports, the versions each struct's functions can be called with, and the module's functions
 * in the order they are emitted.
 */

import type { FieldSpec, MessageSpec, StructSpec } from "../schema/model.js";
import type { Versions } from "../schema/versions.js";
import { flexibleVersionsOf, structOf } from "../schema/wire-types.js";
import type { Code } from "./code.js";

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

/**
 * A struct function whose body runs in a try/catch that adds the field path to errors: `f`
 * names the field, `i` the array index (see the runtime's `withPath`).
 */
export function structFunction(
  ctx: ModuleContext,
  struct: StructSpec,
  signature: string,
  body: Code,
  decoding: boolean,
  offset: string,
): string {
  const usesArrays = struct.fields.some((f) => f.type.kind === "array");
  const locals = usesArrays ? 'let f = "";\nlet i = -1;' : 'let f = "";\nconst i = -1;';
  const wrapped = `${locals}\ntry {\n${body}\n} catch (e) {\n  throw ${ctx.rt("withPath")}(e, f, i, ${offset}, ${decoding});\n}`;
  return `function ${signature} {\n${wrapped}\n}`;
}
