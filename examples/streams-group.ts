/**
 * A streams group end to end: a kafka-wire-broker cluster with the streams plugin, and three
 * StreamsGroupMember instances of one application over loopback. They join one after the other
 * (each waits until the group is stable), then the first one leaves and its tasks move. Prints
 * every member's tasks and epochs at each step.
 *
 *   npx tsx examples/streams-group.ts [--schemas ../shared/kafka-schemas]
 *
 * `--schemas`: Apache Kafka's schemas (clients and group-coordinator), compiled once into
 * kafka-wire-cli's codec cache.
 */

import { loadSchemaSet } from "../cli/codecs.js";
import { startCluster, type Exchange } from "../broker/src/index.js";
import type { InternalTopics, Protocol } from "../src/runtime/index.js";
import { StreamsGroupMember } from "../broker/src/streams/member.js";
import { StreamsGroups } from "../broker/src/streams/plugin.js";
import type { Topology } from "../broker/src/streams/messages.js";
import type { TasksTuple } from "../broker/src/streams/tasks.js";

/** One stateful subtopology: reads `orders` (6 partitions), keeps a store with a changelog. */
export const TOPOLOGY: Topology = {
  epoch: 1,
  subtopologies: [
    {
      subtopologyId: "0",
      sourceTopics: ["orders"],
      sourceTopicRegex: [],
      stateChangelogTopics: [{ name: "shop-counts-changelog", partitions: 0, replicationFactor: 0, topicConfigs: [] }],
      repartitionSinkTopics: [],
      repartitionSourceTopics: [],
      copartitionGroups: [],
    },
  ],
};

/** Fast settings for a demo: heartbeats every 100 ms, a 10 s session (the bounds lowered with them). */
export const CONFIG = {
  "group.streams.min.heartbeat.interval.ms": 100,
  "group.streams.heartbeat.interval.ms": 100,
  "group.streams.min.session.timeout.ms": 2_000,
  "group.streams.session.timeout.ms": 10_000,
  "group.streams.min.task.offset.interval.ms": 100,
  "group.streams.task.offset.interval.ms": 100,
  "group.streams.num.standby.replicas": 1,
};

/** `0:0 0:1` */
export const tasks = (set: ReadonlySet<string>) =>
  [...set]
    .map((k) => k.replace("\u0000", ":"))
    .sort((a, b) => Number(a.split(":")[1]) - Number(b.split(":")[1]))
    .join(" ") || "-";

export const describeTasks = (t: TasksTuple) =>
  `active ${tasks(t.active)} | standby ${tasks(t.standby)} | warm-up ${tasks(t.warmup)}`;

/** One step's view: the group's epochs and each member's epoch and tasks. */
export interface Step {
  readonly title: string;
  readonly groupEpoch: number;
  readonly assignmentEpoch: number;
  readonly members: { id: string; processId: string; memberEpoch: number; tasks: TasksTuple }[];
}

export interface ExampleResult {
  readonly steps: Step[];
  readonly exchanges: Exchange[];
  /** The cluster's __consumer_offsets batches at the end, by partition. */
  readonly consumerOffsets: Map<number, Uint8Array[]>;
  readonly streams: StreamsGroups;
  /** The cluster's protocol (api keys 88 and 89 from the seed codecs). */
  readonly protocol: Protocol;
}

/** Runs the example with Kafka's codecs; `print` gets each output line. */
export async function runExample(
  codecs: { protocol: Protocol; internalTopics: InternalTopics },
  print: (line: string) => void,
): Promise<ExampleResult> {
  const steps: Step[] = [];
  const exchanges: Exchange[] = [];
  const streams = new StreamsGroups({ internalTopics: codecs.internalTopics, config: CONFIG, tickMs: 100 });
  const cluster = await startCluster({
    protocol: codecs.protocol,
    topics: { orders: 6 },
    plugins: [streams.plugin],
    onExchange: (e) => exchanges.push(e),
  });
  const node = cluster.nodes[0]!;
  const members: StreamsGroupMember[] = [];
  const stable = async () => {
    for (let i = 0; i < 200; i++) {
      const g = streams.coordinator.group("shop");
      const converged =
        g !== undefined &&
        streams.coordinator.groupState(g) === "Stable" &&
        members.every((m) => {
          const cm = g.members.get(m.options.memberId);
          return (
            cm !== undefined &&
            cm.memberEpoch === m.memberEpoch &&
            describeTasks(cm.assigned) === describeTasks(m.owned)
          );
        }) &&
        [...g.members.values()].every((m) => m.assigned.warmup.size === 0);
      if (converged) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error("the group did not become stable within 10 s");
  };
  const show = (title: string) => {
    const g = streams.coordinator.group("shop")!;
    print(`${title}: group epoch ${g.groupEpoch}, assignment epoch ${g.assignmentEpoch}`);
    for (const m of members)
      print(`  ${m.options.memberId} (member epoch ${m.memberEpoch}): ${describeTasks(m.owned)}`);
    steps.push({
      title,
      groupEpoch: g.groupEpoch,
      assignmentEpoch: g.assignmentEpoch,
      members: members.map((m) => ({
        id: m.options.memberId,
        processId: m.options.processId,
        memberEpoch: m.memberEpoch,
        tasks: m.owned,
      })),
    });
  };
  try {
    for (const id of ["a", "b", "c"]) {
      const m = new StreamsGroupMember({
        host: node.host,
        port: node.port,
        groupId: "shop",
        memberId: `member-${id}`,
        processId: `process-${id}`,
        topology: TOPOLOGY,
        userEndpoint: { host: "127.0.0.1", port: 7000 + members.length },
        // A restoring task catches up at once here: every owned task reports offset = end offset.
        taskOffsets: (owned) => {
          const all = [...owned.active, ...owned.standby, ...owned.warmup].map((k) => {
            const [subtopologyId, p] = k.split("\u0000") as [string, string];
            return { subtopologyId, partition: Number(p), offset: 100n };
          });
          return { offsets: all, endOffsets: all };
        },
        onReconcile: (e, member) =>
          print(
            `  ${member.options.memberId} epoch ${e.memberEpoch}: gave up [${describeTasks(e.revoked)}], took [${describeTasks(e.assigned)}]`,
          ),
      });
      members.push(m);
      print(`${m.options.memberId} joins`);
      await m.start();
      await stable();
      show(`stable with ${members.length}`);
    }
    const leaving = members.shift()!;
    print(`${leaving.options.memberId} leaves (member epoch -1)`);
    await leaving.close();
    await stable();
    show("stable after the leave");
    const ep = members[0]!.protocol.partitionsByUserEndpoint;
    print(
      `PartitionsByUserEndpoint: ${JSON.stringify(ep.map((e) => [`${e.userEndpoint.host}:${e.userEndpoint.port}`, e.activePartitions, e.standbyPartitions]))}`,
    );
    const records = [...streams.consumerOffsets().values()].flat().flatMap((b) => streams.codec.decode(b));
    print(`__consumer_offsets: ${records.length} records`);
  } finally {
    for (const m of members) await m.close().catch(() => {});
    await cluster.close();
  }
  return {
    steps,
    exchanges,
    consumerOffsets: streams.consumerOffsets(),
    streams,
    protocol: cluster.cluster.protocol.untyped,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const at = process.argv.indexOf("--schemas");
  const schemas = at > 0 ? process.argv[at + 1]! : "../shared/kafka-schemas";
  const { codecs } = await loadSchemaSet({ cwd: process.cwd(), schemas: [schemas] });
  if (codecs.protocol === undefined || codecs.internalTopics === undefined)
    throw new Error(`${schemas}: needs Kafka's clients and group-coordinator schemas`);
  await runExample({ protocol: codecs.protocol, internalTopics: codecs.internalTopics }, (l) => console.log(l));
}
