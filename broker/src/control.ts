/**
 * Faults on cue, for tests: `fail` (an error code instead of the answer), `delay`, `drop` (the
 * connection closed instead of answering) and `intercept` (a test's own handler in front of the
 * registered one). The models: franz-go kfake's `ControlKey`/`KeepControl`/`SleepControl` and
 * librdkafka's mock `push_request_errors`.
 *
 * Off the hot path: a request goes through {@link Control.serve} only while a rule or an
 * interceptor is registered (`Control.active`); otherwise the handler is called directly.
 */

import { ERROR_CODES } from "../../src/error-codes.js";
import type { Cluster } from "./cluster.js";
import type { ApiKey, Handler, RequestBody, RequestContext, ResponseBody } from "./types.js";

/** What every fault matches on. */
export interface FaultScope {
  /** The api key whose requests it hits (Produce 0, Fetch 1, ...). */
  readonly apiKey: number;
  /** How many matching requests it hits, counting down (1..1000000, default 1); then it is gone. */
  readonly times?: number;
  /** Only requests received by this node id (default: any node). */
  readonly node?: number;
}

/** `cluster.fail`: the next matching requests are answered with `errorCode`. */
export interface FailSpec extends FaultScope {
  /** Kafka's error code, by number or name (`"NOT_LEADER_OR_FOLLOWER"`). */
  readonly errorCode: number | string;
  /** Only partitions of this topic (for the partition-level APIs below). */
  readonly topic?: string;
  /** Only this partition index (for the partition-level APIs below). */
  readonly partition?: number;
}

/** `cluster.delay`: the next matching requests are answered `ms` later. */
export interface DelaySpec extends FaultScope {
  /** 0..600000 ms. */
  readonly ms: number;
}

/**
 * A test's handler in front of the registered one: return a response body (or null for none) to
 * answer the request itself, or `next()`'s to pass it on (`next(request)` passes another body).
 * A thrown error closes the connection, as a handler's does.
 */
export type Interceptor<K extends ApiKey> = (
  request: RequestBody<K>,
  context: RequestContext,
  next: (request?: RequestBody<K>) => Promise<ResponseBody<K> | null>,
) => ResponseBody<K> | null | Promise<ResponseBody<K> | null>;

/** Thrown to close a connection instead of answering (`cluster.drop`). */
export class DroppedByTest extends Error {}

type Body = Record<string, unknown>;
type Rule =
  | { kind: "fail"; scope: FaultScope; left: number; code: number; topic?: string; partition?: number }
  | { kind: "delay"; scope: FaultScope; left: number; ms: number }
  | { kind: "drop"; scope: FaultScope; left: number };

/**
 * Where the APIs with per-partition error codes keep their topics and partitions, in the request
 * and in the response (field names of Kafka's schemas). A `fail` on these answers the matching
 * partitions with the error and the others as the handler does.
 */
interface PartitionShape {
  readonly req: readonly [topics: string, name: string, partitions: string, index: string];
  readonly res: readonly [topics: string, name: string, partitions: string, index: string];
}
const PARTITION_LEVEL: ReadonlyMap<number, PartitionShape> = new Map([
  [
    0,
    { req: ["topicData", "name", "partitionData", "index"], res: ["responses", "name", "partitionResponses", "index"] },
  ],
  [
    1,
    {
      req: ["topics", "topic", "partitions", "partition"],
      res: ["responses", "topic", "partitions", "partitionIndex"],
    },
  ],
  [
    2,
    {
      req: ["topics", "name", "partitions", "partitionIndex"],
      res: ["topics", "name", "partitions", "partitionIndex"],
    },
  ],
  [
    8,
    {
      req: ["topics", "name", "partitions", "partitionIndex"],
      res: ["topics", "name", "partitions", "partitionIndex"],
    },
  ],
  [23, { req: ["topics", "topic", "partitions", "partition"], res: ["topics", "topic", "partitions", "partition"] }],
]);

const MAX_TIMES = 1_000_000;
const MAX_DELAY_MS = 600_000;
const CODES = new Map(ERROR_CODES.map((e) => [e.name, e.code]));
const KNOWN_CODES = new Set(ERROR_CODES.map((e) => e.code));

/** The faults and interceptors of one cluster. */
export class Control {
  private readonly rules: Rule[] = [];
  private readonly interceptors = new Map<number, Interceptor<ApiKey>[]>();
  /** True while any rule or interceptor is registered: only then do requests go through {@link serve}. */
  active = false;

  constructor(private readonly cluster: Cluster) {}

  /** @throws Error for an unknown api key or error code, a bad `times`, or an api key without error codes. */
  fail(spec: FailSpec): void {
    const scope = this.scope(spec);
    const code = typeof spec.errorCode === "string" ? CODES.get(spec.errorCode) : spec.errorCode;
    if (code === undefined || !KNOWN_CODES.has(code)) throw new Error(`no Kafka error code ${String(spec.errorCode)}`);
    const api = this.cluster.protocol.untyped.apis.get(spec.apiKey)!;
    if (!PARTITION_LEVEL.has(spec.apiKey)) {
      if (spec.topic !== undefined || spec.partition !== undefined) {
        throw new Error(
          `${api.request.name}'s response has no per-partition error codes: fail it without topic/partition`,
        );
      }
      if (!("errorCode" in (api.response.create({}) as Body))) {
        throw new Error(`${api.response.name} has no top-level error code: use cluster.intercept to answer it`);
      }
    }
    this.add({
      kind: "fail",
      scope,
      left: scope.times!,
      code,
      ...(spec.topic === undefined ? {} : { topic: spec.topic }),
      ...(spec.partition === undefined ? {} : { partition: spec.partition }),
    });
  }

  delay(spec: DelaySpec): void {
    const scope = this.scope(spec);
    if (!Number.isInteger(spec.ms) || spec.ms < 0 || spec.ms > MAX_DELAY_MS) {
      throw new Error(`delay ms must be an integer 0..${MAX_DELAY_MS}, not ${spec.ms}`);
    }
    this.add({ kind: "delay", scope, left: scope.times!, ms: spec.ms });
  }

  drop(spec: FaultScope): void {
    const scope = this.scope(spec);
    this.add({ kind: "drop", scope, left: scope.times! });
  }

  /** Puts `handler` in front of api key `apiKey`'s (the latest interceptor runs first); returns its disposer. */
  intercept<K extends ApiKey>(apiKey: K, handler: Interceptor<K>): () => void {
    if (this.cluster.protocol.untyped.apis.get(apiKey) === undefined) throw new Error(`no api key ${apiKey}`);
    const list = this.interceptors.get(apiKey) ?? [];
    const entry = handler as unknown as Interceptor<ApiKey>;
    list.unshift(entry);
    this.interceptors.set(apiKey, list);
    this.active = true;
    return () => {
      const i = list.indexOf(entry);
      if (i >= 0) list.splice(i, 1);
      if (list.length === 0) this.interceptors.delete(apiKey);
      this.refresh();
    };
  }

  /** The rules not used up yet (for failure messages and tests). */
  pending(): readonly { kind: Rule["kind"]; apiKey: number; left: number }[] {
    return this.rules.map((r) => ({ kind: r.kind, apiKey: r.scope.apiKey, left: r.left }));
  }

  /** Removes every rule and interceptor. */
  clear(): void {
    this.rules.length = 0;
    this.interceptors.clear();
    this.active = false;
  }

  /**
   * Answers one request through the rules: delays first, then a drop, then a fail, then the
   * interceptors, then the handler. Each matching rule counts down once per request.
   */
  async serve(body: Body, ctx: RequestContext, handler: Handler<ApiKey>): Promise<Body | null> {
    for (const rule of this.take("delay", ctx, body)) {
      await this.sleep((rule as { ms: number }).ms);
    }
    if (this.take("drop", ctx, body).length > 0) {
      throw new DroppedByTest(`closed by cluster.drop (api key ${ctx.apiKey})`);
    }
    const chain = (this.interceptors.get(ctx.apiKey) ?? []).slice();
    const call = async (i: number, request: Body): Promise<Body | null> => {
      if (i === chain.length) return (await handler(request as never, ctx)) as Body | null;
      return (await chain[i]!(
        request as never,
        ctx,
        (next) => call(i + 1, (next ?? request) as Body) as never,
      )) as Body | null;
    };
    const fail = this.take("fail", ctx, body)[0] as Extract<Rule, { kind: "fail" }> | undefined;
    if (fail === undefined) return call(0, body);
    return this.failed(fail, body, ctx, (request) => call(0, request));
  }

  private scope(spec: FaultScope): FaultScope {
    if (this.cluster.protocol.untyped.apis.get(spec.apiKey) === undefined) throw new Error(`no api key ${spec.apiKey}`);
    const times = spec.times ?? 1;
    if (!Number.isInteger(times) || times < 1 || times > MAX_TIMES) {
      throw new Error(`times must be an integer 1..${MAX_TIMES}, not ${times}`);
    }
    if (spec.node !== undefined && this.cluster.node(spec.node) === undefined) throw new Error(`no node ${spec.node}`);
    return { apiKey: spec.apiKey, times, ...(spec.node === undefined ? {} : { node: spec.node }) };
  }

  private add(rule: Rule): void {
    this.rules.push(rule);
    this.active = true;
  }

  private refresh(): void {
    this.active = this.rules.length > 0 || this.interceptors.size > 0;
  }

  /** The rules of `kind` matching this request, each counted down (and removed when used up). */
  private take(kind: Rule["kind"], ctx: RequestContext, body: Body): Rule[] {
    const hit: Rule[] = [];
    for (let i = 0; i < this.rules.length; i++) {
      const rule = this.rules[i]!;
      if (rule.kind !== kind || rule.scope.apiKey !== ctx.apiKey) continue;
      if (rule.scope.node !== undefined && rule.scope.node !== ctx.node.nodeId) continue;
      if (rule.kind === "fail" && !this.touches(rule, body, ctx.apiKey)) continue;
      hit.push(rule);
      if (--rule.left === 0) this.rules.splice(i--, 1);
      // One fail answers a request; delays add up.
      if (kind === "fail") break;
    }
    if (hit.length > 0) this.refresh();
    return hit;
  }

  /** True when a partition-scoped fail concerns at least one partition of the request. */
  private touches(rule: Extract<Rule, { kind: "fail" }>, body: Body, apiKey: number): boolean {
    const shape = PARTITION_LEVEL.get(apiKey);
    if (shape === undefined || (rule.topic === undefined && rule.partition === undefined)) return true;
    return this.split(rule, body, shape).failed.length > 0;
  }

  /** The request's partitions, split into those the rule fails and the rest (a new request body). */
  private split(
    rule: Extract<Rule, { kind: "fail" }>,
    body: Body,
    shape: PartitionShape,
  ): { failed: { topic: Body; name: string | undefined; indexes: number[] }[]; kept: Body } {
    const [topicsField, nameField, partitionsField, indexField] = shape.req;
    const failed: { topic: Body; name: string | undefined; indexes: number[] }[] = [];
    const keptTopics: Body[] = [];
    for (const topic of body[topicsField] as Body[]) {
      // Fetch v13+ names topics by id only.
      const name =
        (topic[nameField] as string | undefined) ||
        this.cluster.topicsById.get(topic["topicId"] as string)?.name ||
        undefined;
      const indexes: number[] = [];
      const kept: Body[] = [];
      for (const p of topic[partitionsField] as Body[]) {
        const index = p[indexField] as number;
        const hit =
          (rule.topic === undefined || rule.topic === name) &&
          (rule.partition === undefined || rule.partition === index);
        if (hit) indexes.push(index);
        else kept.push(p);
      }
      if (indexes.length > 0) failed.push({ topic, name, indexes });
      if (kept.length > 0) keptTopics.push({ ...topic, [partitionsField]: kept });
    }
    return { failed, kept: { ...body, [topicsField]: keptTopics } };
  }

  /** The answer of a request a fail rule hits. */
  private async failed(
    rule: Extract<Rule, { kind: "fail" }>,
    body: Body,
    ctx: RequestContext,
    next: (request: Body) => Promise<Body | null>,
  ): Promise<Body | null> {
    const shape = PARTITION_LEVEL.get(ctx.apiKey);
    if (shape === undefined) {
      // FindCoordinator v4+ carries its errors per key.
      if (ctx.apiKey === 10 && ctx.apiVersion >= 4) {
        const keys = body["coordinatorKeys"] as string[];
        return {
          coordinators: keys.map((key) => ({ key, nodeId: -1, host: "", port: -1, errorCode: rule.code })),
        };
      }
      return { errorCode: rule.code };
    }
    // Produce with acks=0 is never answered, whatever happens to it.
    if (ctx.apiKey === 0 && body["acks"] === 0) {
      const { kept } = this.split(rule, body, shape);
      if ((kept[shape.req[0]] as Body[]).length > 0) await next(kept);
      return null;
    }
    const { failed, kept } = this.split(rule, body, shape);
    const anyKept = (kept[shape.req[0]] as Body[]).length > 0;
    // The partitions not failed are answered by the handler (and take effect); the failed ones do
    // not. A Fetch in a session (KIP-227) goes whole to the handler, the failed partitions'
    // answers replaced: a partition left out of an incremental request would stay in the
    // session, and reading has no effect to hold back.
    const inSession = ctx.apiKey === 1 && ctx.apiVersion >= 7 && body["sessionEpoch"] !== -1;
    const answered = inSession ? await next(body) : anyKept ? await next(kept) : {};
    if (answered === null) return null; // Produce with acks=0: no response at all
    const [topicsField, nameField, partitionsField, indexField] = shape.res;
    const topics = ((answered[topicsField] as Body[] | undefined) ?? []).map((t) => ({ ...t }));
    for (const f of failed) {
      // Fetch's offsets are -1 on an error, as Kafka answers them.
      const extra = ctx.apiKey === 1 ? { highWatermark: -1n, lastStableOffset: -1n, logStartOffset: -1n } : {};
      const entries = f.indexes.map((index) => ({ [indexField]: index, errorCode: rule.code, ...extra }));
      const same = topics.find((t) =>
        f.topic["topicId"] !== undefined && (ctx.apiKey === 1 ? ctx.apiVersion >= 13 : false)
          ? t["topicId"] === f.topic["topicId"]
          : t[nameField] === f.topic[shape.req[1]],
      );
      if (same !== undefined) {
        const others = (same[partitionsField] as Body[]).filter((p) => !f.indexes.includes(p[indexField] as number));
        same[partitionsField] = [...others, ...entries];
      } else {
        topics.push({
          [nameField]: f.topic[shape.req[1]],
          ...(f.topic["topicId"] === undefined ? {} : { topicId: f.topic["topicId"] }),
          [partitionsField]: entries,
        });
      }
    }
    return { ...answered, [topicsField]: topics };
  }

  private sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const cancel = this.cluster.onClose(done);
      const t = this.cluster.timer(ms, done);
      function done(): void {
        cancel();
        resolve();
      }
      void t;
    });
  }
}
