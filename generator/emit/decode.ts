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
        const text = body.toString();
        // A value read in every version by one expression becomes a const.
        const single = !text.includes("\n") && text.startsWith(`${local} = `);
        if (!single) read.line(`let ${local}: ${tsFieldType(field)};`);
        reads.push(() => {
          read.line(fieldMark(field));
          if (single) read.line(`const ${text}`);
          else read.append(text);
        });
      } else {
        read.line(`let ${local}: ${tsFieldType(field)};`);
        const regular = regularVersions(field);
        const readRegular = (c: Versions): void => {
          read.line(fieldMark(field));
          this.readField(read, field, local, c, false);
        };
        if (field.tag !== null) {
          // Tagged fields start at their default; the tagged section below may replace it.
          reads.push(() => read.line(`${local} = ${literal(field.default, field)};`));
          if (!regular.isEmpty()) reads.push(() => read.ifVersion(regular, ctx, readRegular));
        } else {
          // The default is built only in versions that lack the field.
          reads.push(() =>
            read.ifVersion(regular, ctx, readRegular, () => read.line(`${local} = ${literal(field.default, field)};`)),
          );
        }
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

  /** Emits `target = <read value>;`, flexible or not, nullable or not as `ctx` decides. */
  private readField(code: Code, field: FieldSpec, target: string, ctx: Versions, tagged: boolean): void {
    const nullableOrNot = (c: Versions, flexible: boolean): void => {
      code.ifVersion(
        field.nullableVersions,
        c,
        (c2) => this.readValue(code, field.type, target, c2, flexible, true, tagged),
        (c2) => this.readValue(code, field.type, target, c2, flexible, false, tagged),
      );
    };
    if (!encodingDependsOnFlexible(field.type)) {
      nullableOrNot(ctx, false);
      return;
    }
    code.ifVersion(
      this.ctx.flexibleVersions(field),
      ctx,
      (c) => nullableOrNot(c, true),
      (c) => nullableOrNot(c, false),
    );
  }

  private readValue(
    code: Code,
    type: FieldType,
    target: string,
    ctx: Versions,
    flexible: boolean,
    nullable: boolean,
    tagged: boolean,
  ): void {
    if (type.kind === "primitive") {
      code.line(`${target} = r.${primitiveOps(type.name, flexible, nullable).read}();`);
      return;
    }
    if (type.kind === "struct") {
      const read = `${type.struct.name}$read(r, version)`;
      // In a tagged field's payload the presence marker is an unsigned varint (see encode.ts).
      const present = tagged ? "r.uvarint() > 0" : "r.structPresent()";
      code.line(nullable ? `${target} = ${present} ? ${read} : null;` : `${target} = ${read};`);
      return;
    }
    const min = minElementSize(type, this.ctx.spec.flexibleVersions, ctx);
    const method = `${flexible ? "compact" : ""}${nullable ? "Nullable" : ""}ArrayLength`;
    code.block("", () => {
      code.line(`const n = r.${method[0]!.toLowerCase()}${method.slice(1)}(${min});`);
      const element = type.element.kind === "primitive" ? PRIMITIVES[type.element.name] : undefined;
      const bulk = element?.bulkRead; // int64: a bigint each, read by the Reader
      const fill = (): void => {
        if (element?.inlineRead !== undefined && element.fixedSize !== undefined) {
          // The length check above covered n elements of this fixed size: one loop over the
          // checked bytes, inline (a Reader call per small array cost as much as its reads).
          const size = element.fixedSize;
          code.line(`const a = new Array<number>(n);`);
          code.lineOrBreak(
            `for (let k = 0, q = r.pos; k < n; k++, q += ${size})`,
            `a[k] = ${element.inlineRead((j) => `r.buf[${j === 0 ? "q" : `q + ${j}`}]!`)};`,
          );
          code.line(size === 1 ? "r.pos += n;" : `r.pos += n * ${size};`);
          code.line(`${target} = a;`);
          return;
        }
        if (bulk !== undefined) {
          // The length check above covered n elements of this fixed size: read them in one go.
          code.line(`${target} = r.${bulk}(n);`);
          return;
        }
        // Exact size up front (the count is already checked against the bytes that remain).
        code.line(`const a = new Array<${tsTypeOf(type.element)}>(n);`);
        code.block(`for (i = 0; i < n; i++)`, () => {
          this.readValue(code, type.element, "a[i]", ctx, flexible, false, tagged);
        });
        code.line("i = -1;");
        code.line(`${target} = a;`);
      };
      if (nullable) {
        code.ifElse("if (n < 0)", () => code.line(`${target} = null;`), fill);
      } else {
        fill();
      }
    });
  }
}

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
