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

import type { Init } from "./codec.js";
import type { MessageTable } from "./table.js";
import { structsOf, type JsonStruct } from "./table-json.js";
import { ownUnknownTaggedFields } from "./writer.js";

/** A struct as `create` walks it. */
interface Shape {
  readonly fields: readonly ShapeField[];
  /** See {@link JsonStruct.keepsUnknown}. */
  readonly keepsUnknown: boolean;
}

interface ShapeField {
  readonly name: string;
  /** Whether the default is an immutable value (a primitive or null): `value`, shared by every result. */
  readonly constant: boolean;
  readonly value: unknown;
  /** A new default otherwise: an empty array, empty bytes (a struct's default is {@link defaults} of `inner`). */
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
    known.set(name, { fields, keepsUnknown: struct.keepsUnknown });
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

const OBJECT_PROTOTYPE = Object.prototype as Record<PropertyKey, unknown>;

/** A struct's default: every field at its default (a generated `createX()`), no unknown tagged fields. */
function defaults(shape: Shape): Record<string, unknown> {
  const v: Record<string, unknown> = {};
  const fields = shape.fields;
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i]!;
    v[f.name] = f.constant ? f.value : f.inner !== null && !f.array ? defaults(f.inner) : f.fresh();
  }
  return v;
}

function createFrom(shape: Shape, init: Record<string, unknown>): Record<string, unknown> {
  const v: Record<string, unknown> = {};
  const fields = shape.fields;
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i]!;
    const name = f.name;
    let x = init[name];
    // An own property only (codec.ts's ownField): a value inherited from Object.prototype (a
    // polluted prototype, or a member such as `toString`) is no value. The ownership check runs
    // only when the value read is the prototype's.
    if (x !== undefined && x === OBJECT_PROTOTYPE[name] && !Object.hasOwn(init, name)) x = undefined;
    const inner = f.inner;
    if (x === undefined) {
      v[name] = f.constant ? f.value : inner !== null && !f.array ? defaults(inner) : f.fresh();
    } else if (inner === null || (x === null && f.nullableAnywhere)) {
      v[name] = x;
    } else if (f.array) {
      v[name] = createAll(inner, x);
    } else {
      v[name] = isStructInit(x) ? createFrom(inner, x as Record<string, unknown>) : x;
    }
  }
  if (shape.keepsUnknown) {
    const unknown = ownUnknownTaggedFields(init);
    if (unknown !== undefined) v._unknownTaggedFields = unknown;
  }
  return v;
}

/** What `create` fills in: an object that is not an array; anything else is kept for encode to report. */
function isStructInit(x: unknown): boolean {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

/**
 * An array of structs: a new array of created structs (elements that are not objects kept as they
 * are); anything but an array, or an array over 2^31-1 elements, is kept as it is (codec.ts's
 * initStructs).
 */
function createAll(shape: Shape, x: unknown): unknown {
  // Longer than Kafka's int32 array count: kept for encode to refuse, never walked.
  if (!Array.isArray(x) || x.length > 0x7fffffff) return x;
  const out = new Array<unknown>(x.length);
  for (let i = 0; i < x.length; i++) {
    const e: unknown = x[i];
    out[i] = isStructInit(e) ? createFrom(shape, e as Record<string, unknown>) : e;
  }
  return out;
}
