/**
 * The generated `index.ts` (every codec by name) and, when both header schemas are among the
 * messages, `protocol.ts`: the api key constants, the body types by api key and the typed
 * request/response framing of every API. The protocol has a module of its own so that a named
 * import of one codec from the index bundles only that codec: the protocol holds every codec.
 */

import type { MessageSpec } from "../schema/model.js";
import { Code, importLine } from "./code.js";
import { header, jsDoc, type HeaderFacts } from "./names.js";

/** The header facts of the module-level files: every schema source at once. */
type IndexFacts = Omit<HeaderFacts, "source"> & { readonly sources: string };

/** One API of the protocol: its name (the request's without `Request`) and its two messages. */
interface Api {
  readonly name: string;
  readonly apiKey: number;
  readonly request: string;
  readonly response: string;
}

/** The APIs among `specs`: api keys with both a request and a response, by api key. */
function apisOf(specs: readonly MessageSpec[]): Api[] {
  const requests = new Map<number, string>();
  const responses = new Map<number, string>();
  for (const s of specs) {
    if (s.apiKey === null) continue;
    if (s.type === "request") requests.set(s.apiKey, s.name);
    if (s.type === "response") responses.set(s.apiKey, s.name);
  }
  const apis: Api[] = [];
  for (const [apiKey, request] of [...requests].sort(([a], [b]) => a - b)) {
    const response = responses.get(apiKey);
    if (response !== undefined) apis.push({ name: request.replace(/Request$/, ""), apiKey, request, response });
  }
  return apis;
}

/** The module-level files next to the messages': `index.ts`, and `protocol.ts` with both headers. */
export function indexModules(
  specs: readonly MessageSpec[],
  facts: IndexFacts,
  runtimeImport: string,
  /** Further generated modules whose exports the index re-exports (e.g. `internal-topics`). */
  extraModules: readonly string[] = [],
): Map<string, string> {
  const names = specs.map((s) => s.name).sort();
  const framing = names.includes("RequestHeader") && names.includes("ResponseHeader");
  const files = new Map([["index.ts", indexModule(names, facts, framing, extraModules)]]);
  if (framing) files.set("protocol.ts", protocolModule(apisOf(specs), facts, runtimeImport));
  return files;
}

function fileHeader(facts: IndexFacts): string {
  return header({ version: facts.version, source: facts.sources, command: facts.command });
}

function indexModule(
  names: readonly string[],
  facts: IndexFacts,
  framing: boolean,
  extraModules: readonly string[],
): string {
  const code = new Code();
  code.append(fileHeader(facts));
  for (const n of names) importLine(code, [n, `${n}$fields`], `./${n}.js`);
  code.line("");
  code.list("export { ", names, " };");
  if (framing) code.line('export { ApiKey, type Apis, protocol, protocolDefinition } from "./protocol.js";');
  for (const m of extraModules) code.line(`export * from "./${m}.js";`);
  code.line("");
  code.line("/** Every generated codec, by message name. */");
  code.list("export const messages = { ", names, " } as const;");
  code.line("");
  code.line("/** The name of a generated message. */");
  code.line("export type MessageName = keyof typeof messages;");
  code.line("");
  code.line(
    "/** Every message's field table (`<Name>$fields`), by message name: for interpreters such as `decodeWithSpans`. */",
  );
  const tables = names.map((n) => `${n}: ${n}$fields`);
  if (code.fits(`export const fieldTables = { ${tables.join(", ")} } as const;`)) {
    code.list("export const fieldTables = { ", tables, " } as const;");
  } else {
    // A property too long for its line has its value on the next one, as prettier breaks it.
    code.nest(
      "export const fieldTables = {",
      () => names.forEach((n) => code.lineOrBreak(`${n}:`, `${n}$fields,`)),
      "} as const;",
    );
  }
  return `${code}\n`;
}

function protocolModule(apis: readonly Api[], facts: IndexFacts, runtimeImport: string): string {
  const code = new Code();
  code.append(fileHeader(facts));
  importLine(code, ["defineProtocol", "type ProtocolDefinition", "type TypedProtocol"], runtimeImport);
  const imported = ["RequestHeader", "ResponseHeader", ...apis.flatMap((a) => [a.request, a.response])];
  for (const n of imported) code.line(`import { ${n} } from "./${n}.js";`);
  code.line("");
  code.append(jsDoc("The api key of every API, by the API's name (Kafka's `ApiKeys`)."));
  code.block(
    "export const ApiKey =",
    () => {
      for (const a of apis) code.line(`${a.name}: ${a.apiKey},`);
    },
    "} as const;",
  );
  code.line("");
  code.line("/** An api key of this protocol. */");
  code.line("export type ApiKey = (typeof ApiKey)[keyof typeof ApiKey];");
  code.line("");
  code.append(jsDoc("The request and response body types of every API, by api key."));
  code.block("export interface Apis", () => {
    for (const a of apis) code.line(`${a.apiKey}: { request: ${a.request}; response: ${a.response} };`);
  });
  code.line("");
  code.append(
    jsDoc(
      "What `protocol` is defined from. `defineProtocol<Apis>({ ...protocolDefinition, unstableVersions: true })`\n" +
        "gives a protocol that also accepts the latest version of APIs marked `latestVersionUnstable`.",
    ),
  );
  code.block(
    "export const protocolDefinition: ProtocolDefinition =",
    () => {
      code.line("requestHeader: RequestHeader,");
      code.line("responseHeader: ResponseHeader,");
      code.list(
        "messages: [",
        apis.flatMap((a) => [a.request, a.response]),
        "],",
      );
    },
    "};",
  );
  code.line("");
  code.append(
    jsDoc(
      "Request/response framing for every API: size prefix, header (version from the schema's headerVersions,\n" +
        "else derived from its flexible versions) and body, typed by api key; the latest version of an API\n" +
        'marked latestVersionUnstable is refused. See the Kafka protocol guide, "Requests and Responses".',
    ),
  );
  code.line("export const protocol: TypedProtocol<Apis> = /*@__PURE__*/ defineProtocol<Apis>(protocolDefinition);");
  return `${code}\n`;
}
