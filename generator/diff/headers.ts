/** Header versions of requests and responses, for `diff` (its own module: diff.ts and compare.ts both use it). */

import type { MessageSpec } from "../schema/model.js";

/**
 * Kafka's header version of a request or response at `version`: the schema's `headerVersions`
 * (KIP-1313), else the rule from `flexibleVersions` (request header 2 when flexible, else 1, and
 * 0 for ControlledShutdown v0; response header 1 when flexible, else 0, and always 0 for
 * ApiVersions). The runtime's framing (`requestHeaderVersion`, `responseHeaderVersion`) applies
 * the same rule to codecs; the generator may not import it (it takes only types from the runtime).
 */
export function headerVersionAt(spec: MessageSpec, version: number): number {
  const declared = spec.headerVersions?.find((h) => h.range.contains(version));
  if (declared !== undefined) return declared.header;
  const flexible = spec.flexibleVersions.contains(version);
  if (spec.type === "request") return spec.apiKey === 7 && version === 0 ? 0 : flexible ? 2 : 1;
  return spec.apiKey === 18 ? 0 : flexible ? 1 : 0;
}
