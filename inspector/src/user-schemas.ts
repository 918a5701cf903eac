/**
 * A user's schema files in the page: the generator's schema front end (`loadSchema`: parse,
 * validate, model) and its field-table emitter run in the browser, and the runtime's interpreter
 * decodes with the tables, as with the sets built in. The entry of assets/schemas.js
 * (vite.schemas.config.ts), loaded the first time schemas are opened.
 */

import { emitTable } from "../../generator/emit/table.js";
import { ModuleContext } from "../../generator/emit/context.js";
import { loadSchema } from "../../generator/schema/load.js";
import type { MessageTable } from "../../src/runtime/table.js";
import type { MessageInfo } from "./sets.js";

/** What a set of schema files gives: each message's table and framing facts, and the files that did not load. */
export interface UserSchemas {
  readonly tables: readonly MessageTable[];
  readonly info: readonly MessageInfo[];
  /** `file: reason` (the generator's SchemaError text, with line and column). */
  readonly errors: readonly string[];
}

const NO_MODULE = { runtimeImport: "", sourceLabel: "", generatorVersion: "", command: "" };

/**
 * Loads schema files given as text. A file's table is the generator's emitted table, whose
 * initializer is a plain JavaScript object literal (strings, numbers, bigints, null, NaN):
 * evaluated as that literal, it is the object generated modules export.
 */
export function loadUserSchemas(files: readonly { readonly name: string; readonly text: string }[]): UserSchemas {
  const tables: MessageTable[] = [];
  const info: MessageInfo[] = [];
  const errors: string[] = [];
  const seen = new Set<string>();
  for (const { name, text } of files) {
    try {
      const spec = loadSchema(text, name);
      if (spec.validVersions.isEmpty() || seen.has(spec.name)) continue;
      seen.add(spec.name);
      const source = emitTable(new ModuleContext(spec, NO_MODULE));
      const literal = source.slice(source.indexOf("= {") + 2).replace(/;\s*$/, "");
      tables.push(new Function(`return (${literal});`)() as MessageTable);
      const headers = spec.headerVersions?.map((h) => ({
        lowest: h.range.lowest,
        highest: h.range.highest,
        header: h.header,
      }));
      info.push({
        name: spec.name,
        apiKey: spec.apiKey,
        type: spec.type,
        ...(headers === undefined ? {} : { headerVersions: headers }),
      });
    } catch (e) {
      errors.push(`${name}: ${(e as Error).message}`);
    }
  }
  return { tables, info, errors };
}
