/**
 * The scenario of harness.ts with Debian's kcat (librdkafka 2.0.2, or 2.15.1 through
 * `LD_LIBRARY_PATH`). kcat has neither an admin API nor transactions: the scenario's produce,
 * group and resume steps. Producers are `kcat -P` runs (idempotent, one per codec, the same
 * headers on each message); group members are `kcat -G` processes, stopped with SIGTERM (kcat then
 * closes its consumer: it commits the offsets it stored and leaves the group). Members commit
 * every 100 ms (`auto.commit.interval.ms`), and their assignments are read from kcat's
 * `% Group … rebalanced (…): assigned: t [0], t [2]` lines on stderr.
 */

import { spawn, type ChildProcess } from "node:child_process";
import { runChild, step, until, type Codec, type DriverResult, type Message, type Scenario } from "./harness.js";

const WAIT_MS = 30_000;
/** Fields separated by tabs; headers `k=v,k=v`; the partition, for the assignment bookkeeping. */
const FORMAT = "%k\\t%s\\t%h\\t%p\\n";

/** A running `kcat -G` member. */
class KcatMember {
  readonly got: Message[] = [];
  readonly assigned = new Set<number>();
  private stderr = "";
  private readonly exited: Promise<void>;

  constructor(
    private readonly child: ChildProcess,
    readonly name: string,
  ) {
    let pending = "";
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      pending += chunk;
      const lines = pending.split("\n");
      pending = lines.pop()!;
      for (const line of lines) this.got.push(parse(line));
    });
    let errPending = "";
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
      if (this.stderr.length < 65536) this.stderr += chunk;
      errPending += chunk;
      const lines = errPending.split("\n");
      errPending = lines.pop()!;
      for (const line of lines) {
        // Eager (classic): "rebalanced (memberid …): assigned: t [0], t [2]" and "… revoked: …".
        // Cooperative (KIP-848): "rebalanced: incremental assignment of 2 partition(s) (memberid
        // …, COOPERATIVE rebalance protocol): t [0], t [2]" and "… incremental revoke of …".
        const m =
          /\b(assigned|revoked): (.*)$/.exec(line) ??
          /incremental (assignment|revoke) of \d+ partition\(s\) \([^)]*\): (.*)$/.exec(line);
        if (m === null) continue;
        for (const p of m[2]!.matchAll(/\[(\d+)\]/g)) {
          if (m[1] === "assigned" || m[1] === "assignment") this.assigned.add(Number(p[1]));
          else this.assigned.delete(Number(p[1]));
        }
      }
    });
    this.exited = new Promise((resolve) => child.once("close", () => resolve()));
  }

  log(): string {
    return `${this.name} stderr:\n${this.stderr.slice(-3000)}`;
  }

  /** SIGTERM, then waits for its exit (SIGKILL of its group after `graceMs`). */
  async stop(graceMs = 15_000): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill("SIGTERM");
    const timer = setTimeout(() => this.kill(), graceMs);
    await this.exited;
    clearTimeout(timer);
  }

  kill(): void {
    try {
      process.kill(-this.child.pid!, "SIGKILL");
    } catch {
      // gone
    }
  }
}

function parse(line: string): Message {
  const [key, value, headers] = line.split("\t") as [string, string, string];
  return {
    key,
    value,
    headers: headers === "" ? [] : headers.split(",").map((h) => h.split("=") as [string, string]),
  };
}

export async function runKcat(kcat: string, s: Scenario, env: Record<string, string> = {}): Promise<DriverResult> {
  const result: DriverResult = { steps: {} };
  const { steps } = result;
  const members: KcatMember[] = [];
  const join = (name: string) => {
    const args = [
      "-b",
      s.bootstrap,
      "-G",
      s.groupId,
      "-u",
      "-f",
      FORMAT,
      "-X",
      "auto.offset.reset=earliest",
      "-X",
      "fetch.wait.max.ms=100",
      "-X",
      "auto.commit.interval.ms=100",
      ...(s.groupProtocol === "consumer"
        ? ["-X", "group.protocol=consumer"]
        : ["-X", "session.timeout.ms=10000", "-X", "heartbeat.interval.ms=300"]),
      s.topic,
    ];
    const child = spawn(kcat, args, {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, ...env },
      detached: true,
    });
    const member = new KcatMember(child, name);
    members.push(member);
    return member;
  };
  const produce = async (messages: readonly Message[], codec: Codec = "none") => {
    // kcat -H sets the same headers on every message of a run: the scenario's are per send.
    const headers = messages[0]?.headers ?? [];
    const run = await runChild(
      kcat,
      [
        "-b",
        s.bootstrap,
        "-P",
        "-t",
        s.topic,
        "-K:",
        "-z",
        codec,
        "-X",
        "enable.idempotence=true",
        ...headers.flatMap(([k, v]) => ["-H", `${k}=${v}`]),
      ],
      { timeoutMs: WAIT_MS, env, input: messages.map((m) => `${m.key}:${m.value}\n`).join("") },
    );
    if (run.code !== 0 || run.timedOut) {
      throw new Error(`kcat -P -z ${codec}: code ${run.code}${run.timedOut ? " (timed out)" : ""}\n${run.stderr}`);
    }
  };
  const logs = () => members.map((m) => m.log()).join("\n");

  try {
    await step(steps, "group", async () => {
      const m1 = join("member 1");
      const m2 = join("member 2");
      await until(
        () => m1.assigned.size > 0 && m2.assigned.size > 0 && m1.assigned.size + m2.assigned.size === s.partitions,
        WAIT_MS,
        () => `the members hold ${m1.assigned.size} and ${m2.assigned.size} partitions\n${logs()}`,
      );
      await step(steps, "produce", async () => {
        for (const { codec, messages } of s.phase1) await produce(messages, codec);
      });
      if (!steps.produce!.ok) throw new Error("phase 1 was not produced");
      const phase1 = s.phase1.reduce((n, p) => n + p.messages.length, 0);
      await until(
        () => new Set([...m1.got, ...m2.got].map((m) => JSON.stringify(m))).size === phase1,
        WAIT_MS,
        () => `the members read ${m1.got.length} and ${m2.got.length} of phase 1's ${phase1}\n${logs()}`,
      );
      result.group = { phase1: [[...m1.got], [...m2.got]], phase2: [] };
      await m2.stop();
      await until(
        () => m1.assigned.size === s.partitions,
        WAIT_MS,
        () => `member 1 holds ${m1.assigned.size} partitions after member 2 left\n${logs()}`,
      );
      const mark = m1.got.length;
      await produce(s.phase2);
      await until(
        () => m1.got.length - mark >= s.phase2.length,
        WAIT_MS,
        () => `member 1 read ${m1.got.length - mark} of phase 2's ${s.phase2.length}\n${logs()}`,
      );
      result.group.phase2 = m1.got.slice(mark);
      await m1.stop();
    });

    await step(steps, "resume", async () => {
      await produce(s.phase3);
      const m3 = join("member 3");
      await until(
        () => m3.got.length >= s.phase3.length,
        WAIT_MS,
        () => `the new member read ${m3.got.length} of phase 3's ${s.phase3.length}\n${logs()}`,
      );
      // A record read again (from an offset before the committed one) would come first: wait a little.
      await new Promise((r) => setTimeout(r, 300));
      result.resume = { consumed: [...m3.got] };
      await m3.stop();
    });
  } finally {
    for (const m of members) m.kill();
  }
  return result;
}
