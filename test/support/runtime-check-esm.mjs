// ESM entry of the runtime check (see runtime-check.mjs): imports the built package's ES
// modules, reads the input as JSON on standard input, prints the result as one line of JSON.
// Runs unchanged in Node.js, Deno (no permissions needed) and Bun.

async function readStdin() {
  const g = globalThis;
  if (g.Deno) return await new Response(g.Deno.stdin.readable).text();
  let text = "";
  g.process.stdin.setEncoding("utf8");
  for await (const chunk of g.process.stdin) text += chunk;
  return text;
}

const input = JSON.parse(await readStdin());
// Node.js, Deno and Bun all have a global Buffer, so a fast path that detects it would leave the
// portable code to browsers alone: `withoutBuffer` removes it before the package is loaded.
if (input.withoutBuffer) delete globalThis.Buffer;
const [root, runtime, one, { check }] = await Promise.all([
  import("../../dist/index.js"),
  import("../../dist/runtime.js"),
  import("../../dist/messages/StreamsGroupHeartbeatResponse.js"),
  import("./runtime-check.mjs"),
]);
console.log(JSON.stringify(check({ root, runtime, one }, input)));
