/**
 * The generated `index.ts`: every codec by name and, when both header schemas are among the
 * messages, the request/response framing of every API.
 */

import { header } from "./names.js";

/** The index module (unformatted) for the messages `names`, generated from `sources`. */
export function indexModule(names: readonly string[], version: string, sources: string, runtimeImport: string): string {
  const code = [header(version, sources)];
  // With both header schemas, the index also wires request/response framing for every API.
  const framing = names.includes("RequestHeader") && names.includes("ResponseHeader");
  if (framing) code.push(`import { defineProtocol, type Protocol } from ${JSON.stringify(runtimeImport)};`);
  for (const n of names) code.push(`import { ${n} } from "./${n}.js";`);
  code.push(
    "",
    `export { ${names.join(", ")} };`,
    "",
    "/** Every generated codec, by message name. */",
    `export const messages = { ${names.join(", ")} } as const;`,
    "",
    "/** The name of a generated message. */",
    "export type MessageName = keyof typeof messages;",
  );
  if (framing) {
    code.push(
      "",
      "/**",
      " * Request/response framing for every API above: size prefix, header (version derived from each",
      ' * API\'s flexible versions) and body. See the Kafka protocol guide, "Requests and Responses".',
      " */",
      "export const protocol: Protocol = /*@__PURE__*/ defineProtocol({",
      "  requestHeader: RequestHeader,",
      "  responseHeader: ResponseHeader,",
      "  messages: Object.values(messages),",
      "});",
    );
  }
  return code.join("\n") + "\n";
}
