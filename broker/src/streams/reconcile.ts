/**
 * Reconciliation of one member towards its target assignment (KIP-1071 page 002: a task moves
 * only after its owner gave it up; Kafka's streams CurrentAssignmentBuilder). Pure: returns the
 * member's next assignment state, or the same object when nothing moves.
 *
 * - STABLE at an older epoch, or UNRELEASED_TASKS: compute the next state.
 * - UNREVOKED_TASKS: wait until the member's owned tasks (sent in its heartbeat) no longer hold
 *   any task pending revocation, then compute the next state.
 * Unreleased (Kafka's isUnreleasedTask predicates, over the other members' current assignments
 * and pending revocations): an active task another member owns as active, or another member of
 * this member's process holds as standby or warm-up; a standby or warm-up task this member's
 * process holds in any role (active, standby or warm-up) through another member.
 * Computing: kept = current ∩ target, minus the unreleased tasks; revoke = current − kept;
 * new = target − current, minus the unreleased tasks. Kafka applies the predicate to new tasks
 * only; we apply it to kept ones too, because a member that rejoins (epoch 0, same member id) on
 * another process would otherwise keep an active task while a member of its new process still
 * holds that task's standby or warm-up (or keep a standby next to the process's active). A kept
 * task dropped so comes back as a new one once released. Something to revoke (and not already
 * dropped by the member): UNREVOKED_TASKS at the current epoch, assignment = kept.
 * Otherwise the member moves to the target epoch with kept ∪ new: UNRELEASED_TASKS when tasks
 * are still unreleased, else STABLE.
 */

import { EMPTY_TASKS, isEmptyTuple, ROLES, type TasksTuple } from "./tasks.js";

/** Kafka's MemberState codes (the `State` field of StreamsGroupCurrentMemberAssignmentValue). */
export const MEMBER_STATE = { UNKNOWN: 0, STABLE: 1, UNREVOKED_TASKS: 2, UNRELEASED_TASKS: 3 } as const;
export type MemberStateCode = (typeof MEMBER_STATE)[keyof typeof MEMBER_STATE];

export interface AssignmentState {
  readonly memberEpoch: number;
  readonly previousMemberEpoch: number;
  readonly state: MemberStateCode;
  /** The tasks the member may own now (sent to it). */
  readonly assigned: TasksTuple;
  /** The tasks the member must give up before it gets new ones. */
  readonly pendingRevocation: TasksTuple;
}

/** Who else holds a task now (current assignment or pending revocation of the other members). */
export interface CurrentOwners {
  /** The process of the member holding the task as active, if any. */
  activeProcess(task: string): string | undefined;
  /** Processes holding the task as standby. */
  standbyProcesses(task: string): ReadonlySet<string>;
  /** Processes holding the task as warm-up. */
  warmupProcesses(task: string): ReadonlySet<string>;
}

const intersects = (owned: TasksTuple, t: TasksTuple) => ROLES.some((r) => [...t[r]].some((k) => owned[r].has(k)));

export function reconcile(
  member: AssignmentState,
  processId: string,
  targetEpoch: number,
  target: TasksTuple,
  owners: CurrentOwners,
  owned: TasksTuple | null,
): AssignmentState {
  switch (member.state) {
    case MEMBER_STATE.STABLE:
      return member.memberEpoch === targetEpoch ? member : next(member, processId, targetEpoch, target, owners, owned);
    case MEMBER_STATE.UNREVOKED_TASKS:
      if (owned === null || intersects(owned, member.pendingRevocation)) return member;
      return next(member, processId, targetEpoch, target, owners, owned);
    default:
      return next(member, processId, targetEpoch, target, owners, owned);
  }
}

function next(
  member: AssignmentState,
  processId: string,
  targetEpoch: number,
  target: TasksTuple,
  owners: CurrentOwners,
  owned: TasksTuple | null,
): AssignmentState {
  const sameProcess = (t: string) =>
    owners.activeProcess(t) === processId ||
    owners.standbyProcesses(t).has(processId) ||
    owners.warmupProcesses(t).has(processId);
  const unreleased: Record<(typeof ROLES)[number], (t: string) => boolean> = {
    active: (t) =>
      owners.activeProcess(t) !== undefined ||
      owners.standbyProcesses(t).has(processId) ||
      owners.warmupProcesses(t).has(processId),
    standby: sameProcess,
    warmup: sameProcess,
  };
  const kept = { active: new Set<string>(), standby: new Set<string>(), warmup: new Set<string>() };
  const revoke = { active: new Set<string>(), standby: new Set<string>(), warmup: new Set<string>() };
  const fresh = { active: new Set<string>(), standby: new Set<string>(), warmup: new Set<string>() };
  let hasUnreleased = false;
  for (const r of ROLES) {
    for (const t of member.assigned[r]) (target[r].has(t) && !unreleased[r](t) ? kept : revoke)[r].add(t);
    for (const t of target[r]) {
      if (kept[r].has(t)) continue;
      if (unreleased[r](t)) hasUnreleased = true;
      else fresh[r].add(t);
    }
  }
  const mustRevoke = !isEmptyTuple(revoke) && (owned === null || intersects(owned, revoke));
  if (mustRevoke)
    return {
      memberEpoch: member.memberEpoch,
      previousMemberEpoch: member.previousMemberEpoch,
      state: MEMBER_STATE.UNREVOKED_TASKS,
      assigned: kept,
      pendingRevocation: revoke,
    };
  for (const r of ROLES) for (const t of fresh[r]) kept[r].add(t);
  return {
    memberEpoch: targetEpoch,
    previousMemberEpoch: targetEpoch === member.memberEpoch ? member.previousMemberEpoch : member.memberEpoch,
    state: hasUnreleased ? MEMBER_STATE.UNRELEASED_TASKS : MEMBER_STATE.STABLE,
    assigned: kept,
    pendingRevocation: EMPTY_TASKS,
  };
}
