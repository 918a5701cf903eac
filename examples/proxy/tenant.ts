/**
 * An example filter set for kafka-wire-proxy: topics of a tenant. Clients name topics as they
 * like (`orders`); the brokers see them with the tenant's prefix (`acme.orders`); responses name
 * them without it again, and Metadata hides every topic without the prefix (other tenants').
 *
 * It covers what producers and consumers send by topic name: Metadata, Produce, Fetch (v12 and
 * below; v13+ names topics by id), ListOffsets, OffsetCommit, OffsetFetch (both forms),
 * OffsetForLeaderEpoch, CreateTopics, DeleteTopics and ConsumerGroupHeartbeat's subscription.
 * Field names are those of Kafka's schemas; the bodies are typed loosely here (`Filters` without a
 * type argument) so that one filter serves every version. Classic groups' member metadata and
 * assignments (opaque bytes to the broker) keep the names the clients use.
 */

import { Filters } from "../../proxy/src/index.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Body = Record<string, any>;

/** Kafka's api keys used below. */
const Api = {
  Produce: 0,
  Fetch: 1,
  ListOffsets: 2,
  Metadata: 3,
  OffsetCommit: 8,
  OffsetFetch: 9,
  CreateTopics: 19,
  DeleteTopics: 20,
  OffsetForLeaderEpoch: 23,
  ConsumerGroupHeartbeat: 68,
} as const;

/** `list` with `field` of each entry mapped (entries whose field is not a string are kept). */
function renamed(
  list: Body[] | null | undefined,
  field: string,
  f: (name: string) => string,
): Body[] | null | undefined {
  if (!Array.isArray(list)) return list;
  return list.map((e) => (typeof e[field] === "string" && e[field] !== "" ? { ...e, [field]: f(e[field]) } : e));
}

/** The filters that put every topic of the clients under `prefix` (e.g. `"acme."`). */
export function tenantTopics(prefix: string): Filters {
  if (prefix === "") throw new Error("a tenant prefix must not be empty");
  const add = (name: string): string => prefix + name;
  const strip = (name: string): string => (name.startsWith(prefix) ? name.slice(prefix.length) : name);
  const filters = new Filters();

  filters.onRequest(Api.Metadata, (req, ctx) =>
    ctx.forward({ ...req.body, topics: renamed(req.body.topics, "name", add) }),
  );
  filters.onResponse(Api.Metadata, (res, ctx) =>
    ctx.forward({
      ...res.body,
      topics: (res.body.topics as Body[])
        .filter((t) => t.name === null || (t.name as string).startsWith(prefix))
        .map((t) => (t.name === null ? t : { ...t, name: strip(t.name) })),
    }),
  );

  filters.onRequest(Api.Produce, (req, ctx) =>
    ctx.forward({ ...req.body, topicData: renamed(req.body.topicData, "name", add) }),
  );
  filters.onResponse(Api.Produce, (res, ctx) =>
    ctx.forward({ ...res.body, responses: renamed(res.body.responses, "name", strip) }),
  );

  filters.onRequest(Api.Fetch, (req, ctx) =>
    ctx.forward({
      ...req.body,
      topics: renamed(req.body.topics, "topic", add),
      forgottenTopicsData: renamed(req.body.forgottenTopicsData, "topic", add),
    }),
  );
  filters.onResponse(Api.Fetch, (res, ctx) =>
    ctx.forward({ ...res.body, responses: renamed(res.body.responses, "topic", strip) }),
  );

  for (const apiKey of [Api.ListOffsets, Api.OffsetCommit, Api.CreateTopics]) {
    filters.onRequest(apiKey, (req, ctx) =>
      ctx.forward({ ...req.body, topics: renamed(req.body.topics, "name", add) }),
    );
    filters.onResponse(apiKey, (res, ctx) =>
      ctx.forward({ ...res.body, topics: renamed(res.body.topics, "name", strip) }),
    );
  }

  filters.onRequest(Api.OffsetForLeaderEpoch, (req, ctx) =>
    ctx.forward({ ...req.body, topics: renamed(req.body.topics, "topic", add) }),
  );
  filters.onResponse(Api.OffsetForLeaderEpoch, (res, ctx) =>
    ctx.forward({ ...res.body, topics: renamed(res.body.topics, "topic", strip) }),
  );

  // v0–v7 name one group's topics at the top; v8+ a list of groups, each with its topics.
  const offsetFetch = (body: Body, f: (name: string) => string): Body => ({
    ...body,
    ...(Array.isArray(body.topics) ? { topics: renamed(body.topics, "name", f) } : {}),
    ...(Array.isArray(body.groups)
      ? { groups: (body.groups as Body[]).map((g) => ({ ...g, topics: renamed(g.topics, "name", f) })) }
      : {}),
  });
  filters.onRequest(Api.OffsetFetch, (req, ctx) => ctx.forward(offsetFetch(req.body, add)));
  filters.onResponse(Api.OffsetFetch, (res, ctx) => ctx.forward(offsetFetch(res.body, strip)));

  filters.onRequest(Api.DeleteTopics, (req, ctx) =>
    ctx.forward({
      ...req.body,
      topicNames: Array.isArray(req.body.topicNames) ? (req.body.topicNames as string[]).map(add) : req.body.topicNames,
      topics: renamed(req.body.topics, "name", add),
    }),
  );
  filters.onResponse(Api.DeleteTopics, (res, ctx) =>
    ctx.forward({ ...res.body, responses: renamed(res.body.responses, "name", strip) }),
  );

  filters.onRequest(Api.ConsumerGroupHeartbeat, (req, ctx) =>
    Array.isArray(req.body.subscribedTopicNames)
      ? ctx.forward({ ...req.body, subscribedTopicNames: (req.body.subscribedTopicNames as string[]).map(add) })
      : undefined,
  );
  return filters;
}
