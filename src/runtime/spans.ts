/**
 * Decoding with byte spans: an interpreter of a message's field table (table.ts) that decodes a
 * body as the generated decoder does and also says where every part of it is in the input, for
 * tools that show bytes (the CLI's `decode --spans`, a hex inspector). The generated decoders
 * are untouched: this costs only when it is called.
 */

import { KafkaDecodeError, KafkaWireError } from "./errors.js";
import { Reader, type DecodeOptions } from "./reader.js";
import {
  compileTable,
  isPrimitiveName,
  type FieldRow,
  type MessageTable,
  type PlannedField,
  type PlannedStruct,
  type PrimitiveName,
  zeroOf,
} from "./table.js";
import type { UnknownTaggedField } from "./wire.js";

/**
 * What a span covers:
 * - `message`: the whole body (path `""`);
 * - `field`: a field's bytes, length prefix included (a tagged field's value, inside its `tagged-field`);
 * - `element`: one array element (`topics[2]`);
 * - `prefix`: an array's length (`topics.$length`), a nullable struct's presence marker
 *   (`topology.$present`), a tagged-field section's count (`$tagged.$count`), a tagged field's
 *   tag and size (`….$tag`, `….$size`), a records field's length (`records.$length`);
 * - `tagged-fields`: a struct's tagged-field section (`topics[0].$tagged`, KIP-482);
 * - `tagged-field`: one tagged field in it: tag, size and value (`.data` for an unknown tag,
 *   whose path is `….$tagged.$unknown[k]`);
 * - `batch`, `record`, `header`: the record batches of a `records` field, their records and
 *   record headers (see `recordSpans` in `kafka-wire/records`).
 */
export type SpanKind =
  "message" | "field" | "element" | "prefix" | "tagged-fields" | "tagged-field" | "batch" | "record" | "header";

/** Where one part of a decoded message is in the input. */
export interface ByteSpan {
  /**
   * The part's path in property names (`topics[0].partitions[2].errorCode`); parts that are no
   * field have a `$` segment (`topics.$length`, `$tagged`). `""` for the message.
   */
  readonly path: string;
  /** Byte offset in the input. */
  readonly offset: number;
  /** Length in bytes (0 for an empty part). */
  readonly length: number;
  /** What the part is (a field, an element, a length prefix, a tagged field, …): {@link SpanKind}. */
  readonly kind: SpanKind;
  /** Nesting depth: 0 for the message, 1 for its fields, … (the spans are in pre-order). */
  readonly depth: number;
  /** The wire type (`int32`, `[]Topic`, `Topic`, `uvarint`, `varint`, …). */
  readonly type?: string;
  /** The tag of a `tagged-field`. */
  readonly tag?: number;
  /** The decoded value of a part without parts of its own (a primitive field, element or prefix). */
  readonly value?: unknown;
}

/**
 * Finds spans inside a `records` field's bytes `bytes[start..end)`: spans of depth `depth` and
 * below, paths under `path`, covering `[start, end)` contiguously, or none (the bytes are then one
 * opaque value). It must not throw for bytes that are no record batches. `recordSpans` in
 * `kafka-wire/records` is one.
 */
export type RecordSpanner = (
  bytes: Uint8Array,
  start: number,
  end: number,
  path: string,
  depth: number,
) => readonly ByteSpan[];

/** Options of {@link decodeWithSpans}: those of `decode`, and what reads inside `records` fields. */
export interface SpanDecodeOptions extends DecodeOptions {
  /** Spans inside `records` fields (none without: each is one span). */
  readonly recordSpans?: RecordSpanner;
}

/** What {@link decodeWithSpans} returns. */
export interface DecodedWithSpans {
  /** The decoded message, equal to what the generated codec's `decode` returns. */
  readonly value: unknown;
  /** Every span, in pre-order (a span before the spans inside it, siblings by offset). */
  readonly spans: readonly ByteSpan[];
}

/** A span while it is open (its length set when it closes). */
interface OpenSpan {
  path: string;
  offset: number;
  length: number;
  kind: SpanKind;
  depth: number;
  type?: string;
  tag?: number;
  value?: unknown;
}

const SPANS = Symbol.for("kafka-wire.spans");

/**
 * The spans a failed {@link decodeWithSpans} had found before the error (a span cut by the error
 * ends at the error's offset); undefined for any other error.
 */
export function spansOf(error: unknown): readonly ByteSpan[] | undefined {
  if (!(error instanceof KafkaWireError)) return undefined;
  return (error as unknown as { [SPANS]?: readonly ByteSpan[] })[SPANS];
}

/**
 * Decodes a message body of `version` with its field table (`<Name>$fields` of its generated
 * module) and returns the value with the byte span of every field, array element, tagged field
 * and tagged-field section (offsets into `bytes`). Slower than the codec's `decode` and more
 * memory (an object per span): for tools, not for serving traffic.
 *
 * @param table the message's field table.
 * @param bytes the message body (no size prefix, no header).
 * @param version the message version (int16), within the table's valid versions.
 * @throws KafkaDecodeError as the codec's `decode` (code, field path, byte offset), with the
 *   spans found so far (see {@link spansOf}); `UNSUPPORTED_VERSION` outside the valid versions.
 */
export function decodeWithSpans(
  table: MessageTable,
  bytes: Uint8Array,
  version: number,
  options: SpanDecodeOptions = {},
): DecodedWithSpans {
  const root = compileTable(table, version);
  if (!(bytes instanceof Uint8Array)) throw new KafkaDecodeError("INVALID_VALUE", "input must be a Uint8Array", -1);
  const d = new SpanDecoder(table, new Reader(bytes, 0, bytes.length, options), version, options.recordSpans);
  const message = d.open("", "message", table.name);
  try {
    const value = d.struct(root, "");
    const r = d.r;
    if (r.pos !== r.end && options.allowTrailingBytes !== true) {
      d.at = "";
      throw new KafkaDecodeError("TRAILING_BYTES", `${r.end - r.pos} bytes remain after the message`, r.pos);
    }
    d.close(message);
    return { value, spans: d.spans };
  } catch (error) {
    throw d.fail(error);
  }
}

function join(path: string, name: string): string {
  return path === "" ? name : `${path}.${name}`;
}

class SpanDecoder {
  readonly spans: OpenSpan[] = [];
  private readonly openSpans: OpenSpan[] = [];
  /** The path of what is being read, for errors. */
  at = "";

  constructor(
    readonly table: MessageTable,
    readonly r: Reader,
    readonly version: number,
    readonly recordSpanner: RecordSpanner | undefined,
  ) {}

  open(path: string, kind: SpanKind, type?: string): OpenSpan {
    const span: OpenSpan = { path, offset: this.r.pos, length: 0, kind, depth: this.openSpans.length };
    if (type !== undefined) span.type = type;
    this.spans.push(span);
    this.openSpans.push(span);
    return span;
  }

  close(span: OpenSpan): void {
    span.length = this.r.pos - span.offset;
    this.openSpans.pop();
  }

  /** A span of what `read` reads, with its value. */
  leaf<T>(path: string, kind: SpanKind, type: string, read: () => T): T {
    const span = this.open(path, kind, type);
    const value = read();
    span.value = value;
    this.close(span);
    return value;
  }

  /** The error with its path and the spans so far (open ones cut at the error's offset). */
  fail(error: unknown): KafkaWireError {
    let e: KafkaWireError;
    if (error instanceof KafkaWireError) e = error;
    else {
      const detail = error instanceof Error ? error.message : String(error);
      e = new KafkaDecodeError("INVALID_VALUE", `unexpected failure: ${detail}`, this.r.pos, "", { cause: error });
    }
    if (e.path === "" && this.at !== "") e.prependPath(this.at);
    const end = e.offset >= 0 ? e.offset : this.r.pos;
    for (const span of this.openSpans) span.length = Math.max(0, end - span.offset);
    this.openSpans.length = 0;
    Object.defineProperty(e, SPANS, { value: this.spans, configurable: true });
    return e;
  }

  /** A struct's fields and tagged-field section; `path` is the struct's own path. */
  struct(plan: PlannedStruct, path: string): Record<string, unknown> {
    const values = new Map<string, unknown>();
    for (const field of plan.regular) {
      const p = join(path, field.name);
      this.at = p;
      values.set(field.name, this.field(field, p, false));
    }
    let unknown: UnknownTaggedField[] | undefined;
    if (plan.flexible) unknown = this.taggedSection(plan, path, values);
    // Keys in schema order, as the generated decoder builds its objects.
    const o: Record<string, unknown> = {};
    for (const field of plan.fields) {
      o[field.name] = values.has(field.name)
        ? values.get(field.name)
        : defaultOf(this.table, field.options, field.type);
    }
    if (unknown !== undefined) o._unknownTaggedFields = unknown;
    return o;
  }

  private taggedSection(
    plan: PlannedStruct,
    path: string,
    values: Map<string, unknown>,
  ): UnknownTaggedField[] | undefined {
    const r = this.r;
    const sectionPath = join(path, "$tagged");
    this.at = path;
    const section = this.open(sectionPath, "tagged-fields");
    const count = this.leaf(`${sectionPath}.$count`, "prefix", "uvarint", () => r.uvarint());
    let unknown: UnknownTaggedField[] | undefined;
    let previous = -1;
    for (let t = 0; t < count; t++) {
      this.at = path;
      const at = r.pos;
      const entry = this.open(sectionPath, "tagged-field");
      const tagSpan = this.open(`${sectionPath}.$tag`, "prefix", "uvarint");
      const tag = r.uvarint();
      tagSpan.value = tag;
      this.close(tagSpan);
      r.checkTagOrder(tag, previous, at);
      previous = tag;
      entry.tag = tag;
      const field = plan.tagged.get(tag);
      const entryPath =
        field !== undefined ? join(path, field.name) : `${sectionPath}.$unknown[${unknown?.length ?? 0}]`;
      entry.path = entryPath;
      tagSpan.path = `${entryPath}.$tag`;
      const end = this.leaf(`${entryPath}.$size`, "prefix", "uvarint", () => r.taggedFieldEnd());
      this.spans[this.spans.length - 1]!.value = end - r.pos;
      if (field !== undefined) {
        entry.type = field.type;
        this.at = entryPath;
        values.set(field.name, this.field(field, entryPath, true));
        r.endTaggedField(tag, end);
      } else if (plan.knownTags.has(tag)) {
        throw r.tagNotInVersion(tag, this.version, at);
      } else {
        const kept = this.leaf(`${entryPath}.data`, "field", "bytes", () => r.unknownTaggedField(tag, end));
        this.spans[this.spans.length - 1]!.value = kept.data;
        (unknown ??= []).push(kept);
      }
      this.close(entry);
    }
    this.close(section);
    return unknown;
  }

  /** One field's value, in a span of its own. */
  private field(field: PlannedField, path: string, tagged: boolean): unknown {
    const span = this.open(path, "field", field.type);
    const value =
      field.element !== null
        ? this.array(field, path)
        : field.primitive !== null
          ? this.primitiveField(field, path, span)
          : this.structField(field, path, tagged);
    this.close(span);
    return value;
  }

  private primitiveField(field: PlannedField, path: string, span: OpenSpan): unknown {
    const value = readPrimitive(this.r, field.primitive!, field.compact, field.nullable);
    span.value = value;
    if (field.primitive === "records" && value !== null && this.recordSpanner !== undefined) {
      const bytes = value as Uint8Array;
      const start = this.r.pos - bytes.length;
      const inner = bytes.length === 0 ? [] : this.recordSpanner(this.r.buf, start, this.r.pos, path, span.depth + 1);
      if (inner.length > 0) {
        // The records are parts of their own: the field is no longer one value.
        delete span.value;
        this.spans.push({
          path: `${path}.$length`,
          offset: span.offset,
          length: start - span.offset,
          kind: "prefix",
          depth: span.depth + 1,
          type: field.compact ? "uvarint" : "int32",
          value: bytes.length,
        });
        for (const s of inner) this.spans.push({ ...s });
      }
    }
    return value;
  }

  private structField(field: PlannedField, path: string, tagged: boolean): unknown {
    const r = this.r;
    if (field.nullable) {
      // In a tagged field's payload the presence marker is an unsigned varint (Kafka's writer).
      const present = this.leaf(`${path}.$present`, "prefix", tagged ? "uvarint" : "int8", () =>
        tagged ? r.uvarint() > 0 : r.structPresent(),
      );
      if (!present) return null;
    }
    return this.struct(field.struct!, path);
  }

  private array(field: PlannedField, path: string): unknown[] | null {
    const r = this.r;
    const element = field.element!;
    const primitive = field.primitive;
    const min = primitive === null ? 1 : (FIXED_SIZES[primitive] ?? 1);
    const n = this.leaf(`${path}.$length`, "prefix", field.compact ? "uvarint" : "int32", () =>
      field.compact
        ? field.nullable
          ? r.compactNullableArrayLength(min)
          : r.compactArrayLength(min)
        : field.nullable
          ? r.nullableArrayLength(min)
          : r.arrayLength(min),
    );
    if (n < 0) return null;
    // Grown as read: the count is checked against the bytes that remain, but is not trusted further.
    const out: unknown[] = [];
    for (let i = 0; i < n; i++) {
      const p = `${path}[${i}]`;
      this.at = p;
      if (primitive !== null) {
        out.push(this.leaf(p, "element", element, () => readPrimitive(r, primitive, field.compact, false)));
      } else {
        const span = this.open(p, "element", element);
        out.push(this.struct(field.struct!, p));
        this.close(span);
      }
    }
    return out;
  }
}

const FIXED_SIZES: Partial<Record<PrimitiveName, number>> = {
  bool: 1,
  int8: 1,
  int16: 2,
  uint16: 2,
  int32: 4,
  uint32: 4,
  int64: 8,
  float64: 8,
  uuid: 16,
};

/** One primitive value with the Reader method the generated decoder calls for it. */
function readPrimitive(r: Reader, name: PrimitiveName, compact: boolean, nullable: boolean): unknown {
  switch (name) {
    case "bool":
      return r.bool();
    case "int8":
      return r.int8();
    case "int16":
      return r.int16();
    case "uint16":
      return r.uint16();
    case "int32":
      return r.int32();
    case "uint32":
      return r.uint32();
    case "int64":
      return r.int64();
    case "float64":
      return r.float64();
    case "uuid":
      return r.uuid();
    case "string":
      if (compact) return nullable ? r.compactNullableString() : r.compactString();
      return nullable ? r.nullableString() : r.string();
    case "bytes":
    case "records":
      if (compact) return nullable ? r.compactNullableBytes() : r.compactBytes();
      return nullable ? r.nullableBytes() : r.bytes();
  }
}

/**
 * A field's default, as the generated `create` makes it: the table's `default`, else the type's
 * zero value (a struct of its own defaults, at any depth). New objects each time.
 */
export function defaultOf(table: MessageTable, options: FieldRow[3] = {}, type: string): unknown {
  if ("default" in options) return options.default;
  if (type.startsWith("[]")) return [];
  if (!isPrimitiveName(type)) {
    const rows = Object.hasOwn(table.structs, type) ? table.structs[type] : undefined;
    if (rows === undefined) {
      throw new KafkaDecodeError("INVALID_VALUE", `the field table of ${table.name} has no struct ${type}`, -1);
    }
    const o: Record<string, unknown> = {};
    for (const [name, t, , opts] of rows) o[name] = defaultOf(table, opts, t);
    return o;
  }
  return zeroOf(type);
}
