// CommonJS entry of the runtime check (see runtime-check.mjs): loads the built package's
// CommonJS modules with require(), reads the input as JSON on standard input, prints the
// result as one line of JSON. The check itself has no imports, so loading it with import()
// brings in none of the package's ES modules.
const root = require("../../dist/index.cjs");
const one = require("../../dist/messages/StreamsGroupHeartbeatResponse.cjs");
const runtime = require("../../dist/runtime.cjs");

async function main() {
  let text = "";
  process.stdin.setEncoding("utf8");
  for await (const chunk of process.stdin) text += chunk;
  const { check } = await import("./runtime-check.mjs");
  console.log(JSON.stringify(check({ root, runtime, one }, JSON.parse(text))));
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
