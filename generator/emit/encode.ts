/**
 * Encoding: each struct's `X$size` and `X$write` functions, emitted together from one walk over
 * its fields, so that the write pass writes exactly what the size pass measured (and consumes
 * the lengths it recorded in `lens`, in the same order).
 */

import type { FieldSpec, FieldType, StructSpec } from "../schema/model.js";
import { condition, type Versions } from "../schema/versions.js";
import {
  encodingDependsOnFlexible,
  fixedSizeOf,
  PRIMITIVES,
  primitiveOps,
  regularVersions,
} from "../schema/wire-types.js";
import { Code } from "./code.js";
import { BODY_DEPTH, fieldMark, structFunction, taggedFields, type ModuleContext } from "./context.js";
import { not, type Defaults } from "./defaults.js";

/** Where a value's code goes: the size pass (adding to `target`), the write pass, or both. */
interface Out {
  readonly size?: Code;
  /** The variable the size pass adds to. */
  readonly target: string;
  readonly write?: Code;
}

/** How a value is encoded where it is emitted. */
interface Mode {
  /**
   * Compact lengths (a flexible version); for an array, also the condition (`version >= 12`)
   * under which they are compact, when only its length prefix depends on it.
   */
  readonly flexible: boolean | string;
  readonly nullable: boolean;
  /**
   * Inside a tagged field's payload: Kafka writes a nullable struct's presence marker there as
   * an unsigned varint (0 null, 1 present) instead of the int8 (-1 / 1) of ordinary fields.
   */
  readonly tagged: boolean;
}

function codesOf(out: Out): Code[] {
  return [out.size, out.write].filter((c): c is Code => c !== undefined);
}

export class EncodeEmitter {
  constructor(
    private readonly ctx: ModuleContext,
    private readonly defaults: Defaults,
  ) {}

  /** Pushes `X$size` and `X$write` for a struct whose functions are called in versions `ctx`. */
  emitStruct(struct: StructSpec, ctx: Versions): void {
    const S = struct.name;
    const size = new Code(BODY_DEPTH);
    const write = new Code(BODY_DEPTH);
    size.line("let size = 0;");
    for (const field of struct.fields) {
      const x = `v.${field.propertyName}`;
      const regular = regularVersions(field);
      size.ifVersion(
        field.versions,
        ctx,
        (c) =>
          size.ifVersion(regular, c, (c2) => {
            // A fixed-size value cannot fail here (its range is checked when written).
            if (fixedSizeOf(field.type) === undefined) size.line(fieldMark(field));
            // The same versions for the write pass (`regular` lies within the field's versions).
            write.ifVersion(regular, ctx, () => {
              write.line(fieldMark(field));
              this.encodeField({ size, target: "size", write }, field, x, c2, false);
            });
          }),
        () => this.defaults.checkAbsent(size, field, x),
      );
    }
    this.emitTaggedSection(struct, ctx, size, write);
    size.line("return size;");
    this.ctx.functions.push(
      structFunction(
        this.ctx,
        struct,
        `${S}$size`,
        [`v: ${S}`, "version: number", "lens: number[]"],
        "number",
        size,
        false,
        "-1",
      ),
    );
    this.ctx.functions.push(
      structFunction(
        this.ctx,
        struct,
        `${S}$write`,
        [`w: ${this.ctx.rt("Writer")}`, `v: ${S}`, "version: number"],
        "void",
        write,
        false,
        "w.pos",
      ),
    );
  }

  /** The tagged-field section (KIP-482): a count, then each non-default tagged field by tag, with its size. */
  private emitTaggedSection(struct: StructSpec, ctx: Versions, size: Code, write: Code): void {
    const tagged = taggedFields(struct);
    const flexible = this.ctx.spec.flexibleVersions;
    const rt = (name: string): string => this.ctx.rt(name);
    const knownTags = `[${tagged.map((f) => f.tag).join(", ")}]`;
    if (tagged.length === 0) {
      // Only unknown tagged fields: the runtime measures and writes them.
      if (flexible.intersect(ctx).isEmpty()) return;
      size.line('f = "_unknownTaggedFields";');
      size.ifVersion(
        flexible,
        ctx,
        () => size.line(`size += ${rt("sizeUnknownTaggedSection")}(v);`),
        // Kafka refuses to drop tagged fields silently in a version without them, and so do we.
        () => size.line(`${rt("checkNoTaggedFields")}(${rt("ownUnknownTaggedFields")}(v), version);`),
      );
      write.ifVersion(flexible, ctx, () => write.line(`${rt("writeUnknownTaggedSection")}(w, v);`));
      return;
    }
    Code.ifVersionAll(
      [size, write],
      flexible,
      ctx,
      (c) => {
        size.line("let tagged = 0;");
        write.line(`const unknown = ${rt("ownUnknownTaggedFields")}(v);`);
        write.line(`${tagged.length > 0 ? "let" : "const"} tagged = unknown === undefined ? 0 : unknown.length;`);
        for (const field of tagged) {
          const notDefault = not(this.defaults.isDefault(field, `v.${field.propertyName}`));
          const inVersion = condition(field.taggedVersions, c);
          if (inVersion.kind === "never") continue;
          const head = `if (${inVersion.kind === "check" ? `${inVersion.expr} && ${notDefault}` : notDefault})`;
          if (inVersion.kind === "check" && !write.fits(head)) {
            // As prettier breaks an `if` whose condition passes the print width: an operand a line.
            write.line("if (");
            write.indented(() => write.line(`${inVersion.expr} &&`).line(notDefault));
            write.line(")").indented(() => write.line("tagged++;"));
          } else write.lineOrBreak(head, "tagged++;");
        }
        write.line("w.uvarint(tagged);");
        if (tagged.length > 0) write.line("let u = 0;");
        for (const field of tagged) {
          const x = `v.${field.propertyName}`;
          Code.ifVersionAll([size, write], field.taggedVersions, c, (c2) => {
            write.line(`if (unknown !== undefined) u = w.unknownTaggedFields(unknown, u, ${field.tag});`);
            const notDefault = `if (${not(this.defaults.isDefault(field, x))})`;
            size.block(notDefault, () =>
              write.block(notDefault, () => {
                size.line(fieldMark(field));
                size.line("tagged++;");
                // The payload's size is written before the payload: measured here, kept in lens.
                size.line(`const slot = ${rt("reserveLen")}(lens);`);
                size.line("let s = 0;");
                write.line(fieldMark(field));
                write.line(`w.uvarint(${field.tag});`);
                write.line("w.uvarint(w.nextLen());");
                this.encodeField({ size, target: "s", write }, field, x, c2, true);
                size.line("lens[slot] = s;");
                size.line(`size += ${rt("uvarintSize")}(${field.tag}) + ${rt("uvarintSize")}(s) + s;`);
              }),
            );
          });
        }
        size.line('f = "_unknownTaggedFields";');
        size.line(`const unknown = ${rt("ownUnknownTaggedFields")}(v);`);
        size.block("if (unknown !== undefined)", () => {
          size.line("tagged += unknown.length;");
          size.line(`size += ${rt("sizeUnknownTaggedFields")}(unknown, ${knownTags});`);
        });
        size.line(`size += ${rt("uvarintSize")}(tagged);`);
        write.line(
          `if (unknown !== undefined) w.unknownTaggedFields(unknown, ${tagged.length > 0 ? "u" : "0"}, Infinity);`,
        );
      },
      () => {
        // Kafka refuses to drop tagged fields silently in a version without them, and so do we.
        if (flexible.intersect(ctx).isEmpty()) return;
        size.line('f = "_unknownTaggedFields";');
        size.line(`${rt("checkNoTaggedFields")}(${rt("ownUnknownTaggedFields")}(v), version);`);
      },
    );
  }

  /**
   * A field's value `x`, flexible or not, nullable or not as `ctx` decides (branching at run
   * time where it does not).
   */
  private encodeField(out: Out, field: FieldSpec, x: string, ctx: Versions, tagged: boolean): void {
    const codes = codesOf(out);
    const local = `$${field.propertyName}`;
    const nullableOrNot = (c: Versions, flexible: (c: Versions) => boolean | string): void =>
      Code.ifVersionAll(
        codes,
        field.nullableVersions,
        c,
        (c2) => this.encodeValue(out, field.type, x, c2, { flexible: flexible(c2), nullable: true, tagged }, local),
        // The TypeScript type admits null (nullable in other versions); the size functions reject it at run time.
        (c2) =>
          this.encodeValue(
            out,
            field.type,
            field.nullableVersions.isEmpty() ? x : `${x}!`,
            c2,
            { flexible: flexible(c2), nullable: false, tagged },
            local,
          ),
      );
    if (!encodingDependsOnFlexible(field.type)) {
      nullableOrNot(ctx, () => false);
      return;
    }
    if (field.type.kind === "array" && !elementDependsOnFlexible(field.type.element)) {
      // Only the length prefix differs between flexible versions and others: one loop.
      nullableOrNot(ctx, (c) => {
        const compact = condition(this.ctx.flexibleVersions(field), c);
        return compact.kind === "check" ? compact.expr : compact.kind === "always";
      });
      return;
    }
    Code.ifVersionAll(
      codes,
      this.ctx.flexibleVersions(field),
      ctx,
      (c) => nullableOrNot(c, () => true),
      (c) => nullableOrNot(c, () => false),
    );
  }

  /** `local`: the name an array's value gets. */
  private encodeValue(out: Out, type: FieldType, x: string, ctx: Versions, mode: Mode, local: string): void {
    const { size, target, write } = out;
    if (type.kind === "primitive") {
      const ops = primitiveOps(type.name, mode.flexible === true, mode.nullable);
      if (typeof ops.size === "number") size?.line(`${target} += ${ops.size};`);
      else size?.line(`${target} += ${this.ctx.rt(ops.size.fn)}(${x}${ops.size.lens ? ", lens" : ""});`);
      write?.line(`w.${ops.write}(${x});`);
      return;
    }
    if (type.kind === "struct") {
      const measure = (): void => {
        size!.line(`${this.ctx.rt("checkStruct")}(${x});`);
        size!.line(`${target} += ${type.struct.name}$size(${x}, version, lens);`);
      };
      const writeStruct = `${type.struct.name}$write(w, ${x}, version);`;
      if (!mode.nullable) {
        if (size) measure();
        write?.line(writeStruct);
        return;
      }
      // One marker byte, then the struct when present.
      if (size) {
        size.line(`${target} += 1;`);
        size.block(`if (${x} !== null)`, measure);
      }
      if (write) {
        const [absent, present] = mode.tagged ? ["w.uvarint(0);", "w.uvarint(1);"] : ["w.int8(-1);", "w.int8(1);"];
        write.ifElse(
          `if (${x} === null)`,
          () => write.line(absent),
          () => write.line(present).line(writeStruct),
        );
      }
      return;
    }
    this.encodeArray(out, type.element, x, ctx, mode, local);
  }

  /**
   * An array: its length (compact: unsigned varint length+1, 0 for null; classic: int32, -1 for
   * null), then each element. `a`: the array's local name.
   */
  private encodeArray(out: Out, element: FieldType, x: string, ctx: Versions, mode: Mode, a: string): void {
    const { size, target, write } = out;
    const fixed = fixedSizeOf(element);
    const bulk = element.kind === "primitive" ? PRIMITIVES[element.name].bulkWrite : undefined;
    const flex = mode.flexible;
    /** The size expression for compact and classic lengths. */
    const pick = (compact: () => string, classic: () => string): string =>
      flex === true ? compact() : flex === false ? classic() : `${flex} ? ${compact()} : ${classic()}`;
    /** The write statement for compact and classic lengths. */
    const writeLength = (compact: string, classic: string): void => {
      if (typeof flex === "boolean") write!.line(flex ? compact : classic);
      else
        write!.ifElse(
          `if (${flex})`,
          () => write!.line(compact),
          () => write!.line(classic),
        );
    };
    size?.line(`const ${a} = ${x};`);
    write?.line(`const ${a} = ${x};`);
    if (mode.nullable) {
      size?.openElse(`if (${a} === null)`, () =>
        size.line(
          `${target} += ${pick(
            () => "1",
            () => "4",
          )};`,
        ),
      );
      write?.openElse(`if (${a} === null)`, () => writeLength("w.uvarint(0);", "w.int32(-1);"));
    }
    if (size) {
      const compact = (): string => `${this.ctx.rt("sizeCompactArrayPrefix")}(${a})`;
      const classic = (): string => `${this.ctx.rt("sizeArrayPrefix")}(${a})`;
      const one = `${target} += ${flex} ? sizeCompactArrayPrefix(${a}) : sizeArrayPrefix(${a});`;
      // One line, or a statement each (as a long conditional expression is not laid out here).
      if (typeof flex === "string" && !size.fits(one))
        size.ifElse(
          `if (${flex})`,
          () => size.line(`${target} += ${compact()};`),
          () => size.line(`${target} += ${classic()};`),
        );
      else size.line(`${target} += ${pick(compact, classic)};`);
    }
    if (fixed !== undefined) size?.line(`${target} += ${a}.length * ${fixed};`);
    if (write) writeLength(`w.uvarint(${a}.length + 1);`, `w.int32(${a}.length);`);
    if (bulk !== undefined) write?.line(`w.${bulk}(${a});`);
    // Elements one by one where neither a product nor a bulk write does.
    const loopSize = fixed === undefined ? size : undefined;
    const loopWrite = bulk === undefined ? write : undefined;
    // Elements do not depend on the flexible condition (else the caller branches on it).
    const elementMode = { ...mode, flexible: flex === true, nullable: false };
    const loop = (code: Code | undefined, body: () => void): void =>
      code ? void code.block(`for (i = 0; i < ${a}.length; i++)`, body) : body();
    if (loopSize || loopWrite) {
      loop(loopSize, () =>
        loop(loopWrite, () =>
          this.encodeValue({ size: loopSize, target, write: loopWrite }, element, `${a}[i]!`, ctx, elementMode, a),
        ),
      );
      loopSize?.line("i = -1;");
      loopWrite?.line("i = -1;");
    }
    if (mode.nullable) {
      size?.close();
      write?.close();
    }
  }
}

/** Whether the code of an array's elements differs between flexible versions and others (compact strings, bytes). */
function elementDependsOnFlexible(element: FieldType): boolean {
  return element.kind === "primitive" && encodingDependsOnFlexible(element);
}
