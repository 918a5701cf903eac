// ESM entry of the runtime check (see runtime-check.mjs): imports the built package's ES
// modules, reads the input as JSON on standard input, prints the result as one line of JSON.
// Runs unchanged in Node.js, Deno (no permissions needed) and Bun.
import * as root from "../../dist/index.js";
import * as one from "../../dist/messages/StreamsGroupHeartbeatResponse.js";
import * as runtime from "../../dist/runtime.js";
import { check } from "./runtime-check.mjs";

async function readStdin() {
  const g = globalThis;
  if (g.Deno) return await new Response(g.Deno.stdin.readable).text();
  let text = "";
  g.process.stdin.setEncoding("utf8");
  for await (const chunk of g.process.stdin) text += chunk;
  return text;
}

console.log(JSON.stringify(check({ root, runtime, one }, JSON.parse(await readStdin()))));
