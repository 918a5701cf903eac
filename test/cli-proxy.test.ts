/**
 * `kafka-wire proxy` as a user runs it (`tsx cli/cli.ts proxy`, a child process) in front of the
 * example broker, with Kafka's clients schemas as codecs and `--log jsonl --records`: kafkajs
 * produces and consumes through it, and the log has a line per request and response with the
 * records kafkajs wrote. SIGTERM stops it with exit code 0.
 */

import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Kafka, logLevel } from "kafkajs";
import { afterAll, expect, it } from "vitest";
import { startOneBroker } from "./support/one-broker.js";
import { corpusIndex } from "./support/corpus.js";
import { describeShared, REPO_ROOT } from "./support/shared.js";

describeShared("kafka-wire proxy (the command)", "kafka-schemas/clients", (clients) => {
  const cache = mkdtempSync(path.join(os.tmpdir(), "kafka-wire-proxy-cli-"));
  afterAll(() => rmSync(cache, { recursive: true, force: true }));

  it("logs a kafkajs produce and consume as JSON lines, records decoded, and stops on SIGTERM", async () => {
    const { protocol } = await corpusIndex();
    const broker = await startOneBroker({
      protocol,
      topics: { greetings: 1 },
      initialRebalanceDelayMs: 0,
    });
    const tsx = path.join(REPO_ROOT, "node_modules", ".bin", "tsx");
    const child = spawn(
      tsx,
      [
        "cli/cli.ts",
        "proxy",
        "--upstream",
        broker.bootstrap,
        "--listen",
        "127.0.0.1:0",
        "--log",
        "jsonl",
        "--records",
        "--schemas",
        clients,
        "--cache-dir",
        cache,
      ],
      { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (s: string) => (stdout += s));
    child.stderr.setEncoding("utf8").on("data", (s: string) => (stderr += s));
    const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
    try {
      const bootstrap = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no listening line within 240 s; stderr:\n${stderr}`)),
          240_000,
        );
        const check = () => {
          const m = /listening on (127\.0\.0\.1:\d+)/.exec(stderr);
          if (m !== null) {
            clearTimeout(timer);
            resolve(m[1]!);
          }
        };
        child.stderr.on("data", check);
        void exited.then((code) => reject(new Error(`exited with ${code}; stderr:\n${stderr}`)));
      });
      const kafka = new Kafka({
        clientId: "readme",
        brokers: [bootstrap],
        logLevel: logLevel.NOTHING,
        retry: { retries: 2 },
      });
      const producer = kafka.producer({ allowAutoTopicCreation: false });
      await producer.connect();
      await producer.send({
        topic: "greetings",
        messages: [
          { key: "en", value: "hello", headers: { lang: "en" } },
          { key: "fr", value: "bonjour" },
        ],
      });
      await producer.disconnect();
      const consumer = kafka.consumer({ groupId: "readers", maxWaitTimeInMs: 100 });
      await consumer.connect();
      await consumer.subscribe({ topics: ["greetings"], fromBeginning: true });
      const values: string[] = [];
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`consumed ${values}`)), 30_000);
        void consumer
          .run({
            eachMessage: async ({ message }) => {
              values.push(message.value!.toString());
              if (values.length === 2) {
                clearTimeout(timer);
                resolve();
              }
            },
          })
          .catch(reject);
      });
      await consumer.disconnect();
      expect(values).toEqual(["hello", "bonjour"]);
    } finally {
      child.kill("SIGTERM");
      await broker.close();
    }
    expect(await exited, stderr).toBe(0);
    expect(stderr).toContain("SIGTERM: closing");

    const lines = stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, any>); // eslint-disable-line @typescript-eslint/no-explicit-any
    console.log(`kafka-wire proxy --log jsonl --records, kafkajs producing and consuming:\n${stdout}`);
    const produce = lines.find((l) => l.direction === "request" && l.api === "Produce")!;
    expect(produce.body.topicData[0].name).toBe("greetings");
    expect(produce.body.topicData[0].partitionData[0].records.batches[0].records).toMatchObject([
      { key: "en", value: "hello", headers: [{ key: "lang", value: "en" }] },
      { key: "fr", value: "bonjour", headers: [] },
    ]);
    const produced = lines.find(
      (l) => l.direction === "response" && l.api === "Produce" && l.correlationId === produce.correlationId,
    )!;
    expect(produced.latencyMs).toBeGreaterThanOrEqual(0);
    expect(produced.body.responses[0].partitionResponses[0].errorCode).toBe(0);
    const fetched = lines
      .filter((l) => l.direction === "response" && l.api === "Fetch")
      .flatMap((l) => l.body.responses.flatMap((t: any) => t.partitions.flatMap((p: any) => p.records?.batches ?? []))) // eslint-disable-line @typescript-eslint/no-explicit-any
      .flatMap((b: { records: { value: string }[] }) => b.records.map((r) => r.value));
    expect(fetched).toEqual(["hello", "bonjour"]);
    // Metadata named the proxy, not the broker.
    const metadata = lines.find((l) => l.direction === "response" && l.api === "Metadata")!;
    expect(metadata.changed).toBe("addresses");
    expect(metadata.body.brokers[0].port).not.toBe(broker.port);
    for (const l of lines) expect(["request", "response", "connection"]).toContain(l.direction);
  }, 300_000);
});

describeShared("kafka-wire proxy --filters", "kafka-schemas/clients", (clients) => {
  const work = mkdtempSync(path.join(os.tmpdir(), "kafka-wire-proxy-filters-"));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it("loads a module's default Filters: kafkajs produces to 'orders', the broker stores acme.orders", async () => {
    const { protocol } = await corpusIndex();
    const broker = await startOneBroker({ protocol, topics: { "acme.orders": 1 } });
    const tenant = path.join(REPO_ROOT, "examples", "proxy", "tenant.ts");
    const module = path.join(work, "acme.ts");
    writeFileSync(
      module,
      `import { tenantTopics } from ${JSON.stringify(tenant)};\nexport default tenantTopics("acme.");\n`,
    );
    const tsx = path.join(REPO_ROOT, "node_modules", ".bin", "tsx");
    const args = ["cli/cli.ts", "proxy", "--upstream", broker.bootstrap, "--listen", "127.0.0.1:0", "--log", "jsonl"];
    args.push("--filters", module, "--schemas", clients, "--cache-dir", path.join(work, "cache"));
    const child = spawn(tsx, args, { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (s: string) => (stdout += s));
    child.stderr.setEncoding("utf8").on("data", (s: string) => (stderr += s));
    const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
    try {
      const bootstrap = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no listening line; stderr:\n${stderr}`)), 240_000);
        child.stderr.on("data", () => {
          const m = /listening on (127\.0\.0\.1:\d+)/.exec(stderr);
          if (m !== null) {
            clearTimeout(timer);
            resolve(m[1]!);
          }
        });
        void exited.then((code) => reject(new Error(`exited with ${code}; stderr:\n${stderr}`)));
      });
      const kafka = new Kafka({
        clientId: "tenant",
        brokers: [bootstrap],
        logLevel: logLevel.NOTHING,
        retry: { retries: 2 },
      });
      const producer = kafka.producer({ allowAutoTopicCreation: false });
      await producer.connect();
      await producer.send({ topic: "orders", messages: [{ value: "one" }] });
      await producer.disconnect();
    } finally {
      child.kill("SIGTERM");
      await broker.close();
    }
    expect(await exited, stderr).toBe(0);
    const produce = stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, any>) // eslint-disable-line @typescript-eslint/no-explicit-any
      .filter((l) => l.api === "Produce");
    expect(produce.map((l) => [l.direction, (l.body.topicData ?? l.body.responses)[0].name])).toEqual([
      ["request", "acme.orders"],
      ["response", "orders"],
    ]);
    expect(produce[1]!.body.responses[0].partitionResponses[0].errorCode).toBe(0);
  }, 300_000);
});

describeShared("examples/proxy/demo.ts", "kafka-schemas/clients", (clients) => {
  it("runs: kafkajs produces to 'orders' through the tenant proxy and consumes both records back; the log shows requests as the broker got them, responses as the client did", async () => {
    const tsx = path.join(REPO_ROOT, "node_modules", ".bin", "tsx");
    const { stdout, stderr } = await new Promise<{ stdout: string; stderr: string; code: number | null }>((resolve) => {
      const child = spawn(tsx, ["examples/proxy/demo.ts", "--schemas", clients], {
        cwd: REPO_ROOT,
        stdio: ["ignore", "pipe", "pipe"],
      });
      let out = "";
      let err = "";
      child.stdout.setEncoding("utf8").on("data", (s: string) => (out += s));
      child.stderr.setEncoding("utf8").on("data", (s: string) => (err += s));
      const timer = setTimeout(() => child.kill("SIGKILL"), 240_000);
      child.once("close", (code) => {
        clearTimeout(timer);
        resolve({ stdout: out, stderr: err, code });
      });
    }).then((r) => {
      expect(r.code, r.stderr).toBe(0);
      return r;
    });
    expect(stderr).toContain("kafkajs consumed: orders o-1 2 apples; orders o-2 1 pear");
    const lines = stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, any>); // eslint-disable-line @typescript-eslint/no-explicit-any
    const produce = lines.filter((l) => l.api === "Produce");
    expect(produce.map((l) => [l.direction, l.changed, (l.body.topicData ?? l.body.responses)[0].name])).toEqual([
      ["request", "filter", "acme.orders"],
      ["response", "filter", "orders"],
    ]);
    const metadata = lines.filter((l) => l.api === "Metadata" && l.direction === "response");
    expect(metadata.length).toBeGreaterThan(0);
    for (const m of metadata) {
      expect(m.changed).toBe("addresses, filter");
      expect(m.body.topics.map((t: { name: string }) => t.name)).toEqual(["orders"]);
    }
  }, 300_000);
});
