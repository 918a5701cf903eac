/**
 * The soak (issue 20, item 3): real clients, each in a process of its own, run against a
 * three-broker cluster in this process while the control plane injects faults drawn from a seeded
 * PRNG (`KAFKA_WIRE_SOAK_SEED`, printed; the schedule and every fault's target follow from it,
 * the clients' timing does not). Then:
 *
 * 1. At-least-once, nothing lost, nothing stored twice: idempotent producers of three clients
 *    (kafkajs 2.2.4, @confluentinc/kafka-javascript 1.10.1 on librdkafka 2.15.1, Debian's
 *    python3-confluent-kafka 1.7.0 on librdkafka 2.0.2) send numbered records to a six-partition
 *    topic; a KIP-848 consumer group of three members of two clients
 *    (two kafka-javascript, one @platformatic/kafka 2.12.1: the broker assigns, so the clients
 *    need no common assignor) consumes them. Faults: leader moves, NOT_LEADER_OR_FOLLOWER on
 *    Produce and Fetch, dropped connections, lost Produce responses (the batch appended, the
 *    connection closed before the answer: the producer must retry it and the broker must answer
 *    it as a duplicate), coordinator moves, a broker stopped and started, a member killed
 *    (SIGKILL: no leave) and replaced. Asserted: every acknowledged record is consumed by the
 *    group; no record is in the logs twice (read from the cluster's partitions, decoded with
 *    kafka-wire/records); after the last fault the group converges (three members, Stable,
 *    each at the group epoch with its target assignment, all partitions assigned, committed
 *    offsets at the log end) within a bound; the broker's memory stays under a ceiling.
 * 2. Exactly-once consume-transform-produce: kafkajs transactions (`sendOffsets`) read an input
 *    topic and write each record to an output topic, under faults of the transaction path too
 *    (EndTxn, AddPartitionsToTxn, AddOffsetsToTxn, TxnOffsetCommit dropped, the transaction
 *    coordinator moved, lost AddPartitionsToTxn/EndTxn/TxnOffsetCommit responses, the
 *    transformer killed and restarted with the same transactional id, which fences it). A read_committed consumer of the output sees every input record exactly
 *    once (and the log's committed transactions say the same).
 *
 * The broker runs in this vitest worker, the clients do not: the worker's memory is the
 * broker's (and this test's bookkeeping). Two client bugs the soak found are worked around in the
 * drivers (test/support/soak/): kafkajs's sends go to one partition each, @platformatic/kafka's
 * stream is started again when it fails.
 */

import { afterAll, beforeAll, expect, it } from "vitest";
import { codecs } from "../compression/src/index.js";
import {
  coordinatorFor,
  coordinatorPartition,
  DroppedByTest,
  startCluster,
  type RunningCluster,
} from "../broker/src/index.js";
import { decodeRecords } from "../src/records/index.js";
import type { Protocol } from "../src/runtime/index.js";
import { existsSync } from "node:fs";
import path from "node:path";
import { KAFKA_JAVASCRIPT, KAFKA_JAVASCRIPT_ADDON, NODE24 } from "./support/clients/installed.js";
import { DEBIAN_PYTHON, pythonModuleMissing } from "./support/clients/python.js";
import { corpusIndex } from "./support/corpus.js";
import { KafkaTestClient } from "./support/kcat.js";
import { peerMissing } from "./support/librdkafka.js";
import { platformaticMissing } from "./support/platformatic.js";
import { describeShared, REPO_ROOT } from "./support/shared.js";
import { Peer, rng, type PeerEvent } from "./support/soak/peers.js";

const SEED = Number(process.env["KAFKA_WIRE_SOAK_SEED"] ?? 20_2612);
const TOPIC = "soak-orders";
const PARTITIONS = 6;
const GROUP = "soak-group";
const TXN_IN = "soak-txn-in";
const TXN_OUT = "soak-txn-out";
const TXN_PARTITIONS = 3;
const TXN_GROUP = "soak-transform";
const TXN_ID = "soak-transformer";
/** How long faults are injected in each part. */
const FAULT_MS = 20_000;
/** The bound on convergence after the last fault (a killed member's session timeout included). */
const CONVERGE_MS = 60_000;
/** The broker's session timeout for KIP-848 members: a killed member's partitions move after it. */
const SESSION_TIMEOUT_MS = 4000;
/**
 * The ceiling on the worker's heap and buffers above their level when the cluster started
 * (`heapUsed + external`, sampled every 100 ms, garbage not yet collected included): +16 to
 * +30 MB at the peak in the runs so far (seeds 202612, 7, 99, 3, 41 on the shared 2-core machine)
 * while the logs held under 1 MB of record batches, so the ceiling is about twice what a run
 * needs; the figures are printed. Since the segment pool (broker/src/segment-pool.ts) `external`
 * also counts its first WebAssembly arena whole, 16 MiB (+32.8 MB in the first run with it).
 */
const MEMORY_CEILING_BYTES = 64 * 1024 * 1024;

const DRIVERS = path.join(REPO_ROOT, "test/support/soak");
const kafkajsDriver = (json: Record<string, unknown>) => ({
  command: process.execPath,
  args: [path.join(DRIVERS, "kafkajs.mjs")],
  json,
});
const kafkaJavascriptDriver = (json: Record<string, unknown>) => ({
  command: process.execPath,
  args: [path.join(DRIVERS, "kafka-javascript.mjs"), KAFKA_JAVASCRIPT],
  json,
});
const confluentPythonDriver = (json: Record<string, unknown>) => ({
  command: DEBIAN_PYTHON,
  args: [path.join(DRIVERS, "confluent_kafka_python.py")],
  json,
});
const platformaticDriver = (json: Record<string, unknown>) => ({
  command: NODE24,
  args: [path.join(DRIVERS, "platformatic.mjs")],
  json,
});

/** Resolves when `done()` holds, polling every 100 ms; rejects with `what()` after `timeoutMs`. */
async function until(done: () => boolean | Promise<boolean>, timeoutMs: number, what: () => string): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > end) throw new Error(`not within ${timeoutMs} ms: ${what()}`);
    await sleep(100);
  }
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Every data record of a partition's log as the broker stores it: key, offset, and its transaction's fate. */
async function logRecords(
  cluster: RunningCluster,
  topic: string,
  partition: number,
): Promise<{ key: string; offset: bigint; committed: boolean }[]> {
  const out: { key: string; offset: bigint; committed: boolean }[] = [];
  /** Open transactions' records, by producer id. */
  const open = new Map<bigint, { key: string; offset: bigint }[]>();
  for (const stored of cluster.cluster.partition(topic, partition)!.log.batches) {
    const set = await decodeRecords(stored.bytes, { codecs });
    for (const batch of set.batches) {
      if (batch.magic !== 2) throw new Error(`${topic}-${partition}: a legacy message set`);
      if (batch.isControl) {
        const marker = batch.records[0]?.control?.type;
        for (const r of open.get(batch.producerId) ?? []) out.push({ ...r, committed: marker === "COMMIT" });
        open.delete(batch.producerId);
        continue;
      }
      const records = batch.records.map((r) => ({
        key: new TextDecoder().decode(r.key!),
        offset: batch.baseOffset + BigInt(r.offsetDelta),
      }));
      if (!batch.isTransactional) out.push(...records.map((r) => ({ ...r, committed: true })));
      else open.set(batch.producerId, [...(open.get(batch.producerId) ?? []), ...records]);
    }
  }
  // Still open at the end: not committed (a read_committed reader stops before them).
  for (const rs of open.values()) for (const r of rs) out.push({ ...r, committed: false });
  return out;
}

/** Keys seen more than once. */
function repeated(keys: Iterable<string>): string[] {
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (const k of keys) (seen.has(k) ? twice : seen).add(k);
  return [...twice];
}

/** The worker's memory, sampled: the broker's, as no client runs here. */
class MemorySampler {
  readonly baseline = process.memoryUsage();
  peak = { heapAndBuffers: 0, rss: 0, at: 0 };
  private readonly timer = setInterval(() => this.sample(), 100);
  private readonly start = Date.now();

  sample(): void {
    const m = process.memoryUsage();
    const heapAndBuffers = m.heapUsed + m.external;
    if (heapAndBuffers > this.peak.heapAndBuffers)
      this.peak = { heapAndBuffers, rss: m.rss, at: Date.now() - this.start };
    this.peak.rss = Math.max(this.peak.rss, m.rss);
  }

  /** Above the baseline, in bytes. */
  growth(): number {
    return this.peak.heapAndBuffers - (this.baseline.heapUsed + this.baseline.external);
  }

  stop(): void {
    clearInterval(this.timer);
    this.sample();
  }
}

const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;

describeShared("kafka-wire-broker soak: real clients under seeded random faults", "kafka-schemas", () => {
  const missing = !existsSync(KAFKA_JAVASCRIPT_ADDON)
    ? {
        title: "@confluentinc/kafka-javascript 1.10.1",
        reason: `its addon is not built in ${KAFKA_JAVASCRIPT_ADDON} (run: bash .ci/install-kafka-javascript.sh)`,
      }
    : !existsSync(NODE24)
      ? { title: "Node.js 24", reason: "test/runtimes has no Node.js 24 (run: npm ci --prefix test/runtimes)" }
      : platformaticMissing() !== null
        ? { title: "@platformatic/kafka 2.12.1", reason: platformaticMissing() as string }
        : pythonModuleMissing("confluent_kafka", "python3-confluent-kafka");
  if (missing !== null) {
    peerMissing(missing.title, missing.reason);
    return;
  }

  let protocol: Protocol;
  let cluster: RunningCluster;
  let memory: MemorySampler;
  const peers: Peer[] = [];
  const figures: string[] = [];

  beforeAll(async () => {
    ({ protocol } = await corpusIndex());
    cluster = await startCluster({
      protocol,
      brokers: 3,
      topics: { [TOPIC]: PARTITIONS, [TXN_IN]: TXN_PARTITIONS, [TXN_OUT]: TXN_PARTITIONS },
      codecs,
      initialRebalanceDelayMs: 100,
      consumerHeartbeatIntervalMs: 300,
      consumerSessionTimeoutMs: SESSION_TIMEOUT_MS,
    });
    memory = new MemorySampler();
    console.log(`soak: seed ${SEED} (KAFKA_WIRE_SOAK_SEED=${SEED} repeats the fault schedule)`);
  });
  afterAll(async () => {
    for (const p of peers) p.kill();
    memory?.stop();
    await cluster?.close();
    if (figures.length > 0) console.log(figures.join("\n"));
  });

  const start = (
    name: string,
    driver: { command: string; args: string[]; json: Record<string, unknown> },
    onEvent: (peer: Peer, e: PeerEvent) => void,
  ) => {
    const peer = new Peer(
      name,
      driver.command,
      driver.args,
      { bootstrap: cluster.bootstrap, timeoutMs: 240_000, ...driver.json },
      onEvent,
    );
    peers.push(peer);
    return peer;
  };

  /** The running nodes' ids. */
  const running = () => cluster.nodes.map((n) => n.nodeId).filter((id) => !cluster.cluster.stopped.has(id));

  /**
   * Makes the next `times` responses of `apiKey` go missing: the request takes effect, then the
   * connection closes before the answer (a broker that crashed after appending, a network cut).
   */
  const loseResponses = (apiKey: 0 | 24 | 26 | 28, times: number) => {
    let left = times;
    const dispose = cluster.intercept(apiKey, async (request, _ctx, next) => {
      await next(request);
      if (left > 0 && --left === 0) dispose();
      throw new DroppedByTest(`soak: the response to api key ${apiKey} lost`);
    });
    return dispose;
  };

  /** Interceptors of `loseResponses` not used up yet (disposed when a part's faults end). */
  const disposers: (() => void)[] = [];
  type Random = ReturnType<typeof rng>;
  /** The faults both parts inject, each with its targets drawn from `random`; each returns its line of the schedule. */
  const fault = {
    /** `topic`-`partition`'s leadership to another running replica (the epoch goes up). */
    moveLeader(random: Random, topic: string, partition: number): string {
      const p = cluster.cluster.partition(topic, partition)!;
      const to = random.pick(running().filter((n) => n !== p.leader));
      cluster.moveLeader(topic, partition, to);
      return `moveLeader ${topic}-${partition} to ${to}`;
    },
    /** NOT_LEADER_OR_FOLLOWER for the next 1..3 Produce (0) or Fetch (1) requests of `topic`-`partition`. */
    notLeader(random: Random, apiKey: 0 | 1, topic: string, partition: number): string {
      const times = random.int(1, 3);
      cluster.fail({ apiKey, errorCode: "NOT_LEADER_OR_FOLLOWER", times, topic, partition });
      return `NOT_LEADER_OR_FOLLOWER on ${apiKey === 0 ? "Produce" : "Fetch"} ${topic}-${partition} ×${times}`;
    },
    /** The connections of the next 1..`maxTimes` requests of one of `apiKeys` closed unanswered (no effect). */
    drop(random: Random, apiKeys: readonly number[], maxTimes: number): string {
      const apiKey = random.pick(apiKeys);
      const times = random.int(1, maxTimes);
      cluster.drop({ apiKey, times });
      return `drop api key ${apiKey} ×${times}`;
    },
    /** The responses of the next 1..`maxTimes` requests of one of `apiKeys` lost (see loseResponses). */
    loseResponses(random: Random, apiKeys: readonly (0 | 24 | 26 | 28)[], maxTimes: number): string {
      const apiKey = random.pick(apiKeys);
      const times = random.int(1, maxTimes);
      disposers.push(loseResponses(apiKey, times));
      return `lose the responses of api key ${apiKey} ×${times}`;
    },
    /** `group`'s coordinator to another running node. */
    moveCoordinator(random: Random, group: string): string {
      const now = coordinatorFor(cluster.cluster, group, 0);
      const to = random.pick(running().filter((n) => typeof now === "number" || n !== now.nodeId));
      cluster.moveCoordinator(group, to);
      return `moveCoordinator ${group} to ${to}`;
    },
    /** A running node stopped for 1.5..3 s, then started. */
    async stopBroker(random: Random): Promise<string> {
      const node = random.pick(running());
      const downMs = random.int(1500, 3000);
      await cluster.stopBroker(node);
      await sleep(downMs);
      await cluster.startBroker(node);
      return `stopBroker ${node} for ${downMs} ms`;
    },
  };

  /**
   * Injects faults for {@link FAULT_MS}: every kind of `kinds` once and then those not in `once`
   * up to `total`, in an order drawn from `random`, 300..1000 ms apart; `inject` does one.
   * Then the faults not used up are cleared: what comes after is recovery.
   */
  const injectFaults = async <K extends string>(
    random: Random,
    kinds: readonly K[],
    once: readonly K[],
    total: number,
    inject: (kind: K) => string | Promise<string>,
  ) => {
    const schedule: K[] = [...kinds];
    while (schedule.length < total) schedule.push(random.pick(kinds.filter((k) => !once.includes(k))));
    for (let i = schedule.length - 1; i > 0; i--) {
      const j = random.int(0, i);
      [schedule[i], schedule[j]] = [schedule[j]!, schedule[i]!];
    }
    const injected = new Map<K, number>();
    const log: string[] = [];
    const began = Date.now();
    for (const kind of schedule) {
      if (Date.now() > began + FAULT_MS) break;
      await sleep(random.int(300, 1000));
      log.push(await inject(kind));
      injected.set(kind, (injected.get(kind) ?? 0) + 1);
    }
    const unused = cluster.cluster.control.pending().length;
    for (const d of disposers.splice(0)) d();
    cluster.cluster.control.clear();
    const summary =
      `  faults ${[...injected].map(([k, n]) => `${k} ${n}`).join(", ")} ` +
      `(${log.length} in ${Date.now() - began} ms; not used up at the end: ${unused})\n  schedule: ${log.join("; ")}`;
    return { injected, lastFault: Date.now(), summary };
  };

  /** ConsumerGroupDescribe v0 of `group`, asked of its coordinator. */
  const describeGroup = async (group: string) => {
    const node = coordinatorFor(cluster.cluster, group, 0);
    if (typeof node === "number") return null;
    const client = await KafkaTestClient.connect(node.host, node.port, protocol, { timeoutMs: 3000 });
    try {
      const reply = await client.call<{
        groups: {
          errorCode: number;
          groupState: string;
          groupEpoch: number;
          assignmentEpoch: number;
          members: {
            memberId: string;
            clientId: string;
            memberEpoch: number;
            assignment: { topicPartitions: { topicName: string; partitions: number[] }[] };
            targetAssignment: { topicPartitions: { topicName: string; partitions: number[] }[] };
          }[];
        }[];
      }>(69, 0, { groupIds: [group], includeAuthorizedOperations: false });
      return reply.body.groups[0]!;
    } finally {
      client.close();
    }
  };

  it("idempotent producers of three clients, a KIP-848 group of two clients: nothing acknowledged is lost or stored twice", async () => {
    const random = rng(SEED);
    const began = Date.now();

    // The group: members of two clients, each reporting what it reads and holds.
    type Member = { peer: Peer; client: string; held: number[]; got: number };
    const members: Member[] = [];
    /** By key, how many times the group handed it over. */
    const consumed = new Map<string, number>();
    /** By client, the records its members were handed that the group had handed over before. */
    const repeats = new Map<Member["client"], number>();
    /** A member's stream that failed and was started again (platformatic.mjs), with the reason. */
    const restarts: string[] = [];
    /** By "partition:offset", who read what there (the last one). */
    const readAt = new Map<string, string>();
    const onMember = (m: () => Member) => (_: Peer, e: PeerEvent) => {
      if (Array.isArray(e["got"])) {
        for (const [p, o, key] of e["got"] as [number, number, string][]) {
          const times = (consumed.get(key) ?? 0) + 1;
          consumed.set(key, times);
          if (times > 1) repeats.set(m().client, (repeats.get(m().client) ?? 0) + 1);
          readAt.set(`${p}:${o}`, `${m().peer.name}: ${key}`);
        }
        m().got += (e["got"] as unknown[]).length;
      }
      if (Array.isArray(e["held"])) m().held = e["held"] as number[];
      if (e["restarted"] !== undefined) restarts.push(`${m().peer.name}: ${String(e["error"])}`);
    };
    let memberCount = 0;
    const addMember = (client: "kafka-javascript" | "platformatic") => {
      const json = { role: "member", topic: TOPIC, groupId: GROUP };
      const member: Member = { peer: undefined as never, client, held: [], got: 0 };
      member.peer = start(
        `member ${++memberCount} (${client})`,
        client === "platformatic" ? platformaticDriver(json) : kafkaJavascriptDriver(json),
        onMember(() => member),
      );
      members.push(member);
      return member;
    };
    const live = () => members.filter((m) => !m.peer.killed && !m.peer.gone);
    for (const client of ["kafka-javascript", "kafka-javascript", "platformatic"] as const) addMember(client);
    await Promise.all(members.map((m) => m.peer.waitReady(60_000)));
    await until(
      () => new Set(members.flatMap((m) => m.held)).size === PARTITIONS && members.every((m) => m.held.length > 0),
      60_000,
      () => `the members hold ${members.map((m) => `[${m.held}]`).join(" ")}`,
    );

    // The producers: numbered records, acknowledged or failed.
    const acked = new Map<string, string>();
    const failed: string[] = [];
    const producerErrors: string[] = [];
    const onProducer = (peer: Peer, e: PeerEvent) => {
      for (const id of (e["acked"] as string[] | undefined) ?? []) acked.set(id, peer.name);
      if (Array.isArray(e["failed"])) {
        failed.push(...(e["failed"] as string[]));
        producerErrors.push(`${peer.name}: ${String(e["error"])}`);
      }
    };
    const production = { topic: TOPIC, role: "produce", batch: 5, intervalMs: 40, max: 100_000 };
    const producers = [
      start(
        "kafkajs producer",
        kafkajsDriver({ ...production, prefix: "kafkajs", partitions: PARTITIONS }),
        onProducer,
      ),
      start(
        "kafka-javascript producer",
        kafkaJavascriptDriver({ ...production, prefix: "kafka-javascript" }),
        onProducer,
      ),
      start(
        "confluent-kafka-python producer",
        confluentPythonDriver({ ...production, prefix: "confluent-kafka-python" }),
        onProducer,
      ),
    ];
    await Promise.all(producers.map((p) => p.waitReady(60_000)));

    // The faults, each kind at least once, in a seeded order with seeded gaps and targets.
    const kinds = [
      "moveLeader",
      "failProduce",
      "failFetch",
      "drop",
      "loseProduceResponses",
      "moveCoordinator",
      "stopBroker",
      "killMember",
    ] as const;
    const { injected, lastFault, summary } = await injectFaults(
      random,
      kinds,
      ["stopBroker", "killMember"],
      22,
      async (kind) => {
        const partition = random.int(0, PARTITIONS - 1);
        switch (kind) {
          case "moveLeader":
            return fault.moveLeader(random, TOPIC, partition);
          case "failProduce":
            return fault.notLeader(random, 0, TOPIC, partition);
          case "failFetch":
            return fault.notLeader(random, 1, TOPIC, partition);
          case "drop":
            // Produce, Fetch, ConsumerGroupHeartbeat, OffsetCommit, Metadata.
            return fault.drop(random, [0, 1, 68, 8, 3], 2);
          case "loseProduceResponses":
            return fault.loseResponses(random, [0], 2);
          case "moveCoordinator":
            return fault.moveCoordinator(random, GROUP);
          case "stopBroker":
            return fault.stopBroker(random);
          case "killMember": {
            const victim = random.pick(live());
            victim.peer.kill();
            const replacement = addMember(victim.client as "kafka-javascript" | "platformatic");
            return `killMember ${victim.peer.name}, replaced by ${replacement.peer.name}`;
          }
        }
      },
    );

    // Production ends; then the group must converge and catch up.
    for (const p of producers) {
      const end = await p.stop(45_000);
      expect(end.timedOut, `${p.name} did not stop:\n${p.stderr()}`).toBe(false);
    }
    const logEnd = () => cluster.cluster.topics.get(TOPIC)!.partitions.map((p) => p.log.logEndOffset);
    const committed = () =>
      Array.from({ length: PARTITIONS }, (_, p) => cluster.cluster.groups.committed(GROUP, TOPIC, p)?.offset ?? -1n);
    let described: Awaited<ReturnType<typeof describeGroup>> | string = null;
    const stable = async () => {
      const group = await describeGroup(GROUP).catch((e: Error) => e.message);
      described = group;
      if (typeof group === "string" || group === null || group.errorCode !== 0 || group.groupState !== "Stable") {
        return false;
      }
      const assigned = group.members.flatMap((m) => m.assignment.topicPartitions.flatMap((t) => t.partitions));
      return (
        group.members.length === 3 &&
        group.members.every(
          (m) =>
            m.memberEpoch === group.groupEpoch &&
            JSON.stringify(m.assignment) === JSON.stringify(m.targetAssignment) &&
            m.assignment.topicPartitions.some((t) => t.partitions.length > 0),
        ) &&
        assigned.length === PARTITIONS &&
        new Set(assigned).size === PARTITIONS
      );
    };
    /** Debugging a missing record: where the logs hold it, and what the members read around it. */
    const where = (key: string) => {
      for (const p of cluster.cluster.topics.get(TOPIC)!.partitions) {
        for (const b of p.log.batches) {
          if (Buffer.from(b.bytes).includes(Buffer.from(key))) {
            const near = [...readAt].filter(
              ([at]) => at.startsWith(`${p.index}:`) && Math.abs(Number(at.split(":")[1]) - Number(b.baseOffset)) <= 6,
            );
            return { partition: p.index, batch: `${b.baseOffset}..${b.lastOffset}`, near };
          }
        }
      }
      return "not in the logs";
    };
    const missingKeys = () => [...acked.keys()].filter((k) => !consumed.has(k));
    await until(
      async () => {
        const held = live().flatMap((m) => m.held);
        return (
          missingKeys().length === 0 &&
          committed().every((c, p) => c === logEnd()[p]) &&
          live().length === 3 &&
          held.length === PARTITIONS &&
          new Set(held).size === PARTITIONS &&
          (await stable())
        );
      },
      CONVERGE_MS,
      () =>
        `${missingKeys().length} acknowledged records not consumed (${missingKeys().slice(0, 5)}); ` +
        `committed ${committed()} of log ends ${logEnd()}; live members hold ` +
        `${live()
          .map((m) => `${m.peer.name} [${m.held}]`)
          .join(", ")}; described ${JSON.stringify(described)}\n` +
        `where: ${missingKeys()
          .slice(0, 5)
          .map((k) => `${k} at ${JSON.stringify(where(k))}`)
          .join("; ")}\n` +
        live()
          .map((m) => `${m.peer.name} stderr: ${m.peer.stderr().slice(-1500)}`)
          .join("\n"),
    );
    const converged = Date.now();

    // The logs, read directly: every record once, every acknowledged one there.
    const stored: string[] = [];
    for (let p = 0; p < PARTITIONS; p++) stored.push(...(await logRecords(cluster, TOPIC, p)).map((r) => r.key));
    const storedSet = new Set(stored);
    expect(repeated(stored), "records stored twice").toEqual([]);
    expect(
      [...acked.keys()].filter((k) => !storedSet.has(k)),
      "acknowledged records not in the logs",
    ).toEqual([]);
    // Nothing but what the producers sent.
    expect(stored.filter((k) => !acked.has(k) && !failed.includes(k))).toEqual([]);

    for (const m of live()) {
      const end = await m.peer.stop(20_000);
      expect(end.timedOut, `${m.peer.name} did not stop`).toBe(false);
    }
    memory.sample();

    const redelivered = [...consumed.values()].filter((n) => n > 1).length;
    figures.push(
      `soak part 1 (seed ${SEED}): ${acked.size + failed.length} records sent, ${acked.size} acknowledged ` +
        `(${[...producers].map((p) => `${p.name} ${[...acked.values()].filter((n) => n === p.name).length}`).join(", ")}), ` +
        `${failed.length} failed${producerErrors.length > 0 ? ` (first: ${producerErrors[0]})` : ""}; ${stored.length} in the logs; ` +
        `${consumed.size} distinct consumed (${redelivered} handed over more than once, at-least-once; ` +
        `handed over again to kafka-javascript members ${repeats.get("kafka-javascript") ?? 0}, to platformatic ${repeats.get("platformatic") ?? 0}); ` +
        `members ${members.map((m) => `${m.peer.name}${m.peer.killed ? " killed" : ""}: ${m.got}`).join(", ")}`,
      `  member streams started again after a failure: ${restarts.length}${restarts.length > 0 ? ` (first: ${restarts[0]})` : ""}`,
      summary,
      `  converged ${converged - lastFault} ms after the last fault; part 1 took ${converged - began} ms`,
    );
    expect(acked.size).toBeGreaterThan(0);
    expect(new Set(injected.keys())).toEqual(new Set(kinds));
    // At-least-once hands over again what a member had read and not yet committed when its
    // partitions moved (a kill, a join: the uniform assignor is not sticky) or its stream failed:
    // up to a few hundred ms of those partitions each time. To the kafka-javascript members
    // (librdkafka, which asks the coordinator for the committed offset of each partition it gains)
    // 0 to 249 records of about 5,800 in 12 runs on 2026-12-06. A consumer sent back to the
    // earliest offset reads whole partitions again (librdkafka did after each leader move while
    // OffsetForLeaderEpoch answered older epochs with -1/-1: 35 to 55 %), which this bound catches.
    // Not bounded: what the platformatic member is handed again (0 to 691 in those runs; in another
    // that day 1,282 records, 22 %, were handed over more than once, nearly all to it, and failed
    // the bound of 20 % that every member then shared).
    // @platformatic/kafka 2.12.1 refreshes a stream's offsets when its assignment grows, and when
    // that refresh fails it carries on without it (kRefreshOffsetsAndFetch does not destroy the
    // stream): it then fetches a gained partition from the offset it last had for it, the earliest
    // (seeded for every partition when the stream started) or where it stopped when the partition
    // moved away; the broker saw no OffsetFetch for such a partition in the runs that re-read one.
    expect(repeats.get("kafka-javascript") ?? 0, "records handed over again to kafka-javascript members").toBeLessThan(
      consumed.size / 8,
    );
    expect(memory.growth(), "the broker's heap and buffers above their start").toBeLessThan(MEMORY_CEILING_BYTES);
  }, 240_000);

  it("consume-transform-produce with kafkajs transactions: each input record exactly once in the read_committed output", async () => {
    const random = rng(SEED ^ 0x5eed);
    const began = Date.now();
    const acked = new Set<string>();
    const producer = start(
      "kafkajs input producer",
      kafkajsDriver({
        role: "produce",
        topic: TXN_IN,
        prefix: "in",
        partitions: TXN_PARTITIONS,
        batch: 5,
        intervalMs: 50,
        max: 100_000,
      }),
      (_, e) => {
        for (const id of (e["acked"] as string[] | undefined) ?? []) acked.add(id);
      },
    );
    await producer.waitReady(60_000);

    let transformers = 0;
    let aborted = 0;
    let fatal = 0;
    /** Why transactions were aborted, and why a transformer gave up (distinct messages). */
    const reasons = new Set<string>();
    let transformer: Peer;
    const startTransformer = () => {
      transformer = start(
        `transformer ${++transformers}`,
        kafkajsDriver({
          role: "transform",
          topic: TXN_IN,
          outTopic: TXN_OUT,
          groupId: TXN_GROUP,
          transactionalId: TXN_ID,
          sessionTimeoutMs: 6000,
          maxPerTransaction: 50,
        }),
        (peer, e) => {
          if (e["aborted"] !== undefined) {
            aborted++;
            reasons.add(`${peer.name} aborted: ${String(e["error"])}`);
          }
          if (e["fatal"] !== undefined) {
            fatal++;
            reasons.add(`${peer.name} gave up: ${String(e["fatal"])}`);
          }
        },
      );
      const self = transformer;
      // One that gave up on its own (its producer fenced or lost) is replaced, as an application would be.
      void self.exited.then(() => {
        if (!self.killed && transformer === self && !stopping) startTransformer();
      });
    };
    let stopping = false;
    startTransformer();
    await transformer!.waitReady(60_000);

    const kinds = [
      "moveLeader",
      "failProduce",
      "failFetch",
      "drop",
      "loseTxnResponse",
      "moveTxnCoordinator",
      "moveCoordinator",
      "stopBroker",
      "killTransformer",
    ] as const;
    const { injected, lastFault, summary } = await injectFaults(
      random,
      kinds,
      ["stopBroker", "killTransformer"],
      18,
      async (kind) => {
        const partition = random.int(0, TXN_PARTITIONS - 1);
        switch (kind) {
          case "moveLeader":
            return fault.moveLeader(random, random.pick([TXN_IN, TXN_OUT]), partition);
          case "failProduce":
            return fault.notLeader(random, 0, TXN_OUT, partition);
          case "failFetch":
            return fault.notLeader(random, 1, TXN_IN, partition);
          case "drop":
            // AddPartitionsToTxn, AddOffsetsToTxn, EndTxn, TxnOffsetCommit, Fetch, Heartbeat.
            return fault.drop(random, [24, 25, 26, 28, 1, 12], 1);
          case "loseTxnResponse":
            // AddPartitionsToTxn, EndTxn, TxnOffsetCommit: done, but the client does not know.
            return fault.loseResponses(random, [24, 26, 28], 1);
          case "moveTxnCoordinator": {
            // The transaction coordinator: the leader of the transactional id's __transaction_state partition.
            return fault.moveLeader(random, "__transaction_state", coordinatorPartition(TXN_ID));
          }
          case "moveCoordinator":
            return fault.moveCoordinator(random, TXN_GROUP);
          case "stopBroker":
            return fault.stopBroker(random);
          case "killTransformer": {
            const victim = transformer!;
            victim.kill();
            await victim.exited;
            startTransformer();
            return `killTransformer ${victim.name}, replaced by ${transformer!.name}`;
          }
        }
      },
    );

    const stoppedProducer = await producer.stop(45_000);
    expect(stoppedProducer.timedOut, `the input producer did not stop:\n${producer.stderr()}`).toBe(false);
    const inputEnd = () => cluster.cluster.topics.get(TXN_IN)!.partitions.map((p) => p.log.logEndOffset);
    const committed = () =>
      Array.from(
        { length: TXN_PARTITIONS },
        (_, p) => cluster.cluster.groups.committed(TXN_GROUP, TXN_IN, p)?.offset ?? -1n,
      );
    await until(
      () => committed().every((c, p) => c === inputEnd()[p]),
      CONVERGE_MS,
      () => `the transformer committed ${committed()} of the input's ends ${inputEnd()}:\n${transformer!.stderr()}`,
    );
    const caughtUp = Date.now();
    stopping = true;
    await transformer!.stop(20_000);

    // The input, from its logs: each record once (an idempotent producer), each acknowledged one there.
    const input: string[] = [];
    for (let p = 0; p < TXN_PARTITIONS; p++) input.push(...(await logRecords(cluster, TXN_IN, p)).map((r) => r.key));
    expect(repeated(input), "input records stored twice").toEqual([]);
    expect(
      [...acked].filter((k) => !input.includes(k)),
      "acknowledged input records not in the log",
    ).toEqual([]);

    // The output's committed records, from the log (transactions' markers), and as a read_committed reader sees them.
    const output = await Promise.all(Array.from({ length: TXN_PARTITIONS }, (_, p) => logRecords(cluster, TXN_OUT, p)));
    const committedOutput = output.flat().filter((r) => r.committed);
    const lastCommitted = output.map((rs) =>
      rs.filter((r) => r.committed).reduce((a, r) => (r.offset > a ? r.offset : a), -1n),
    );
    const read: string[] = [];
    const position = new Array<number>(TXN_PARTITIONS).fill(-1);
    const reader = start(
      "read_committed reader",
      kafkajsDriver({ role: "read", topic: TXN_OUT, groupId: "soak-reader" }),
      (_, e) => {
        for (const [p, offset, key] of (e["got"] as [number, number, string][] | undefined) ?? []) {
          read.push(key);
          position[p] = Math.max(position[p]!, offset);
        }
      },
    );
    await reader.waitReady(60_000);
    await until(
      () => position.every((at, p) => BigInt(at) >= lastCommitted[p]!),
      30_000,
      () => `the reader is at ${position}, the last committed records at ${lastCommitted}`,
    );
    await reader.stop(20_000);

    const inputSet = new Set(input);
    expect(repeated(read), "output records a read_committed reader saw twice").toEqual([]);
    expect(
      [...inputSet].filter((k) => !read.includes(k)),
      "input records missing from the output",
    ).toEqual([]);
    expect(read.filter((k) => !inputSet.has(k))).toEqual([]);
    expect(read.length).toBe(inputSet.size);
    expect(committedOutput.map((r) => r.key).sort(), "the log's committed output is what the reader saw").toEqual(
      [...read].sort(),
    );
    memory.stop();

    const abortedInLog = output.flat().filter((r) => !r.committed).length;
    figures.push(
      `soak part 2 (seed ${SEED}): ${acked.size} input records acknowledged, ${input.length} in the input log; ` +
        `${read.length} read_committed from the output (each once), ${abortedInLog} aborted records in the output log; ` +
        `${transformers} transformers (${fatal} gave up and were replaced), ${aborted} transactions aborted by the transformer`,
      summary,
      `  why: ${[...reasons].join("; ") || "-"}`,
      `  the transformer caught up ${caughtUp - lastFault} ms after the last fault; part 2 took ${Date.now() - began} ms`,
      `  broker memory (this worker, heapUsed + external): baseline ${mb(memory.baseline.heapUsed + memory.baseline.external)}, ` +
        `peak ${mb(memory.peak.heapAndBuffers)} (+${mb(memory.growth())}, ceiling +${mb(MEMORY_CEILING_BYTES)}), peak rss ${mb(memory.peak.rss)}; ` +
        `record batches stored ${mb(cluster.cluster.storedBytes)}`,
    );
    expect(new Set(injected.keys())).toEqual(new Set(kinds));
    expect(memory.growth()).toBeLessThan(MEMORY_CEILING_BYTES);
  }, 240_000);
});
