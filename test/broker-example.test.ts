/**
 * The README's "Talking to a broker", as a user runs it: `kafka-wire generate --kafka <version>`
 * (from a loopback mirror serving a source release built from ../shared/kafka-schemas), then
 * examples/client.ts next to the generated `kafka/` folder:
 * - type-checked with every strict flag, together with the issue's typed-protocol snippet, which
 *   must compile without casts, and the same snippet with `topics` misspelled, which must not;
 * - run against librdkafka 2.15.1's mock cluster: ApiVersions with the fallback, Metadata at the
 *   highest common version, two requests in flight paired by correlation id.
 */

import { execFile } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../cli/cli.js";
import { startCluster } from "../broker/src/index.js";
import { corpusIndex } from "./support/corpus.js";
import { buildSourceRelease, serveRoutes, sha512 } from "./support/kafka-mirror.js";
import {
  findLibrdkafka,
  LIBRDKAFKA_VERSION,
  librdkafkaMissing,
  type MockCluster,
  peerMissing,
  startMockCluster,
} from "./support/librdkafka.js";
import { describeShared, REPO_ROOT } from "./support/shared.js";
import { STRICT_FLAGS } from "./support/typecheck.js";

const run = promisify(execFile);
/** The version the loopback mirror serves (the shared schemas are from 4.0's development). */
const VERSION = "4.0.0";

/** The done-when snippet, verbatim but for the export that keeps `names` used. */
const SNIPPET = `import { protocol, ApiKey } from "./kafka/index.js";
const frame = protocol.encodeRequestFrame({ apiKey: ApiKey.Metadata, apiVersion: 12, correlationId: 1, clientId: "app" }, { topics: [] });
const reply = protocol.decodeResponseFrame(frame, ApiKey.Metadata, 12);
const names: (string | null)[] = reply.body.topics.map((t) => t.name);
export { names };
`;

/** tsc over `files` in `dir` with every strict flag and Node's types; "" when they compile. */
async function typecheckProject(dir: string, files: readonly string[]): Promise<string> {
  writeFileSync(path.join(dir, "package.json"), JSON.stringify({ type: "module" }));
  writeFileSync(
    path.join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        ...STRICT_FLAGS,
        noEmit: true,
        skipLibCheck: true,
        types: ["node"],
        typeRoots: [path.join(REPO_ROOT, "node_modules", "@types")],
        // kafka-wire as installed, from this checkout's sources (tsx reads these paths too).
        paths: {
          "kafka-wire/codegen/v1": [path.join(REPO_ROOT, "src/codegen/v1.ts")],
          "kafka-wire/runtime": [path.join(REPO_ROOT, "src/runtime/index.ts")],
        },
      },
      files,
    }),
  );
  const tsc = path.join(REPO_ROOT, "node_modules", "typescript", "bin", "tsc");
  const result = await run(process.execPath, [tsc, "-p", dir], { cwd: dir, maxBuffer: 16 << 20 }).catch(
    (e: { stdout: string }) => e,
  );
  return result.stdout;
}

describeShared("the broker example on codecs from generate --kafka", "kafka-schemas", (shared) => {
  let work: string;
  let project: string;
  let generated: { code: number; stderr: string };

  beforeAll(async () => {
    work = mkdtempSync(path.join(tmpdir(), "kafka-wire-broker-"));
    const { archive } = await buildSourceRelease(shared, path.join(work, "release"), VERSION);
    const tgz = readFileSync(archive);
    const checksum = `${sha512(tgz)}  kafka-${VERSION}-src.tgz\n`;
    const mirror = await serveRoutes(
      new Map([
        [`/${VERSION}/kafka-${VERSION}-src.tgz`, { status: 200, body: tgz }],
        [`/${VERSION}/kafka-${VERSION}-src.tgz.sha512`, { status: 200, body: checksum }],
      ]),
    );
    project = path.join(work, "project");
    let stderr = "";
    try {
      const args = ["generate", "--kafka", VERSION, "--kafka-mirror", mirror.base];
      args.push("--cache-dir", path.join(work, "cache"), "--out", "project/kafka");
      const code = await main(args, {
        stdout: { write: () => true },
        stderr: { write: (s: string) => ((stderr += s), true) },
        stdin: { isTTY: true, async *[Symbol.asyncIterator]() {} },
        cwd: work,
      });
      generated = { code, stderr };
    } finally {
      await mirror.close();
    }
    copyFileSync(path.join(REPO_ROOT, "examples", "client.ts"), path.join(project, "client.ts"));
    writeFileSync(path.join(project, "snippet.ts"), SNIPPET);
    writeFileSync(path.join(project, "typo.ts"), SNIPPET.replace("{ topics: [] }", "{ topcs: [] }"));
  }, 180_000);

  afterAll(() => {
    rmSync(work, { recursive: true, force: true });
  });

  it("generate --kafka writes the codecs, their index and the typed protocol", () => {
    expect(generated.code, generated.stderr).toBe(0);
    expect(readFileSync(path.join(project, "kafka", "protocol.ts"), "utf8")).toContain("Metadata: 3,");
  });

  it("the example and the typed snippet compile under every strict flag; a misspelled field does not", async () => {
    const output = await typecheckProject(project, ["client.ts", "snippet.ts", "typo.ts"]);
    const errors = output.split("\n").filter((l) => /error TS\d+/.test(l));
    // Exactly one error, in typo.ts: the misspelled body field (an excess property, TS2561).
    expect(errors, output).toHaveLength(1);
    expect(errors[0]).toMatch(
      /^typo\.ts\(2,\d+\): error TS2561: .*'topcs' does not exist in type 'Init<MetadataRequest>'/,
    );
  }, 120_000);

  // The README's four-command path in a clone: the client example against the example broker
  // (examples/broker/, built on kafka-wire), with Kafka 4's version table on both sides.
  it("runs against the example broker: ApiVersions v3, then Metadata v13 twice, paired", async () => {
    const { protocol } = await corpusIndex();
    const broker = await startCluster({ protocol, topics: { demo: 2 } });
    const [node] = broker.nodes;
    try {
      const tsx = path.join(REPO_ROOT, "node_modules", "tsx", "dist", "cli.mjs");
      const { stdout } = await run(process.execPath, [tsx, "client.ts", broker.bootstrap, "demo"], {
        cwd: project,
        timeout: 60_000,
      });
      const lines = stdout.trim().split("\n");
      expect(lines[0]).toMatch(/^ApiVersions v3: the broker speaks \d+ APIs$/);
      const replies = lines.filter((l) => l.startsWith("Metadata v13 (correlation id"));
      expect(replies).toHaveLength(2);
      for (const [k, reply] of replies.entries()) {
        expect(reply).toContain(`(correlation id ${k + 2})`);
        expect(reply).toContain(`brokers 1=${node!.host}:${node!.port}`);
        expect(reply).toContain("[demo: 2 partitions, error code 0]");
      }
    } finally {
      await broker.close();
    }
  }, 90_000);

  describe(`run against librdkafka ${LIBRDKAFKA_VERSION}'s mock cluster`, () => {
    const librdkafka = findLibrdkafka();
    if (librdkafka === null) {
      peerMissing(`librdkafka ${LIBRDKAFKA_VERSION}`, librdkafkaMissing());
      return;
    }
    let mock: MockCluster;
    beforeAll(async () => {
      mock = await startMockCluster({
        mockCluster: librdkafka.mockCluster,
        topics: [{ name: "example-topic", partitions: 3 }],
        timeoutMs: 10_000,
      });
    });
    afterAll(async () => {
      await mock?.stop();
    });

    it("negotiates ApiVersions (v3 reply malformed: v2), sends Metadata v12 twice and pairs the replies", async () => {
      const tsx = path.join(REPO_ROOT, "node_modules", "tsx", "dist", "cli.mjs");
      const { stdout } = await run(process.execPath, [tsx, "client.ts", `${mock.host}:${mock.port}`, "example-topic"], {
        cwd: project,
        timeout: 60_000,
      });
      const lines = stdout.trim().split("\n");
      // The mock's ApiVersions v3 reply decodes in no version: the example falls back to v2.
      expect(lines[0]).toMatch(/^ApiVersions v3: the reply decodes in no version \(.*\); retrying at v2$/);
      expect(lines[1]).toMatch(/^ApiVersions v2: the broker speaks \d+ APIs$/);
      // Metadata: ours 4-13, the mock's 0-12, so v12. Its flexible replies end with a stray byte.
      const replies = lines.filter((l) => l.startsWith("Metadata v12 (correlation id"));
      expect(replies).toHaveLength(2);
      const broker = `brokers 1=${mock.host}:${mock.port}`;
      for (const [k, reply] of replies.entries()) {
        // Requests 1 and 2 were ApiVersions; the two Metadata requests are 3 and 4.
        expect(reply).toContain(`(correlation id ${k + 3})`);
        expect(reply).toContain(broker);
        expect(reply).toContain("[example-topic: 3 partitions, error code 0]");
      }
    }, 90_000);
  });
});
