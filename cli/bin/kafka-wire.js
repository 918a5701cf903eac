#!/usr/bin/env node
// The `kafka-wire` command. A committed launcher, so that npm links the bin even before the
// package is built (in a fresh clone npm links bins before `prepare` builds cli/dist/).
import("../dist/cli.js").then(
  (cli) => cli.run(),
  (error) => {
    if (error && error.code === "ERR_MODULE_NOT_FOUND" && String(error.message).includes("dist/cli.js")) {
      process.stderr.write("error: kafka-wire-cli is not built; run `npm run build` in the repository\n");
      process.exitCode = 1;
    } else {
      throw error;
    }
  },
);
