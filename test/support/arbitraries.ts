/**
 * fast-check arbitraries derived from the generator's schema model (never written per message):
 * for a message and a version, values that are valid in that version, with every field the
 * version lacks at its default (so they survive a round trip unchanged).
 */

import fc from "fast-check";
import type { DefaultValue, FieldSpec, FieldType, MessageSpec, StructSpec } from "../../generator/schema/model.js";
import type { Versions } from "../../generator/schema/versions.js";
import { uuidToString } from "../../src/runtime/index.js";

type Value = unknown;

const INT_BOUNDS: Record<string, [number, number]> = {
  int8: [-128, 127],
  int16: [-32768, 32767],
  uint16: [0, 65535],
  int32: [-2147483648, 2147483647],
  uint32: [0, 4294967295],
};

/** Integers with their edges and the varint/byte boundaries weighted in. */
function integer(min: number, max: number): fc.Arbitrary<number> {
  const edges = [min, max, 0, 1, -1, 127, 128, 255, 256, 16383, 16384].filter((v) => v >= min && v <= max);
  return fc.oneof(
    { arbitrary: fc.constantFrom(...edges), weight: 1 },
    { arbitrary: fc.integer({ min, max }), weight: 3 },
  );
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Strings: empty, ASCII, any Unicode (well-formed UTF-16), and long ones whose length prefix needs two bytes. */
const stringArb: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constant(""), weight: 1 },
  { arbitrary: fc.string({ maxLength: 12 }), weight: 3 },
  { arbitrary: fc.string({ unit: "binary", maxLength: 12 }), weight: 3 },
  { arbitrary: fc.string({ unit: "grapheme", minLength: 40, maxLength: 80 }), weight: 1 },
);

const bytesArb = fc.oneof(
  { arbitrary: fc.uint8Array({ maxLength: 8 }), weight: 4 },
  { arbitrary: fc.uint8Array({ minLength: 127, maxLength: 140 }), weight: 1 },
);

const uuidArb = fc.uint8Array({ minLength: 16, maxLength: 16 }).map((b) => uuidToString(b, 0));

/** A JavaScript value equal to a schema default (what `create()` gives). */
export function defaultValue(field: FieldSpec): Value {
  const d: DefaultValue = field.default;
  switch (d.kind) {
    case "null":
      return null;
    case "bool":
    case "string":
    case "uuid":
      return d.value;
    case "float":
      return d.value;
    case "int":
      return field.type.kind === "primitive" && field.type.name === "int64" ? d.value : Number(d.value);
    case "empty":
      return field.type.kind === "array" ? [] : new Uint8Array(0);
    case "struct": {
      const s = field.type.kind === "struct" ? field.type.struct : null;
      return s ? structDefault(s) : null;
    }
  }
}

export function structDefault(struct: StructSpec): Record<string, Value> {
  const o: Record<string, Value> = {};
  for (const f of struct.fields) o[f.propertyName] = defaultValue(f);
  return o;
}

export interface ArbitraryOptions {
  /** Also generate unknown tagged fields (tags above every known tag) in flexible versions. */
  readonly unknownTaggedFields: boolean;
}

/** Arbitraries for one message version. */
export class ModelArbitraries {
  constructor(
    private readonly spec: MessageSpec,
    private readonly version: number,
    private readonly options: ArbitraryOptions = { unknownTaggedFields: true },
  ) {}

  private get flexible(): boolean {
    return this.spec.flexibleVersions.contains(this.version);
  }

  private primitive(name: string, tagged: boolean): fc.Arbitrary<Value> {
    const bounds = INT_BOUNDS[name];
    if (bounds) return integer(bounds[0], bounds[1]);
    switch (name) {
      case "bool":
        return fc.boolean();
      case "int64":
        return fc.oneof(
          fc.constantFrom(INT64_MIN, INT64_MAX, 0n, -1n, 2n ** 53n + 1n),
          fc.bigInt({ min: INT64_MIN, max: INT64_MAX }),
        );
      case "float64":
        // A tagged -0.0 equals a 0.0 default under Java's ==, so Kafka omits it: keep it out there.
        return tagged ? fc.double().filter((d) => !Object.is(d, -0)) : fc.double();
      case "string":
        return stringArb;
      case "bytes":
      case "records":
        return bytesArb;
      case "uuid":
        return uuidArb;
      default:
        throw new Error(`no arbitrary for ${name}`);
    }
  }

  private typeArb(type: FieldType, tagged: boolean, depth: number): fc.Arbitrary<Value> {
    if (type.kind === "primitive") return this.primitive(type.name, tagged);
    if (type.kind === "struct") return this.struct(type.struct, depth + 1);
    return fc.array(this.typeArb(type.element, tagged, depth), { maxLength: depth > 2 ? 2 : 4 });
  }

  field(field: FieldSpec, depth: number): fc.Arbitrary<Value> {
    if (!field.versions.contains(this.version)) return fc.constant(undefined).map(() => defaultValue(field));
    const tagged = field.tag !== null && field.taggedVersions.contains(this.version);
    const arb = this.typeArb(field.type, tagged, depth);
    if (field.nullableVersions.contains(this.version)) return fc.option(arb, { nil: null, freq: 4 });
    return arb;
  }

  struct(struct: StructSpec, depth = 0): fc.Arbitrary<Record<string, Value>> {
    const shape: Record<string, fc.Arbitrary<Value>> = {};
    for (const f of struct.fields) shape[f.propertyName] = this.field(f, depth);
    const base = fc.record(shape) as fc.Arbitrary<Record<string, Value>>;
    if (!this.flexible || !this.options.unknownTaggedFields) return base;
    const maxKnown = Math.max(-1, ...struct.fields.map((f) => f.tag ?? -1));
    const unknown = fc
      .uniqueArray(fc.integer({ min: maxKnown + 1, max: maxKnown + 40 }), { maxLength: 2 })
      .chain((tags) =>
        fc.tuple(
          ...tags.sort((a, b) => a - b).map((tag) => fc.uint8Array({ maxLength: 6 }).map((data) => ({ tag, data }))),
        ),
      );
    return fc.tuple(base, fc.option(unknown, { freq: 3 })).map(([o, u]) => {
      if (u !== null && u.length > 0) o._unknownTaggedFields = u;
      return o;
    });
  }

  message(): fc.Arbitrary<Record<string, Value>> {
    return this.struct(this.spec.struct);
  }
}

/** Whether `value` differs from the field's default (deep for structs and arrays). */
function isNonDefault(field: FieldSpec, value: Value): boolean {
  const d = defaultValue(field);
  if (value === null || d === null) return value !== d;
  if (value instanceof Uint8Array) return value.length > 0;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === "object") return true;
  return !Object.is(value, d);
}

/**
 * Records every field path (`Message.field.sub[].leaf`) that holds a non-default value in `value`,
 * to prove the arbitraries reach every field of every message.
 */
export function collectNonDefaultPaths(
  struct: StructSpec,
  value: Record<string, Value>,
  prefix: string,
  into: Set<string>,
): void {
  for (const f of struct.fields) {
    const v = value[f.propertyName];
    const path = `${prefix}.${f.propertyName}`;
    if (isNonDefault(f, v)) into.add(path);
    const t = f.type;
    if (t.kind === "struct" && v !== null && typeof v === "object") {
      collectNonDefaultPaths(t.struct, v as Record<string, Value>, path, into);
    } else if (t.kind === "array" && t.element.kind === "struct" && Array.isArray(v)) {
      for (const e of v) collectNonDefaultPaths(t.element.struct, e as Record<string, Value>, `${path}[]`, into);
    }
  }
}

/**
 * Every field path of a message that exists in at least one of its versions, taking nesting into
 * account (a common struct's field may exist only in versions where the field using it does not).
 */
export function allFieldPaths(spec: MessageSpec): Set<string> {
  const out = new Set<string>();
  const walk = (struct: StructSpec, prefix: string, ctx: Versions) => {
    for (const f of struct.fields) {
      const within = f.versions.intersect(ctx);
      if (within.isEmpty()) continue;
      const path = `${prefix}.${f.propertyName}`;
      out.add(path);
      const t = f.type;
      const inner =
        t.kind === "struct" ? t.struct : t.kind === "array" && t.element.kind === "struct" ? t.element.struct : null;
      if (inner) walk(inner, t.kind === "array" ? `${path}[]` : path, within);
    }
  };
  walk(spec.struct, spec.name, spec.validVersions);
  return out;
}
