/**
 * The proxy under test for bench/proxy.ts, in a process of its own (so that it does not share an
 * event loop with the load generator): loads the codecs of Kafka's clients schemas through the
 * CLI's cache, starts kafka-wire-proxy and prints `bootstrap=<host:port>`; answers each line on
 * stdin with `cpu=<µs>` (its CPU time so far); exits when stdin closes.
 *
 *   node --import tsx bench/proxy-server.ts --upstream host:port [--tenant acme.] [--log]
 */

import { Writable } from "node:stream";
import { parseArgs } from "node:util";
import { loadSchemaSet } from "../cli/codecs.js";
import { tenantTopics } from "../examples/proxy/tenant.js";
import { formatLogLine, startProxy } from "../proxy/src/index.js";
import { SCHEMAS_DIR } from "./corpus.js";

const { values } = parseArgs({
  options: { upstream: { type: "string" }, tenant: { type: "string" }, log: { type: "boolean" } },
});
if (values.upstream === undefined) throw new Error("--upstream host:port is required");
const loaded = await loadSchemaSet({ cwd: process.cwd(), schemas: [`${SCHEMAS_DIR}/clients`] });
const protocol = loaded.codecs.protocol!;
// The log is formatted in full and written to a stream that drops it: its cost without a disk's.
const sink = new Writable({ write: (_chunk, _enc, done) => done() });
const proxy = await startProxy({
  upstream: values.upstream,
  protocol,
  ...(values.tenant === undefined ? {} : { filters: tenantTopics(values.tenant) }),
  ...(values.log === true ? { log: (e) => void sink.write(`${formatLogLine(e)}\n`) } : {}),
});
process.stdout.write(`bootstrap=${proxy.bootstrap}\n`);
// Each line on stdin asks for the CPU time this process has used so far (user + system, µs).
process.stdin.setEncoding("utf8").on("data", (s: string) => {
  for (let i = 0; i < s.split("\n").length - 1; i++) {
    const { user, system } = process.cpuUsage();
    process.stdout.write(`cpu=${user + system}\n`);
  }
});
process.stdin.on("end", () => void proxy.close().then(() => process.exit(0)));
