/**
 * The streams group configs of KIP-1071 (design page 002, "Broker configs"), with the pages'
 * defaults. The `min`/`max` entries are the broker-level bounds of the group-level values, as in
 * the pages' table; {@link resolveStreamsGroupConfig} checks every value against its bounds.
 */

/** Every config of the pages' table, in Kafka's names. Durations in milliseconds. */
export interface StreamsGroupConfig {
  /** The timeout to detect client failures. Default 45 000. */
  readonly "group.streams.session.timeout.ms": number;
  /** Lower bound of the session timeout. Default 45 000. */
  readonly "group.streams.min.session.timeout.ms": number;
  /** Upper bound of the session timeout. Default 60 000. */
  readonly "group.streams.max.session.timeout.ms": number;
  /** The heartbeat interval given to the members. Default 5 000. */
  readonly "group.streams.heartbeat.interval.ms": number;
  /** Lower bound of the heartbeat interval. Default 5 000. */
  readonly "group.streams.min.heartbeat.interval.ms": number;
  /** Upper bound of the heartbeat interval. Default 15 000. */
  readonly "group.streams.max.heartbeat.interval.ms": number;
  /** The maximum number of members of one group. Default 2^31 - 1 (Java's Integer.MAX_VALUE). */
  readonly "group.streams.max.size": number;
  /** The largest lag (offsets) at which a warm-up task counts as caught up. Default 10 000. */
  readonly "group.streams.acceptable.recovery.lag": number;
  /** The maximum number of warm-up tasks in the group at once. Default 2. */
  readonly "group.streams.num.warmup.replicas": number;
  /** Upper bound of `num.warmup.replicas`. Default 4. */
  readonly "group.streams.max.warmup.replicas": number;
  /** Standby tasks per stateful task. Default 0. */
  readonly "group.streams.num.standby.replicas": number;
  /** Upper bound of `num.standby.replicas`. Default 2. */
  readonly "group.streams.max.standby.replicas": number;
  /** How often members send their task changelog offsets. Default 60 000. */
  readonly "group.streams.task.offset.interval.ms": number;
  /** Lower bound of the task offset interval. Default 15 000. */
  readonly "group.streams.min.task.offset.interval.ms": number;
  /** The task assignor: null (the default) or "sticky", the one this coordinator has. */
  readonly "group.streams.assignor.name": string | null;
}

/** The pages' defaults. */
export const STREAMS_GROUP_CONFIG_DEFAULTS: StreamsGroupConfig = Object.freeze({
  "group.streams.session.timeout.ms": 45_000,
  "group.streams.min.session.timeout.ms": 45_000,
  "group.streams.max.session.timeout.ms": 60_000,
  "group.streams.heartbeat.interval.ms": 5_000,
  "group.streams.min.heartbeat.interval.ms": 5_000,
  "group.streams.max.heartbeat.interval.ms": 15_000,
  "group.streams.max.size": 2_147_483_647,
  "group.streams.acceptable.recovery.lag": 10_000,
  "group.streams.num.warmup.replicas": 2,
  "group.streams.max.warmup.replicas": 4,
  "group.streams.num.standby.replicas": 0,
  "group.streams.max.standby.replicas": 2,
  "group.streams.task.offset.interval.ms": 60_000,
  "group.streams.min.task.offset.interval.ms": 15_000,
  "group.streams.assignor.name": null,
});

/** The assignors this coordinator has (the pages leave the set to the implementation). */
export const STREAMS_ASSIGNORS = ["sticky"] as const;

/**
 * The defaults overridden by `overrides`, checked.
 * @throws RangeError naming the config when a value is not an integer in its bounds (or the
 *   heartbeat interval is not below the session timeout, or the assignor is unknown).
 */
export function resolveStreamsGroupConfig(overrides: Partial<StreamsGroupConfig> = {}): StreamsGroupConfig {
  const c: StreamsGroupConfig = { ...STREAMS_GROUP_CONFIG_DEFAULTS, ...overrides };
  const int = (name: keyof StreamsGroupConfig, min: number, max: number) => {
    const v = c[name];
    if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > max)
      throw new RangeError(`${name} must be an integer in [${min}, ${max}], got ${String(v)}`);
  };
  const MAX = 2_147_483_647;
  int("group.streams.min.session.timeout.ms", 1, MAX);
  int("group.streams.max.session.timeout.ms", c["group.streams.min.session.timeout.ms"], MAX);
  int(
    "group.streams.session.timeout.ms",
    c["group.streams.min.session.timeout.ms"],
    c["group.streams.max.session.timeout.ms"],
  );
  int("group.streams.min.heartbeat.interval.ms", 1, MAX);
  int("group.streams.max.heartbeat.interval.ms", c["group.streams.min.heartbeat.interval.ms"], MAX);
  int(
    "group.streams.heartbeat.interval.ms",
    c["group.streams.min.heartbeat.interval.ms"],
    c["group.streams.max.heartbeat.interval.ms"],
  );
  if (c["group.streams.heartbeat.interval.ms"] >= c["group.streams.session.timeout.ms"])
    throw new RangeError("group.streams.heartbeat.interval.ms must be below group.streams.session.timeout.ms");
  int("group.streams.max.size", 1, MAX);
  int("group.streams.acceptable.recovery.lag", 0, MAX);
  int("group.streams.max.warmup.replicas", 0, MAX);
  int("group.streams.num.warmup.replicas", 0, c["group.streams.max.warmup.replicas"]);
  int("group.streams.max.standby.replicas", 0, MAX);
  int("group.streams.num.standby.replicas", 0, c["group.streams.max.standby.replicas"]);
  int("group.streams.min.task.offset.interval.ms", 1, MAX);
  int("group.streams.task.offset.interval.ms", c["group.streams.min.task.offset.interval.ms"], MAX);
  const assignor = c["group.streams.assignor.name"];
  if (assignor !== null && !(STREAMS_ASSIGNORS as readonly string[]).includes(assignor))
    throw new RangeError(
      `group.streams.assignor.name must be null or one of ${STREAMS_ASSIGNORS.join(", ")}, got ${JSON.stringify(assignor)}`,
    );
  return Object.freeze(c);
}
