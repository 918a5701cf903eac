/**
 * Rewrites the supported-APIs table in README.md from Apache Kafka's schemas:
 * `npm run readme:apis [-- <schema folder>]` (default `../shared/kafka-schemas`).
 */

import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { API_TABLE_END, API_TABLE_START, apiTable } from "./api-table.js";
import { loadSchemas } from "../generator/generate.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const schemas = process.argv[2] ?? path.resolve(root, "../shared/kafka-schemas");
const readme = path.join(root, "README.md");
const text = await readFile(readme, "utf8");
const start = text.indexOf(API_TABLE_START);
const end = text.indexOf(API_TABLE_END);
if (start < 0 || end < start) throw new Error("README.md lacks the api-table markers");
const table = apiTable(await loadSchemas([schemas]));
await writeFile(readme, `${text.slice(0, start + API_TABLE_START.length)}\n${table}\n${text.slice(end)}`);
console.log(`README.md: ${table.split("\n").length - 2} APIs from ${schemas}`);
