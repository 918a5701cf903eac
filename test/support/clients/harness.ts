/**
 * The harness of the real-client tests (test/clients-*.test.ts): one scenario, run by each client
 * through a driver of its own (this folder, one file each), against a fresh broker; each step of
 * it is a test of its own, so the output gives pass or fail per client and step, and each
 * client's request sequence (api key name and version, as the broker recorded it).
 *
 * The scenario (what a driver does, in this order; a failed step does not stop the later ones
 * that do not depend on it):
 * 1. `admin` (clients with an admin API): creates a topic of 2 partitions and finds it in the
 *    client's metadata. The topics of the other steps exist from the broker's start, so that each
 *    step fails on its own.
 * 2. `produce`: phase 1, one send per codec the client supports, keyed messages with headers;
 *    later phases 2 and 3 (uncompressed) as the group steps below ask for them.
 * 3. `group`: two members join one group and consume phase 1 between them (both get some),
 *    commit; member 2 leaves, member 1 is given every partition and consumes phase 2 (from
 *    member 2's committed offsets: nothing of phase 1 again), commits and leaves.
 * 4. `resume`: phase 3 is produced, then a new member of the group consumes from the committed
 *    offsets: exactly phase 3.
 * 5. `transactions` (clients with a transactional producer): transaction 1 commits, transaction 2
 *    aborts, transaction 3 commits; a `read_committed` consumer sees transactions 1 and 3 only.
 * 6. `consumeTransformProduce`: a group member reads the committed input (read_committed), a
 *    transactional producer writes each record transformed (value upper-cased, a header added)
 *    and sends the group's offsets to the transaction, then commits; a `read_committed` reader of
 *    the output sees every transformed record, and the group's committed offsets are the input's
 *    end offsets.
 */

import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { codecs } from "../../../compression/src/index.js";
import { startCluster, type Exchange } from "../../../broker/src/index.js";
import type { Protocol } from "../../../src/runtime/index.js";
import { corpusIndex } from "../corpus.js";
import { KafkaTestClient } from "../kcat.js";
import { peerMissing } from "../librdkafka.js";
import { describeShared } from "../shared.js";

/** A record as every client can write and read it: text key and value, headers in order. */
export interface Message {
  key: string;
  value: string;
  headers: [string, string][];
}

export type Codec = "none" | "gzip" | "snappy" | "lz4" | "zstd";
export const ALL_CODECS: readonly Codec[] = ["none", "gzip", "snappy", "lz4", "zstd"];

export type StepName = "admin" | "produce" | "group" | "resume" | "transactions" | "consumeTransformProduce";

/** What a driver is asked to do (also its JSON argument, for drivers in another process). */
export interface Scenario {
  readonly bootstrap: string;
  /** The driver's own bound for the whole run; the harness kills it a little later. */
  readonly timeoutMs: number;
  /** The topic the admin step creates (2 partitions). */
  readonly adminTopic: string;
  readonly topic: string;
  readonly partitions: number;
  readonly groupId: string;
  /** KIP-848 (`consumer`) or the classic protocol. */
  readonly groupProtocol: "classic" | "consumer";
  readonly phase1: readonly { readonly codec: Codec; readonly messages: readonly Message[] }[];
  readonly phase2: readonly Message[];
  readonly phase3: readonly Message[];
  /** Present for clients with transactions. */
  readonly txn?: {
    readonly topic: string;
    readonly outTopic: string;
    readonly groupId: string;
    readonly transactionalId: string;
    /** Transactions 1 (committed), 2 (aborted) and 3 (committed), in this order. */
    readonly committed1: readonly Message[];
    readonly aborted: readonly Message[];
    readonly committed3: readonly Message[];
  };
}

/** One step as the driver saw it. */
export interface StepResult {
  ok: boolean;
  /** The client's error, when the step failed. */
  error?: string;
}

/** What a driver reports (JSON on the last line of stdout, for drivers in another process). */
export interface DriverResult {
  steps: Partial<Record<StepName, StepResult>>;
  /** Phase 1 as each member of the group consumed it, and phase 2 as member 1 consumed it. */
  group?: { phase1: Message[][]; phase2: Message[] };
  resume?: { consumed: Message[] };
  txn?: { readCommitted: Message[] };
  ctp?: {
    output: Message[];
    /** Per input partition: the group's committed offset, the offset of the last record read, the end offset. */
    committed: { partition: number; offset: number }[];
    lastRecords: { partition: number; offset: number }[];
    endOffsets: { partition: number; offset: number }[];
  };
}

/** The transformation of consume-transform-produce. */
export function transform(m: Message): Message {
  return { key: m.key, value: m.value.toUpperCase(), headers: [...m.headers, ["transformed", "yes"]] };
}

/** `count` messages tagged with `tag`; values of growing size (so that compression has work to do). */
export function messages(tag: string, count: number, headers: [string, string][]): Message[] {
  return Array.from({ length: count }, (_, i) => ({
    key: `${tag}-key-${i}`,
    value: `${tag} value ${i} ${"abc".repeat(i * 5)}`,
    headers,
  }));
}

/** Order-free comparison of distinct messages: a group reads partitions in any interleaving. */
export const canonical = (ms: readonly Message[]): string[] => [...new Set(ms.map((m) => JSON.stringify(m)))].sort();

/** Every message once, whoever read it. */
export function distinct(ms: readonly Message[]): Message[] {
  const seen = new Map<string, Message>();
  for (const m of ms) seen.set(JSON.stringify(m), m);
  return [...seen.values()];
}

/** Builds the scenario for one client. */
export function scenario(
  client: string,
  bootstrap: string,
  options: {
    codecs: readonly Codec[];
    groupProtocol?: "classic" | "consumer";
    transactions: boolean;
    /** Headers of every phase-1 message besides `codec`; default: a repeated key and an empty value. */
    headers?: [string, string][];
    timeoutMs: number;
  },
): Scenario {
  const slug = client.replace(/[^a-zA-Z0-9]+/g, "-").replace(/^-|-$/g, "");
  const headers = options.headers ?? [
    ["trace", "1"],
    ["trace", "2"],
    ["empty", ""],
  ];
  return {
    bootstrap,
    timeoutMs: options.timeoutMs,
    adminTopic: `${slug}-admin`,
    topic: `${slug}-records`,
    partitions: 3,
    groupId: `${slug}-group`,
    groupProtocol: options.groupProtocol ?? "classic",
    phase1: options.codecs.map((codec) => ({
      codec,
      messages: messages(`${slug}-${codec}`, 10, [["codec", codec], ...headers]),
    })),
    phase2: messages(`${slug}-phase2`, 9, [["phase", "2"]]),
    phase3: messages(`${slug}-phase3`, 9, [["phase", "3"]]),
    ...(options.transactions
      ? {
          txn: {
            topic: `${slug}-txn-in`,
            outTopic: `${slug}-txn-out`,
            groupId: `${slug}-ctp-group`,
            transactionalId: `${slug}-txn`,
            committed1: messages(`${slug}-txn1`, 6, [["txn", "1"]]),
            aborted: messages(`${slug}-txn2-aborted`, 6, [["txn", "2"]]),
            committed3: messages(`${slug}-txn3`, 6, [["txn", "3"]]),
          },
        }
      : {}),
  };
}

/** The topics the broker starts with (all but the admin step's). */
export function scenarioTopics(s: Scenario): { name: string; partitions: number }[] {
  const topics = [{ name: s.topic, partitions: s.partitions }];
  if (s.txn !== undefined) {
    topics.push({ name: s.txn.topic, partitions: 2 }, { name: s.txn.outTopic, partitions: 2 });
  }
  return topics;
}

/**
 * The requests in the order the broker answered them, repeats folded: `Metadata v12 ×2`, and a
 * repeated cycle of up to 8 requests (a consumer's idle `Fetch, Heartbeat`) as `(Fetch v11, Heartbeat v3) ×40`.
 */
export function sequence(protocol: Protocol, exchanges: readonly Exchange[]): string {
  const tokens = exchanges.map(
    (e) => `${apiName(protocol, e.apiKey)} v${e.apiVersion}${e.error !== null ? " (closed)" : ""}`,
  );
  const out: string[] = [];
  let i = 0;
  while (i < tokens.length) {
    let best = { length: 1, repeats: 1 };
    for (let length = 1; length <= 8 && i + 2 * length <= tokens.length; length++) {
      let repeats = 1;
      while (
        i + (repeats + 1) * length <= tokens.length &&
        tokens.slice(i + repeats * length, i + (repeats + 1) * length).every((t, k) => t === tokens[i + k])
      ) {
        repeats++;
      }
      if (repeats > 1 && repeats * length > best.repeats * best.length) best = { length, repeats };
    }
    const block = tokens.slice(i, i + best.length);
    const text = block.length === 1 ? block[0]! : `(${block.join(", ")})`;
    out.push(best.repeats > 1 ? `${text} ×${best.repeats}` : text);
    i += best.length * best.repeats;
  }
  const text = out.join(", ");
  // An idle consumer's polling adds little: the first 3000 characters, and how many were left out.
  if (text.length <= 3000) return text;
  const cut = text.lastIndexOf(", ", 3000);
  return `${text.slice(0, cut)}, … (${text.slice(cut).split(", ").length - 1} more entries)`;
}

/** The distinct requests with their counts, in the order first seen. */
export function requestSummary(protocol: Protocol, exchanges: readonly Exchange[]): string {
  const counts = new Map<string, number>();
  for (const e of exchanges) {
    const name = `${apiName(protocol, e.apiKey)} v${e.apiVersion}${e.error !== null ? " (closed)" : ""}`;
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return [...counts].map(([name, n]) => `${name} ×${n}`).join(", ");
}

const apiName = (protocol: Protocol, apiKey: number) => protocol.apis.get(apiKey)?.name ?? `api key ${apiKey}`;

/** The requests the broker refused by closing the connection, each kind once, with the first one's bytes. */
export function refused(protocol: Protocol, exchanges: readonly Exchange[]): string[] {
  const seen = new Map<string, string>();
  for (const e of exchanges) {
    if (e.error === null) continue;
    const what = `${apiName(protocol, e.apiKey)} v${e.apiVersion}: ${e.error.message}`;
    if (!seen.has(what)) seen.set(what, `${what}\n    request ${Buffer.from(e.request).toString("hex")}`);
  }
  return [...seen.values()];
}

/** A broker for one client's run, recording every exchange. */
export interface Target {
  readonly bootstrap: string;
  readonly exchanges: Exchange[];
  close(): Promise<void>;
}

/** Brokers of the cluster the clients are tested against: partition leaders and coordinators spread over them. */
export const BROKERS = 3;

/** Starts the cluster the clients are tested against, with `topics`. */
export async function startTarget(
  protocol: Protocol,
  topics: readonly { name: string; partitions: number }[],
): Promise<Target> {
  const exchanges: Exchange[] = [];
  const cluster = await startCluster({
    protocol,
    brokers: BROKERS,
    topics: Object.fromEntries(topics.map((t) => [t.name, t.partitions])),
    codecs,
    // Kafka's own defaults (3000 ms, 5000 ms) only make the runs slower.
    initialRebalanceDelayMs: 100,
    consumerHeartbeatIntervalMs: 300,
    onExchange: (e) => exchanges.push(e),
  });
  return { bootstrap: cluster.bootstrap, exchanges, close: () => cluster.close() };
}

/** A child process's end: how it ended and what it printed. */
export interface ChildRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

/**
 * Runs a program in a process group of its own and kills the whole group (SIGKILL) after
 * `timeoutMs`, so that no client process outlives the test.
 */
export function runChild(
  file: string,
  args: readonly string[],
  options: { timeoutMs: number; env?: Record<string, string>; cwd?: string; input?: string },
): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
      env: { ...process.env, ...options.env },
      cwd: options.cwd,
      detached: true,
    });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    child.stdout!.setEncoding("utf8").on("data", (s: string) => {
      if (stdout.length < 4 << 20) stdout += s;
    });
    child.stderr!.setEncoding("utf8").on("data", (s: string) => {
      if (stderr.length < 1 << 20) stderr += s;
    });
    const killGroup = () => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, options.timeoutMs);
    child.once("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      // Anything the driver left behind in its group (a kcat it started) goes with it.
      killGroup();
      resolve({ code, signal, stdout, stderr, timedOut });
    });
    if (options.input !== undefined) {
      child.stdin!.on("error", () => {});
      child.stdin!.end(options.input);
    }
  });
}

/** Runs a driver in another process: the scenario as its JSON argument, its result as the last stdout line. */
export async function runDriver(
  file: string,
  args: readonly string[],
  s: Scenario,
  options: { env?: Record<string, string>; cwd?: string } = {},
): Promise<DriverResult> {
  const child = await runChild(file, [...args, JSON.stringify(s)], { ...options, timeoutMs: s.timeoutMs + 15_000 });
  const last = child.stdout.trimEnd().split("\n").pop() ?? "";
  let result: DriverResult;
  try {
    result = JSON.parse(last) as DriverResult;
  } catch {
    throw new Error(
      `the driver printed no result (code ${child.code}, signal ${child.signal}${child.timedOut ? ", killed after its time-out" : ""})\n` +
        `stderr (last 4000 characters):\n${child.stderr.slice(-4000)}`,
    );
  }
  if (child.stderr.trim() !== "") result.steps = annotate(result.steps, child.stderr.slice(-2000));
  return result;
}

/** Adds the driver's stderr to the failed steps' errors (the client's own logs tell why). */
function annotate(steps: DriverResult["steps"], stderr: string): DriverResult["steps"] {
  const out: DriverResult["steps"] = {};
  for (const [name, step] of Object.entries(steps) as [StepName, StepResult][]) {
    out[name] = step.ok ? step : { ...step, error: `${step.error}\n--- driver stderr (end):\n${stderr}` };
  }
  return out;
}

/** Runs `f` as one step: its result, or its error as the step's. */
export async function step(steps: DriverResult["steps"], name: StepName, f: () => Promise<void>): Promise<void> {
  try {
    await f();
    steps[name] = { ok: true };
  } catch (e) {
    steps[name] = { ok: false, error: e instanceof Error ? (e.stack ?? e.message) : String(e) };
  }
}

/** Resolves when `done()` holds, polling every 20 ms; rejects with `what()` after `timeoutMs`. */
export async function until(done: () => boolean, timeoutMs: number, what: () => string): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > end) throw new Error(`not within ${timeoutMs} ms: ${what()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * A step Kafka 4 cannot serve for a client older than its baseline: the client needs versions of
 * `api` that Kafka 4 removed (KIP-896: every api keeps only what Kafka 2.1 had at its newest, and
 * later versions). Kafka 4's SocketServer refuses a request of a version it does not enable
 * (`parseRequestHeader`: InvalidRequestException) by closing the connection; ApiVersions tells a
 * client the range beforehand.
 */
export interface Kafka4Refusal {
  /** The api's name as in Kafka's schemas (`Metadata`, `JoinGroup`). */
  readonly api: string;
  /** The versions of it the client sends (all below `kafka4Min`). */
  readonly sends: readonly number[];
  /** Kafka 4's lowest version of the api (KIP-896). */
  readonly kafka4Min: number;
}

/** What a client suite declares. */
export interface ClientSuite {
  /** The client as the output names it, with its version. */
  readonly client: string;
  /** Why it cannot run here (then one failing test under CI=true, a skip otherwise), or null. */
  readonly missing: () => { title: string; reason: string } | null;
  readonly codecs: readonly Codec[];
  readonly groupProtocol?: "classic" | "consumer";
  /** True when the client has an admin API that creates topics. */
  readonly admin: boolean;
  readonly transactions: boolean;
  readonly headers?: [string, string][];
  /** The driver's bound for the whole scenario. Default 120 s. */
  readonly timeoutMs?: number;
  readonly run: (s: Scenario) => Promise<DriverResult>;
  /** Extra checks on the recorded requests (an api the run must have used). */
  readonly requests?: (names: string[]) => void;
  /**
   * The steps Kafka 4 cannot serve for this client (see {@link Kafka4Refusal}): each one's test
   * asserts that the step failed, that the broker's ApiVersions gives Kafka 4's range of the api,
   * and that every request of a removed version of it was refused by closing the connection.
   */
  readonly kafka4Refuses?: Partial<Record<StepName, Kafka4Refusal>>;
  /** What the resume step's consumer is, when not a new group member (a client Kafka 4 refuses JoinGroup). */
  readonly resumeBy?: string;
}

/**
 * Registers one client's tests: a `describe` whose `beforeAll` runs the driver once against a
 * fresh broker, and one `it` per step of the scenario (see this module's doc).
 */
export function clientSuite(suite: ClientSuite): void {
  describeShared(suite.client, "kafka-schemas", () => {
    const missing = suite.missing();
    if (missing !== null) {
      peerMissing(missing.title, missing.reason);
      return;
    }
    let protocol: Protocol;
    let s: Scenario;
    let result: DriverResult;
    let exchanges: Exchange[] = [];
    let advertised: ApiRange[] = [];

    beforeAll(async () => {
      ({ protocol } = await corpusIndex());
      const probe = scenario(suite.client, "", {
        codecs: suite.codecs,
        transactions: suite.transactions,
        timeoutMs: 0,
      });
      const target = await startTarget(protocol, scenarioTopics(probe));
      exchanges = target.exchanges;
      s = scenario(suite.client, target.bootstrap, {
        codecs: suite.codecs,
        groupProtocol: suite.groupProtocol,
        transactions: suite.transactions,
        headers: suite.headers,
        timeoutMs: suite.timeoutMs ?? 120_000,
      });
      try {
        result = await suite.run(s);
        if (suite.kafka4Refuses !== undefined) {
          const clientExchanges = exchanges.length;
          advertised = await apiVersions(protocol, target.bootstrap);
          // The harness's own ApiVersions is not the client's.
          exchanges.splice(clientExchanges);
        }
      } finally {
        await target.close();
      }
    }, 300_000);

    afterAll(() => {
      if (protocol === undefined) return;
      // KAFKA_WIRE_CLIENTS_TRACE=OffsetCommit,JoinGroup prints those requests and responses, decoded.
      const trace = new Set((process.env["KAFKA_WIRE_CLIENTS_TRACE"] ?? "").split(",").filter((x) => x !== ""));
      for (const e of exchanges) {
        if (!trace.has(apiName(protocol, e.apiKey))) continue;
        const response =
          e.response === null ? null : protocol.decodeResponseFrame(e.response, e.apiKey, e.apiVersion).body;
        console.log(
          `#${e.connection} ${apiName(protocol, e.apiKey)} v${e.apiVersion}\n  request  ${stringify(e.decoded?.body)}\n  response ${stringify(response)}`,
        );
      }
      console.log(
        `${suite.client}: ${exchanges.length} requests\n  by api: ${requestSummary(protocol, exchanges)}\n` +
          `  in order: ${sequence(protocol, exchanges)}` +
          (refused(protocol, exchanges).length > 0
            ? `\n  refused (connection closed):\n  ${refused(protocol, exchanges).join("\n  ")}`
            : ""),
      );
    });

    const passed = (name: StepName) => {
      const r = result.steps[name];
      const failed = Object.entries(result.steps).filter(([, x]) => !x.ok);
      expect(
        r,
        `step ${name} did not run; failed before it: ${failed.map(([n, x]) => `${n}: ${x.error}`).join("\n")}`,
      ).toBeDefined();
      expect(r!.ok, r!.error).toBe(true);
    };

    /** The test of a step Kafka 4 refuses this client, instead of the step's own; true when there is one. */
    const refusedStep = (name: StepName): boolean => {
      const refusal = suite.kafka4Refuses?.[name];
      if (refusal === undefined) return false;
      const { api, sends, kafka4Min } = refusal;
      it(`${name}: Kafka 4 refuses it (${api} v${sends.join("/")}; Kafka 4 serves v${kafka4Min}+, KIP-896), and so does the broker`, () => {
        const r = result.steps[name];
        expect(r, `step ${name} did not run`).toBeDefined();
        expect(r!.ok, `step ${name} worked, though it needs ${api} v${sends.join("/")}`).toBe(false);
        const apiKey = [...protocol.apis].find(([, a]) => a.name === api)![0];
        const range = advertised.find((a) => a.apiKey === apiKey);
        expect(range?.minVersion, `ApiVersions' range of ${api}`).toBe(kafka4Min);
        for (const v of sends) expect(v).toBeLessThan(kafka4Min);
        // Every request of a version Kafka 4 removed was refused by closing the connection (the
        // client may also send served versions of the api elsewhere, which are answered).
        const removed = exchanges.filter((e) => e.apiKey === apiKey && e.apiVersion < kafka4Min);
        expect(removed.length, `the client sent no ${api} below v${kafka4Min}`).toBeGreaterThan(0);
        for (const e of removed) {
          expect(sends).toContain(e.apiVersion);
          expect(e.response, `${api} v${e.apiVersion} was answered`).toBeNull();
          expect(e.error?.message).toMatch(/not supported/);
        }
      });
      return true;
    };

    if (suite.admin && !refusedStep("admin")) {
      it("admin: creates a topic through its admin API", () => {
        passed("admin");
        expect(names(protocol, exchanges)).toContain("CreateTopics");
      });
    }

    if (!refusedStep("produce")) {
      it(`produce: keys, values and headers under ${suite.codecs.join(", ")}`, () => {
        passed("produce");
        expect(names(protocol, exchanges)).toContain("Produce");
      });
    }

    if (!refusedStep("group"))
      it(`group: two members of a ${suite.groupProtocol ?? "classic"} group share phase 1; when one leaves, the other takes over from its committed offsets`, () => {
        passed("group");
        const [first, second] = result.group!.phase1;
        expect(canonical([...first!, ...second!])).toEqual(canonical(s.phase1.flatMap((p) => p.messages)));
        expect(
          [first!.length, second!.length].every((n) => n > 0),
          `phase 1 per member: ${first!.length}, ${second!.length}`,
        ).toBe(true);
        // Member 1 alone read all of phase 2, and nothing of phase 1 again: member 2's offsets were committed.
        expect(canonical(result.group!.phase2)).toEqual(canonical(s.phase2));
        expect(names(protocol, exchanges)).toContain(
          (suite.groupProtocol ?? "classic") === "classic" ? "JoinGroup" : "ConsumerGroupHeartbeat",
        );
        expect(names(protocol, exchanges)).toContain("OffsetCommit");
      });

    if (!refusedStep("resume"))
      it(`resume: ${suite.resumeBy ?? "a new member"} starts at the committed offsets and reads exactly phase 3`, () => {
        passed("resume");
        expect(canonical(result.resume!.consumed)).toEqual(canonical(s.phase3));
        expect(result.resume!.consumed).toHaveLength(s.phase3.length);
        expect(names(protocol, exchanges)).toContain("OffsetFetch");
      });

    if (suite.transactions) {
      it("transactions: commit, abort, commit; a read_committed consumer sees only the committed ones", () => {
        passed("transactions");
        expect(canonical(result.txn!.readCommitted)).toEqual(canonical([...s.txn!.committed1, ...s.txn!.committed3]));
        for (const api of ["InitProducerId", "AddPartitionsToTxn", "EndTxn"]) {
          expect(names(protocol, exchanges)).toContain(api);
        }
      });
      it("consume-transform-produce: output committed with the group's offsets in the transaction", () => {
        passed("consumeTransformProduce");
        const input = [...s.txn!.committed1, ...s.txn!.committed3];
        expect(canonical(result.ctp!.output)).toEqual(canonical(input.map(transform)));
        // Every input record is covered by the committed offset, which is at most the end offset
        // (past the last record, or also past the transaction marker after it, as the client tracks).
        const { committed, lastRecords, endOffsets } = result.ctp!;
        expect(lastRecords.length).toBeGreaterThan(0);
        for (const { partition, offset } of lastRecords) {
          const at = committed.find((c) => c.partition === partition)?.offset;
          const end = endOffsets.find((c) => c.partition === partition)?.offset;
          expect(at, `partition ${partition}: committed ${at}, last record ${offset}, end ${end}`).toBeGreaterThan(
            offset,
          );
          expect(at, `partition ${partition}: committed ${at}, end ${end}`).toBeLessThanOrEqual(end!);
        }
        for (const api of ["AddOffsetsToTxn", "TxnOffsetCommit"]) expect(names(protocol, exchanges)).toContain(api);
      });
    }

    if (suite.requests !== undefined) {
      it("sent the requests this client is known for", () => suite.requests!(names(protocol, exchanges)));
    }
  });
}

/** An api's version range as ApiVersions gives it. */
interface ApiRange {
  apiKey: number;
  minVersion: number;
  maxVersion: number;
}

/** The version ranges the broker at `bootstrap`'s first address gives in ApiVersions v3. */
async function apiVersions(protocol: Protocol, bootstrap: string): Promise<ApiRange[]> {
  const [host, port] = bootstrap.split(",")[0]!.split(":") as [string, string];
  const client = await KafkaTestClient.connect(host, Number(port), protocol, { timeoutMs: 3000 });
  try {
    const reply = await client.call<{ errorCode: number; apiKeys: ApiRange[] }>(18, 3, {
      clientSoftwareName: "kafka-wire-harness",
      clientSoftwareVersion: "0",
    });
    expect(reply.body.errorCode).toBe(0);
    return reply.body.apiKeys;
  } finally {
    client.close();
  }
}

const stringify = (x: unknown) => JSON.stringify(x, (_, v: unknown) => (typeof v === "bigint" ? `${v}n` : v));

/** The api names of the recorded requests. */
export function names(protocol: Protocol, exchanges: readonly Exchange[]): string[] {
  return exchanges.map((e) => apiName(protocol, e.apiKey));
}
