/**
 * Decoding: each struct's `X$read` function. Runs of fixed-size fields read in every version
 * share one bounds check; counts are checked against the bytes that remain before anything is
 * allocated (using the fewest bytes an element can take).
 */

import type { FieldSpec, FieldType, PrimitiveFieldType, StructSpec } from "../schema/model.js";
import { condition, type Versions } from "../schema/versions.js";
import {
  encodingDependsOnFlexible,
  fixedSizeOf,
  minElementSize,
  PRIMITIVES,
  primitiveOps,
  regularVersions,
  tsFieldType,
  tsTypeOf,
} from "../schema/wire-types.js";
import { Code } from "./code.js";
import { BODY_DEPTH, fieldMark, structFunction, taggedFields, type ModuleContext } from "./context.js";
import { literal } from "./defaults.js";

export class DecodeEmitter {
  constructor(private readonly ctx: ModuleContext) {}

  /** Pushes `X$read` for a struct whose functions are called in versions `ctx`. */
  emitStruct(struct: StructSpec, ctx: Versions): void {
    const S = struct.name;
    const flexible = this.ctx.spec.flexibleVersions;
    const read = new Code(BODY_DEPTH);
    // Declarations first (in field order), then the reads.
    const reads: (() => void)[] = [];
    const isAlways = (field: FieldSpec): boolean =>
      field.tag === null && condition(regularVersions(field), ctx).kind === "always";
    const runs = fixedRuns(struct, ctx, isAlways);
    // Where each field of a run is: the run's number, its offset from the run's start.
    // `seek`: r.pos must be moved there before a Reader method reads it; `end`: where r.pos is
    // after the field, relative to the run's start.
    const placed = new Map<
      FieldSpec,
      { run: number; offset: number; seek: boolean; last: boolean; end: number; bytes: number; usesStart: boolean }
    >();
    [...runs.starts.values()].forEach((run, k) => {
      const bytes = run.reduce((total, f) => total + fixedSizeOf(f.type)!, 0);
      let offset = 0;
      let pos = 0; // r.pos - pN: read inline, integers leave it where it was
      const entries: [FieldSpec, { offset: number; seek: boolean; last: boolean; end: number }][] = [];
      let usesStart = false; // a run of Reader reads only (no integer) never needs its start
      for (const [j, f] of run.entries()) {
        const size = fixedSizeOf(f.type)!;
        const inline = PRIMITIVES[(f.type as PrimitiveFieldType).name].inlineRead !== undefined;
        const seek = !inline && pos !== offset;
        if (inline) usesStart = true;
        else pos = offset + size;
        entries.push([f, { offset, seek, last: j === run.length - 1, end: pos }]);
        offset += size;
      }
      for (const [f, e] of entries) placed.set(f, { run: k + 1, ...e, bytes, usesStart });
    });
    for (const field of struct.fields) {
      const local = `$${field.propertyName}`;
      if (runs.inRun.has(field)) {
        const run = runs.starts.get(field);
        const at = placed.get(field)!;
        const p = `p${at.run}`;
        reads.push(() => {
          if (run !== undefined) {
            // Truncated inside the run: step through it to name the field the input cuts.
            read.block(`if (r.remaining() < ${at.bytes})`, () => {
              for (const f of run) read.line(fieldMark(f)).line(`r.skip(${fixedSizeOf(f.type)!});`);
            });
            if (at.usesStart) read.line(`const ${p} = r.pos;`);
          }
          // Integers are read inline from the checked bytes; others by the Reader at their offset.
          const name = (field.type as PrimitiveFieldType).name;
          const inline = PRIMITIVES[name].inlineRead;
          const byte = (k: number): string => `r.buf[${p}${at.offset + k === 0 ? "" : ` + ${at.offset + k}`}]!`;
          if (inline !== undefined) {
            read.lineOrBreak(`const ${local} =`, `${inline(byte)};`);
          } else {
            // A Reader method can still fail here (a bool above 1 with strictBool): name the field.
            if (at.seek) read.line(`r.pos = ${p} + ${at.offset};`);
            read.line(fieldMark(field));
            read.line(`const ${local} = r.${primitiveOps(name, false, false).readUnchecked!}();`);
          }
          if (at.last && at.end !== at.bytes) read.line(`r.pos = ${p} + ${at.bytes};`);
        });
      } else if (isAlways(field)) {
        const body = new Code(BODY_DEPTH);
        this.readField(body, field, local, ctx, false);
        let text = body.toString();
        // A value read in every version and assigned once, first, becomes a const.
        const single =
          text.startsWith(`${local} = `) &&
          !text
            .split("\n")
            .slice(1)
            .some((l) => l.trimStart().startsWith(`${local} = `));
        if (single) {
          // Again, with the declaration: lines are laid out with it.
          const declared = new Code(BODY_DEPTH);
          this.readField(declared, field, local, ctx, false, "const ");
          text = declared.toString();
        } else {
          read.line(`let ${local}: ${tsFieldType(field)};`);
        }
        reads.push(() => {
          read.line(fieldMark(field));
          read.append(text);
        });
      } else {
        const regular = regularVersions(field);
        const type = tsFieldType(field);
        const fallback = literal(field.default, field);
        const readRegular = (c: Versions): void => {
          read.line(fieldMark(field));
          this.readField(read, field, local, c, false);
        };
        if (field.tag !== null) {
          // Tagged fields start at their default; the tagged section below may replace it.
          if (regular.isEmpty()) {
            read.line(`let ${local}: ${type} = ${fallback};`);
          } else {
            read.line(`let ${local}: ${type};`);
            reads.push(() => read.line(`${local} = ${fallback};`));
            reads.push(() => read.ifVersion(regular, ctx, readRegular));
          }
          continue;
        }
        const present = condition(regular, ctx);
        if (present.kind === "never") {
          reads.push(() => read.line(`const ${local} = ${fallback};`));
          continue;
        }
        // Read by one expression where the field exists: a conditional, `f` set either way.
        const single = new Code(BODY_DEPTH + 1);
        if (present.kind === "check") this.readField(single, field, local, present.inside, false);
        const value = single.toString();
        const conditional =
          present.kind === "check" && !value.includes("\n") && value.startsWith(`${local} = `) && !value.includes(" ? ")
            ? `const ${local} = ${present.expr} ? ${value.slice(local.length + 3, -1)} : ${fallback};`
            : undefined;
        if (conditional !== undefined && read.fits(conditional)) {
          reads.push(() => read.line(fieldMark(field)).line(conditional));
          continue;
        }
        read.line(`let ${local}: ${type};`);
        // The default is built only in versions that lack the field.
        reads.push(() => read.ifVersion(regular, ctx, readRegular, () => read.line(`${local} = ${fallback};`)));
      }
    }
    for (const emit of reads) emit();
    const hasTaggedSection = !flexible.intersect(ctx).isEmpty();
    // Read in every version: a const; in some: declared before the branch.
    const always = condition(flexible, ctx).kind === "always";
    if (hasTaggedSection && !always) read.line(`let unknown: ${this.ctx.rt("UnknownTaggedField")}[] | undefined;`);
    read.ifVersion(flexible, ctx, (c) => this.readTaggedSection(read, struct, c, always ? "const " : ""));
    read.object(
      `const o: ${S} =`,
      struct.fields.map((f) => `${f.propertyName}: $${f.propertyName},`),
    );
    if (hasTaggedSection) read.line("if (unknown !== undefined) o._unknownTaggedFields = unknown;");
    read.line("return o;");
    this.ctx.functions.push(
      structFunction(
        this.ctx,
        struct,
        `${S}$read`,
        [`r: ${this.ctx.rt("Reader")}`, "version: number"],
        S,
        read,
        true,
        "r.pos",
      ),
    );
  }

  /**
   * The tagged-field section, read by the runtime (`r.taggedSection`): known tags into their
   * locals (by a callback that names the field for errors), unknown ones kept in order.
   */
  private readTaggedSection(read: Code, struct: StructSpec, c: Versions, declare: string): void {
    const tagged = taggedFields(struct);
    read.line('f = "";');
    if (tagged.length === 0) {
      read.line(`${declare}unknown = r.taggedSection();`);
      return;
    }
    // `at` only where a known tag can come in a version that does not tag its field.
    const checksVersion = tagged.some((field) => condition(field.taggedVersions.intersect(c), c).kind !== "always");
    read.nest(
      `${declare}unknown = r.taggedSection((tag, end${checksVersion ? ", at" : ""}) => {`,
      () => {
        for (const field of tagged) {
          read.block(`if (tag === ${field.tag})`, () => {
            read.line(fieldMark(field));
            // Kafka's reader rejects a known tag in a version where the field is not tagged.
            read.ifVersion(
              field.taggedVersions.intersect(c),
              c,
              (c2) => {
                this.readField(read, field, `$${field.propertyName}`, c2, true);
                read.line("r.endTaggedField(tag, end);");
                read.line('f = "";');
                read.line("return true;");
              },
              () => read.line("throw r.tagNotInVersion(tag, version, at);"),
            );
          });
        }
        read.line("return false;");
      },
      "});",
    );
  }

  /**
   * Emits `target = <read value>;`, flexible or not, nullable or not as `ctx` decides; `declare`
   * (`const `) goes before the first assignment (for a value read without branches).
   */
  private readField(code: Code, field: FieldSpec, target: string, ctx: Versions, tagged: boolean, declare = ""): void {
    const nullableOrNot = (c: Versions, flexible: (c: Versions) => Flexible): void => {
      code.ifVersion(
        field.nullableVersions,
        c,
        (c2) => this.readValue(code, field.type, target, c2, flexible(c2), true, tagged, declare),
        (c2) => this.readValue(code, field.type, target, c2, flexible(c2), false, tagged, declare),
      );
    };
    if (!encodingDependsOnFlexible(field.type)) {
      nullableOrNot(ctx, () => false);
      return;
    }
    const t = field.type;
    const flexible = this.ctx.flexibleVersions(field);
    if (t.kind === "array" && !(t.element.kind === "primitive" && encodingDependsOnFlexible(t.element))) {
      // Only the length prefix differs between flexible versions and others: one loop.
      nullableOrNot(ctx, (c) => {
        const compact = condition(flexible, c);
        if (compact.kind !== "check") return compact.kind === "always";
        return { expr: compact.expr, inside: compact.inside, outside: c.subtract(compact.inside) };
      });
      return;
    }
    code.ifVersion(
      flexible,
      ctx,
      (c) => nullableOrNot(c, () => true),
      (c) => nullableOrNot(c, () => false),
    );
  }

  private readValue(
    code: Code,
    type: FieldType,
    target: string,
    ctx: Versions,
    flexible: Flexible,
    nullable: boolean,
    tagged: boolean,
    declare = "",
  ): void {
    if (type.kind === "primitive") {
      code.line(`${declare}${target} = r.${primitiveOps(type.name, flexible === true, nullable).read}();`);
      return;
    }
    if (type.kind === "struct") {
      const read = `${type.struct.name}$read(r, version)`;
      // In a tagged field's payload the presence marker is an unsigned varint (see encode.ts).
      const present = tagged ? "r.uvarint() > 0" : "r.structPresent()";
      code.line(`${declare}${target} = ${nullable ? `${present} ? ${read} : null` : read};`);
      return;
    }
    // The count, checked against the bytes that remain (at the fewest bytes an element takes).
    const count = (compact: boolean, within: readonly Versions[]): string => {
      const min = Math.min(...within.map((c) => minElementSize(type, this.ctx.spec.flexibleVersions, c)));
      const method = `${compact ? "compact" : ""}${nullable ? "Nullable" : ""}ArrayLength`;
      return `r.${method[0]!.toLowerCase()}${method.slice(1)}(${min})`;
    };
    const length =
      typeof flexible === "boolean"
        ? count(flexible, [ctx])
        : `${flexible.expr} ? ${count(true, [flexible.inside])} : ${count(false, flexible.outside)}`;
    const element = type.element.kind === "primitive" ? PRIMITIVES[type.element.name] : undefined;
    const bulk = element?.bulkRead; // int64: a bigint each, read by the Reader
    const elementFlexible = flexible === true; // elements do not depend on a flexible condition
    /** Fills array `a` of `n` elements (`n`: an expression). */
    const fill = (a: string, n: string): void => {
      if (element?.inlineRead !== undefined && element.fixedSize !== undefined) {
        // The length check covered n elements of this fixed size: one loop over the checked
        // bytes, inline (a Reader call per small array cost as much as its reads).
        const size = element.fixedSize;
        const bound = n === "n" ? "" : `, n = ${n}`;
        code.lineOrBreak(
          `for (let k = 0${bound}, q = r.pos; k < n; k++, q += ${size})`,
          `${a}[k] = ${element.inlineRead((j) => `r.buf[${j === 0 ? "q" : `q + ${j}`}]!`)};`,
        );
        code.line(size === 1 ? `r.pos += ${n};` : `r.pos += ${n} * ${size};`);
        return;
      }
      // Exact size up front (the count is already checked against the bytes that remain).
      code.block(`for (i = 0; i < ${n}; i++)`, () => {
        this.readValue(code, type.element, `${a}[i]`, ctx, elementFlexible, false, tagged);
      });
      code.line("i = -1;");
    };
    const arrayType = `new Array<${tsTypeOf(type.element)}>`;
    if (!nullable && bulk !== undefined) {
      // The length check covered n elements of this fixed size: read them in one go.
      code.list(`${declare}${target} = r.${bulk}(`, [length], ");");
      return;
    }
    if (!nullable && !tagged) {
      // Straight into the field's local (a tagged field's is shared with the section's callback: kept out of loops).
      code.list(`${declare}${target} = ${arrayType}(`, [length], ");");
      fill(target, `${target}.length`);
      return;
    }
    const body = (): void => {
      code.line(`const n = ${length};`);
      const filled = (): void => {
        if (bulk !== undefined) {
          code.line(`${target} = r.${bulk}(n);`);
          return;
        }
        code.line(`const a = ${arrayType}(n);`);
        fill("a", "n");
        code.line(`${target} = a;`);
      };
      if (nullable) code.ifElse("if (n < 0)", () => code.line(`${target} = null;`), filled);
      else filled();
    };
    // A scope of its own for `n` and `a`, unless the tagged field's block gives one.
    if (tagged) body();
    else code.block("", body);
  }
}

/**
 * Whether an array's length prefix is compact: always, never, or under `expr` (true in versions
 * `inside`, false in `outside`).
 */
type Flexible = boolean | { readonly expr: string; readonly inside: Versions; readonly outside: readonly Versions[] };

/**
 * Runs of fixed-size fields read in every version of `ctx` (fields absent in all of them take
 * no bytes and do not break a run): they share one bounds check ("hoisted"), and their integers
 * are read inline. A single such field is a run of one: inline too.
 */
function fixedRuns(
  struct: StructSpec,
  ctx: Versions,
  isAlways: (field: FieldSpec) => boolean,
): { readonly starts: Map<FieldSpec, FieldSpec[]>; readonly inRun: Set<FieldSpec> } {
  const isAbsent = (field: FieldSpec): boolean => condition(regularVersions(field), ctx).kind === "never";
  const starts = new Map<FieldSpec, FieldSpec[]>();
  const inRun = new Set<FieldSpec>();
  for (let k = 0; k < struct.fields.length;) {
    const run: FieldSpec[] = [];
    let m = k;
    for (; m < struct.fields.length; m++) {
      const field = struct.fields[m]!;
      if (isAbsent(field)) continue;
      if (!isAlways(field) || fixedSizeOf(field.type) === undefined) break;
      run.push(field);
    }
    if (run.length > 0) {
      starts.set(run[0]!, run);
      for (const field of run) inRun.add(field);
    }
    k = Math.max(m, k + 1);
  }
  return { starts, inRun };
}
