/**
 * The README's curl example (README.md "Testing your application against a Kafka cluster", the
 * block after `<!-- run by test/broker-curl-example.test.ts -->`), run as written: the
 * `kafka-wire broker` line is spawned (with ../shared's schemas for `--kafka 4.1.0`, and a free
 * control port for the one shown), each `curl` line is run with curl (or, where curl is not
 * installed, its method, URL and body sent with fetch), an answer the README shows as JSON in
 * the line's comment is checked, and the comment line naming the application runs one: an
 * idempotent kafkajs producer publishing the orders.
 */

import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { Kafka, logLevel } from "kafkajs";
import { expect, it } from "vitest";
import { startBrokerCli } from "./support/broker-cli.js";
import { describeShared, REPO_ROOT } from "./support/shared.js";

const run = promisify(execFile);

/** The README's block. */
function example(): string[] {
  const readme = readFileSync(path.join(REPO_ROOT, "README.md"), "utf8");
  const m = /<!-- run by test\/broker-curl-example\.test\.ts -->\n\n```sh\n([\s\S]*?)\n```/.exec(readme);
  if (m === null) throw new Error("README.md has no block marked for test/broker-curl-example.test.ts");
  return m[1]!.split("\n");
}

/** A shell line's words (single and double quotes, no escapes: what the README uses) and its comment. */
function words(line: string): { words: string[]; comment: string } {
  const out: string[] = [];
  let i = 0;
  while (i < line.length) {
    while (line[i] === " ") i++;
    if (i >= line.length) break;
    if (line[i] === "#") return { words: out, comment: line.slice(i + 1).trim() };
    let word = "";
    while (i < line.length && line[i] !== " ") {
      const q = line[i]!;
      if (q === "'" || q === '"') {
        const end = line.indexOf(q, i + 1);
        if (end < 0) throw new Error(`unbalanced ${q} in: ${line}`);
        word += line.slice(i + 1, end);
        i = end + 1;
      } else {
        word += q;
        i++;
      }
    }
    out.push(word);
  }
  return { words: out, comment: "" };
}

/** The JSON a comment starts with (`{...}` up to its matching brace, outside strings), or null. */
function leadingJson(comment: string): unknown {
  if (!comment.startsWith("{")) return null;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < comment.length; i++) {
    const c = comment[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{" || c === "[") depth++;
    else if ((c === "}" || c === "]") && --depth === 0) return JSON.parse(comment.slice(0, i + 1));
  }
  throw new Error(`unbalanced JSON in comment: ${comment}`);
}

/** curl's `-s`, `-X METHOD`, `-d BODY` and the URL, as fetch sends them. */
async function fetchLikeCurl(args: string[]): Promise<string> {
  let method = "GET";
  let body: string | undefined;
  let url: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "-s") continue;
    else if (a === "-X") method = args[++i]!;
    else if (a === "-d") {
      body = args[++i]!;
      if (method === "GET") method = "POST";
    } else if (a.startsWith("-")) throw new Error(`curl option ${a} is not handled`);
    else url = a;
  }
  if (url === undefined) throw new Error(`no URL in curl ${args.join(" ")}`);
  const res = await fetch(url, { method, ...(body === undefined ? {} : { body }) });
  return res.text();
}

async function hasCurl(): Promise<boolean> {
  try {
    await run("curl", ["--version"]);
    return true;
  } catch {
    return false;
  }
}

describeShared("README's curl example", "kafka-schemas", (schemas) => {
  it("runs as written against kafka-wire broker --control-port: the fault is hit, every order stored once", async () => {
    const lines = example();
    const start = words(lines[0]!).words;
    expect(start.slice(0, 3)).toEqual(["npx", "kafka-wire", "broker"]);
    expect(start.at(-1)).toBe("&");
    const args = start.slice(3, -1);
    const shownPort = args[args.indexOf("--control-port") + 1]!;
    // The README's release, from ../shared; the port it shows may be taken here: a free one.
    const kafka = args.indexOf("--kafka");
    args.splice(kafka, 2, "--schemas", schemas);
    args[args.indexOf("--control-port") + 1] = "0";
    const curl = await hasCurl();
    const cli = await startBrokerCli(args);
    const answers = new Map<string, string>();
    let ranApplication = false;
    try {
      const vars = new Map<string, string>();
      for (const line of lines.slice(1)) {
        const { words: w, comment } = words(line);
        if (w.length === 0) {
          if (/^the application under test publishes orders/.test(comment)) {
            const ids = /orders ([a-z, ]+) and ([a-z])/.exec(comment)!;
            await publish(cli.bootstrap, [...ids[1]!.split(", "), ids[2]!]);
            ranApplication = true;
          }
          continue;
        }
        const assign = /^([A-Z]+)=(.*)$/.exec(w[0]!);
        if (assign !== null && w.length === 1) {
          // The control URL the README shows is this run's.
          vars.set(assign[1]!, assign[2]!.replace(`127.0.0.1:${shownPort}`, new URL(cli.control!).host));
          continue;
        }
        expect(w[0], line).toBe("curl");
        const curlArgs = w.slice(1).map((a) => a.replace(/\$([A-Z]+)/g, (_, v: string) => vars.get(v) ?? `$${v}`));
        const out = curl ? (await run("curl", curlArgs, { timeout: 30_000 })).stdout : await fetchLikeCurl(curlArgs);
        const shown = leadingJson(comment);
        if (shown !== null) expect(JSON.parse(out), line).toEqual(shown);
        answers.set(curlArgs.find((a) => a.startsWith("http"))!.replace(vars.get("C")!, ""), out);
      }
    } finally {
      expect(await cli.stop()).toBe(0);
    }
    expect(ranApplication).toBe(true);
    // The application recovered: 4 records in all (the retries stored no duplicate).
    const topic = JSON.parse(answers.get("/topics/orders")!) as { partitions: { highWatermark: number }[] };
    expect(topic.partitions.reduce((n, p) => n + p.highWatermark, 0)).toBe(4);
    const page = JSON.parse(answers.get("/topics/orders/partitions/0/records?limit=10")!) as {
      highWatermark: number;
      records: { key: { data: string }; value: { encoding: string; data: string } }[];
    };
    expect(page.records).toHaveLength(page.highWatermark);
    for (const r of page.records) expect(r.value).toEqual({ encoding: "utf8", data: `order ${r.key.data}` });
  });
});

/** The application under test: orders published one at a time by an idempotent kafkajs producer. */
async function publish(bootstrap: string, ids: string[]): Promise<void> {
  const kafka = new Kafka({ brokers: bootstrap.split(","), logLevel: logLevel.NOTHING });
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  try {
    for (const id of ids) await producer.send({ topic: "orders", messages: [{ key: id, value: `order ${id}` }] });
  } finally {
    await producer.disconnect();
  }
}
