import { readFileSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { SchemaError } from "../../generator/schema/errors.js";
import { MAX_STRUCT_DEPTH, loadSchema, loadSchemaFile, type LoadOptions } from "../../generator/schema/load.js";
import type { FieldSpec, MessageSpec, StructSpec } from "../../generator/schema/model.js";
import { isTaggedIn } from "../../generator/schema/wire-types.js";
import { MAX_NESTING_DEPTH, parseSchemaText } from "../../generator/schema/parse.js";
import { REPO_ROOT, describeShared, isCi, requireShared, sharedStatus } from "../support/shared.js";

const FILE = "inline/TestRequest.json";
const SEED_APIKEYS = {
  StreamsGroupHeartbeatRequest: 88,
  StreamsGroupHeartbeatResponse: 88,
  StreamsGroupDescribeResponse: 89,
};

// ---------------------------------------------------------------------------------------------
// Helpers

interface Parts {
  /** Raw JSON for each header key; null leaves the key out. */
  apiKey?: string | null;
  type?: string | null;
  name?: string | null;
  validVersions?: string | null;
  flexibleVersions?: string | null;
  /** Extra top-level lines, each ending with a comma. */
  extra?: string;
  fields?: string;
}

const ID_FIELD = `    { "name": "Id", "type": "int32", "versions": "0+", "about": "An id." }`;

/** A small request schema, one key per line, with parts replaced. */
function schema(parts: Parts = {}): string {
  const header = (key: keyof Parts, fallback: string): string[] => {
    const value = parts[key] === undefined ? fallback : parts[key];
    return value === null ? [] : [`  "${key}": ${value},`];
  };
  return [
    "{",
    ...header("apiKey", "1000"),
    ...header("type", '"request"'),
    ...header("name", '"TestRequest"'),
    ...header("validVersions", '"0-3"'),
    ...header("flexibleVersions", '"1+"'),
    ...(parts.extra ? [parts.extra] : []),
    '  "fields": [',
    parts.fields ?? ID_FIELD,
    "  ]",
    "}",
  ].join("\n");
}

function errorOf(text: string, options?: LoadOptions, file = FILE): SchemaError {
  try {
    loadSchema(text, file, options);
  } catch (error) {
    if (error instanceof SchemaError) return error;
    throw error;
  }
  throw new Error(`expected a SchemaError for:\n${text}`);
}

/** 1-based line/column of the only occurrence of `needle`. */
function positionOf(text: string, needle: string): { line: number; column: number } {
  const offset = text.indexOf(needle);
  expect(offset, `needle ${needle} not found`).toBeGreaterThanOrEqual(0);
  expect(text.indexOf(needle, offset + 1), `needle ${needle} is not unique`).toBe(-1);
  const before = text.slice(0, offset).split("\n");
  return { line: before.length, column: before.at(-1)!.length + 1 };
}

interface Expected {
  path?: string;
  reason: string | RegExp;
  /** A unique substring the error must point at, or an explicit position. */
  at?: string | { line: number; column: number };
}

function expectError(text: string, expected: Expected, options?: LoadOptions): SchemaError {
  const error = errorOf(text, options);
  expect(error.file).toBe(FILE);
  expect(error.path).toBe(expected.path);
  if (typeof expected.reason === "string") expect(error.reason).toContain(expected.reason);
  else expect(error.reason).toMatch(expected.reason);
  const prefix = `${FILE}:${error.line}:${error.column}: ${expected.path ? `${expected.path}: ` : ""}`;
  expect(error.message).toBe(prefix + error.reason);
  expect(error.message).not.toMatch(/[\r\n]/);
  if (expected.at !== undefined) {
    const position = typeof expected.at === "string" ? positionOf(text, expected.at) : expected.at;
    expect({ line: error.line, column: error.column }).toEqual(position);
  }
  return error;
}

function field(spec: MessageSpec, schemaPath: string): FieldSpec {
  for (const struct of spec.structs) {
    const found = struct.fields.find((f) => f.schemaPath === schemaPath);
    if (found) return found;
  }
  throw new Error(`no field ${schemaPath}`);
}

function structOf(f: FieldSpec): StructSpec {
  if (f.type.kind === "struct") return f.type.struct;
  if (f.type.kind === "array" && f.type.element.kind === "struct") return f.type.element.struct;
  throw new Error(`${f.schemaPath} is not a struct field`);
}

// ---------------------------------------------------------------------------------------------

describe("syntax errors", () => {
  const fixture = path.join(REPO_ROOT, "test/fixtures/seed002-StreamsGroupHeartbeatResponse.json");

  it("points at the second commonStructs entry when the comma before it is missing (seed 002)", () => {
    const text = readFileSync(fixture, "utf8");
    const lines = text.split("\n");
    // Independent of the parser: the line that opens the Endpoint struct.
    const line = lines.findIndex((l) => l.includes('{ "name": "Endpoint"')) + 1;
    const column = lines[line - 1]!.indexOf("{") + 1;
    expect(line).toBe(85);

    const error = errorOf(text, undefined, fixture);
    expect(error).toMatchObject({ file: fixture, line, column });
    expect(error.path).toBeUndefined();
    expect(error.reason).toBe("expected ',' between array elements, found '{'");
    expect(error.message).toBe(`${fixture}:85:${column}: expected ',' between array elements, found '{'`);
    expect(() => loadSchemaFile(fixture)).toThrow(error.message);
    expect(() => parseSchemaText(text, fixture)).toThrow(error.message);
  });

  it.each([
    ["missing comma between properties", '{\n  "a": 1\n  "b": 2\n}', 3, 3, "expected ',' or '}' after a property"],
    ["trailing comma in an object", '{\n  "a": 1,\n}', 2, 9, "trailing comma before '}'"],
    ["trailing comma in an array", '{ "a": [1, 2,] }', 1, 13, "trailing comma before ']'"],
    ["unquoted property name", "{ a: 1 }", 1, 3, "property names must be double-quoted strings"],
    ["bare identifier value", '{ "a": TBX }', 1, 8, "unexpected identifier 'TBX'"],
    [
      "TBD away from the top-level apiKey",
      '{ "name": TBD }',
      1,
      11,
      "TBD is only accepted as the value of the top-level",
    ],
    ["TBD in a nested apiKey", '{ "x": { "apiKey": TBD } }', 1, 20, "unexpected identifier 'TBD'"],
    ["single-quoted string", "{ 'a': 1 }", 1, 3, "double quotes"],
    ["line break inside a string", '{ "a": "x\ny" }', 1, 8, "unterminated string"],
    ["raw tab inside a string", '{ "a": "x\ty" }', 1, 10, "control character U+0009"],
    ["invalid escape", '{ "a": "\\q" }', 1, 9, "invalid escape sequence '\\q'"],
    ["leading zero", '{ "a": 01 }', 1, 8, "leading zeros"],
    ["content after the object", '{ "a": 1 }\n{}', 2, 1, "after the end of the top-level object"],
    ["unclosed object", '{\n  "a": [1]\n', 3, 1, "the '{' at 1:1 is never closed"],
    ["empty file", "  \n", 1, 1, "empty file"],
    ["unterminated comment", '{ "a": 1 } /* x', 1, 12, "unterminated /* comment"],
    ["em space as whitespace", '{ "a":\u20031 }', 1, 7, "U+2003 is not JSON whitespace"],
  ])("%s", (_title, text, line, column, reason) => {
    const error = errorOf(text, undefined, "bad.json");
    expect(error.reason).toContain(reason);
    expect({ line: error.line, column: error.column }).toEqual({ line, column });
    expect(error.message).toBe(`bad.json:${line}:${column}: ${error.reason}`);
    expect(error.message).not.toMatch(/[\r\n]/);
  });

  it("accepts // and /* */ comments", () => {
    expect(parseSchemaText('// head\n{ /* a */ "a": 1 // tail\n}', "c.json").value).toEqual({ a: 1 });
  });
});

describe('"apiKey": TBD', () => {
  it("parses as unassigned, whatever the spacing", () => {
    for (const text of [
      '{"apiKey":TBD,"x":1}',
      '{ "x": 1,\n  "apiKey"  :\t TBD  \n}',
      '{ "apiKey": /* later */ TBD, "x": 1 }',
    ]) {
      const parsed = parseSchemaText(text, "t.json");
      expect(parsed.apiKeyUnassigned).toBe(true);
      expect(parsed.value).toEqual({ x: 1 });
    }
    const plain = parseSchemaText('{ "apiKey": "TBD", "about": "apiKey: TBD" }', "t.json");
    expect(plain.apiKeyUnassigned).toBe(false);
    expect(plain.value).toEqual({ apiKey: "TBD", about: "apiKey: TBD" });
  });

  it("keeps later positions exact", () => {
    const text = '{ "apiKey": TBD, "bogus": 1, "type": "request" }';
    const error = errorOf(text);
    expect(error.reason).toContain('unknown key "bogus"');
    expect({ line: error.line, column: error.column }).toEqual(positionOf(text, '"bogus"'));
  });

  it("gets apiKey null without an assignment and the assigned key with one", () => {
    const text = schema({ apiKey: "TBD" });
    const unassigned = loadSchema(text, FILE);
    expect(unassigned).toMatchObject({ apiKey: null, apiKeyUnassigned: true });
    const assigned = loadSchema(text, FILE, { apiKeys: { TestRequest: 77, Other: 1 } });
    expect(assigned).toMatchObject({ apiKey: 77, apiKeyUnassigned: true });
    expect(loadSchema(text, FILE, { apiKeys: { Other: 1 } }).apiKey).toBeNull();
  });

  it("rejects an assignment that conflicts with a numeric apiKey, or targets a schema without one", () => {
    expectError(
      schema({ apiKey: "68" }),
      { reason: "apiKey 68 conflicts with the apiKeys option, which assigns 88", at: "68" },
      { apiKeys: { TestRequest: 88 } },
    );
    expect(loadSchema(schema({ apiKey: "88" }), FILE, { apiKeys: { TestRequest: 88 } }).apiKey).toBe(88);
    expectError(
      schema({ apiKey: null }),
      { reason: 'the schema has no "apiKey"', at: '"TestRequest"' },
      { apiKeys: { TestRequest: 88 } },
    );
  });

  // Duplicate keys: Kafka's parser (Jackson) keeps the last value, and so do we, TBD or not.
  const duplicate = 'duplicate key "apiKey"; the last one wins (as in Kafka\'s JSON parser)';

  it("lets a later numeric apiKey win over TBD", () => {
    const text = schema({ apiKey: "TBD", extra: '  "apiKey": 5,' });
    const spec = loadSchema(text, FILE);
    expect(spec).toMatchObject({ apiKey: 5, apiKeyUnassigned: false });
    expect(spec.warnings.map((w) => w.message)).toEqual([duplicate]);
    expect(parseSchemaText(text, FILE)).toMatchObject({ apiKeyUnassigned: false, value: { apiKey: 5 } });
  });

  it("rejects an assignment for an apiKey that was TBD and then a number", () => {
    expectError(
      schema({ apiKey: "TBD", extra: '  "apiKey": 5,' }),
      { reason: "apiKey 5 conflicts with the apiKeys option, which assigns 88", at: "5," },
      { apiKeys: { TestRequest: 88 } },
    );
  });

  it("lets a later TBD win over a numeric apiKey", () => {
    const text = schema({ apiKey: "5", extra: '  "apiKey": TBD,' });
    expect(loadSchema(text, FILE)).toMatchObject({ apiKey: null, apiKeyUnassigned: true });
    expect(loadSchema(text, FILE, { apiKeys: { TestRequest: 88 } })).toMatchObject({
      apiKey: 88,
      apiKeyUnassigned: true,
    });
    const parsed = parseSchemaText(text, FILE);
    expect(parsed.apiKeyUnassigned).toBe(true);
    expect(parsed.value).not.toHaveProperty("apiKey");
  });

  it("accepts TBD twice (a duplicate key, not a syntax error)", () => {
    const spec = loadSchema(schema({ apiKey: "TBD", extra: '  "apiKey": TBD,' }), FILE, {
      apiKeys: { TestRequest: 88 },
    });
    expect(spec).toMatchObject({ apiKey: 88, apiKeyUnassigned: true });
    expect(spec.warnings.map((w) => w.message)).toEqual([duplicate]);
  });

  it("lets a later null apiKey win over TBD: no apiKey at all", () => {
    const text = schema({ apiKey: "TBD", extra: '  "apiKey": null,' });
    expect(loadSchema(text, FILE)).toMatchObject({ apiKey: null, apiKeyUnassigned: false });
    expectError(text, { reason: 'the schema has no "apiKey"' }, { apiKeys: { TestRequest: 88 } });
  });
});

describe("no-break spaces", () => {
  it("are read as spaces outside strings, with one warning per file", () => {
    const nb = "\u00a0";
    const text = `{\n${nb}${nb}"a": 1,${nb}\n  "b": "x${nb}y", // ${nb}\n${nb}"c": [1,${nb}2]\n}`;
    const parsed = parseSchemaText(text, "nb.json");
    expect(parsed.value).toEqual({ a: 1, b: `x${nb}y`, c: [1, 2] });
    expect(parsed.warnings).toEqual([
      { file: "nb.json", line: 2, column: 1, message: "no-break space (U+00A0) used as whitespace at 2:1 (+4 more)" },
    ]);
  });

  it("give a warning without a count suffix when there is only one", () => {
    const parsed = parseSchemaText('{ "a":\u00a01 }', "nb.json");
    expect(parsed.warnings.map((w) => w.message)).toEqual(["no-break space (U+00A0) used as whitespace at 1:7"]);
  });
});

describe("the KIP-1071 design schemas in schemas/", () => {
  const dir = path.join(REPO_ROOT, "schemas");
  const cases: [string, number | null, string | null][] = [
    ["StreamsGroupHeartbeatRequest", 88, "no-break space (U+00A0) used as whitespace at 10:43 (+3 more)"],
    ["StreamsGroupHeartbeatResponse", 88, "no-break space (U+00A0) used as whitespace at 29:81 (+3 more)"],
    ["StreamsGroupDescribeResponse", 89, "no-break space (U+00A0) used as whitespace at 80:3 (+12 more)"],
    ["StreamsGroupMemberMetadataValue", null, null],
  ];

  it.each(cases)("%s loads with the expected warnings and api key", (name, apiKey, warning) => {
    const file = path.join(dir, `${name}.json`);
    const spec = loadSchemaFile(file, { apiKeys: SEED_APIKEYS });
    expect(spec.name).toBe(name);
    expect(spec.apiKey).toBe(apiKey);
    expect(spec.apiKeyUnassigned).toBe(apiKey !== null);
    expect(spec.warnings.map((w) => w.message)).toEqual(warning ? [warning] : []);
    expect(loadSchemaFile(file).apiKey).toBeNull();
    expect(spec.structs[0]).toBe(spec.struct);
    expect(new Set(spec.structs.map((s) => s.name)).size).toBe(spec.structs.length);
  });

  it("counts the no-break spaces the warning reports", () => {
    for (const [name, , warning] of cases) {
      const text = readFileSync(path.join(dir, `${name}.json`), "utf8");
      // The design pages only have them in indentation and trailing whitespace.
      const count = (text.match(/\u00a0/g) ?? []).length;
      expect(warning ?? "(+-1 more)").toContain(`(+${count - 1} more)`);
    }
  });

  it("shares one StructSpec per common struct", () => {
    const spec = loadSchemaFile(path.join(dir, "StreamsGroupMemberMetadataValue.json"));
    const endpoint = spec.structs.find((s) => s.name === "Endpoint")!;
    expect(endpoint.common).toBe(true);
    expect(structOf(field(spec, "UserEndpoint"))).toBe(endpoint);
    expect(spec.structs.map((s) => s.name)).toEqual(["StreamsGroupMemberMetadataValue", "Endpoint", "KeyValue"]);
  });
});

// ---------------------------------------------------------------------------------------------

describe("validation: message", () => {
  it('accepts "validVersions": "none" (a removed API reserving its api key) with headerVersions from 0', () => {
    const spec = loadSchema(
      schema({ validVersions: '"none"', extra: '  "headerVersions": { "0+": 2 },' }),
      "TestRequest.json",
    );
    expect(spec.validVersions.isEmpty()).toBe(true);
    expect(spec.headerVersions?.map((h) => [h.range.toString(), h.header])).toEqual([["0+", 2]]);
  });

  it.each<[string, Parts, Expected]>([
    [
      "unknown key (with a suggestion)",
      { extra: '  "validVersion": "0-3",' },
      { reason: 'unknown key "validVersion" in the message (did you mean "validVersions"?)', at: '"validVersion":' },
    ],
    ["missing name", { name: null }, { reason: 'missing required key "name"', at: { line: 1, column: 1 } }],
    ["missing type", { type: null }, { reason: 'missing required key "type"', at: { line: 1, column: 1 } }],
    ["missing validVersions", { validVersions: null }, { reason: 'missing required key "validVersions"' }],
    ["missing flexibleVersions", { flexibleVersions: null }, { reason: 'missing required key "flexibleVersions"' }],
    ["unknown message type", { type: '"event"' }, { reason: 'unknown message type "event"', at: '"event"' }],
    [
      "invalid message name",
      { name: '"Test Request"' },
      { reason: 'invalid message name "Test Request"', at: '"Test Request"' },
    ],
    ["garbage validVersions", { validVersions: '"0-x"' }, { reason: 'invalid validVersions "0-x"', at: '"0-x"' }],
    [
      "open-ended validVersions",
      { validVersions: '"0+"' },
      { reason: "must have a maximum version", at: '"0+",\n  "flexibleVersions"' },
    ],
    [
      "bounded flexibleVersions",
      { flexibleVersions: '"1-2"' },
      { reason: 'must be "none" or open-ended', at: '"1-2"' },
    ],
    [
      "request name without the Request suffix",
      { name: '"TestCall"' },
      { reason: 'a request\'s name must end with "Request"' },
    ],
    ["apiKey out of range", { apiKey: "40000" }, { reason: '"apiKey" 40000 is out of range', at: "40000" }],
    ["apiKey not an integer", { apiKey: "1.5" }, { reason: '"apiKey" must be an integer', at: "1.5" }],
    [
      "listeners on a response",
      { type: '"response"', name: '"TestResponse"', extra: '  "listeners": ["broker"],' },
      { reason: '"listeners" is only valid for messages of type request' },
    ],
    [
      "unknown listener",
      { extra: '  "listeners": ["broker", "zookeeper"],' },
      { reason: 'unknown listener "zookeeper"', at: '"zookeeper"' },
    ],
    [
      "latestVersionUnstable on a response",
      { type: '"response"', name: '"TestResponse"', extra: '  "latestVersionUnstable": true,' },
      { reason: '"latestVersionUnstable" is only valid for messages of type request' },
    ],
    [
      "coordinator-key with flexible versions",
      { type: '"coordinator-key"', name: '"TestKey"', validVersions: '"0"', flexibleVersions: '"0+"' },
      { reason: 'a coordinator-key message must have "flexibleVersions": "none"' },
    ],
    [
      "coordinator-value without apiKey",
      { apiKey: null, type: '"coordinator-value"', name: '"TestValue"' },
      { reason: 'a coordinator-value message must have an "apiKey"' },
    ],
    [
      "headerVersions not starting at 0",
      { extra: '  "headerVersions": { "1+": "2" },' },
      { reason: "headerVersions must start at version 0", at: '"1+": "2"' },
    ],
    [
      "headerVersions with a gap",
      { extra: '  "headerVersions": { "0": "1", "2+": "2" },' },
      { reason: "must be contiguous", at: '"2+"' },
    ],
    [
      "headerVersions on a data message",
      { apiKey: null, type: '"data"', name: '"TestData"', extra: '  "headerVersions": { "0+": "1" },' },
      { reason: '"headerVersions" is only valid for messages of type request or response' },
    ],
  ])("%s", (_title, parts, expected) => {
    expectError(schema(parts), expected);
  });

  it("rejects a top-level value that is not an object", () => {
    const error = errorOf("[1, 2]");
    expect(error.reason).toBe("a schema must be a JSON object, not an array");
  });

  it("accepts valid headerVersions, listeners and latestVersionUnstable", () => {
    const spec = loadSchema(
      schema({
        extra:
          '  "headerVersions": { "0": "1", "1+": "2" },\n  "listeners": ["broker", "controller"],\n  "latestVersionUnstable": true,',
      }),
      FILE,
    );
    expect(spec.listeners).toEqual(["broker", "controller"]);
    expect(spec.latestVersionUnstable).toBe(true);
  });
});

describe("validation: fields", () => {
  const common = (fields: string): string =>
    `  "commonStructs": [\n    { "name": "Foo", "versions": "0+", "fields": [\n${fields}\n    ]}\n  ],`;
  const FOO_COMMON = common(`      { "name": "X", "type": "int32", "versions": "0+" }`);

  it.each<[string, string, Expected, string?]>([
    [
      "unknown field key",
      `    { "name": "Id", "type": "int32", "versions": "0+", "nullable": "0+" }`,
      { path: "Id", reason: 'unknown key "nullable" in a field', at: '"nullable"' },
    ],
    [
      "misspelt field key",
      `    { "name": "Id", "type": "int32", "versions": "0+", "nullableVersion": "0+" }`,
      { path: "Id", reason: 'did you mean "nullableVersions"?' },
    ],
    [
      "missing field name",
      `    { "type": "int32", "versions": "0+" }`,
      { path: "fields[0]", reason: 'missing required key "name"', at: '{ "type"' },
    ],
    [
      "invalid field name",
      `    { "name": "my-field", "type": "int32", "versions": "0+" }`,
      { path: "fields[0]", reason: 'invalid field name "my-field"', at: '"my-field"' },
    ],
    ["missing type", `    { "name": "Id", "versions": "0+" }`, { path: "Id", reason: 'missing required key "type"' }],
    [
      "missing versions",
      `    { "name": "Id", "type": "int32" }`,
      { path: "Id", reason: 'missing required key "versions"' },
    ],
    [
      "garbage versions",
      `    { "name": "Id", "type": "int32", "versions": "1-x" }`,
      { path: "Id", reason: 'invalid versions "1-x" (expected "N", "N-M", "N+" or "none")', at: '"1-x"' },
    ],
    [
      "reversed versions",
      `    { "name": "Id", "type": "int32", "versions": "3-1" }`,
      { path: "Id", reason: "the lowest version is above the highest", at: '"3-1"' },
    ],
    [
      "versions above 32767",
      `    { "name": "Id", "type": "int32", "versions": "40000" }`,
      { path: "Id", reason: "versions must be at most 32767" },
    ],
    [
      "unknown type",
      `    { "name": "Id", "type": "int42", "versions": "0+" }`,
      { path: "Id", reason: 'unknown type "int42"', at: '"int42"' },
    ],
    [
      "lower-case struct name",
      `    { "name": "Items", "type": "[]item", "versions": "0+", "fields": [] }`,
      { path: "Items", reason: 'unknown type "item"' },
    ],
    [
      "array of arrays",
      `    { "name": "Ids", "type": "[][]int32", "versions": "0+" }`,
      { path: "Ids", reason: "arrays of arrays are not supported" },
    ],
    [
      "array without element type",
      `    { "name": "Ids", "type": "[]", "versions": "0+" }`,
      { path: "Ids", reason: 'array type "[]" has no element type' },
    ],
    [
      "unknown struct type",
      `    { "name": "Items", "type": "[]Item", "versions": "0+" }`,
      {
        path: "Items",
        reason: 'unknown struct type Item: the field has no "fields" and there is no common struct named Item',
        at: '"[]Item"',
      },
    ],
    [
      "fields on a non-struct type",
      `    { "name": "Id", "type": "int32", "versions": "0+", "fields": [] }`,
      {
        path: "Id",
        reason: 'only struct and struct-array fields can have "fields" (type is int32)',
        at: '"fields": []',
      },
    ],
    [
      "fields on an array of primitives",
      `    { "name": "Ids", "type": "[]int32", "versions": "0+", "fields": [] }`,
      { path: "Ids", reason: 'only struct and struct-array fields can have "fields"' },
    ],
    [
      "inline struct defined twice",
      [
        `    { "name": "A", "type": "[]Item", "versions": "0+", "fields": [ { "name": "X", "type": "int8", "versions": "0+" } ] },`,
        `    { "name": "B", "type": "Item", "versions": "0+", "fields": [ { "name": "Y", "type": "int8", "versions": "0+" } ] }`,
      ].join("\n"),
      { path: "B", reason: "struct Item is defined twice (first by A)", at: '"Item", "versions"' },
    ],
    [
      "inline struct referenced again",
      [
        `    { "name": "A", "type": "[]Item", "versions": "0+", "fields": [ { "name": "X", "type": "int8", "versions": "0+" } ] },`,
        `    { "name": "B", "type": "Item", "versions": "0+" }`,
      ].join("\n"),
      {
        path: "B",
        reason: "struct Item is defined inline by A and cannot be referenced again; move it to commonStructs",
      },
    ],
    [
      "nested inline struct redefined",
      [
        `    { "name": "A", "type": "[]Outer", "versions": "0+", "fields": [`,
        `      { "name": "B", "type": "[]Outer", "versions": "0+", "fields": [] } ] }`,
      ].join("\n"),
      { path: "A.B", reason: "struct Outer is defined twice (first by A)" },
    ],
    [
      "common struct re-specified inline",
      `    { "name": "F", "type": "Foo", "versions": "0+", "fields": [ { "name": "Z", "type": "int8", "versions": "0+" } ] }`,
      { path: "F", reason: "cannot re-specify the common struct Foo inline" },
      FOO_COMMON,
    ],
    [
      "struct with the message's name",
      `    { "name": "F", "type": "TestRequest", "versions": "0+", "fields": [] }`,
      { path: "F", reason: "struct type TestRequest has the same name as the message" },
    ],
    [
      "nullableVersions on int32",
      `    { "name": "Id", "type": "int32", "versions": "0+", "nullableVersions": "1+" }`,
      {
        path: "Id",
        reason: "type int32 cannot be nullable (only string, bytes, records, arrays and structs can)",
        at: '"1+" }',
      },
    ],
    [
      "nullableVersions on uuid",
      `    { "name": "Id", "type": "uuid", "versions": "0+", "nullableVersions": "0+" }`,
      { path: "Id", reason: "type uuid cannot be nullable" },
    ],
    [
      "null default on a field not nullable in all versions",
      `    { "name": "S", "type": "string", "versions": "0+", "nullableVersions": "1+", "default": "null" }`,
      {
        path: "S",
        reason: 'default "null" needs the field to be nullable in all its versions (versions 0+, nullableVersions 1+)',
        at: '"null"',
      },
    ],
    [
      "null default on a non-nullable array",
      `    { "name": "A", "type": "[]int32", "versions": "0+", "default": "null" }`,
      {
        path: "A",
        reason:
          'default "null" needs the field to be nullable in all its versions (versions 0+, nullableVersions none)',
      },
    ],
    [
      "int8 default out of range",
      `    { "name": "N", "type": "int8", "versions": "0+", "default": "128" }`,
      { path: "N", reason: 'invalid default "128" for int8: out of range -128..127', at: '"128"' },
    ],
    [
      "int32 hex default out of range",
      `    { "name": "N", "type": "int32", "versions": "0+", "default": "0x80000000" }`,
      { path: "N", reason: "out of range -2147483648..2147483647" },
    ],
    [
      "int64 JSON number out of range",
      `    { "name": "N", "type": "int64", "versions": "0+", "default": 9223372036854775808 }`,
      { path: "N", reason: 'invalid default "9223372036854775808" for int64: out of range', at: "9223372036854775808" },
    ],
    [
      "uint16 negative default",
      `    { "name": "N", "type": "uint16", "versions": "0+", "default": "-1" }`,
      { path: "N", reason: "out of range 0..65535" },
    ],
    [
      "int32 default that is not a number",
      `    { "name": "N", "type": "int32", "versions": "0+", "default": "ten" }`,
      { path: "N", reason: "expected a decimal or 0x-prefixed hex integer" },
    ],
    [
      "int32 default null",
      `    { "name": "N", "type": "int32", "versions": "0+", "default": "null" }`,
      { path: "N", reason: "int32 fields cannot be null" },
    ],
    [
      "float64 default",
      `    { "name": "F", "type": "float64", "versions": "0+", "default": "1.2.3" }`,
      { path: "F", reason: "expected a decimal floating-point number" },
    ],
    [
      "bool default",
      `    { "name": "B", "type": "bool", "versions": "0+", "default": "yes" }`,
      { path: "B", reason: 'invalid default "yes" for bool: expected "true" or "false"' },
    ],
    [
      "bytes default",
      `    { "name": "B", "type": "bytes", "versions": "0+", "default": "abc" }`,
      { path: "B", reason: 'the only valid defaults for bytes are empty and "null"' },
    ],
    [
      "records default",
      `    { "name": "R", "type": "records", "versions": "0+", "default": "abc" }`,
      { path: "R", reason: 'the only valid defaults for records are empty and "null"' },
    ],
    [
      "array default",
      `    { "name": "A", "type": "[]int32", "versions": "0+", "default": "[]" }`,
      { path: "A", reason: 'the only valid defaults for an array are empty and "null"' },
    ],
    [
      "struct default",
      `    { "name": "S", "type": "Foo", "versions": "0+", "default": "{}" }`,
      { path: "S", reason: 'the only valid defaults for a struct are empty and "null"' },
      FOO_COMMON,
    ],
    [
      "uuid default",
      `    { "name": "U", "type": "uuid", "versions": "0+", "default": "not-a-uuid" }`,
      { path: "U", reason: "expected a 22-character URL-safe base64 uuid" },
    ],
    [
      "default that is an object",
      `    { "name": "N", "type": "int32", "versions": "0+", "default": {} }`,
      { path: "N", reason: '"default" must be a string, number or boolean, not an object' },
    ],
    [
      "duplicate tags",
      [
        `    { "name": "A", "type": "int32", "versions": "1+", "taggedVersions": "1+", "tag": 0 },`,
        `    { "name": "B", "type": "int32", "versions": "1+", "taggedVersions": "1+", "tag": 0 }`,
      ].join("\n"),
      { path: "B", reason: "duplicate tag 0 (also used by A)" },
    ],
    [
      "tags not contiguous",
      [
        `    { "name": "A", "type": "int32", "versions": "1+", "taggedVersions": "1+", "tag": 0 },`,
        `    { "name": "B", "type": "int32", "versions": "1+", "taggedVersions": "1+", "tag": 2 }`,
      ].join("\n"),
      { path: "B", reason: "tag 2 is used but tag 1 is not", at: "2 }" },
    ],
    [
      "tag without taggedVersions",
      `    { "name": "A", "type": "int32", "versions": "1+", "tag": 0 }`,
      { path: "A", reason: '"tag" requires "taggedVersions"' },
    ],
    [
      "taggedVersions without tag",
      `    { "name": "A", "type": "int32", "versions": "1+", "taggedVersions": "1+" }`,
      { path: "A", reason: '"taggedVersions" requires a "tag"' },
    ],
    [
      "negative tag",
      `    { "name": "A", "type": "int32", "versions": "1+", "taggedVersions": "1+", "tag": -1 }`,
      { path: "A", reason: "tag -1 is negative" },
    ],
    [
      "bounded taggedVersions",
      `    { "name": "A", "type": "int32", "versions": "1+", "taggedVersions": "1-2", "tag": 0 }`,
      { path: "A", reason: 'taggedVersions "1-2" must be open-ended (e.g. "1+")', at: '"1-2"' },
    ],
    [
      "taggedVersions outside versions",
      `    { "name": "A", "type": "int32", "versions": "2+", "taggedVersions": "1+", "tag": 0 }`,
      { path: "A", reason: "taggedVersions 1+ must be within the field's versions 2+" },
    ],
    [
      "taggedVersions outside flexibleVersions",
      `    { "name": "A", "type": "int32", "versions": "0+", "taggedVersions": "0+", "tag": 0 }`,
      { path: "A", reason: "taggedVersions 0+ must be within flexibleVersions 1+" },
    ],
    [
      "nullableVersions covering part of taggedVersions",
      `    { "name": "A", "type": "string", "versions": "1+", "nullableVersions": "2+", "taggedVersions": "1+", "tag": 0 }`,
      { path: "A", reason: "nullableVersions 2+ must cover all or none of taggedVersions 1+" },
    ],
    [
      "tag that is not an integer",
      `    { "name": "A", "type": "int32", "versions": "1+", "taggedVersions": "1+", "tag": "first" }`,
      { path: "A", reason: '"tag" must be an integer, not the string "first"' },
    ],
    [
      "flexibleVersions on int32",
      `    { "name": "A", "type": "int32", "versions": "0+", "flexibleVersions": "none" }`,
      { path: "A", reason: 'only string and bytes fields can override "flexibleVersions"' },
    ],
    [
      "zeroCopy on records",
      `    { "name": "R", "type": "records", "versions": "0+", "zeroCopy": true }`,
      { path: "R", reason: '"zeroCopy" is only allowed on bytes fields' },
    ],
    [
      "duplicate field name",
      `${ID_FIELD},\n    { "name": "Id", "type": "int64", "versions": "0+" }`,
      { path: "Id", reason: 'duplicate field name "Id" in TestRequest (first at 8:5)', at: '"Id", "type": "int64"' },
    ],
    [
      "field names that differ only in case",
      `${ID_FIELD},\n    { "name": "id", "type": "int64", "versions": "0+" }`,
      { path: "id", reason: 'field "id" clashes with "Id" at 8:5: both become the property "id"' },
    ],
    [
      "mapKey on a top-level field",
      `    { "name": "Id", "type": "int32", "versions": "0+", "mapKey": true }`,
      { path: "Id", reason: '"mapKey" cannot be used on top-level fields', at: "true" },
    ],
    [
      "mapKey on a tagged field",
      [
        `    { "name": "Items", "type": "[]Item", "versions": "0+", "fields": [`,
        `      { "name": "K", "type": "int32", "versions": "1+", "mapKey": true, "taggedVersions": "1+", "tag": 0 } ] }`,
      ].join("\n"),
      { path: "Items.K", reason: 'a tagged field cannot be a "mapKey"' },
    ],
    [
      "mapKey that is not a boolean",
      `    { "name": "Id", "type": "int32", "versions": "0+", "mapKey": "yes" }`,
      { path: "Id", reason: '"mapKey" must be true or false, not the string "yes"' },
    ],
    [
      "entityType that does not match the type",
      `    { "name": "Id", "type": "int32", "versions": "0+", "entityType": "topicName" }`,
      { path: "Id", reason: "entityType topicName requires type string (or []string), not int32", at: '"topicName"' },
    ],
    [
      "unknown entityType",
      `    { "name": "Id", "type": "int32", "versions": "0+", "entityType": "brokerID" }`,
      { path: "Id", reason: 'unknown entityType "brokerID"' },
    ],
    [
      "unknown key in a common struct",
      ID_FIELD,
      { path: "commonStructs.Foo", reason: 'unknown key "about" in a common struct', at: '"about": "x"' },
      `  "commonStructs": [\n    { "name": "Foo", "versions": "0+", "about": "x", "fields": [] }\n  ],`,
    ],
    [
      "common struct without versions",
      ID_FIELD,
      { path: "commonStructs.Foo", reason: 'missing required key "versions"' },
      `  "commonStructs": [\n    { "name": "Foo", "fields": [] }\n  ],`,
    ],
    [
      "common struct defined twice",
      ID_FIELD,
      { path: "commonStructs.Foo", reason: "common struct Foo is defined twice" },
      `  "commonStructs": [\n    { "name": "Foo", "versions": "0+", "fields": [] },\n    { "name": "Foo", "versions": "0+", "fields": [] }\n  ],`,
    ],
    [
      "lower-case common struct name",
      ID_FIELD,
      { path: "commonStructs.foo", reason: 'invalid struct name "foo"' },
      `  "commonStructs": [\n    { "name": "foo", "versions": "0+", "fields": [] }\n  ],`,
    ],
    [
      "error inside a common struct",
      ID_FIELD,
      { path: "commonStructs.Foo.Port", reason: "type int32 cannot be nullable" },
      common(`      { "name": "Port", "type": "int32", "versions": "0+", "nullableVersions": "0+" }`),
    ],
  ])("%s", (_title, fields, expected, extra) => {
    expectError(schema({ fields, ...(extra === undefined ? {} : { extra }) }), expected);
  });

  it("names nested fields by their path", () => {
    const fields = [
      `    { "name": "Topology", "type": "Topology", "versions": "0+", "fields": [`,
      `      { "name": "Subtopologies", "type": "[]Subtopology", "versions": "0+", "fields": [`,
      `        { "name": "SourceTopics", "type": "[]string", "versions": "0+", "nullableVersions": "x" } ] } ] }`,
    ].join("\n");
    expectError(schema({ fields }), {
      path: "Topology.Subtopologies.SourceTopics",
      reason: 'invalid nullableVersions "x"',
      at: '"x"',
    });
  });
});

describe("validation: names the generated TypeScript cannot use", () => {
  /** A data message (no Request/Response suffix rule) with the given name. */
  const named = (name: string): string =>
    schema({ apiKey: null, type: '"data"', name: JSON.stringify(name), flexibleVersions: '"none"' });

  it.each<[string, string]>([
    ["Writer", "clashes with the runtime's Writer, which every generated module imports"],
    ["Reader", "clashes with the runtime's Reader, which every generated module imports"],
    ["MessageCodec", "clashes with the runtime's MessageCodec, which every generated module imports"],
    ["UnknownTaggedField", "clashes with the runtime's UnknownTaggedField, which every generated module imports"],
    ["Init", "clashes with the runtime's Init, which every generated module imports"],
    ["TypedProtocol", "clashes with the runtime's TypedProtocol, which the generated protocol.ts imports"],
    ["MessageName", "clashes with MessageName, which the generated index.ts defines"],
    ["messages", "clashes with messages, which the generated index.ts defines"],
    ["ApiKey", "clashes with ApiKey, which the generated index.ts defines"],
    ["Apis", "clashes with Apis, which the generated index.ts defines"],
    ["index", "a message named index would replace the generated index.ts"],
    ["Index", "a message named Index would replace the generated index.ts on case-insensitive file systems"],
    ["protocol", "a message named protocol would replace the generated protocol.ts"],
    ["Protocol", "a message named Protocol would replace the generated protocol.ts on case-insensitive file systems"],
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
    ].map((name): [string, string] => [name, `the generated TypeScript would shadow the global ${name}`]),
    ...["let", "static", "yield", "await", "eval", "arguments", "enum", "null", "true", "void", "class"].map(
      (name): [string, string] => [name, `${name} is a reserved word in JavaScript/TypeScript`],
    ),
    ...["any", "string", "number", "object", "unknown", "bigint", "never", "symbol", "boolean"].map(
      (name): [string, string] => [name, `${name} is a TypeScript built-in type name`],
    ),
  ])("rejects the message name %s", (name, why) => {
    expectError(named(name), { reason: `invalid message name "${name}": ${why}`, at: `"${name}",` });
  });

  it("requires message names to start with a capital letter", () => {
    expectError(named("testData"), {
      reason: 'invalid message name "testData" (letters and digits only, starting with a capital letter)',
      at: '"testData"',
    });
  });

  it("rejects reserved common struct names", () => {
    const common = (name: string): string =>
      `  "commonStructs": [\n    { "name": "${name}", "versions": "0+", "fields": [] }\n  ],`;
    expectError(schema({ extra: common("Reader") }), {
      path: "commonStructs.Reader",
      reason: `invalid struct name "Reader": clashes with the runtime's Reader, which every generated module imports`,
      at: '"Reader"',
    });
    expectError(schema({ extra: common("undefined") }), {
      path: "commonStructs.undefined",
      reason: 'invalid struct name "undefined": the generated TypeScript would shadow the global undefined',
    });
    expectError(schema({ extra: common("static") }), {
      path: "commonStructs.static",
      reason: 'invalid struct name "static": static is a reserved word in JavaScript/TypeScript',
    });
  });

  it("rejects reserved inline struct names", () => {
    const inline = (type: string): string =>
      `    { "name": "Items", "type": "${type}", "versions": "0+", "fields": [ { "name": "X", "type": "int8", "versions": "0+" } ] }`;
    expectError(schema({ fields: inline("[]Array") }), {
      path: "Items",
      reason: 'invalid struct type name "Array": the generated TypeScript would shadow the global Array',
      at: '"[]Array"',
    });
    expectError(schema({ fields: inline("UnknownTaggedField") }), {
      path: "Items",
      reason: `invalid struct type name "UnknownTaggedField": clashes with the runtime's UnknownTaggedField`,
    });
    expectError(schema({ fields: inline("MessageName") }), {
      path: "Items",
      reason: `invalid struct type name "MessageName": clashes with MessageName, which the generated index.ts defines`,
    });
  });

  it("accepts a struct named Index (only messages become files)", () => {
    const fields = `    { "name": "Items", "type": "[]Index", "versions": "0+", "fields": [] }`;
    expect(structOf(field(loadSchema(schema({ fields }), FILE), "Items")).name).toBe("Index");
  });
});

describe("validation: tagged fields and field-level flexibleVersions", () => {
  it("requires taggedVersions within the message's flexibleVersions, whatever the field's override says", () => {
    expectError(
      schema({
        flexibleVersions: '"2+"',
        fields: `    { "name": "S", "type": "string", "versions": "0+", "flexibleVersions": "0+", "taggedVersions": "0+", "tag": 0 }`,
      }),
      {
        path: "S",
        reason:
          "taggedVersions 0+ must be within the message's flexibleVersions 2+, not just the field's 0+ (a struct has a tagged-field section only in the message's flexible versions)",
        at: '"0+", "tag"',
      },
    );
  });

  it("requires taggedVersions within the field's own flexibleVersions too", () => {
    expectError(
      schema({
        fields: `    { "name": "S", "type": "string", "versions": "1+", "flexibleVersions": "2+", "taggedVersions": "1+", "tag": 0 }`,
      }),
      { path: "S", reason: "taggedVersions 1+ must be within the field's flexibleVersions 2+", at: '"1+", "tag"' },
    );
  });

  it("requires a field's flexibleVersions within the message's (Kafka's fieldFlexibleVersions)", () => {
    expectError(
      schema({ fields: `    { "name": "S", "type": "string", "versions": "0+", "flexibleVersions": "0+" }` }),
      { path: "S", reason: "flexibleVersions 0+ must be within the message's flexibleVersions 1+", at: '"0+" }' },
    );
  });

  it("accepts a tagged field whose override narrows the message's flexibleVersions", () => {
    const fields = `    { "name": "S", "type": "string", "versions": "0+", "flexibleVersions": "2+", "taggedVersions": "2+", "tag": 0 }`;
    const s = field(loadSchema(schema({ fields }), FILE), "S");
    expect(s).toMatchObject({ flexibleVersions: { lowest: 2, highest: 0x7fff }, tag: 0 });
    expect(s.taggedVersions).toEqual({ lowest: 2, highest: 3 });
  });
});

describe("validation: Unicode spaces inside values", () => {
  const nb = "\u00a0";

  it.each<[string, string, Expected]>([
    [
      "type",
      `    { "name": "Id", "type": "int32${nb}", "versions": "0+" }`,
      { path: "Id", reason: 'no-break space (U+00A0) in a type: "int32\\u00a0"', at: `"int32${nb}"` },
    ],
    [
      "array element type",
      `    { "name": "Ids", "type": "[]${nb}int32", "versions": "0+" }`,
      { path: "Ids", reason: "no-break space (U+00A0) in a type" },
    ],
    [
      "versions",
      `    { "name": "Id", "type": "int32", "versions": "0+${nb}" }`,
      { path: "Id", reason: 'no-break space (U+00A0) in versions: "0+\\u00a0"', at: `"0+${nb}"` },
    ],
    [
      "versions that are only a no-break space",
      `    { "name": "Id", "type": "int32", "versions": "${nb}" }`,
      { path: "Id", reason: "no-break space (U+00A0) in versions" },
    ],
    [
      "nullableVersions",
      `    { "name": "S", "type": "string", "versions": "0+", "nullableVersions": "${nb}1+" }`,
      { path: "S", reason: "no-break space (U+00A0) in nullableVersions" },
    ],
    [
      "taggedVersions",
      `    { "name": "A", "type": "int32", "versions": "1+", "taggedVersions": "1+${nb}", "tag": 0 }`,
      { path: "A", reason: "no-break space (U+00A0) in taggedVersions" },
    ],
    [
      "field flexibleVersions",
      `    { "name": "S", "type": "string", "versions": "0+", "flexibleVersions": "none${nb}" }`,
      { path: "S", reason: "no-break space (U+00A0) in flexibleVersions" },
    ],
    [
      "tag",
      `    { "name": "A", "type": "int32", "versions": "1+", "taggedVersions": "1+", "tag": "0${nb}" }`,
      { path: "A", reason: 'no-break space (U+00A0) in "tag": "0\\u00a0"' },
    ],
    [
      "int32 default",
      `    { "name": "N", "type": "int32", "versions": "0+", "default": "5${nb}" }`,
      { path: "N", reason: 'no-break space (U+00A0) in a default: "5\\u00a0" is not a valid default for int32' },
    ],
    [
      "float64 default",
      `    { "name": "F", "type": "float64", "versions": "0+", "default": "${nb}1.5" }`,
      { path: "F", reason: "no-break space (U+00A0) in a default" },
    ],
    [
      "an em space in a type",
      `    { "name": "Id", "type": "int32\u2003", "versions": "0+" }`,
      { path: "Id", reason: 'Unicode space (U+2003) in a type: "int32\\u2003"' },
    ],
  ])("rejects one in %s", (_title, fields, expected) => {
    const error = expectError(schema({ fields }), expected);
    expect(error.message).not.toContain(nb);
  });

  it.each<[string, Parts, string]>([
    ["validVersions", { validVersions: `"0-3${nb}"` }, "no-break space (U+00A0) in validVersions"],
    ["flexibleVersions", { flexibleVersions: `"${nb}1+"` }, "no-break space (U+00A0) in flexibleVersions"],
    ["apiKey", { apiKey: `"1000${nb}"` }, 'no-break space (U+00A0) in "apiKey"'],
    ["message type", { type: `"request${nb}"` }, "it contains a no-break space (U+00A0)"],
  ])("rejects one in the message's %s", (_title, parts, reason) => {
    expectError(schema(parts), { reason });
  });

  it("still trims ASCII whitespace and control characters, as Java's String.trim does", () => {
    const fields = [
      `    { "name": "Id", "type": " int32\\t", "versions": "\\n0+ " },`,
      `    { "name": "A", "type": "string", "versions": "1+", "nullableVersions": "\\u00011+", "taggedVersions": " 1+", "tag": " 0\\r" }`,
    ].join("\n");
    const spec = loadSchema(schema({ fields, apiKey: '" 1000 "' }), FILE);
    expect(spec.apiKey).toBe(1000);
    expect(field(spec, "Id")).toMatchObject({ type: { kind: "primitive", name: "int32" }, versions: { lowest: 0 } });
    expect(field(spec, "A")).toMatchObject({ tag: 0, nullableVersions: { lowest: 1, highest: 3 } });
  });

  it("keeps accepting them as whitespace between tokens, in about and in string defaults", () => {
    const fields = `${nb}${nb}{ "name": "S",${nb}"type": "string", "versions": "0+", "about": "a${nb}b", "default": "x${nb}y" }`;
    const spec = loadSchema(schema({ fields }), FILE);
    expect(field(spec, "S")).toMatchObject({ about: `a${nb}b`, default: { kind: "string", value: `x${nb}y` } });
    expect(spec.warnings.map((w) => w.message)).toEqual([
      "no-break space (U+00A0) used as whitespace at 8:1 (+2 more)",
    ]);
  });
});

describe("validation: nesting depth", () => {
  /** `levels` struct fields, each declaring an inline struct inside the previous one. */
  const nested = (levels: number): string => {
    let inner = `{ "name": "Leaf", "type": "int32", "versions": "0+" }`;
    for (let i = levels; i >= 1; i--) {
      inner = `{ "name": "L${i}", "type": "[]S${i}", "versions": "0+", "fields": [ ${inner} ] }`;
    }
    return `    ${inner}`;
  };
  const pathTo = (level: number): string => Array.from({ length: level }, (_, i) => `L${i + 1}`).join(".");

  it(`accepts ${MAX_STRUCT_DEPTH} levels of structs`, () => {
    const spec = loadSchema(schema({ fields: nested(MAX_STRUCT_DEPTH) }), FILE);
    expect(spec.structs).toHaveLength(MAX_STRUCT_DEPTH + 1);
    expect(field(spec, `${pathTo(MAX_STRUCT_DEPTH)}.Leaf`).type).toEqual({ kind: "primitive", name: "int32" });
  });

  it(`rejects ${MAX_STRUCT_DEPTH + 1} levels at the field that declares the deepest struct`, () => {
    expectError(schema({ fields: nested(MAX_STRUCT_DEPTH + 1) }), {
      path: pathTo(MAX_STRUCT_DEPTH + 1),
      reason: `structs nested deeper than ${MAX_STRUCT_DEPTH} levels (struct S65 would be level 65)`,
      at: '"[]S65"',
    });
  });

  it("rejects 450 levels (JSON depth 900+) with the same error, without deep recursion", () => {
    expectError(schema({ fields: nested(450) }), {
      path: pathTo(MAX_STRUCT_DEPTH + 1),
      reason: `structs nested deeper than ${MAX_STRUCT_DEPTH} levels`,
      at: '"[]S65"',
    });
  });

  it("counts the levels inside a common struct from 1", () => {
    const extra = `  "commonStructs": [\n    { "name": "Foo", "versions": "0+", "fields": [\n${nested(MAX_STRUCT_DEPTH)}\n    ]}\n  ],`;
    expectError(schema({ extra }), {
      path: `commonStructs.Foo.${pathTo(MAX_STRUCT_DEPTH)}`,
      reason: "struct S64 would be level 65",
      at: '"[]S64"',
    });
  });

  /** 1-based line/column of the first bracket that opens level `MAX_NESTING_DEPTH + 1` (no brackets in strings). */
  const tooDeepAt = (text: string): { line: number; column: number } => {
    let depth = 0;
    for (let i = 0; i < text.length; i++) {
      if (text[i] === "{" || text[i] === "[") depth++;
      else if (text[i] === "}" || text[i] === "]") depth--;
      if (depth > MAX_NESTING_DEPTH) {
        const before = text.slice(0, i).split("\n");
        return { line: before.length, column: before.at(-1)!.length + 1 };
      }
    }
    throw new Error("not too deep");
  };

  it("rejects 1000 levels of structs as too deeply nested JSON, before the parser can overflow", () => {
    const text = schema({ fields: nested(1000) });
    expectError(text, {
      reason: "JSON nested deeper than 1000 levels (Kafka's JSON parser, Jackson, allows at most 1000)",
      at: tooDeepAt(text),
    });
  });

  it("rejects JSON nested deeper than Jackson's limit, and only that", () => {
    expect(MAX_NESTING_DEPTH).toBe(1000);
    const ok = "[".repeat(MAX_NESTING_DEPTH) + "]".repeat(MAX_NESTING_DEPTH);
    expect(parseSchemaText(ok, "deep.json").warnings).toEqual([]);
    for (const text of [
      "[".repeat(MAX_NESTING_DEPTH + 1) + "]".repeat(MAX_NESTING_DEPTH + 1),
      '{"a":'.repeat(100_000) + "1" + "}".repeat(100_000),
      "[".repeat(1_000_000),
    ]) {
      expect(() => parseSchemaText(text, "deep.json")).toThrow(
        /^deep\.json:1:\d+: JSON nested deeper than 1000 levels/,
      );
    }
    // Brackets inside strings and comments do not count.
    const quoted = `{ "about": "${"[".repeat(5000)}" /* ${"{".repeat(5000)} */ }`;
    expect(parseSchemaText(quoted, "deep.json").value).toEqual({ about: "[".repeat(5000) });
  });
});

// ---------------------------------------------------------------------------------------------

describe("model", () => {
  it("parses defaults with Kafka's semantics", () => {
    const fields = [
      `    { "name": "I32", "type": "int32", "versions": "0+" },`,
      `    { "name": "Str", "type": "string", "versions": "0+" },`,
      `    { "name": "Flag", "type": "bool", "versions": "0+" },`,
      `    { "name": "Id", "type": "uuid", "versions": "0+" },`,
      `    { "name": "F64", "type": "float64", "versions": "0+" },`,
      `    { "name": "Raw", "type": "bytes", "versions": "0+" },`,
      `    { "name": "List", "type": "[]int32", "versions": "0+" },`,
      `    { "name": "Nested", "type": "Nested", "versions": "0+", "fields": [] },`,
      `    { "name": "NullStr", "type": "string", "versions": "0+", "nullableVersions": "0+", "default": "null" },`,
      `    { "name": "Max", "type": "int32", "versions": "0+", "default": "0x7fffffff" },`,
      `    { "name": "Min", "type": "int32", "versions": "0+", "default": "-2147483648" },`,
      `    { "name": "MinusOne", "type": "int64", "versions": "0+", "default": -1 },`,
      `    { "name": "Off", "type": "bool", "versions": "0+", "default": false },`,
      `    { "name": "On", "type": "bool", "versions": "0+", "default": "TRUE" },`,
      `    { "name": "Absent", "type": "int16", "versions": "0+", "default": null },`,
      `    { "name": "NullableStr", "type": "string", "versions": "0+", "nullableVersions": "0+" },`,
      `    { "name": "Big", "type": "int64", "versions": "0+", "default": 9223372036854775807 },`,
      `    { "name": "U32", "type": "uint32", "versions": "0+", "default": "4294967295" },`,
      `    { "name": "Ratio", "type": "float64", "versions": "0+", "default": "12.34" },`,
      `    { "name": "Uid", "type": "uuid", "versions": "0+", "default": "H3KKO4NTRPaCWtEmm3vW7A" },`,
      `    { "name": "NullRecords", "type": "records", "versions": "0+", "nullableVersions": "0+" },`,
      `    { "name": "Records", "type": "records", "versions": "0+" },`,
      `    { "name": "NullList", "type": "[]string", "versions": "0+", "nullableVersions": "0+", "default": "null" }`,
    ].join("\n");
    const spec = loadSchema(schema({ fields }), FILE);
    const d = (name: string): [unknown, string | null] => [field(spec, name).default, field(spec, name).defaultText];
    expect(d("I32")).toEqual([{ kind: "int", value: 0n }, null]);
    expect(d("Str")).toEqual([{ kind: "string", value: "" }, null]);
    expect(d("Flag")).toEqual([{ kind: "bool", value: false }, null]);
    expect(d("Id")).toEqual([{ kind: "uuid", value: "AAAAAAAAAAAAAAAAAAAAAA" }, null]);
    expect(d("F64")).toEqual([{ kind: "float", value: 0 }, null]);
    expect(d("Raw")).toEqual([{ kind: "empty" }, null]);
    expect(d("List")).toEqual([{ kind: "empty" }, null]);
    expect(d("Nested")).toEqual([{ kind: "struct" }, null]);
    expect(d("NullStr")).toEqual([{ kind: "null" }, "null"]);
    expect(d("Max")).toEqual([{ kind: "int", value: 2147483647n }, "0x7fffffff"]);
    expect(d("Min")).toEqual([{ kind: "int", value: -2147483648n }, "-2147483648"]);
    expect(d("MinusOne")).toEqual([{ kind: "int", value: -1n }, "-1"]);
    expect(d("Off")).toEqual([{ kind: "bool", value: false }, "false"]);
    expect(d("On")).toEqual([{ kind: "bool", value: true }, "TRUE"]);
    expect(d("Absent")).toEqual([{ kind: "int", value: 0n }, null]);
    expect(d("NullableStr")).toEqual([{ kind: "string", value: "" }, null]);
    expect(d("Big")).toEqual([{ kind: "int", value: 9223372036854775807n }, "9223372036854775807"]);
    expect(d("U32")).toEqual([{ kind: "int", value: 4294967295n }, "4294967295"]);
    expect(d("Ratio")).toEqual([{ kind: "float", value: 12.34 }, "12.34"]);
    expect(d("Uid")).toEqual([{ kind: "uuid", value: "H3KKO4NTRPaCWtEmm3vW7A" }, "H3KKO4NTRPaCWtEmm3vW7A"]);
    // Kafka always starts records at null; we keep that where null can be written.
    expect(d("NullRecords")).toEqual([{ kind: "null" }, null]);
    expect(d("Records")).toEqual([{ kind: "empty" }, null]);
    expect(d("NullList")).toEqual([{ kind: "null" }, "null"]);
  });

  it("resolves versions, tags, names and structs", () => {
    const fields = [
      `    { "name": "KRaftVersion", "type": "int16", "versions": "0+" },`,
      `    { "name": "Old", "type": "int8", "versions": "0-1" },`,
      `    { "name": "Future", "type": "int8", "versions": "5+" },`,
      `    { "name": "Client", "type": "string", "versions": "1+", "nullableVersions": "0+", "flexibleVersions": "none" },`,
      `    { "name": "Extra", "type": "[]Extra", "taggedVersions": "2+", "tag": "0", "ignorable": "true", "fields": [`,
      `      { "name": "Item", "type": "Foo", "versions": "2+" } ] },`,
      `    { "name": "Again", "type": "[]Foo", "versions": "0+" }`,
    ].join("\n");
    const extra = `  "commonStructs": [\n    { "name": "Foo", "versions": "0+", "fields": [ { "name": "X", "type": "int8", "versions": "0+" } ] }\n  ],`;
    const spec = loadSchema(schema({ fields, extra }), FILE);
    expect(spec.warnings).toEqual([]);
    expect(spec).toMatchObject({
      name: "TestRequest",
      type: "request",
      apiKey: 1000,
      apiKeyUnassigned: false,
      validVersions: { lowest: 0, highest: 3 },
      flexibleVersions: { lowest: 1, highest: 0x7fff },
      listeners: [],
      latestVersionUnstable: false,
      file: FILE,
    });
    expect(field(spec, "KRaftVersion").propertyName).toBe("kRaftVersion");
    expect(field(spec, "KRaftVersion").versions).toEqual({ lowest: 0, highest: 3 });
    expect(field(spec, "Old").versions).toEqual({ lowest: 0, highest: 1 });
    expect(field(spec, "Future").versions.isEmpty()).toBe(true);
    const client = field(spec, "Client");
    expect(client.nullableVersions).toEqual({ lowest: 1, highest: 3 });
    // An override of "none" (not undefined, which would inherit the message's).
    expect(client.flexibleVersions?.toString()).toBe("none");
    expect("flexibleVersions" in field(spec, "Old")).toBe(false);
    const extraField = field(spec, "Extra");
    expect(extraField).toMatchObject({
      tag: 0,
      versions: { lowest: 2, highest: 3 },
      taggedVersions: { lowest: 2, highest: 3 },
      ignorable: true,
    });
    expect(isTaggedIn(extraField, 2)).toBe(true);
    const foo = spec.structs.find((s) => s.name === "Foo")!;
    expect(structOf(field(spec, "Extra.Item"))).toBe(foo);
    expect(structOf(field(spec, "Again"))).toBe(foo);
    expect(spec.structs.map((s) => [s.name, s.common, s.versions])).toEqual([
      ["TestRequest", false, { lowest: 0, highest: 3 }],
      // Definition order: commonStructs comes before "fields" in this text.
      ["Foo", true, { lowest: 0, highest: 3 }],
      ["Extra", false, { lowest: 2, highest: 3 }],
    ]);
    expect(field(spec, "commonStructs.Foo.X").schemaPath).toBe("commonStructs.Foo.X");
  });

  it("accepts a nullable struct", () => {
    const fields = `    { "name": "Topology", "type": "Topology", "versions": "0+", "nullableVersions": "0+", "default": "null", "fields": [] }`;
    expect(field(loadSchema(schema({ fields }), FILE), "Topology").default).toEqual({ kind: "null" });
  });

  it("warns where Kafka's parser is lenient", () => {
    const text = schema({
      extra: '  "listeners": "broker",\n  "listeners": "controller",',
      fields: `    { "name": "Id", "type": "int32", "versions": 0 }`,
    });
    const spec = loadSchema(text, "inline/OtherRequest.json");
    expect(spec.listeners).toEqual(["controller"]);
    expect(field(spec, "Id").versions).toEqual({ lowest: 0, highest: 0 });
    expect(spec.warnings.map((w) => w.message)).toEqual([
      'duplicate key "listeners"; the last one wins (as in Kafka\'s JSON parser)',
      '"listeners" should be an array; a single value is read as a one-element array',
      'message name "TestRequest" differs from the file name "OtherRequest.json"',
    ]);
    expect(loadSchema(schema(), "lowercase.json").warnings).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------

describe("test/support/shared", () => {
  it("decides between running, failing in CI and skipping", () => {
    expect(sharedStatus("x", {}, () => true)).toBe("present");
    expect(sharedStatus("x", { CI: "true" }, () => false)).toBe("missing-in-ci");
    expect(sharedStatus("x", { CI: "1" }, () => false)).toBe("missing-in-ci");
    expect(sharedStatus("x", {}, () => false)).toBe("missing");
    expect(sharedStatus("x", { CI: "false" }, () => false)).toBe("missing");
    expect(isCi({ CI: "" })).toBe(false);
  });
});

function jsonFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) return jsonFiles(full);
    return entry.endsWith(".json") ? [full] : [];
  });
}

describeShared("Apache Kafka's schemas", "kafka-schemas", (dir) => {
  const files = jsonFiles(dir).sort();

  it("finds the 280 schemas", () => {
    expect(files).toHaveLength(280);
  });

  it.each(files.map((f) => [path.relative(dir, f), f]))("loads %s", (_name, file) => {
    const spec = loadSchemaFile(file);
    expect(spec.struct.fields.length + spec.structs.length).toBeGreaterThan(0);
    // Only ZkMigrationRecord.json (name ZkMigrationStateRecord) has a warning.
    expect(spec.warnings.filter((w) => !w.message.startsWith("message name"))).toEqual([]);
  });
});

/**
 * Kafka's own `new XData()` written at every version (golden "defaults" vectors) must list
 * exactly the fields our model says exist untagged in that version, with our defaults.
 */
describeShared("model defaults against Kafka's golden defaults", "golden", (goldenDir) => {
  const expectedJson = (struct: StructSpec, version: number): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const f of struct.fields) {
      if (!f.versions.contains(version) || isTaggedIn(f, version)) continue;
      const d = f.default;
      out[f.propertyName] =
        d.kind === "null"
          ? null
          : d.kind === "int"
            ? Number(d.value)
            : d.kind === "empty"
              ? f.type.kind === "array"
                ? []
                : ""
              : d.kind === "struct"
                ? expectedJson(structOf(f), version)
                : d.value;
    }
    return out;
  };
  const check = (schemaFile: string, vectors: string, options?: LoadOptions): void => {
    const spec = loadSchemaFile(schemaFile, options);
    const lines = readFileSync(path.join(goldenDir, vectors, `${spec.name}.json`), "utf8")
      .split("\n")
      .filter((line) => line.includes('"kind":"defaults"'));
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      const vector = JSON.parse(line.replace(/,\s*$/, "")) as { version: number; json: unknown };
      // Compared as text: key order is schema order in both.
      expect(JSON.stringify(expectedJson(spec.struct, vector.version)), `${spec.name} v${vector.version}`).toBe(
        JSON.stringify(vector.json),
      );
    }
  };

  it("agrees for every Kafka schema and version", () => {
    for (const file of jsonFiles(requireShared("kafka-schemas"))) check(file, "kafka");
  });

  it("agrees for the design schemas", () => {
    // StreamsGroupMemberMetadataKey (the key the repository adds for the seed's internal record)
    // has no seed vectors; Kafka's group-coordinator key with the same fields is checked above.
    // StreamsGroupDescribeRequest is the repository's too (the pages give none); its wire form is
    // Kafka's StreamsGroupDescribeRequest, so Kafka's vectors check its defaults.
    const ours = new Set(["StreamsGroupMemberMetadataKey.json", "StreamsGroupDescribeRequest.json"]);
    const files = jsonFiles(path.join(REPO_ROOT, "schemas")).filter((f) => !ours.has(path.basename(f)));
    expect(files).toHaveLength(4);
    for (const file of files) check(file, "seed", { apiKeys: SEED_APIKEYS });
    check(path.join(REPO_ROOT, "schemas", "StreamsGroupDescribeRequest.json"), "kafka", {
      apiKeys: { StreamsGroupDescribeRequest: 89 },
    });
  });
});
