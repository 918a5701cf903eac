/**
 * The generated `index.ts`: every codec by name and, when both header schemas are among the
 * messages, the request/response framing of every API.
 */

import { Code } from "./code.js";
import { header, jsDoc, type HeaderFacts } from "./names.js";

/** The index module (unformatted) for the messages `names`, generated from `sources`. */
export function indexModule(
  names: readonly string[],
  facts: Omit<HeaderFacts, "source"> & { readonly sources: string },
  runtimeImport: string,
  /** Further generated modules whose exports the index re-exports (e.g. `internal-topics`). */
  extraModules: readonly string[] = [],
): string {
  const code = new Code();
  code.append(header({ version: facts.version, source: facts.sources, command: facts.command }));
  // With both header schemas, the index also wires request/response framing for every API.
  const framing = names.includes("RequestHeader") && names.includes("ResponseHeader");
  if (framing) code.line(`import { defineProtocol, type Protocol } from ${JSON.stringify(runtimeImport)};`);
  for (const n of names) code.line(`import { ${n} } from "./${n}.js";`);
  code.line("");
  code.line(`export { ${names.join(", ")} };`);
  for (const m of extraModules) code.line(`export * from "./${m}.js";`);
  code.line("");
  code.line("/** Every generated codec, by message name. */");
  code.line(`export const messages = { ${names.join(", ")} } as const;`);
  code.line("");
  code.line("/** The name of a generated message. */");
  code.line("export type MessageName = keyof typeof messages;");
  if (framing) {
    code.line("");
    code.append(
      jsDoc(
        "Request/response framing for every API above: size prefix, header (version derived from each\n" +
          'API\'s flexible versions) and body. See the Kafka protocol guide, "Requests and Responses".',
      ),
    );
    code.block(
      "export const protocol: Protocol = /*@__PURE__*/ defineProtocol(",
      () => {
        code.line("requestHeader: RequestHeader,");
        code.line("responseHeader: ResponseHeader,");
        code.line("messages: Object.values(messages),");
      },
      "});",
    );
  }
  return `${code}\n`;
}
