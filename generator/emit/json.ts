/**
 * Kafka's JSON form (its generated `JsonConverter`s): each struct's `X$toJson` and `X$fromJson`.
 * Keys are the property names; int64 are JSON numbers written exactly; bytes are base64.
 */

import type { FieldType, StructSpec } from "../schema/model.js";
import type { Versions } from "../schema/versions.js";
import { PRIMITIVES, regularVersions, tsFieldType, tsTypeOf } from "../schema/wire-types.js";
import { Code, stringLiteral } from "./code.js";
import { BODY_DEPTH, fieldMark, structFunction, type ModuleContext } from "./context.js";
import { literal, not, type Defaults } from "./defaults.js";

export class JsonEmitter {
  constructor(
    private readonly ctx: ModuleContext,
    private readonly defaults: Defaults,
  ) {}

  /** Pushes `X$toJson` and `X$fromJson` for a struct whose functions are called in versions `ctx`. */
  emitStruct(struct: StructSpec, ctx: Versions): void {
    this.emitToJson(struct, ctx);
    this.emitFromJson(struct, ctx);
  }

  private emitToJson(struct: StructSpec, ctx: Versions): void {
    const S = struct.name;
    const code = new Code(BODY_DEPTH);
    code.line('let out = "";');
    for (const field of struct.fields) {
      const x = `v.${field.propertyName}`;
      const key = stringLiteral(`,${JSON.stringify(field.propertyName)}:`);
      code.ifVersion(
        field.versions,
        ctx,
        (c) => {
          code.line(fieldMark(field));
          const emit = (): void => {
            code.line(`out += ${key};`);
            this.toJsonValue(code, field.type, x, !field.nullableVersions.isEmpty());
          };
          // A tagged field equal to its default is left out, as on the wire.
          code.ifVersion(
            field.taggedVersions,
            c,
            () => code.block(`if (${not(this.defaults.isDefault(field, x))})`, emit),
            () => emit(),
          );
        },
        () => this.defaults.checkAbsent(code, field, x),
      );
    }
    code.line('return out === "" ? "{}" : `{${out.slice(1)}}`;');
    this.ctx.functions.push(
      structFunction(this.ctx, struct, `${S}$toJson`, ["v: " + S, "version: number"], "string", code, false, "-1"),
    );
  }

  private toJsonValue(code: Code, type: FieldType, x: string, nullableAnywhere: boolean): void {
    if (type.kind === "primitive") {
      const how = PRIMITIVES[type.name].toJson;
      const expr =
        how === "bool"
          ? `${x} ? "true" : "false"`
          : how === "String"
            ? `String(${x})`
            : how === "jsonString" && nullableAnywhere
              ? `${this.ctx.rt("jsonNullableString")}(${x})`
              : `${this.ctx.rt(how)}(${x})`;
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
      const body = (): void => {
        code.line('out += "[";');
        code.block("for (i = 0; i < a.length; i++)", () => {
          code.line('if (i > 0) out += ",";');
          this.toJsonValue(code, type.element, "a[i]!", false);
        });
        code.line("i = -1;");
        code.line('out += "]";');
      };
      if (nullableAnywhere) {
        code.ifElse("if (a === null)", () => code.line('out += "null";'), body);
      } else {
        body();
      }
    });
  }

  private emitFromJson(struct: StructSpec, ctx: Versions): void {
    const S = struct.name;
    const code = new Code(BODY_DEPTH);
    code.line(`const o = ${this.ctx.rt("readJsonObject")}(json);`);
    // A key that names no field is refused (with the closest field), not silently dropped.
    const keys = struct.fields.map((f) => JSON.stringify(f.propertyName));
    code.list(`${this.ctx.rt("checkJsonKeys")}(o, [`, keys, "]);");
    for (const field of struct.fields) {
      const local = `$${field.propertyName}`;
      if (field.versions.isEmpty()) {
        // In none of the message's versions: always its default.
        code.line(`const ${local}: ${tsFieldType(field)} = ${literal(field.default, field)};`);
        continue;
      }
      code.line(fieldMark(field));
      code.line(`let ${local}: ${tsFieldType(field)};`);
      code.block("", () => {
        // Own properties only: a field named like an Object.prototype member must not read it.
        code.line(`const j = ${this.ctx.rt("jsonField")}(o, ${JSON.stringify(field.propertyName)});`);
        code.ifElse(
          "if (j === undefined)",
          () => {
            // Kafka's reader requires every non-tagged field of the version.
            code.ifVersion(
              regularVersions(field),
              ctx,
              () => code.line(`throw ${this.ctx.rt("missingJsonField")}(version);`),
              () => code.line(`${local} = ${literal(field.default, field)};`),
            );
          },
          () => this.fromJsonValue(code, field.type, "j", local, !field.nullableVersions.isEmpty()),
        );
      });
    }
    code.object(
      "return",
      struct.fields.map((f) => `${f.propertyName}: $${f.propertyName},`),
    );
    this.ctx.functions.push(
      structFunction(this.ctx, struct, `${S}$fromJson`, ["json: unknown", "version: number"], S, code, true, "-1"),
    );
  }

  private fromJsonValue(code: Code, type: FieldType, j: string, target: string, nullableAnywhere: boolean): void {
    if (nullableAnywhere) {
      code.ifElse(
        `if (${j} === null)`,
        () => code.line(`${target} = null;`),
        () => this.fromJsonValue(code, type, j, target, false),
      );
      return;
    }
    if (type.kind === "primitive") {
      const row = PRIMITIVES[type.name];
      const fn = this.ctx.rt(row.fromJson);
      // JSON numbers for int8..uint32, checked against the type's range.
      const args =
        row.fromJson === "readJsonInt" ? `${j}, "${type.name}", ${row.intRange![0]}, ${row.intRange![1]}` : j;
      code.line(`${target} = ${fn}(${args});`);
      return;
    }
    if (type.kind === "struct") {
      code.line(`${target} = ${type.struct.name}$fromJson(${j}, version);`);
      return;
    }
    code.block("", () => {
      code.line(`const ja = ${this.ctx.rt("readJsonArray")}(${j});`);
      code.line(`const a: ${tsTypeOf(type.element)}[] = [];`);
      code.block("for (i = 0; i < ja.length; i++)", () => {
        code.line(`let e: ${tsTypeOf(type.element)};`);
        this.fromJsonValue(code, type.element, "ja[i]", "e", false);
        code.line("a.push(e);");
      });
      code.line("i = -1;");
      code.line(`${target} = a;`);
    });
  }
}
