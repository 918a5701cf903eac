/**
 * Emits one TypeScript module per message: an interface per struct and, from one walk over the
 * fields, the size, write, read, create, JSON and default-check functions of every struct, so
 * they can never disagree. Version conditions are pruned against the versions each function can
 * be called with (see `versions.ts`).
 */

import {
  Project,
  StructureKind,
  VariableDeclarationKind,
  type InterfaceDeclarationStructure,
  type OptionalKind,
  type PropertySignatureStructure,
} from "ts-morph";
import { Code } from "./code.js";
import {
  FIXED_SIZE,
  formatRange,
  structOf,
  intersect,
  type DefaultValue,
  type FieldSpec,
  type FieldType,
  type MessageSpec,
  type PrimitiveFieldType,
  type PrimitiveTypeName,
  type StructSpec,
  type VersionRange,
} from "./model.js";
import { condition, hull } from "./versions.js";

export interface EmitOptions {
  /** Module specifier the generated code imports the runtime from. */
  readonly runtimeImport: string;
  /** The schema path shown in the header, e.g. `schemas/StreamsGroupHeartbeatRequest.json`. */
  readonly sourceLabel: string;
  /** The file's first lines (generate.ts `fileHeader`), ending with a newline. */
  readonly header: string;
}

/** Reader methods that read a whole array of a fixed-size type after one length check. */
const BULK_READ: Partial<Record<PrimitiveTypeName, string>> = {
  int16: "int16Array",
  int32: "int32Array",
  int64: "int64Array",
};

/** Writer methods that write a whole array of a fixed-size type in one loop. */
const BULK_WRITE: Partial<Record<PrimitiveTypeName, string>> = { int16: "int16Array", int32: "int32Array" };

const INT_RANGE: Partial<Record<PrimitiveTypeName, [number, number]>> = {
  int8: [-128, 127],
  int16: [-32768, 32767],
  uint16: [0, 65535],
  int32: [-2147483648, 2147483647],
  uint32: [0, 4294967295],
};

/** Versions in which a field is written as an ordinary (not tagged) field. */
function regularRange(field: FieldSpec): VersionRange | null {
  if (field.versions === null) return null;
  if (field.tag === null || field.taggedVersions === null) return field.versions;
  // taggedVersions is open-ended (Kafka requires "N+"), so the ordinary versions precede it.
  return intersect(field.versions, { lowest: 0, highest: field.taggedVersions.lowest - 1 });
}

/**
 * Whether a value's bytes differ between flexible and non-flexible versions at this level
 * (compact lengths); a struct's own function makes that choice for its fields.
 */
function encodingDependsOnFlexible(type: FieldType): boolean {
  if (type.kind === "array") return true;
  return type.kind === "primitive" && FIXED_SIZE[type.name] === undefined;
}

function isFixedSize(type: FieldType): boolean {
  return type.kind === "primitive" && FIXED_SIZE[type.name] !== undefined;
}

function tsPrimitive(name: PrimitiveTypeName): string {
  switch (name) {
    case "bool":
      return "boolean";
    case "int64":
      return "bigint";
    case "string":
    case "uuid":
      return "string";
    case "bytes":
    case "records":
      return "Uint8Array";
    default:
      return "number";
  }
}

function tsElementType(type: FieldType): string {
  if (type.kind === "primitive") return tsPrimitive(type.name);
  if (type.kind === "struct") return type.struct.name;
  return `${tsElementType(type.element)}[]`;
}

function tsFieldType(field: FieldSpec): string {
  const base = tsElementType(field.type);
  // A null default counts too: a field outside every valid version keeps its "null" default.
  return field.nullableVersions !== null || field.default.kind === "null" ? `${base} | null` : base;
}

function literal(value: DefaultValue, field: FieldSpec): string {
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

// Schema text goes into JSDoc comments, where a star followed by a slash would end the comment.
function docText(text: string): string {
  return text.replace(/\*\//g, "*&#47;");
}

class MessageEmitter {
  private readonly runtime = new Set<string>();
  /** The versions each struct's functions can be called with. */
  private readonly ctx = new Map<StructSpec, VersionRange>();
  private readonly needsIsDefault = new Set<StructSpec>();
  private readonly functions: string[] = [];
  /**
   * True while emitting a tagged field's payload: Kafka writes a nullable struct's presence marker
   * there as an unsigned varint (0 null, 1 present) instead of the int8 (-1 / 1) of ordinary fields.
   */
  private inTaggedPayload = false;

  constructor(
    private readonly spec: MessageSpec,
    private readonly options: EmitOptions,
  ) {
    this.collectContexts(spec.struct, spec.validVersions);
  }

  private collectContexts(struct: StructSpec, range: VersionRange): void {
    const known = this.ctx.get(struct);
    const merged = hull(known ?? null, range)!;
    if (known && known.lowest === merged.lowest && known.highest === merged.highest) return;
    this.ctx.set(struct, merged);
    for (const field of struct.fields) {
      const inner = structOf(field.type);
      const effective = intersect(field.versions, merged);
      if (inner && effective) this.collectContexts(inner, effective);
    }
  }

  private rt(name: string): string {
    this.runtime.add(name);
    return name;
  }

  private flexibleRange(field?: FieldSpec): VersionRange | null {
    if (field && field.flexibleVersions !== undefined) return field.flexibleVersions;
    return this.spec.flexibleVersions;
  }

  // ---- default checks ----

  /** An expression that is true when `x` equals the field's default (Kafka's semantics). */
  private isDefaultExpr(field: FieldSpec, x: string): string {
    const d = field.default;
    switch (d.kind) {
      case "null":
        return `${x} === null`;
      case "empty":
        return field.nullableVersions !== null ? `${x} !== null && ${x}.length === 0` : `${x}.length === 0`;
      case "struct": {
        const s = structOf(field.type)!;
        this.requireIsDefault(s);
        return field.nullableVersions !== null
          ? `${x} !== null && ${s.name}$isDefault(${x})`
          : `${s.name}$isDefault(${x})`;
      }
      case "float":
        // NaN equals nothing with ===: compare it as a value.
        return Number.isNaN(d.value) ? `Number.isNaN(${x})` : `${x} === ${literal(d, field)}`;
      default:
        return `${x} === ${literal(d, field)}`;
    }
  }

  private requireIsDefault(struct: StructSpec): void {
    if (this.needsIsDefault.has(struct)) return;
    this.needsIsDefault.add(struct);
    const parts = struct.fields.map((f) => `(${this.isDefaultExpr(f, `v.${f.propertyName}`)})`);
    if (this.hasTaggedSection(struct))
      parts.push("(v._unknownTaggedFields === undefined || v._unknownTaggedFields.length === 0)");
    this.functions.push(
      `/** Whether every field of a ${struct.name} holds its default (Kafka's \`equals(new ${struct.name}())\`). */\n` +
        `function ${struct.name}$isDefault(v: ${struct.name}): boolean {\n  return ${parts.length ? parts.join(" &&\n    ") : "true"};\n}`,
    );
  }

  /** In versions where a field does not exist, a non-default value is an error unless the field is ignorable. */
  private checkAbsent(code: Code, field: FieldSpec, x: string): void {
    if (field.ignorable) return;
    code.line(`f = ${JSON.stringify(field.propertyName)};`);
    code.line(
      `if (!(${this.isDefaultExpr(field, x)})) throw ${this.rt("fieldNotInVersion")}(${JSON.stringify(field.propertyName)}, version);`,
    );
  }

  private hasTaggedSection(struct: StructSpec): boolean {
    const ctx = this.ctx.get(struct);
    return ctx !== undefined && intersect(this.spec.flexibleVersions, ctx) !== null;
  }

  private taggedFields(struct: StructSpec): FieldSpec[] {
    return struct.fields.filter((f) => f.tag !== null).sort((a, b) => a.tag! - b.tag!);
  }

  private tagged(emit: () => void): void {
    this.inTaggedPayload = true;
    try {
      emit();
    } finally {
      this.inTaggedPayload = false;
    }
  }

  // ---- sizes ----

  /** Fewest bytes one element of `struct` can take in any version of `ctx` (for length checks before allocation). */
  private minStructSize(struct: StructSpec, ctx: VersionRange): number {
    let min = Infinity;
    for (let v = ctx.lowest; v <= ctx.highest; v++) {
      const flexible = this.isFlexible(undefined, v);
      let size = flexible ? 1 : 0;
      for (const f of struct.fields) {
        const regular = regularRange(f);
        if (regular === null || v < regular.lowest || v > regular.highest) continue;
        size += this.minFieldSize(f, v);
      }
      min = Math.min(min, size);
    }
    return min === Infinity ? 0 : min;
  }

  private isFlexible(field: FieldSpec | undefined, v: number): boolean {
    const r = this.flexibleRange(field);
    return r !== null && v >= r.lowest && v <= r.highest;
  }

  private minFieldSize(field: FieldSpec, v: number): number {
    const t = field.type;
    const flexible = this.isFlexible(field, v);
    if (t.kind === "primitive") return FIXED_SIZE[t.name] ?? (flexible ? 1 : t.name === "string" ? 2 : 4);
    if (t.kind === "array") return flexible ? 1 : 4;
    const nullable =
      field.nullableVersions !== null && v >= field.nullableVersions.lowest && v <= field.nullableVersions.highest;
    return nullable ? 1 : this.minStructSize(t.struct, { lowest: v, highest: v });
  }

  private minElementSize(type: FieldType, ctx: VersionRange): number {
    if (type.kind !== "array") return 1;
    const e = type.element;
    if (e.kind === "primitive") return FIXED_SIZE[e.name] ?? 1;
    // An element that can take 0 bytes would let a huge count through; 1 is always a safe bound
    // for the structs Kafka defines, which all have at least one field.
    return Math.max(1, this.minStructSize(e.struct, ctx));
  }

  /**
   * Emits `target += <encoded size of x>` for a value of `field`'s type, flexible or not, nullable
   * or not as `ctx` decides (branching at run time where it does not).
   */
  private emitSize(code: Code, field: FieldSpec, x: string, ctx: VersionRange, target: string): void {
    if (!encodingDependsOnFlexible(field.type)) {
      const c = ctx;
      this.emitSizeIn(code, field, x, c, target, false);
      return;
    }
    code.ifVersion(
      this.flexibleRange(field),
      ctx,
      (c) => this.emitSizeIn(code, field, x, c, target, true),
      (c) => this.emitSizeIn(code, field, x, c, target, false),
    );
  }

  private emitSizeIn(
    code: Code,
    field: FieldSpec,
    x: string,
    ctx: VersionRange,
    target: string,
    flexible: boolean,
  ): void {
    code.ifVersion(
      field.nullableVersions,
      ctx,
      (c) => this.emitSizeOf(code, field, field.type, x, c, target, flexible, true),
      // The TypeScript type admits null (nullable in other versions); the size functions reject it at run time.
      (c) =>
        this.emitSizeOf(
          code,
          field,
          field.type,
          field.nullableVersions !== null ? `${x}!` : x,
          c,
          target,
          flexible,
          false,
        ),
    );
  }

  private emitSizeOf(
    code: Code,
    field: FieldSpec,
    type: FieldType,
    x: string,
    ctx: VersionRange,
    target: string,
    flexible: boolean,
    nullable: boolean,
  ): void {
    if (type.kind === "primitive") {
      const fixed = FIXED_SIZE[type.name];
      if (fixed !== undefined) {
        code.line(`${target} += ${fixed};`);
        return;
      }
      const name = type.name === "string" ? "String" : "Bytes";
      const fn = `size${flexible ? "Compact" : ""}${nullable ? "Nullable" : ""}${name}`;
      code.line(`${target} += ${this.rt(fn)}(${x}${type.name === "string" ? ", lens" : ""});`);
      return;
    }
    if (type.kind === "struct") {
      if (nullable) {
        // One marker byte, then the struct when present.
        code.line(`${target} += 1;`);
        code.block(`if (${x} !== null)`, () => {
          code.line(`${this.rt("checkStruct")}(${x});`);
          code.line(`${target} += ${this.structSize(type.struct, x)};`);
        });
      } else {
        code.line(`${this.rt("checkStruct")}(${x});`);
        code.line(`${target} += ${this.structSize(type.struct, x)};`);
      }
      return;
    }
    const emitArray = (a: string) => {
      code.line(`const n = ${this.rt("arrayLength")}(${a});`);
      code.line(`${target} += ${flexible ? `${this.rt("uvarintSize")}(n + 1)` : "4"};`);
      const e = type.element;
      const fixed = e.kind === "primitive" ? FIXED_SIZE[e.name] : undefined;
      if (fixed !== undefined) {
        code.line(`${target} += n * ${fixed};`);
      } else {
        code.block(`for (i = 0; i < n; i++)`, () =>
          this.emitSizeOf(code, field, e, `${a}[i]!`, ctx, target, flexible, false),
        );
        code.line("i = -1;");
      }
    };
    code.block("", () => {
      code.line(`const a = ${x};`);
      if (nullable) {
        code.block(`if (a === null)`, () => code.line(`${target} += ${flexible ? 1 : 4};`), "} else {");
        emitArray("a");
        code.line("}");
      } else {
        emitArray("a");
      }
    });
  }

  private structSize(struct: StructSpec, x: string): string {
    return `${struct.name}$size(${x}, version, lens)`;
  }

  // ---- writing ----

  private emitWrite(code: Code, field: FieldSpec, x: string, ctx: VersionRange): void {
    if (!encodingDependsOnFlexible(field.type)) {
      const c = ctx;
      this.emitWriteIn(code, field, x, c, false);
      return;
    }
    code.ifVersion(
      this.flexibleRange(field),
      ctx,
      (c) => this.emitWriteIn(code, field, x, c, true),
      (c) => this.emitWriteIn(code, field, x, c, false),
    );
  }

  private emitWriteIn(code: Code, field: FieldSpec, x: string, ctx: VersionRange, flexible: boolean): void {
    code.ifVersion(
      field.nullableVersions,
      ctx,
      (c) => this.emitWriteOf(code, field.type, x, c, flexible, true),
      // The size pass has already rejected null here.
      (c) => this.emitWriteOf(code, field.type, field.nullableVersions !== null ? `${x}!` : x, c, flexible, false),
    );
  }

  private emitWriteOf(
    code: Code,
    type: FieldType,
    x: string,
    ctx: VersionRange,
    flexible: boolean,
    nullable: boolean,
  ): void {
    if (type.kind === "primitive") {
      if (FIXED_SIZE[type.name] !== undefined) {
        code.line(`w.${type.name}(${x});`);
        return;
      }
      const name = type.name === "string" ? "String" : "Bytes";
      const method = `${flexible ? "compact" : ""}${nullable ? "Nullable" : ""}${name}`;
      code.line(`w.${method[0]!.toLowerCase()}${method.slice(1)}(${x});`);
      return;
    }
    if (type.kind === "struct") {
      if (nullable) {
        const [absent, present] = this.inTaggedPayload
          ? ["w.uvarint(0);", "w.uvarint(1);"]
          : ["w.int8(-1);", "w.int8(1);"];
        code.block(`if (${x} === null)`, () => code.line(absent), "} else {");
        code.line(present);
        code.line(`${type.struct.name}$write(w, ${x}, version);`);
        code.line("}");
      } else {
        code.line(`${type.struct.name}$write(w, ${x}, version);`);
      }
      return;
    }
    const bulk = type.element.kind === "primitive" ? BULK_WRITE[type.element.name] : undefined;
    const emitArray = (a: string) => {
      code.line(flexible ? `w.uvarint(${a}.length + 1);` : `w.int32(${a}.length);`);
      if (bulk !== undefined) {
        code.line(`w.${bulk}(${a});`);
        return;
      }
      code.block(`for (i = 0; i < ${a}.length; i++)`, () =>
        this.emitWriteOf(code, type.element, `${a}[i]!`, ctx, flexible, false),
      );
      code.line("i = -1;");
    };
    code.block("", () => {
      code.line(`const a = ${x};`);
      if (nullable) {
        code.block(`if (a === null)`, () => code.line(flexible ? "w.uvarint(0);" : "w.int32(-1);"), "} else {");
        emitArray("a");
        code.line("}");
      } else {
        emitArray("a");
      }
    });
  }

  // ---- reading ----

  /** Emits `target = <read value>;`. */
  private emitRead(code: Code, field: FieldSpec, target: string, ctx: VersionRange): void {
    if (!encodingDependsOnFlexible(field.type)) {
      const c = ctx;
      this.emitReadIn(code, field, target, c, false);
      return;
    }
    code.ifVersion(
      this.flexibleRange(field),
      ctx,
      (c) => this.emitReadIn(code, field, target, c, true),
      (c) => this.emitReadIn(code, field, target, c, false),
    );
  }

  private emitReadIn(code: Code, field: FieldSpec, target: string, ctx: VersionRange, flexible: boolean): void {
    code.ifVersion(
      field.nullableVersions,
      ctx,
      (c) => this.emitReadOf(code, field.type, target, c, flexible, true),
      (c) => this.emitReadOf(code, field.type, target, c, flexible, false),
    );
  }

  private emitReadOf(
    code: Code,
    type: FieldType,
    target: string,
    ctx: VersionRange,
    flexible: boolean,
    nullable: boolean,
  ): void {
    if (type.kind === "primitive") {
      if (FIXED_SIZE[type.name] !== undefined) {
        code.line(`${target} = r.${type.name}();`);
        return;
      }
      const name = type.name === "string" ? "String" : "Bytes";
      const method = `${flexible ? "compact" : ""}${nullable ? "Nullable" : ""}${name}`;
      code.line(`${target} = r.${method[0]!.toLowerCase()}${method.slice(1)}();`);
      return;
    }
    if (type.kind === "struct") {
      const read = `${type.struct.name}$read(r, version)`;
      const present = this.inTaggedPayload ? "r.uvarint() > 0" : "r.structPresent()";
      code.line(nullable ? `${target} = ${present} ? ${read} : null;` : `${target} = ${read};`);
      return;
    }
    const min = this.minElementSize(type, ctx);
    const method = `${flexible ? "compact" : ""}${nullable ? "Nullable" : ""}ArrayLength`;
    code.block("", () => {
      code.line(`const n = r.${method[0]!.toLowerCase()}${method.slice(1)}(${min});`);
      const bulk = type.element.kind === "primitive" ? BULK_READ[type.element.name] : undefined;
      const fill = () => {
        if (bulk !== undefined) {
          // The length check above covered n elements of this fixed size: read them in one go.
          code.line(`${target} = r.${bulk}(n);`);
          return;
        }
        // Exact size up front (the count is already checked against the bytes that remain).
        code.line(`const a = new Array<${tsElementType(type.element)}>(n);`);
        code.block(`for (i = 0; i < n; i++)`, () => {
          this.emitReadOf(code, type.element, "a[i]", ctx, flexible, false);
        });
        code.line("i = -1;");
        code.line(`${target} = a;`);
      };
      if (nullable) {
        code.block("if (n < 0)", () => code.line(`${target} = null;`), "} else {");
        fill();
        code.line("}");
      } else {
        fill();
      }
    });
  }

  // ---- JSON ----

  private emitJsonValue(code: Code, field: FieldSpec, type: FieldType, x: string, nullableAnywhere: boolean): void {
    if (type.kind === "primitive") {
      let expr: string;
      switch (type.name) {
        case "bool":
          expr = `(${x} ? "true" : "false")`;
          break;
        case "float64":
          expr = `${this.rt("jsonFloat64")}(${x})`;
          break;
        case "string":
        case "uuid":
          expr = nullableAnywhere ? `${this.rt("jsonNullableString")}(${x})` : `${this.rt("jsonString")}(${x})`;
          break;
        case "bytes":
        case "records":
          expr = `${this.rt("jsonBytes")}(${x})`;
          break;
        default:
          expr = `String(${x})`;
      }
      code.line(`out += ${expr};`);
      return;
    }
    if (type.kind === "struct") {
      const call = `${type.struct.name}$toJson(${x}, version)`;
      code.line(nullableAnywhere ? `out += ${x} === null ? "null" : ${call};` : `out += ${call};`);
      return;
    }
    code.block("", () => {
      code.line(`const a = ${x};`);
      const body = () => {
        code.line('out += "[";');
        code.block("for (i = 0; i < a.length; i++)", () => {
          code.line('if (i > 0) out += ",";');
          this.emitJsonValue(code, field, type.element, "a[i]!", false);
        });
        code.line("i = -1;");
        code.line('out += "]";');
      };
      if (nullableAnywhere) {
        code.block("if (a === null)", () => code.line('out += "null";'), "} else {");
        body();
        code.line("}");
      } else {
        body();
      }
    });
  }

  private emitFromJson(
    code: Code,
    field: FieldSpec,
    type: FieldType,
    j: string,
    target: string,
    nullableAnywhere: boolean,
  ): void {
    if (nullableAnywhere) {
      code.block(`if (${j} === null)`, () => code.line(`${target} = null;`), "} else {");
      this.emitFromJson(code, field, type, j, target, false);
      code.line("}");
      return;
    }
    if (type.kind === "primitive") {
      const range = INT_RANGE[type.name];
      let expr: string;
      if (range) {
        expr = `${this.rt("readJsonInt")}(${j}, "${type.name}", ${range[0]}, ${range[1]})`;
      } else {
        const fn = {
          bool: "readJsonBool",
          int64: "readJsonInt64",
          float64: "readJsonFloat64",
          string: "readJsonString",
          uuid: "readJsonUuid",
          bytes: "readJsonBytes",
          records: "readJsonBytes",
        }[type.name as "bool"]!;
        expr = `${this.rt(fn)}(${j})`;
      }
      code.line(`${target} = ${expr};`);
      return;
    }
    if (type.kind === "struct") {
      code.line(`${target} = ${type.struct.name}$fromJson(${j}, version);`);
      return;
    }
    code.block("", () => {
      code.line(`const ja = ${this.rt("readJsonArray")}(${j});`);
      code.line(`const a: ${tsElementType(type.element)}[] = [];`);
      code.block("for (i = 0; i < ja.length; i++)", () => {
        code.line(`let e: ${tsElementType(type.element)};`);
        this.emitFromJson(code, field, type.element, "ja[i]", "e", false);
        code.line("a.push(e);");
      });
      code.line("i = -1;");
      code.line(`${target} = a;`);
    });
  }

  // ---- per struct ----

  private usesArrays(struct: StructSpec): boolean {
    return struct.fields.some((f) => f.type.kind === "array");
  }

  /** try/catch that adds the field path to errors; `f` names the field, `i` the array index. */
  private wrap(struct: StructSpec, body: Code, decoding: boolean, offset: string): string {
    const locals = this.usesArrays(struct) ? 'let f = "";\nlet i = -1;' : 'let f = "";\nconst i = -1;';
    return `${locals}\ntry {\n${body}\n} catch (e) {\n  throw ${this.rt("withPath")}(e, f, i, ${offset}, ${decoding});\n}`;
  }

  private emitStruct(struct: StructSpec): void {
    const ctx = this.ctx.get(struct);
    if (ctx === undefined) return; // a common struct no field uses: its interface is enough
    const tagged = this.taggedFields(struct);
    const flexibleRange = this.spec.flexibleVersions;
    const S = struct.name;
    const knownTags = `[${tagged.map((f) => f.tag).join(", ")}]`;

    // size
    const size = new Code();
    size.line("let size = 0;");
    for (const field of struct.fields) {
      const x = `v.${field.propertyName}`;
      size.ifVersion(
        field.versions,
        ctx,
        (c) =>
          size.ifVersion(regularRange(field), c, (c2) => {
            // A fixed-size value cannot fail here (its range is checked when written).
            if (!isFixedSize(field.type)) size.line(`f = ${JSON.stringify(field.propertyName)};`);
            this.emitSize(size, field, x, c2, "size");
          }),
        () => this.checkAbsent(size, field, x),
      );
    }
    size.ifVersion(
      flexibleRange,
      ctx,
      (c) => {
        size.line("let tagged = 0;");
        for (const field of tagged) {
          const x = `v.${field.propertyName}`;
          size.ifVersion(field.taggedVersions, c, (c2) => {
            size.block(`if (!(${this.isDefaultExpr(field, x)}))`, () => {
              size.line(`f = ${JSON.stringify(field.propertyName)};`);
              size.line("tagged++;");
              size.line(`const slot = ${this.rt("reserveLen")}(lens);`);
              size.line("let s = 0;");
              this.tagged(() => this.emitSize(size, field, x, c2, "s"));
              size.line("lens[slot] = s;");
              size.line(`size += ${this.rt("uvarintSize")}(${field.tag}) + ${this.rt("uvarintSize")}(s) + s;`);
            });
          });
        }
        size.line('f = "_unknownTaggedFields";');
        size.line("const unknown = v._unknownTaggedFields;");
        size.block("if (unknown !== undefined)", () => {
          size.line("tagged += unknown.length;");
          size.line(`size += ${this.rt("sizeUnknownTaggedFields")}(unknown, ${knownTags});`);
        });
        size.line(`size += ${this.rt("uvarintSize")}(tagged);`);
      },
      () => {
        // Kafka refuses to drop tagged fields silently in a version without them, and so do we.
        if (intersect(flexibleRange, ctx) === null) return;
        size.line('f = "_unknownTaggedFields";');
        size.line(`${this.rt("checkNoTaggedFields")}(v._unknownTaggedFields, version);`);
      },
    );
    size.line("return size;");
    this.functions.push(
      `function ${S}$size(v: ${S}, version: number, lens: number[]): number {\n${this.wrap(struct, size, false, "-1")}\n}`,
    );

    // write
    const write = new Code();
    for (const field of struct.fields) {
      write.ifVersion(regularRange(field), ctx, (c) => {
        write.line(`f = ${JSON.stringify(field.propertyName)};`);
        this.emitWrite(write, field, `v.${field.propertyName}`, c);
      });
    }
    write.ifVersion(flexibleRange, ctx, (c) => {
      write.line("const unknown = v._unknownTaggedFields;");
      write.line(`${tagged.length > 0 ? "let" : "const"} tagged = unknown === undefined ? 0 : unknown.length;`);
      for (const field of tagged) {
        write.ifVersion(field.taggedVersions, c, () =>
          write.line(`if (!(${this.isDefaultExpr(field, `v.${field.propertyName}`)})) tagged++;`),
        );
      }
      write.line("w.uvarint(tagged);");
      if (tagged.length > 0) write.line("let u = 0;");
      for (const field of tagged) {
        const x = `v.${field.propertyName}`;
        write.ifVersion(field.taggedVersions, c, (c2) => {
          write.line(`if (unknown !== undefined) u = w.unknownTaggedFields(unknown, u, ${field.tag});`);
          write.block(`if (!(${this.isDefaultExpr(field, x)}))`, () => {
            write.line(`f = ${JSON.stringify(field.propertyName)};`);
            write.line(`w.uvarint(${field.tag});`);
            write.line("w.uvarint(w.nextLen());");
            this.tagged(() => this.emitWrite(write, field, x, c2));
          });
        });
      }
      write.line(
        `if (unknown !== undefined) w.unknownTaggedFields(unknown, ${tagged.length > 0 ? "u" : "0"}, Infinity);`,
      );
    });
    this.functions.push(
      `function ${S}$write(w: ${this.rt("Writer")}, v: ${S}, version: number): void {\n${this.wrap(struct, write, false, "w.pos")}\n}`,
    );

    // read
    const read = new Code();
    const reads: (() => void)[] = [];
    const isAlways = (field: FieldSpec) => field.tag === null && condition(regularRange(field), ctx).kind === "always";
    const isAbsent = (field: FieldSpec) => condition(regularRange(field), ctx).kind === "never";
    // Runs of fixed-size fields read in every version share one bounds check ("hoisted").
    const runStart = new Map<FieldSpec, FieldSpec[]>();
    const inRun = new Set<FieldSpec>();
    for (let k = 0; k < struct.fields.length;) {
      const run: FieldSpec[] = [];
      let m = k;
      for (; m < struct.fields.length; m++) {
        const field = struct.fields[m]!;
        if (isAbsent(field)) continue; // takes no bytes in these versions
        if (!isAlways(field) || !isFixedSize(field.type)) break;
        run.push(field);
      }
      if (run.length >= 2) {
        runStart.set(run[0]!, run);
        for (const field of run) inRun.add(field);
      }
      k = Math.max(m, k + 1);
    }
    for (const field of struct.fields) {
      const local = `$${field.propertyName}`;
      const always = isAlways(field);
      if (inRun.has(field)) {
        const run = runStart.get(field);
        reads.push(() => {
          if (run !== undefined) {
            const size = (f: FieldSpec) => FIXED_SIZE[(f.type as PrimitiveFieldType).name]!;
            const bytes = run.reduce((total, f) => total + size(f), 0);
            // Truncated inside the run: step through it to name the field the input cuts.
            read.block(`if (r.remaining() < ${bytes})`, () => {
              for (const f of run) read.line(`f = ${JSON.stringify(f.propertyName)}; r.skip(${size(f)});`);
            });
          }
          read.line(`const ${local} = r.${(field.type as PrimitiveFieldType).name}Unchecked();`);
        });
      } else if (always) {
        const body = new Code();
        this.emitRead(body, field, local, ctx);
        const text = body.toString();
        // A value read in every version by one expression becomes a const.
        const single = !text.includes("\n") && text.startsWith(`${local} = `);
        if (!single) read.line(`let ${local}: ${tsFieldType(field)};`);
        reads.push(() => {
          read.line(`f = ${JSON.stringify(field.propertyName)};`);
          if (single) read.line(`const ${text}`);
          else for (const l of text.split("\n")) read.line(l);
        });
      } else {
        read.line(`let ${local}: ${tsFieldType(field)};`);
        if (field.tag !== null) {
          // Tagged fields start at their default; the tagged section below may replace it.
          reads.push(() => read.line(`${local} = ${literal(field.default, field)};`));
          if (regularRange(field) !== null) {
            reads.push(() =>
              read.ifVersion(regularRange(field), ctx, (c) => {
                read.line(`f = ${JSON.stringify(field.propertyName)};`);
                this.emitRead(read, field, local, c);
              }),
            );
          }
        } else {
          // The default is built only in versions that lack the field.
          reads.push(() =>
            read.ifVersion(
              regularRange(field),
              ctx,
              (c) => {
                read.line(`f = ${JSON.stringify(field.propertyName)};`);
                this.emitRead(read, field, local, c);
              },
              () => read.line(`${local} = ${literal(field.default, field)};`),
            ),
          );
        }
      }
    }
    for (const emit of reads) emit();
    const hasTaggedSection = intersect(flexibleRange, ctx) !== null;
    if (hasTaggedSection) read.line("let unknown: UnknownTaggedField[] | undefined;");
    read.ifVersion(flexibleRange, ctx, (c) => {
      read.line('f = "";');
      read.line("const count = r.uvarint();");
      read.line("let previous = -1;");
      read.block("for (let t = 0; t < count; t++)", () => {
        read.line('f = "";');
        read.line("const at = r.pos;");
        read.line("const tag = r.uvarint();");
        read.line("r.checkTagOrder(tag, previous, at);");
        read.line("previous = tag;");
        read.line("const end = r.taggedFieldEnd();");
        let first = true;
        for (const field of tagged) {
          const within = intersect(field.taggedVersions, c);
          const known = within !== null && field.taggedVersions !== null ? within : null;
          read.line(`${first ? "" : "} else "}if (tag === ${field.tag}) {`);
          first = false;
          read.line(`  f = ${JSON.stringify(field.propertyName)};`);
          const inner = new Code();
          // Kafka's reader rejects a known tag in a version where the field is not tagged.
          inner.ifVersion(
            known,
            c,
            (c2) => {
              this.tagged(() => this.emitRead(inner, field, `$${field.propertyName}`, c2));
              inner.line("r.endTaggedField(tag, end);");
            },
            () => inner.line("throw r.tagNotInVersion(tag, version, at);"),
          );
          for (const l of inner.toString().split("\n")) read.line(`  ${l}`);
        }
        if (first) {
          read.line("(unknown ??= []).push(r.unknownTaggedField(tag, end));");
        } else {
          read.line("} else {");
          read.line("  (unknown ??= []).push(r.unknownTaggedField(tag, end));");
          read.line("}");
        }
      });
    });
    read.line(`const o: ${S} = {`);
    for (const field of struct.fields) read.line(`  ${field.propertyName}: $${field.propertyName},`);
    read.line("};");
    if (hasTaggedSection) read.line("if (unknown !== undefined) o._unknownTaggedFields = unknown;");
    read.line("return o;");
    if (hasTaggedSection) this.rt("UnknownTaggedField");
    this.functions.push(
      `function ${S}$read(r: ${this.rt("Reader")}, version: number): ${S} {\n${this.wrap(struct, read, true, "r.pos")}\n}`,
    );

    // toJson
    const toJson = new Code();
    toJson.line('let out = "";');
    for (const field of struct.fields) {
      const x = `v.${field.propertyName}`;
      const key = JSON.stringify(`,${JSON.stringify(field.propertyName)}:`);
      toJson.ifVersion(
        field.versions,
        ctx,
        (c) => {
          toJson.line(`f = ${JSON.stringify(field.propertyName)};`);
          const emit = () => {
            toJson.line(`out += ${key};`);
            this.emitJsonValue(toJson, field, field.type, x, field.nullableVersions !== null);
          };
          toJson.ifVersion(
            field.taggedVersions,
            c,
            () => toJson.block(`if (!(${this.isDefaultExpr(field, x)}))`, emit),
            () => emit(),
          );
        },
        () => this.checkAbsent(toJson, field, x),
      );
    }
    toJson.line('return out === "" ? "{}" : `{${out.slice(1)}}`;');
    this.functions.push(
      `function ${S}$toJson(v: ${S}, version: number): string {\n${this.wrap(struct, toJson, false, "-1")}\n}`,
    );

    // fromJson
    const fromJson = new Code();
    fromJson.line(`const o = ${this.rt("readJsonObject")}(json);`);
    for (const field of struct.fields) {
      const local = `$${field.propertyName}`;
      if (field.versions === null) {
        // In none of the message's versions: always its default.
        fromJson.line(`const ${local}: ${tsFieldType(field)} = ${literal(field.default, field)};`);
        continue;
      }
      fromJson.line(`f = ${JSON.stringify(field.propertyName)};`);
      fromJson.line(`let ${local}: ${tsFieldType(field)};`);
      fromJson.block("", () => {
        // Own properties only: a field named like an Object.prototype member must not read it.
        fromJson.line(`const j = ${this.rt("jsonField")}(o, ${JSON.stringify(field.propertyName)});`);
        fromJson.block(
          "if (j === undefined)",
          () => {
            // Kafka's reader requires every non-tagged field of the version.
            fromJson.ifVersion(
              regularRange(field),
              ctx,
              () => fromJson.line(`throw ${this.rt("missingJsonField")}(version);`),
              () => fromJson.line(`${local} = ${literal(field.default, field)};`),
            );
          },
          "} else {",
        );
        this.emitFromJson(fromJson, field, field.type, "j", local, field.nullableVersions !== null);
        fromJson.line("}");
      });
    }
    fromJson.line(`return {`);
    for (const field of struct.fields) fromJson.line(`  ${field.propertyName}: $${field.propertyName},`);
    fromJson.line("};");
    this.functions.push(
      `function ${S}$fromJson(json: unknown, version: number): ${S} {\n${this.wrap(struct, fromJson, true, "-1")}\n}`,
    );

    this.functions.push(this.createFunction(struct));
  }

  // ---- documentation ----

  private fieldDocs(field: FieldSpec): string {
    const lines: string[] = [];
    if (field.about) lines.push(field.about);
    const facts = [`Versions: ${formatRange(field.versions)}`];
    if (field.nullableVersions) facts.push(`nullable in ${formatRange(field.nullableVersions)}`);
    if (field.tag !== null) facts.push(`tagged field ${field.tag} in ${formatRange(field.taggedVersions)}`);
    if (field.ignorable) facts.push("ignorable");
    if (field.entityType) facts.push(`entity type ${field.entityType}`);
    const t = field.type;
    const wire =
      t.kind === "primitive"
        ? t.name
        : t.kind === "array"
          ? `[]${t.element.kind === "primitive" ? t.element.name : t.element.struct.name}`
          : t.struct.name;
    facts.push(`wire type ${wire}`);
    if (field.defaultText !== null) facts.push(`default ${field.defaultText}`);
    lines.push("", facts.join("; ") + ".");
    if (t.kind === "primitive" && t.name === "int64") lines.push("int64 as a bigint (exact beyond 2^53).");
    if (t.kind === "primitive" && t.name === "uuid")
      lines.push("Kafka's 22-character URL-safe base64 form, as `Uuid.toString()`.");
    if (t.kind === "primitive" && (t.name === "bytes" || t.name === "records"))
      lines.push("Decoded as a view into the input bytes (zero-copy).");
    return lines.join("\n");
  }

  private interfaceFor(struct: StructSpec): OptionalKind<InterfaceDeclarationStructure> {
    const properties: OptionalKind<PropertySignatureStructure>[] = struct.fields.map((f) => ({
      name: f.propertyName,
      type: tsFieldType(f),
      docs: [docText(this.fieldDocs(f))],
    }));
    if (this.hasTaggedSection(struct) || this.ctx.get(struct) === undefined) {
      properties.push({
        name: "_unknownTaggedFields",
        type: `${this.rt("UnknownTaggedField")}[]`,
        hasQuestionToken: true,
        docs: [
          "Tagged fields this schema does not know, kept from decoding and written back in ascending tag order (KIP-482).",
        ],
      });
    }
    const top = struct === this.spec.struct;
    const about = top
      ? this.messageDocs()
      : `${struct.common ? "Common struct" : "Struct"} \`${struct.name}\` of ${this.spec.name}. Versions: ${formatRange(struct.versions)}.`;
    return { kind: StructureKind.Interface, name: struct.name, isExported: true, properties, docs: [docText(about)] };
  }

  private messageDocs(): string {
    const s = this.spec;
    const lines = [`${s.name}: a Kafka ${s.type} message.`, ""];
    lines.push(
      `- Valid versions: ${formatRange(s.validVersions)}; flexible versions: ${formatRange(s.flexibleVersions)}.`,
    );
    if (s.apiKeyUnassigned) {
      lines.push(
        s.apiKey === null
          ? "- Api key: unassigned (`TBD` in the design document)."
          : `- Api key: ${s.apiKey} (assigned by the generator configuration; the design document says \`TBD\`).`,
      );
    } else if (s.apiKey !== null) {
      lines.push(`- Api key: ${s.apiKey}.`);
    }
    if (s.listeners.length > 0) lines.push(`- Listeners: ${s.listeners.join(", ")}.`);
    if (s.latestVersionUnstable) lines.push("- The latest version is unstable.");
    lines.push(`- Source: \`${this.options.sourceLabel}\`.`);
    return lines.join("\n");
  }

  /** `X$create` for structs no function was emitted for but a default still builds. */
  private emitMissingCreates(): void {
    const defined = new Set<string>();
    for (;;) {
      for (const text of this.functions) {
        const m = /^function (\w+)\$create\(/m.exec(text);
        if (m) defined.add(m[1]!);
      }
      const wanted = new Set<string>();
      for (const text of this.functions) for (const m of text.matchAll(/\b(\w+)\$create\(\)/g)) wanted.add(m[1]!);
      const missing = this.spec.structs.filter((st) => wanted.has(st.name) && !defined.has(st.name));
      if (missing.length === 0) return;
      for (const st of missing) this.functions.push(this.createFunction(st));
    }
  }

  private createFunction(struct: StructSpec): string {
    const fields = struct.fields.map((f) => `    ${f.propertyName}: ${literal(f.default, f)},`).join("\n");
    return `function ${struct.name}$create(): ${struct.name} {\n  return {\n${fields}\n  };\n}`;
  }

  emit(): string {
    for (const struct of this.spec.structs) this.emitStruct(struct);
    this.emitMissingCreates();
    const s = this.spec;
    const project = new Project({ useInMemoryFileSystem: true });
    const file = project.createSourceFile(`${s.name}.ts`, "", { overwrite: true });
    const interfaces = s.structs.map((st) => this.interfaceFor(st));
    this.rt("defineMessage");
    this.rt("MessageCodec");
    const typeOnly = new Set(["Writer", "Reader", "UnknownTaggedField", "MessageCodec"]);
    const names = [...this.runtime].sort();
    file.addImportDeclaration({
      moduleSpecifier: this.options.runtimeImport,
      namedImports: names.map((n) => ({ name: n, isTypeOnly: typeOnly.has(n) })),
    });
    file.addInterfaces(interfaces);
    file.addStatements(this.functions.join("\n\n"));
    file.addVariableStatement({
      isExported: true,
      declarationKind: VariableDeclarationKind.Const,
      docs: [
        docText(
          `The codec of ${s.name}: encode, decode, size, create and Kafka's JSON form, for versions ${formatRange(s.validVersions)}.\n\n${this.messageDocs()}`,
        ),
      ],
      declarations: [
        {
          name: s.name,
          type: `MessageCodec<${s.name}>`,
          initializer: `/*@__PURE__*/ defineMessage<${s.name}>({
            name: ${JSON.stringify(s.name)},
            apiKey: ${s.apiKey === null ? "null" : s.apiKey},
            type: ${JSON.stringify(s.type)},
            validVersions: { lowest: ${s.validVersions.lowest}, highest: ${s.validVersions.highest} },
            flexibleVersions: ${s.flexibleVersions === null ? "null" : `{ lowest: ${s.flexibleVersions.lowest}, highest: ${s.flexibleVersions.highest} }`},
            size: ${s.name}$size,
            write: ${s.name}$write,
            read: ${s.name}$read,
            create: ${s.name}$create,
            toJson: ${s.name}$toJson,
            fromJson: ${s.name}$fromJson,
          })`,
        },
      ],
    });
    return `${this.options.header}\n${file.getFullText()}`;
  }
}

/** The TypeScript module (unformatted) for one message. */
export function emitMessage(spec: MessageSpec, options: EmitOptions): string {
  return new MessageEmitter(spec, options).emit();
}
