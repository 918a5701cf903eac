/**
 * Tasks and topologies of a streams group (KIP-1071): a task is a subtopology × a partition of
 * its input topics; the topology a member sends is checked here (STREAMS_INVALID_TOPOLOGY) and
 * resolved against the cluster's topics into partition counts, the internal topics to create and
 * the statuses of the StreamsGroupHeartbeat response.
 */

import { compileRegex as compileTopicRegex, RegexError, type TopicRegex } from "../regex.js";
import type { Subtopology, TaskIds, TopicInfo, Topology } from "./messages.js";

/** One task: `subtopologyId` × `partition`. */
export interface Task {
  readonly subtopologyId: string;
  readonly partition: number;
}

/** A task as a map key (NUL cannot occur in a partition number, so the split is unique). */
export const taskKey = (subtopologyId: string, partition: number): string => `${subtopologyId}\u0000${partition}`;

export function parseTaskKey(key: string): Task {
  const at = key.lastIndexOf("\u0000");
  return { subtopologyId: key.slice(0, at), partition: Number(key.slice(at + 1)) };
}

/** Orders tasks by subtopology id (code units) then partition. */
export function compareTaskKeys(a: string, b: string): number {
  const x = parseTaskKey(a);
  const y = parseTaskKey(b);
  return x.subtopologyId < y.subtopologyId ? -1 : x.subtopologyId > y.subtopologyId ? 1 : x.partition - y.partition;
}

/** Active, standby and warm-up tasks (Kafka's TasksTuple), as sets of {@link taskKey}s. */
export interface TasksTuple {
  readonly active: ReadonlySet<string>;
  readonly standby: ReadonlySet<string>;
  readonly warmup: ReadonlySet<string>;
}

export const EMPTY_TASKS: TasksTuple = Object.freeze({
  active: new Set<string>(),
  standby: new Set<string>(),
  warmup: new Set<string>(),
});

export const ROLES = ["active", "standby", "warmup"] as const;
export type Role = (typeof ROLES)[number];

export function isEmptyTuple(t: TasksTuple): boolean {
  return t.active.size === 0 && t.standby.size === 0 && t.warmup.size === 0;
}

export function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a.size !== b.size) return false;
  for (const k of a) if (!b.has(k)) return false;
  return true;
}

export function sameTuple(a: TasksTuple, b: TasksTuple): boolean {
  return sameSet(a.active, b.active) && sameSet(a.standby, b.standby) && sameSet(a.warmup, b.warmup);
}

/** The wire form: one entry per subtopology (sorted), partitions ascending. */
export function toTaskIds(tasks: ReadonlySet<string>): TaskIds[] {
  const by = new Map<string, number[]>();
  for (const k of tasks) {
    const t = parseTaskKey(k);
    let list = by.get(t.subtopologyId);
    if (list === undefined) by.set(t.subtopologyId, (list = []));
    list.push(t.partition);
  }
  return [...by.keys()].sort().map((subtopologyId) => ({
    subtopologyId,
    partitions: by.get(subtopologyId)!.sort((a, b) => a - b),
  }));
}

export function fromTaskIds(ids: readonly { subtopologyId: string; partitions: readonly number[] }[]): Set<string> {
  const out = new Set<string>();
  for (const e of ids) for (const p of e.partitions) out.add(taskKey(e.subtopologyId, p));
  return out;
}

export function tupleFromWire(t: {
  activeTasks: readonly TaskIds[];
  standbyTasks: readonly TaskIds[];
  warmupTasks: readonly TaskIds[];
}): TasksTuple {
  return {
    active: fromTaskIds(t.activeTasks),
    standby: fromTaskIds(t.standbyTasks),
    warmup: fromTaskIds(t.warmupTasks),
  };
}

export function tupleToWire(t: TasksTuple): {
  activeTasks: TaskIds[];
  standbyTasks: TaskIds[];
  warmupTasks: TaskIds[];
} {
  return { activeTasks: toTaskIds(t.active), standbyTasks: toTaskIds(t.standby), warmupTasks: toTaskIds(t.warmup) };
}

/** Thrown for a topology the pages' rules refuse; the coordinator answers STREAMS_INVALID_TOPOLOGY. */
export class InvalidTopologyError extends Error {
  override readonly name = "InvalidTopologyError";
}

/**
 * A member's source topic regex, compiled by the broker's linear-time matcher (`../regex.ts`,
 * RE2 syntax as Kafka's RE2J; a backtracking RegExp could be stalled by `(a+)+$`), or null when
 * it does not compile (or is longer than 1000 characters).
 */
export function compileRegex(source: string): TopicRegex | null {
  try {
    return compileTopicRegex(source);
  } catch (e) {
    if (e instanceof RegexError) return null;
    throw e;
  }
}

/**
 * Checks a member's topology before anything is stored (STREAMS_INVALID_TOPOLOGY when not).
 * The rules: at least one subtopology (page 000: "must be non-empty"); subtopology ids non-empty
 * and unique; each subtopology reads something; regexes compile; copartition group indexes point
 * into their subtopology's arrays; changelog topics carry no partition count (page 000: "Always 0
 * for changelog topics"); partition counts and replication factors are not negative; internal
 * topics are not also user source topics; each changelog topic belongs to one subtopology; every
 * repartition sink topic is some subtopology's repartition source topic (Kafka's topology check).
 * @throws InvalidTopologyError naming the subtopology and field.
 */
export function validateTopology(topology: Topology): void {
  const fail = (msg: string): never => {
    throw new InvalidTopologyError(msg);
  };
  if (topology.epoch < 0) fail(`topology epoch ${topology.epoch} is negative`);
  if (topology.subtopologies.length === 0) fail("the topology has no subtopologies");
  const ids = new Set<string>();
  const userSources = new Set<string>();
  const repartitionSources = new Set<string>();
  const changelogs = new Set<string>();
  for (const s of topology.subtopologies) {
    for (const t of s.sourceTopics) userSources.add(t);
    for (const t of s.repartitionSourceTopics) repartitionSources.add(t.name);
  }
  for (const s of topology.subtopologies) {
    const where = `subtopology ${JSON.stringify(s.subtopologyId)}`;
    if (s.subtopologyId === "") fail("a subtopology id is empty");
    if (ids.has(s.subtopologyId)) fail(`${where} appears twice`);
    ids.add(s.subtopologyId);
    if (s.sourceTopics.length + s.sourceTopicRegex.length + s.repartitionSourceTopics.length === 0)
      fail(`${where} has no source topics, regexes or repartition source topics`);
    for (const t of [...s.sourceTopics, ...s.repartitionSinkTopics])
      if (t === "") fail(`${where} names an empty topic`);
    for (const r of s.sourceTopicRegex)
      if (compileRegex(r) === null)
        fail(
          `${where}: source topic regex ${JSON.stringify(r)} does not compile (RE2 syntax, at most 1000 characters)`,
        );
    const infos = (field: string, list: readonly TopicInfo[]) => {
      for (const t of list) {
        if (t.name === "") fail(`${where}: ${field} has an empty topic name`);
        if (t.partitions < 0) fail(`${where}: ${field} ${t.name} has ${t.partitions} partitions`);
        if (t.replicationFactor < 0) fail(`${where}: ${field} ${t.name} has replication factor ${t.replicationFactor}`);
        if (userSources.has(t.name)) fail(`${where}: internal topic ${t.name} is also a user source topic`);
      }
    };
    infos("stateChangelogTopics", s.stateChangelogTopics);
    infos("repartitionSourceTopics", s.repartitionSourceTopics);
    for (const t of s.stateChangelogTopics) {
      if (t.partitions !== 0) fail(`${where}: changelog topic ${t.name} sets ${t.partitions} partitions (must be 0)`);
      if (changelogs.has(t.name) || repartitionSources.has(t.name))
        fail(`${where}: changelog topic ${t.name} is used twice`);
      changelogs.add(t.name);
    }
    for (const t of s.repartitionSinkTopics)
      if (!repartitionSources.has(t))
        fail(`${where}: repartition sink topic ${t} is no subtopology's repartition source`);
    for (const [i, g] of s.copartitionGroups.entries()) {
      const check = (field: string, idx: readonly number[], len: number) => {
        for (const x of idx)
          if (x < 0 || x >= len) fail(`${where}: copartition group ${i} ${field} index ${x} is out of range`);
      };
      check("sourceTopics", g.sourceTopics, s.sourceTopics.length);
      check("sourceTopicRegex", g.sourceTopicRegex, s.sourceTopicRegex.length);
      check("repartitionSourceTopics", g.repartitionSourceTopics, s.repartitionSourceTopics.length);
    }
  }
}

/** A topic of the cluster as the coordinator sees it. */
export interface TopicDescription {
  /** The topic id (uuid string), or the zero uuid when the cluster has none. */
  readonly id: string;
  readonly partitions: number;
}

/** The cluster's topics: what the coordinator needs from the broker. */
export interface TopicMetadataSource {
  /** The topic, or undefined when it does not exist. */
  describe(name: string): TopicDescription | undefined;
  /** Every topic name (for source topic regexes). */
  names(): Iterable<string>;
}

/** A topic the coordinator asks the broker to create (Kafka's InternalTopicManager). */
export interface TopicToCreate {
  readonly name: string;
  readonly partitions: number;
  /** 0: the broker's default. */
  readonly replicationFactor: number;
  readonly configs: readonly { readonly key: string; readonly value: string }[];
}

/** Status codes of StreamsGroupHeartbeatResponse (page 000's Status struct). */
export const STATUS = {
  STALE_TOPOLOGY: 0,
  MISSING_SOURCE_TOPICS: 1,
  INCORRECTLY_PARTITIONED_TOPICS: 2,
  MISSING_INTERNAL_TOPICS: 3,
  SHUTDOWN_APPLICATION: 4,
} as const;

/** One subtopology with its regexes resolved and partition counts set. */
export interface ConfiguredSubtopology {
  readonly subtopologyId: string;
  /** User source topics, the regexes' matches included, sorted. */
  readonly sourceTopics: readonly string[];
  readonly repartitionSinkTopics: readonly string[];
  readonly stateChangelogTopics: readonly TopicInfo[];
  readonly repartitionSourceTopics: readonly TopicInfo[];
  /** The number of tasks: the largest partition count of its input topics. */
  readonly partitions: number;
}

/** A topology resolved against the cluster's topics. */
export interface ResolvedTopology {
  /** Null when a source topic is missing or topics are not partitioned as required (no tasks then). */
  readonly subtopologies: readonly ConfiguredSubtopology[] | null;
  /** Statuses for the members (besides STALE_TOPOLOGY and SHUTDOWN_APPLICATION, which are per member/group). */
  readonly statuses: readonly { statusCode: number; statusDetail: string }[];
  /** Internal topics that do not exist yet, with the partition counts they must have. */
  readonly topicsToCreate: readonly TopicToCreate[];
  /** Every input topic (user and repartition sources) of the topology that exists, by name. */
  readonly inputTopics: ReadonlyMap<string, TopicDescription>;
}

/**
 * Resolves the topology: regexes against the topic names; repartition topics without a count get
 * the largest partition count of the subtopologies writing to them; copartition groups give all
 * their topics one count (a user topic's, else the largest); changelog topics get their
 * subtopology's task count (Kafka's InternalTopicManager and CopartitionedTopicsEnforcer).
 * Missing user source topics are MISSING_SOURCE_TOPICS, unequal copartitioned topics and existing
 * internal topics with other counts INCORRECTLY_PARTITIONED_TOPICS (no tasks in both cases);
 * missing internal topics are MISSING_INTERNAL_TOPICS and listed for creation (tasks come once they exist).
 */
export function resolveTopology(topology: Topology, topics: TopicMetadataSource): ResolvedTopology {
  const allNames = [...topics.names()].sort();
  const inputTopics = new Map<string, TopicDescription>();
  const missing: string[] = [];
  const incorrect = new Set<string>();
  const sourcesOf = new Map<string, string[]>(); // subtopology -> resolved user sources
  const regexMatches = new Map<string, string[][]>(); // subtopology -> per regex
  for (const s of topology.subtopologies) {
    const sources = new Set<string>();
    for (const t of s.sourceTopics) {
      const d = topics.describe(t);
      if (d === undefined) missing.push(t);
      else {
        inputTopics.set(t, d);
        sources.add(t);
      }
    }
    const perRegex: string[][] = [];
    for (const r of s.sourceTopicRegex) {
      const re = compileRegex(r)!;
      const matches = allNames.filter((n) => re.matches(n) && !n.startsWith("__"));
      if (matches.length === 0) missing.push(`regex ${r}`);
      for (const n of matches) {
        inputTopics.set(n, topics.describe(n)!);
        sources.add(n);
      }
      perRegex.push(matches);
    }
    sourcesOf.set(s.subtopologyId, [...sources].sort());
    regexMatches.set(s.subtopologyId, perRegex);
  }
  // Partition counts of repartition topics: fixed (>0 in the topology), derived, or unknown.
  const fixed = new Map<string, number>();
  const count = new Map<string, number>();
  for (const s of topology.subtopologies)
    for (const t of s.repartitionSourceTopics) if (t.partitions > 0) fixed.set(t.name, t.partitions);
  for (const [k, v] of fixed) count.set(k, v);
  const userCount = (t: string) => inputTopics.get(t)?.partitions;
  const subCount = (s: Subtopology): number | undefined => {
    let max = 0;
    for (const t of sourcesOf.get(s.subtopologyId)!) max = Math.max(max, userCount(t)!);
    for (const t of s.repartitionSourceTopics) {
      const c = count.get(t.name);
      if (c === undefined) return undefined;
      max = Math.max(max, c);
    }
    return max > 0 ? max : undefined;
  };
  // Bounded fixpoint: each round settles at least one more topic or stops.
  for (let round = 0; round <= topology.subtopologies.length + 1; round++) {
    let changed = false;
    for (const s of topology.subtopologies) {
      const c = subCount(s);
      if (c === undefined) continue;
      for (const sink of s.repartitionSinkTopics)
        if (!fixed.has(sink) && (count.get(sink) ?? 0) < c) {
          count.set(sink, c);
          changed = true;
        }
    }
    for (const s of topology.subtopologies) {
      for (const g of s.copartitionGroups) {
        const users = [
          ...g.sourceTopics.map((i) => s.sourceTopics[i]!),
          ...g.sourceTopicRegex.flatMap((i) => regexMatches.get(s.subtopologyId)![i] ?? []),
        ].filter((t) => inputTopics.has(t));
        const repartition = g.repartitionSourceTopics.map((i) => s.repartitionSourceTopics[i]!.name);
        const userCounts = new Set(users.map((t) => userCount(t)!));
        if (userCounts.size > 1) for (const t of users) incorrect.add(t);
        let target: number | undefined = userCounts.size >= 1 ? Math.max(...userCounts) : undefined;
        if (target === undefined) {
          const known = repartition.map((t) => count.get(t)).filter((c): c is number => c !== undefined);
          if (known.length > 0) target = Math.max(...known);
        }
        if (target === undefined) continue;
        for (const t of repartition) {
          if (fixed.has(t)) {
            if (fixed.get(t) !== target) incorrect.add(t);
          } else if (count.get(t) !== target) {
            count.set(t, target);
            changed = true;
          }
        }
      }
    }
    if (!changed) break;
  }
  const statuses: { statusCode: number; statusDetail: string }[] = [];
  if (missing.length > 0)
    statuses.push({
      statusCode: STATUS.MISSING_SOURCE_TOPICS,
      statusDetail: `Source topics ${missing.join(", ")} are missing.`,
    });
  const configured: ConfiguredSubtopology[] = [];
  const topicsToCreate: TopicToCreate[] = [];
  if (missing.length === 0) {
    for (const s of topology.subtopologies) {
      const partitions = subCount(s);
      if (partitions === undefined) {
        for (const t of s.repartitionSourceTopics) if (!count.has(t.name)) incorrect.add(t.name);
        continue;
      }
      const internal = (t: TopicInfo, n: number): TopicInfo => {
        const existing = topics.describe(t.name);
        if (existing === undefined)
          topicsToCreate.push({
            name: t.name,
            partitions: n,
            replicationFactor: t.replicationFactor,
            configs: t.topicConfigs,
          });
        else if (existing.partitions !== n) incorrect.add(t.name);
        return { ...t, partitions: n };
      };
      const repartitionSourceTopics = s.repartitionSourceTopics.map((t) => internal(t, count.get(t.name)!));
      for (const t of repartitionSourceTopics) {
        const d = topics.describe(t.name);
        if (d !== undefined) inputTopics.set(t.name, d);
      }
      configured.push({
        subtopologyId: s.subtopologyId,
        sourceTopics: sourcesOf.get(s.subtopologyId)!,
        repartitionSinkTopics: [...s.repartitionSinkTopics],
        stateChangelogTopics: s.stateChangelogTopics.map((t) => internal(t, partitions)),
        repartitionSourceTopics,
        partitions,
      });
    }
  }
  if (incorrect.size > 0)
    statuses.push({
      statusCode: STATUS.INCORRECTLY_PARTITIONED_TOPICS,
      statusDetail: `Topics ${[...incorrect].sort().join(", ")} are incorrectly partitioned.`,
    });
  if (missing.length === 0 && incorrect.size === 0 && topicsToCreate.length > 0)
    statuses.push({
      statusCode: STATUS.MISSING_INTERNAL_TOPICS,
      statusDetail: `Internal topics ${topicsToCreate.map((t) => t.name).join(", ")} are missing; the coordinator creates them.`,
    });
  const ready = missing.length === 0 && incorrect.size === 0 && topicsToCreate.length === 0;
  return {
    subtopologies: ready ? configured.sort((a, b) => (a.subtopologyId < b.subtopologyId ? -1 : 1)) : null,
    statuses,
    topicsToCreate: missing.length === 0 && incorrect.size === 0 ? topicsToCreate : [],
    inputTopics,
  };
}

/** Every task of a resolved topology, sorted; and which subtopologies keep state (have changelogs). */
export function tasksOf(subtopologies: readonly ConfiguredSubtopology[]): { tasks: string[]; stateful: Set<string> } {
  const tasks: string[] = [];
  const stateful = new Set<string>();
  for (const s of subtopologies) {
    for (let p = 0; p < s.partitions; p++) tasks.push(taskKey(s.subtopologyId, p));
    if (s.stateChangelogTopics.length > 0) stateful.add(s.subtopologyId);
  }
  return { tasks: tasks.sort(compareTaskKeys), stateful };
}

/** The input topic partitions of tasks (for PartitionsByUserEndpoint), topics sorted. */
export function partitionsOfTasks(
  tasks: ReadonlySet<string>,
  subtopologies: readonly ConfiguredSubtopology[],
  topicPartitions: (topic: string) => number,
): { topic: string; partitions: number[] }[] {
  const byId = new Map(subtopologies.map((s) => [s.subtopologyId, s]));
  const out = new Map<string, Set<number>>();
  for (const k of tasks) {
    const t = parseTaskKey(k);
    const s = byId.get(t.subtopologyId);
    if (s === undefined) continue;
    for (const topic of [...s.sourceTopics, ...s.repartitionSourceTopics.map((r) => r.name)]) {
      // A topic with fewer partitions than the subtopology has tasks has no partition for the rest.
      if (t.partition >= topicPartitions(topic)) continue;
      let set = out.get(topic);
      if (set === undefined) out.set(topic, (set = new Set()));
      set.add(t.partition);
    }
  }
  return [...out.keys()].sort().map((topic) => ({ topic, partitions: [...out.get(topic)!].sort((a, b) => a - b) }));
}
