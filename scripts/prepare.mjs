// `prepare` (npm ci / npm install in this folder, installs from a git URL, npm pack): builds the
// library and the CLI package. npm also runs it when another project installs this folder with
// `--install-links`, without installing our dev dependencies first: then an existing build is
// used, and a missing one is explained instead of failing with "tsup: not found".
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
if (!existsSync(new URL("../node_modules/tsup/package.json", import.meta.url))) {
  if (existsSync(new URL("../dist/index.js", import.meta.url))) process.exit(0);
  console.error(`kafka-wire: ${root} is not built and has no dev dependencies; run \`npm ci\` there first`);
  process.exit(1);
}
const result = spawnSync("npm", ["run", "-s", "build"], { cwd: root, stdio: "inherit" });
process.exit(result.status ?? 1);
