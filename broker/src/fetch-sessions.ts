/**
 * Incremental fetch sessions (KIP-227), per node, as Kafka's `FetchSessionCache` keeps them: a
 * Fetch with session id 0 and epoch 0 opens a session over its partitions; later Fetches name
 * the session and the next epoch, and carry only the partitions whose fetch offset changed (and
 * the forgotten ones); the response lists only the partitions with records or whose high
 * watermark, last stable offset or log start offset moved. Epoch -1 is a fetch without a session
 * (closing the session it names). The cache is bounded (Kafka's
 * `max.incremental.fetch.session.cache.slots`, 1000): the least recently used session goes.
 */

/** One partition of a session, with what the client was last told about it. */
export interface SessionPartition {
  readonly topic: string;
  readonly topicId: string;
  readonly partition: number;
  fetchOffset: bigint;
  partitionMaxBytes: number;
  /** The leader epoch the fetcher knows (-1: none), checked against the partition's. */
  currentLeaderEpoch: number;
  highWatermark: bigint;
  lastStableOffset: bigint;
  logStartOffset: bigint;
}

export interface FetchSession {
  readonly id: number;
  readonly nodeId: number;
  /** The epoch the next request must carry. */
  epoch: number;
  readonly partitions: Map<string, SessionPartition>;
}

/** A Fetch request's session fields and partitions. */
export interface SessionRequest {
  readonly sessionId: number;
  readonly sessionEpoch: number;
  readonly topics: readonly {
    readonly topic: string;
    readonly topicId: string;
    readonly partitions: readonly {
      readonly partition: number;
      readonly fetchOffset: bigint;
      readonly partitionMaxBytes: number;
      readonly currentLeaderEpoch: number;
    }[];
  }[];
  readonly forgottenTopicsData: readonly {
    readonly topic: string;
    readonly topicId: string;
    readonly partitions: readonly number[];
  }[];
}

/** What a Fetch works on: the partitions to read, and the session (null: sessionless). */
export type SessionResolution =
  | { readonly error: "FETCH_SESSION_ID_NOT_FOUND" | "INVALID_FETCH_SESSION_EPOCH" }
  | {
      readonly error: null;
      readonly session: FetchSession | null;
      readonly incremental: boolean;
      readonly partitions: SessionPartition[];
    };

const MAX_SESSIONS = 1000;

export class FetchSessions {
  /** By session id; Map order is use order (least recently used first). */
  private readonly sessions = new Map<number, FetchSession>();

  /** Forgets every session (`cluster.reset()`): their next incremental fetch gets FETCH_SESSION_ID_NOT_FOUND. */
  clear(): void {
    this.sessions.clear();
  }

  /** Resolves a request against the sessions of node `nodeId`; `byId`: topics named by id (Fetch v13+). */
  resolve(req: SessionRequest, nodeId: number, byId: boolean): SessionResolution {
    const key = (topic: string, topicId: string, partition: number) => `${byId ? topicId : topic}:${partition}`;
    const requested = (): SessionPartition[] =>
      req.topics.flatMap((t) =>
        t.partitions.map((p) => ({
          topic: t.topic,
          topicId: t.topicId,
          partition: p.partition,
          fetchOffset: p.fetchOffset,
          partitionMaxBytes: p.partitionMaxBytes,
          currentLeaderEpoch: p.currentLeaderEpoch,
          highWatermark: -2n,
          lastStableOffset: -2n,
          logStartOffset: -2n,
        })),
      );
    if (req.sessionEpoch === -1) {
      // A full fetch without a session; a session it names is closed.
      if (req.sessionId !== 0) this.sessions.delete(req.sessionId);
      return { error: null, session: null, incremental: false, partitions: requested() };
    }
    if (req.sessionId === 0) {
      if (req.sessionEpoch !== 0) return { error: "INVALID_FETCH_SESSION_EPOCH" };
      const partitions = requested();
      const session: FetchSession = {
        id: this.newId(),
        nodeId,
        // Advanced to 1 once this request is answered: the first incremental fetch carries epoch 1 (KIP-227).
        epoch: 0,
        partitions: new Map(partitions.map((p) => [key(p.topic, p.topicId, p.partition), p])),
      };
      this.sessions.set(session.id, session);
      while (this.sessions.size > MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value!);
      return { error: null, session, incremental: false, partitions };
    }
    const session = this.sessions.get(req.sessionId);
    if (session === undefined || session.nodeId !== nodeId) return { error: "FETCH_SESSION_ID_NOT_FOUND" };
    if (req.sessionEpoch !== session.epoch) return { error: "INVALID_FETCH_SESSION_EPOCH" };
    // Used now: to the end of the use order.
    this.sessions.delete(session.id);
    this.sessions.set(session.id, session);
    for (const p of requested()) {
      const k = key(p.topic, p.topicId, p.partition);
      const known = session.partitions.get(k);
      if (known === undefined) session.partitions.set(k, p);
      else {
        known.fetchOffset = p.fetchOffset;
        known.partitionMaxBytes = p.partitionMaxBytes;
        known.currentLeaderEpoch = p.currentLeaderEpoch;
      }
    }
    for (const t of req.forgottenTopicsData)
      for (const p of t.partitions) session.partitions.delete(key(t.topic, t.topicId, p));
    return { error: null, session, incremental: true, partitions: [...session.partitions.values()] };
  }

  /** Moves a session to its next epoch after a response (wrapping to 1 after Integer.MAX_VALUE). */
  static advance(session: FetchSession): void {
    session.epoch = session.epoch === 0x7fffffff ? 1 : session.epoch + 1;
  }

  private newId(): number {
    for (;;) {
      const id = 1 + Math.floor(Math.random() * 0x7ffffffe);
      if (!this.sessions.has(id)) return id;
    }
  }
}
