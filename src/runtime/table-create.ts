/**
 * `createX(init)` of generated modules, from the message's field table (table.ts): the cold path
 * of filling omitted fields with their defaults, interpreted instead of generated per struct.
 */

import { initStruct, initStructs, ownField, type Init } from "./codec.js";
import type { MessageTable } from "./table.js";
import { structsOf, type JsonStruct } from "./table-json.js";
import { ownUnknownTaggedFields } from "./writer.js";

/**
 * `createX(init)` of a generated module, from its field table: a new struct with `init`'s own
 * fields and every field it omits at its default, at any depth (struct fields and arrays of
 * structs of `init` are created in turn; other values are taken as they are). Unknown tagged
 * fields of `init` are kept where the struct has a tagged-field section.
 */
export function tableCreate<T>(table: MessageTable, name: string): (init?: Init<T>) => T {
  let struct: JsonStruct | undefined;
  return (init = {}) => {
    struct ??= structsOf(table).get(name)!;
    return createFrom(structsOf(table), struct, init as Record<string, unknown>) as T;
  };
}

function createFrom(
  structs: Map<string, JsonStruct>,
  struct: JsonStruct,
  init: Record<string, unknown>,
): Record<string, unknown> {
  const v: Record<string, unknown> = {};
  for (const field of struct.fields) {
    const x = ownField(init, field.name);
    if (x === undefined) v[field.name] = field.fresh();
    else if (field.struct === null || (field.nullableAnywhere && x === null)) v[field.name] = x;
    else {
      const inner = structs.get(field.struct)!;
      const create = (e: Record<string, unknown>) => createFrom(structs, inner, e);
      v[field.name] = field.array
        ? initStructs(x as Record<string, unknown>[], create)
        : initStruct(x as Record<string, unknown>, create);
    }
  }
  if (struct.keepsUnknown) {
    const unknown = ownUnknownTaggedFields(init);
    if (unknown !== undefined) v._unknownTaggedFields = unknown;
  }
  return v;
}
