/**
 * Where responses name brokers, so that the proxy can name its own listeners instead and keep
 * clients on it:
 * - Metadata (3): `brokers[].host/port`;
 * - FindCoordinator (10): `host/port` (v0–v3) and `coordinators[].host/port` (v4+, KIP-699);
 * - DescribeCluster (60): `brokers[].host/port`;
 * - Produce (0), Fetch (1), ShareFetch (78), ShareAcknowledge (79): KIP-951's `nodeEndpoints`
 *   (the new leader's address sent with NOT_LEADER_OR_FOLLOWER; `currentLeader` carries only the
 *   node id and epoch, which stay as they are).
 * Kafka's `MetadataResponse`, `FindCoordinatorResponse`, `DescribeClusterResponse`,
 * `ProduceResponse` and `FetchResponse` schemas name the fields.
 */

/** The api keys whose responses name brokers. */
export const ADDRESS_APIS: ReadonlySet<number> = new Set([0, 1, 3, 10, 60, 78, 79]);

/** Maps a broker's address to the proxy listener's for it; null leaves it as it is. */
export type AddressMap = (host: string, port: number) => Promise<{ host: string; port: number } | null>;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Body = Record<string, any>;

/**
 * The body with every broker address replaced through `map` (a new object; `body` is not
 * changed), or null when no address changed.
 */
export async function rewriteAddresses(apiKey: number, body: Body, map: AddressMap): Promise<Body | null> {
  switch (apiKey) {
    case 3:
    case 60:
      return rewriteList(body, "brokers", map);
    case 10: {
      const listed = await rewriteList(body, "coordinators", map);
      const top = await rewriteOne(listed ?? body, map);
      return top ?? listed;
    }
    case 0:
    case 1:
    case 78:
    case 79:
      return rewriteList(body, "nodeEndpoints", map);
    default:
      return null;
  }
}

async function rewriteList(body: Body, field: string, map: AddressMap): Promise<Body | null> {
  const list: unknown = body[field];
  if (!Array.isArray(list) || list.length === 0) return null;
  let changed = false;
  const out: unknown[] = [];
  for (const entry of list as Body[]) {
    const next = await rewriteOne(entry, map);
    if (next !== null) changed = true;
    out.push(next ?? entry);
  }
  return changed ? { ...body, [field]: out } : null;
}

async function rewriteOne(entry: Body, map: AddressMap): Promise<Body | null> {
  const { host, port } = entry;
  // An error reply (no coordinator yet) has host "" and port -1: nothing to rewrite.
  if (typeof host !== "string" || typeof port !== "number" || host === "" || port <= 0) return null;
  const to = await map(host, port);
  if (to === null || (to.host === host && to.port === port)) return null;
  return { ...entry, host: to.host, port: to.port };
}
