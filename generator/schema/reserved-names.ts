/**
 * The names generated code gives to what it imports and defines, and so the names a schema's
 * message or struct cannot take. The schema loader refuses them (load.ts, load-fields.ts) with
 * {@link reservedNameReason}; the emitter writes the imports and exports named here
 * (emit/module.ts imports RUNTIME_TYPES from here), so the two cannot drift apart.
 */

/** Runtime types every generated message module imports (type-only). */
export const RUNTIME_TYPES: readonly string[] = [
  "Writer",
  "Reader",
  "MessageCodec",
  "UnknownTaggedField",
  "Init",
  "MessageTable",
];
/** What the generated protocol.ts imports from the runtime (with both header schemas). */
export const INDEX_IMPORTS: readonly string[] = ["TypedProtocol", "defineProtocol"];
/** What the generated index.ts (and protocol.ts, which it re-exports) defines. */
export const INDEX_EXPORTS: readonly string[] = ["messages", "MessageName", "protocol", "ApiKey", "Apis"];
/** Files generated next to `<MessageName>.ts` (lower-case: no schema's message is named so). */
export const MODULE_FILES: readonly string[] = ["index", "protocol"];

/**
 * Names the generated TypeScript cannot give a message or struct, with the reason: names the
 * generated modules import from the runtime, globals they use, and what the generated
 * index.ts defines or imports.
 */
const RESERVED_TYPE_NAMES: ReadonlyMap<string, string> = new Map([
  ...RUNTIME_TYPES.map(
    (name) => [name, `clashes with the runtime's ${name}, which every generated module imports`] as const,
  ),
  ...INDEX_IMPORTS.map(
    (name) => [name, `clashes with the runtime's ${name}, which the generated protocol.ts imports`] as const,
  ),
  ...INDEX_EXPORTS.map((name) => [name, `clashes with ${name}, which the generated index.ts defines`] as const),
  ...[
    "Array",
    "String",
    "Number",
    "Boolean",
    "BigInt",
    "Object",
    "Infinity",
    "NaN",
    "Uint8Array",
    "Error",
    "Symbol",
    "Math",
    "JSON",
    "undefined",
    "globalThis",
  ].map((name) => [name, `the generated TypeScript would shadow the global ${name}`] as const),
]);

/** JavaScript reserved words (strict mode and modules included) and names strict mode forbids binding. */
const RESERVED_WORDS = new Set(
  (
    "await break case catch class const continue debugger default delete do else enum export extends false " +
    "finally for function if implements import in instanceof interface let new null package private protected " +
    "public return static super switch this throw true try typeof var void while with yield eval arguments"
  ).split(" "),
);

/** TypeScript's built-in type names and type-level keywords, which cannot name an interface. */
const TS_TYPE_KEYWORDS = new Set(
  "any unknown never object string number bigint symbol boolean undefined void null intrinsic keyof infer".split(" "),
);

/** Why `name` cannot name a generated message or struct, or undefined when it can. */
export function reservedNameReason(name: string, what: "message" | "struct"): string | undefined {
  // index.ts and protocol.ts are generated next to <MessageName>.ts; "Index.ts" is the same
  // file on case-insensitive file systems (macOS, Windows).
  const file = MODULE_FILES.find((f) => f === name.toLowerCase());
  if (what === "message" && file !== undefined) {
    return name === file
      ? `a message named ${file} would replace the generated ${file}.ts`
      : `a message named ${name} would replace the generated ${file}.ts on case-insensitive file systems`;
  }
  const clash = RESERVED_TYPE_NAMES.get(name);
  if (clash !== undefined) return clash;
  if (RESERVED_WORDS.has(name)) return `${name} is a reserved word in JavaScript/TypeScript`;
  if (TS_TYPE_KEYWORDS.has(name)) return `${name} is a TypeScript built-in type name`;
  return undefined;
}
