/**
 * kafka-wire-broker and API versions still under development (`latestVersionUnstable` in a
 * request schema), as Kafka's `unstable.api.versions.enable` treats them: off by default, the
 * latest version is not in the ApiVersions reply (an API with no other version is not listed at
 * all, as Kafka's `ApiVersionsResponse` leaves it out) and a request at it closes the connection;
 * with `unstableVersions: true` both are served.
 *
 * Two unstable APIs: ShareGroupHeartbeat (76), whose only version 0 is unstable in Kafka 4.0's
 * schemas (../shared), and the test schema ProbeRequest (api key 91, versions 0–1, v1 unstable:
 * test/fixtures/header-versions), added to Kafka's codecs so that a stable version remains.
 */

import { rm } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startCluster, type BrokerPlugin, type RunningCluster } from "../broker/src/index.js";
import { defineProtocol, type Protocol, type ProtocolDefinition } from "../src/runtime/framing.js";
import type { MessageCodec } from "../src/runtime/index.js";
import { CORPUS_OUT } from "./support/corpus.js";
import { generateFixture } from "./support/generate-fixture.js";
import { KafkaTestClient } from "./support/kcat.js";
import { describeShared, REPO_ROOT } from "./support/shared.js";

const FIXTURES = path.join(REPO_ROOT, "test", "fixtures", "header-versions");
const OUT = path.join(REPO_ROOT, ".corpus", `broker-unstable-${process.pid}`, "generated");
const PROBE = 91;
const SHARE_GROUP_HEARTBEAT = 76;
const API_VERSIONS = 18;

type Body = Record<string, unknown>;

describeShared("kafka-wire-broker leaves unstable API versions out unless asked", "kafka-schemas", (shared) => {
  let stable: Protocol;
  let unstable: Protocol;
  /** The Probe requests the handler saw: version and body. */
  const probes: { version: number; body: Body }[] = [];
  const clusters: RunningCluster[] = [];

  /** Serves Probe (every version the cluster allows) and ShareGroupHeartbeat with empty answers. */
  const plugin: BrokerPlugin = (cluster) => {
    const register = cluster.handlers.register.bind(cluster.handlers) as (
      apiKey: number,
      handler: (body: Body, ctx: { apiVersion: number }) => Body,
    ) => void;
    register(PROBE, (body, ctx) => {
      probes.push({ version: ctx.apiVersion, body });
      return { errorCode: 0 };
    });
    register(SHARE_GROUP_HEARTBEAT, () => ({ errorCode: 0 }));
  };

  beforeAll(async () => {
    const { index: fixture } = await generateFixture<{ messages: Record<string, MessageCodec<unknown>> }>(
      FIXTURES,
      OUT,
    );
    const kafka = (await import(pathToFileURL(path.join(CORPUS_OUT, "index.ts")).href)) as {
      protocolDefinition: ProtocolDefinition;
    };
    const def: ProtocolDefinition = {
      ...kafka.protocolDefinition,
      messages: [...kafka.protocolDefinition.messages, fixture.messages.ProbeRequest!, fixture.messages.ProbeResponse!],
    };
    stable = defineProtocol(def);
    unstable = defineProtocol({ ...def, unstableVersions: true });
  }, 60_000);

  afterAll(async () => {
    await Promise.all(clusters.map((c) => c.close()));
    await rm(path.dirname(OUT), { recursive: true, force: true });
  });

  async function start(options: Parameters<typeof startCluster>[0]): Promise<RunningCluster> {
    const cluster = await startCluster({ brokers: 1, plugins: [plugin], ...options });
    clusters.push(cluster);
    return cluster;
  }

  /** A client that can encode every version (so that it can send the unstable ones). */
  const connect = (cluster: RunningCluster) =>
    KafkaTestClient.connect(cluster.nodes[0]!.host, cluster.nodes[0]!.port, unstable, { timeoutMs: 3000 });

  /** The ApiVersions v3 table: api key → [min, max]. */
  async function table(cluster: RunningCluster): Promise<Map<number, [number, number]>> {
    const client = await connect(cluster);
    try {
      const { body } = await client.call<{ errorCode: number; apiKeys: Body[] }>(API_VERSIONS, 3, {
        clientSoftwareName: "kafka-wire-test",
        clientSoftwareVersion: "1",
      });
      expect(body.errorCode).toBe(0);
      return new Map(body.apiKeys.map((k) => [k.apiKey as number, [k.minVersion as number, k.maxVersion as number]]));
    } finally {
      client.close();
    }
  }

  /** Sends one request; resolves with the response's error code, or "closed" when the broker closes the connection. */
  async function send(
    cluster: RunningCluster,
    apiKey: number,
    version: number,
    init: Body,
  ): Promise<number | "closed"> {
    const client = await connect(cluster);
    try {
      const { body } = await client.call<{ errorCode: number }>(apiKey, version, init);
      return body.errorCode;
    } catch (e) {
      if (/closed the connection/.test((e as Error).message)) return "closed";
      throw e;
    } finally {
      client.close();
    }
  }

  it("by default: Probe listed as 0–0 and ShareGroupHeartbeat not at all; requests at those versions close the connection", async () => {
    const cluster = await start({ protocol: stable });
    const versions = await table(cluster);
    expect(versions.get(PROBE)).toEqual([0, 0]);
    expect(versions.has(SHARE_GROUP_HEARTBEAT)).toBe(false);
    // Kafka's stable APIs keep their whole range (Produce v3–12 with Kafka 4.0's schemas).
    expect(versions.get(0)).toEqual([3, 12]);
    probes.length = 0;
    expect(await send(cluster, PROBE, 0, {})).toBe(0);
    expect(await send(cluster, PROBE, 1, { depth: 4 })).toBe("closed");
    expect(await send(cluster, SHARE_GROUP_HEARTBEAT, 0, { groupId: "g", memberId: "m" })).toBe("closed");
    // The v1 request never reached the handler; the broker still serves.
    expect(probes.map((p) => p.version)).toEqual([0]);
    expect((await table(cluster)).get(PROBE)).toEqual([0, 0]);
  });

  it("with unstableVersions: true both are listed and served, Probe v1 with its new field", async () => {
    const cluster = await start({ protocol: unstable, unstableVersions: true });
    const versions = await table(cluster);
    expect(versions.get(PROBE)).toEqual([0, 1]);
    expect(versions.get(SHARE_GROUP_HEARTBEAT)).toEqual([0, 0]);
    probes.length = 0;
    expect(await send(cluster, PROBE, 1, { depth: 4 })).toBe(0);
    expect(probes).toEqual([{ version: 1, body: { depth: 4 } }]);
    expect(await send(cluster, SHARE_GROUP_HEARTBEAT, 0, { groupId: "g", memberId: "m" })).toBe(0);
  });

  it("refuses unstableVersions: true with a protocol that refuses unstable versions", async () => {
    await expect(start({ protocol: stable, unstableVersions: true })).rejects.toThrow(
      /unstableVersions: true needs a protocol that accepts unstable versions/,
    );
  });

  it("with schemas (codecs from kafka-wire-cli's cache) and unstableVersions: true, defines them so", async () => {
    const cluster = await start({
      schemas: path.join(shared, "clients"),
      cacheDir: path.join(path.dirname(OUT), "cache"),
      unstableVersions: true,
    });
    expect(cluster.cluster.protocol.unstableVersions).toBe(true);
    expect((await table(cluster)).get(SHARE_GROUP_HEARTBEAT)).toEqual([0, 0]);
    const plain = await start({
      schemas: path.join(shared, "clients"),
      cacheDir: path.join(path.dirname(OUT), "cache"),
    });
    // (undefined when the cache's codecs run on a build of the runtime older than the property)
    expect(plain.cluster.protocol.unstableVersions).not.toBe(true);
    expect((await table(plain)).has(SHARE_GROUP_HEARTBEAT)).toBe(false);
  }, 120_000);
});
