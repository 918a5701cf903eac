/**
 * Typed filters, written for a user's project: codecs generated into ./kafka next to this file
 * (`kafka-wire generate --kafka 4.1.0 --out kafka`) and kafka-wire-proxy installed. Each filter's
 * message is typed by its api key (`req.body` is a ProduceRequest here); a misspelled field does
 * not compile. test/proxy-typed.test.ts type-checks it against Kafka's schemas.
 */
import { editFetchRecords, editProduceRecords, Filters, startProxy } from "kafka-wire-proxy";
import { ApiKey, protocol, type Apis } from "./kafka/index.js";

const filters = new Filters<Apis>()
  // Typed by api key: req.body is a ProduceRequest of the version in req.apiVersion.
  .onRequest(ApiKey.Produce, async (req, ctx) => {
    if (req.body.acks === 0) return ctx.close("this cluster wants acknowledged writes");
    return ctx.forward(
      await editProduceRecords(req.body, (record) => ({
        ...record,
        headers: [...record.headers, { key: "client-id", value: req.header.clientId ?? "" }],
      })),
    );
  })
  // A filter may answer itself: the broker never sees these requests.
  .onRequest(ApiKey.DeleteTopics, (req, ctx) =>
    ctx.respond({
      responses: (req.body.topicNames ?? []).map((name) => ({
        name,
        errorCode: 41 /* POLICY_VIOLATION */,
        errorMessage: "not through this proxy",
      })),
    }),
  )
  // Responses too: hide records whose key starts with "internal-".
  .onResponse(ApiKey.Fetch, async (res, ctx) =>
    ctx.forward(
      await editFetchRecords(res.body, (r) =>
        r.key !== null && Buffer.from(r.key).toString().startsWith("internal-") ? null : undefined,
      ),
    ),
  );

const upstream = process.argv[2] ?? "127.0.0.1:9092";
const proxy = await startProxy({ upstream, listen: "127.0.0.1:19092", protocol, filters });
console.log(`bootstrap.servers=${proxy.bootstrap}`);
