/**
 * @platformatic/kafka for the test drivers that run it on Node.js 24 (test/support/clients/
 * platformatic.mjs, test/support/platformatic-client.mjs): it needs Node.js >= 22, so it is not a
 * dependency of the root package (Node.js >= 20; npm would warn EBADENGINE) but of bench/'s
 * (`npm ci --prefix bench`), and is imported from there.
 */

import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

const fromBench = createRequire(new URL("../../bench/package.json", import.meta.url));

/** The package's module namespace. */
export const platformatic = await import(pathToFileURL(fromBench.resolve("@platformatic/kafka")).href);
