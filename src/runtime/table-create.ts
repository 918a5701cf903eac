/**
 * `createX(init)` of generated modules, from the message's field table (table.ts): the cold path
 * of filling omitted fields with their defaults, interpreted instead of generated per struct.
 *
 * One interpreter serves every struct of every message, so its property reads and writes see
 * many shapes and keys (V8's megamorphic inline caches): each struct is therefore resolved once
 * into a {@link Shape} (inner structs as direct references, immutable defaults as values), so that
 * a call does one keyed read per field of `init` and one keyed write per field of the result,
 * and allocates nothing but the result.
 */

import { initStruct, initStructs, ownField, type Init } from "./codec.js";
import type { MessageTable } from "./table.js";
import { structsOf, type JsonStruct } from "./table-json.js";
import { ownUnknownTaggedFields } from "./writer.js";

/** A struct as `create` walks it. */
interface Shape {
  readonly fields: readonly ShapeField[];
  /** `createFrom` of this shape, made once (initStruct and initStructs take it for every call). */
  readonly create: (init: Record<string, unknown>) => Record<string, unknown>;
  /** See {@link JsonStruct.keepsUnknown}. */
  readonly keepsUnknown: boolean;
}

interface ShapeField {
  readonly name: string;
  /** Whether the default is an immutable value (a primitive or null): `value`, shared by every result. */
  readonly constant: boolean;
  readonly value: unknown;
  /** A new default otherwise: an empty array, empty bytes, a struct of its defaults. */
  readonly fresh: () => unknown;
  /** The struct of the field or of its elements; null for primitives. */
  inner: Shape | null;
  readonly array: boolean;
  readonly nullableAnywhere: boolean;
}

const shapes = new WeakMap<MessageTable, Map<string, Shape>>();

/** Every struct of `table` as a {@link Shape}, built once per table. */
function shapesOf(table: MessageTable): Map<string, Shape> {
  let known = shapes.get(table);
  if (known !== undefined) return known;
  const structs = structsOf(table);
  known = new Map();
  for (const [name, struct] of structs) {
    const fields = struct.fields.map((f): ShapeField => {
      // table-json's `fresh` returns the same primitive (or null) on every call, and a new
      // object (an array, bytes, a struct of its defaults) otherwise.
      const sample = f.fresh();
      const constant = typeof sample !== "object" || sample === null;
      return {
        name: f.name,
        constant,
        value: constant ? sample : undefined,
        fresh: f.fresh,
        inner: null,
        array: f.array,
        nullableAnywhere: f.nullableAnywhere,
      };
    });
    const shape: Shape = {
      fields,
      keepsUnknown: struct.keepsUnknown,
      create: (init) => createFrom(shape, init),
    };
    known.set(name, shape);
  }
  // Inner structs are linked once every shape exists (a table's structs may name each other in any order).
  for (const [name, struct] of structs) {
    const fields = known.get(name)!.fields;
    struct.fields.forEach((f, i) => {
      if (f.struct !== null) (fields[i] as { inner: Shape | null }).inner = known.get(f.struct)!;
    });
  }
  shapes.set(table, known);
  return known;
}

/**
 * `createX(init)` of a generated module, from its field table: a new struct with `init`'s own
 * fields and every field it omits at its default, at any depth (struct fields and arrays of
 * structs of `init` are created in turn; other values are taken as they are). Unknown tagged
 * fields of `init` are kept where the struct has a tagged-field section.
 */
export function tableCreate<T>(table: MessageTable, name: string): (init?: Init<T>) => T {
  let shape: Shape | undefined;
  return (init = {}) => {
    shape ??= shapesOf(table).get(name)!;
    return createFrom(shape, init as Record<string, unknown>) as T;
  };
}

function createFrom(shape: Shape, init: Record<string, unknown>): Record<string, unknown> {
  const v: Record<string, unknown> = {};
  const fields = shape.fields;
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i]!;
    const name = f.name;
    const x = ownField(init, name);
    const inner = f.inner;
    if (x === undefined) {
      v[name] = f.constant ? f.value : f.fresh();
    } else if (inner === null || (x === null && f.nullableAnywhere)) {
      v[name] = x;
    } else {
      v[name] = f.array
        ? initStructs(x as Record<string, unknown>[], inner.create)
        : initStruct(x as Record<string, unknown>, inner.create);
    }
  }
  if (shape.keepsUnknown) {
    const unknown = ownUnknownTaggedFields(init);
    if (unknown !== undefined) v._unknownTaggedFields = unknown;
  }
  return v;
}
