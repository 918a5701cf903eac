/**
 * The test runners' helpers: `kafka-wire-broker/vitest` used here, in this file, and
 * `kafka-wire-broker/node-test` used by a node:test file run as `node --test` (with the
 * workspaces' sources, through the package's exports).
 */

import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { registerCluster, type RunnerHooks } from "../broker/src/test-hooks.js";
import { useCluster } from "../broker/src/vitest.js";
import { CORPUS_OUT, corpusIndex } from "./support/corpus.js";
import { describeShared, REPO_ROOT } from "./support/shared.js";

const refused = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", () => resolve(true));
  });

describeShared("kafka-wire-broker/vitest and /node-test", "kafka-schemas", () => {
  let port = 0;

  describe("useCluster (vitest)", () => {
    const cluster = useCluster(async () => ({ protocol: (await corpusIndex()).protocol, topics: { orders: 2 } }));
    // While vitest collects the tests, before beforeAll ran: no cluster yet.
    let early: unknown;
    try {
      void cluster.bootstrap;
    } catch (e) {
      early = e;
    }
    // `await useCluster(...)` (as with startCluster) reads `then` now: the stand-in is no thenable.
    const awaited = Promise.resolve(cluster);

    it("used before its beforeAll, throws an error that says why and what to do", () => {
      expect(early).toBeInstanceOf(Error);
      expect((early as Error).message).toBe(
        "useCluster's cluster was used (.bootstrap) before it started. useCluster returns at once and starts the " +
          "cluster in the beforeAll hook it registers, which runs after the tests are collected: use the cluster " +
          'inside a test or a hook registered after useCluster (it("...", () => { cluster.bootstrap ... })), not in ' +
          "the body of the file or of a describe block",
      );
    });

    it("awaited, early or in a test, gives the stand-in itself", async () => {
      expect(await awaited).toBe(cluster);
      expect(await cluster).toBe(cluster);
      expect((await cluster).bootstrap).toMatch(/^127\.0\.0\.1:\d+$/);
    });

    it("is running in the first test; a fault and a topic are added", () => {
      port = cluster.nodes[0]!.port;
      expect(cluster.bootstrap).toBe(`127.0.0.1:${port}`);
      cluster.fail({ apiKey: 0, errorCode: "NOT_LEADER_OR_FOLLOWER", times: 3 });
      cluster.createTopic("extra", 1);
      expect(cluster.cluster.control.pending()).toHaveLength(1);
    });

    it("is the same cluster in the next test, reset in between", () => {
      expect(cluster.nodes[0]!.port).toBe(port);
      expect(cluster.cluster.control.pending()).toEqual([]);
      expect(cluster.inspect.topics().map((t) => t.name)).toEqual(["orders"]);
    });
  });

  it("closes the cluster after its block", async () => {
    expect(port).not.toBe(0);
    expect(await refused(port)).toBe(true);
  });

  describe("the stand-in's errors after the close and when the start failed (node:test's hook names)", () => {
    /** The hooks a runner would run, to run them by hand. */
    const runner = () => {
      const run = { before: [] as (() => Promise<void>)[], after: [] as (() => Promise<void>)[] };
      const hooks: RunnerHooks = {
        before: (fn) => run.before.push(fn),
        afterEach: () => {},
        after: (fn) => run.after.push(fn),
        names: { before: "before", after: "after" },
      };
      return { run, hooks };
    };

    it("after the after hook closed it: says so", async () => {
      const { run, hooks } = runner();
      const cluster = registerCluster(hooks, async () => ({ protocol: (await corpusIndex()).protocol }));
      await run.before[0]!();
      try {
        expect(cluster.bootstrap).toMatch(/^127\.0\.0\.1:\d+$/);
      } finally {
        await run.after[0]!();
      }
      expect(() => cluster.nodes).toThrow(
        "useCluster's cluster was used (.nodes) after useCluster's after hook closed it, at the end of the scope " +
          "(file or describe block) useCluster was called in: use it within that scope, or call useCluster in the " +
          "scope that needs it",
      );
    });

    it("when the start failed: gives the start's error (as its cause too)", async () => {
      const { run, hooks } = runner();
      const broken = new Error("no codecs for Kafka 9.9.9");
      const cluster = registerCluster(hooks, () => Promise.reject(broken));
      await expect(run.before[0]!()).rejects.toBe(broken);
      let error: Error | undefined;
      try {
        cluster.createTopic("t", 1);
      } catch (e) {
        error = e as Error;
      }
      expect(error?.message).toBe(
        "useCluster's cluster was used (.createTopic) but did not start (useCluster's before hook failed): no codecs for Kafka 9.9.9",
      );
      expect(error?.cause).toBe(broken);
    });
  });

  /** Runs the node:test fixture; `source`: the workspaces' TypeScript (else the packages' builds, dist/). */
  const nodeTest = (source: boolean) =>
    spawnSync(
      process.execPath,
      [
        ...(source ? ["--conditions=source"] : []),
        "--import",
        "tsx",
        "--test",
        "--test-reporter=tap",
        path.join(REPO_ROOT, "test/fixtures/broker-node-test.ts"),
      ],
      {
        cwd: REPO_ROOT,
        encoding: "utf8",
        timeout: 120_000,
        env: { ...process.env, KAFKA_WIRE_CORPUS_DIR: CORPUS_OUT },
      },
    );

  for (const source of [true, false]) {
    it(`kafka-wire-broker/node-test gives a node:test file a cluster, reset between tests and closed after (${source ? "sources" : "the built dist"})`, () => {
      if (!source) {
        // npm ci / npm install build every package (scripts/prepare.mjs).
        expect(existsSync(path.join(REPO_ROOT, "broker/dist/node-test.js")), "run `npm run build`").toBe(true);
      }
      const run = nodeTest(source);
      expect(run.stderr).toBe("");
      expect(run.stdout).toMatch(/^# tests 3$/m);
      expect(run.stdout).toMatch(/^# pass 3$/m);
      expect(run.stdout).toMatch(/^# fail 0$/m);
      expect(run.status).toBe(0);
    });
  }
});
