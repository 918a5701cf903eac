/**
 * The target assignment of a streams group: Kafka's "sticky" task assignor as the KIP-1071 pages
 * describe its goals, written from those rules (page 002: "Assignment", "Cumulative task
 * changelog offsets"). Deterministic: the same input gives the same output.
 *
 * Processes, not members, are the unit of placement (several members may share a process id):
 * 1. Active tasks, balanced by capacity (a process's member count): each process gets
 *    floor(T·cap/C) tasks, the remainder going one each to the processes that owned the most.
 *    A process keeps the tasks it owned in the previous target assignment up to its share
 *    (stickiness); the rest go, in task order, to the least loaded process with room, a
 *    caught-up one first, then the one with the largest reported offset.
 * 2. Warm-up tasks: a stateful task that would move from its previous owner to a process that is
 *    not caught up stays where it is, and the new process gets a warm-up task instead, at most
 *    `num.warmup.replicas` in the group. Once that process reports a lag within
 *    `acceptable.recovery.lag`, the next assignment moves the active task to it (promotion).
 * 3. Standby tasks: `num.standby.replicas` per stateful task, never on a process that has the
 *    task as active or warm-up, previous standby owners first, then caught-up / largest offset,
 *    then the least loaded.
 * 4. Within a process, each kind of task is spread over its members, sticky, then least loaded.
 *
 * Lag: a task's end offset is the largest end offset any member reported for it (page 002: the
 * end offset known on another client counts); a process's offset is the largest its members
 * reported. Unknown end offset: never caught up. Stateless tasks are caught up everywhere.
 */

import { compareTaskKeys, type TasksTuple } from "./tasks.js";

/** One member as the assignor sees it. */
export interface AssignorMember {
  readonly memberId: string;
  readonly processId: string;
  /** The member's tasks in the previous target assignment (the assignor's stickiness). */
  readonly previous: TasksTuple;
  /** Reported cumulative task changelog offsets, by task key. */
  readonly taskOffsets: ReadonlyMap<string, bigint>;
  /** Reported cumulative task changelog end offsets, by task key. */
  readonly taskEndOffsets: ReadonlyMap<string, bigint>;
}

export interface AssignorInput {
  /** Every task, sorted ({@link compareTaskKeys}). */
  readonly tasks: readonly string[];
  /** Subtopologies with state (changelog topics): only their tasks get standby and warm-up tasks. */
  readonly statefulSubtopologies: ReadonlySet<string>;
  readonly members: readonly AssignorMember[];
  readonly numStandbyReplicas: number;
  readonly numWarmupReplicas: number;
  readonly acceptableRecoveryLag: bigint;
}

interface Process {
  readonly id: string;
  readonly members: AssignorMember[];
  readonly active: Set<string>;
  readonly standby: Set<string>;
  readonly warmup: Set<string>;
  share: number;
}

const subtopologyOf = (key: string) => key.slice(0, key.lastIndexOf("\u0000"));

/** Whether `task` is caught up on process `p` (see the module comment). */
export function isCaughtUp(
  task: string,
  offsets: (task: string) => bigint | undefined,
  endOffset: bigint | undefined,
  acceptableRecoveryLag: bigint,
): boolean {
  const o = offsets(task);
  return o !== undefined && endOffset !== undefined && endOffset - o <= acceptableRecoveryLag;
}

/** The largest reported end offset of each task over `members`. */
export function endOffsetsOf(members: readonly { taskEndOffsets: ReadonlyMap<string, bigint> }[]): Map<string, bigint> {
  const out = new Map<string, bigint>();
  for (const m of members)
    for (const [k, v] of m.taskEndOffsets) {
      const cur = out.get(k);
      if (cur === undefined || v > cur) out.set(k, v);
    }
  return out;
}

/** The target assignment: each member's tasks (every member of the input has an entry). */
export function assignTasks(input: AssignorInput): Map<string, TasksTuple> {
  const byProcess = new Map<string, Process>();
  for (const m of [...input.members].sort((a, b) => (a.memberId < b.memberId ? -1 : a.memberId > b.memberId ? 1 : 0))) {
    let p = byProcess.get(m.processId);
    if (p === undefined)
      byProcess.set(
        m.processId,
        (p = { id: m.processId, members: [], active: new Set(), standby: new Set(), warmup: new Set(), share: 0 }),
      );
    p.members.push(m);
  }
  const processes = [...byProcess.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const result = new Map<string, TasksTuple>();
  if (processes.length === 0) return result;

  const endOffsets = endOffsetsOf(input.members);
  const offsetOn = (p: Process, task: string): bigint | undefined => {
    let best: bigint | undefined;
    for (const m of p.members) {
      const o = m.taskOffsets.get(task);
      if (o !== undefined && (best === undefined || o > best)) best = o;
    }
    return best;
  };
  const stateful = (task: string) => input.statefulSubtopologies.has(subtopologyOf(task));
  const caughtUp = (p: Process, task: string) =>
    !stateful(task) ||
    prevActiveOwner.get(task) === p ||
    isCaughtUp(task, (t) => offsetOn(p, t), endOffsets.get(task), input.acceptableRecoveryLag);
  const prevOwners = (role: "active" | "standby" | "warmup") => {
    const out = new Map<string, Process[]>();
    for (const p of processes)
      for (const m of p.members)
        for (const t of m.previous[role]) {
          const list = out.get(t) ?? [];
          if (!list.includes(p)) list.push(p);
          out.set(t, list);
        }
    return out;
  };
  const prevActiveOwner = new Map<string, Process>();
  for (const [t, ps] of prevOwners("active")) prevActiveOwner.set(t, ps[0]!);
  const prevStandbyOwners = prevOwners("standby");
  const taskSet = new Set(input.tasks);

  // 1. Shares by capacity; the remainder to the processes that owned the most.
  const capacity = input.members.length;
  const total = input.tasks.length;
  let given = 0;
  const owned = new Map<Process, number>();
  for (const p of processes) {
    p.share = Math.floor((total * p.members.length) / capacity);
    given += p.share;
    owned.set(p, 0);
  }
  for (const [t, p] of prevActiveOwner) if (taskSet.has(t)) owned.set(p, owned.get(p)! + 1);
  const byOwned = [...processes].sort((a, b) => owned.get(b)! - owned.get(a)! || (a.id < b.id ? -1 : 1));
  for (let i = 0; given < total; i++, given++) byOwned[i % byOwned.length]!.share++;

  const unassigned: string[] = [];
  for (const t of input.tasks) {
    const p = prevActiveOwner.get(t);
    if (p !== undefined && p.active.size < p.share) p.active.add(t);
    else unassigned.push(t);
  }
  const load = (p: Process, n: number) => n / p.members.length;
  for (const t of unassigned) {
    let best: Process | undefined;
    let bestKey: [number, number, bigint] | undefined;
    for (const p of processes) {
      if (p.active.size >= p.share) continue;
      const key: [number, number, bigint] = [caughtUp(p, t) ? 0 : 1, load(p, p.active.size), offsetOn(p, t) ?? -1n];
      if (
        bestKey === undefined ||
        key[0] < bestKey[0] ||
        (key[0] === bestKey[0] && (key[1] < bestKey[1] || (key[1] === bestKey[1] && key[2] > bestKey[2])))
      ) {
        best = p;
        bestKey = key;
      }
    }
    best!.active.add(t);
  }

  // 2. Warm-ups: a stateful task does not move to a process that has not caught up.
  let warmups = 0;
  for (const t of input.tasks) {
    const prev = prevActiveOwner.get(t);
    if (prev === undefined || prev.active.has(t) || !stateful(t)) continue;
    const next = processes.find((p) => p.active.has(t))!;
    if (caughtUp(next, t)) continue;
    next.active.delete(t);
    prev.active.add(t);
    if (warmups < input.numWarmupReplicas) {
      next.warmup.add(t);
      warmups++;
    }
  }

  // 3. Standby tasks.
  for (const t of input.tasks) {
    if (!stateful(t)) continue;
    for (let r = 0; r < input.numStandbyReplicas; r++) {
      let best: Process | undefined;
      let bestKey: [number, number, bigint, number] | undefined;
      for (const p of processes) {
        if (p.active.has(t) || p.standby.has(t) || p.warmup.has(t)) continue;
        const key: [number, number, bigint, number] = [
          prevStandbyOwners.get(t)?.includes(p) ? 0 : 1,
          caughtUp(p, t) ? 0 : 1,
          offsetOn(p, t) ?? -1n,
          load(p, p.standby.size),
        ];
        const better =
          bestKey === undefined ||
          key[0] < bestKey[0] ||
          (key[0] === bestKey[0] &&
            (key[1] < bestKey[1] ||
              (key[1] === bestKey[1] && (key[2] > bestKey[2] || (key[2] === bestKey[2] && key[3] < bestKey[3])))));
        if (better) {
          best = p;
          bestKey = key;
        }
      }
      if (best === undefined) break; // fewer processes than replicas + 1
      best.standby.add(t);
    }
  }

  // 4. Within each process.
  for (const p of processes) {
    const out = new Map(
      p.members.map((m) => [
        m.memberId,
        { active: new Set<string>(), standby: new Set<string>(), warmup: new Set<string>() },
      ]),
    );
    for (const role of ["active", "standby", "warmup"] as const) {
      const tasks = [...p[role]].sort(compareTaskKeys);
      const quota = Math.ceil(tasks.length / p.members.length);
      const rest: string[] = [];
      for (const t of tasks) {
        const prev = p.members.find((m) => m.previous[role].has(t));
        const mine = prev === undefined ? undefined : out.get(prev.memberId)![role];
        if (mine !== undefined && mine.size < quota) mine.add(t);
        else rest.push(t);
      }
      for (const t of rest) {
        let best = p.members[0]!;
        for (const m of p.members) if (out.get(m.memberId)![role].size < out.get(best.memberId)![role].size) best = m;
        out.get(best.memberId)![role].add(t);
      }
    }
    for (const [id, tuple] of out) result.set(id, tuple);
  }
  return result;
}
