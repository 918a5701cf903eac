/**
 * Reading a streams group's member metadata from `__consumer_offsets` (README, "Internal topics").
 *
 *   npx tsx examples/streams-member-metadata.ts
 *
 * In an application the imports are `kafka-wire/records` and your generated index (or the
 * package root, `kafka-wire`), and the record set is the `records` field of a Fetch response
 * for a partition of `__consumer_offsets`. Here the set is written with `encodeRecordBatch` from
 * one record's key and value, worked out by hand from the seed schemas:
 *
 *   key   0013                         record type 19 (StreamsGroupMemberMetadataKey)
 *         000a 6f72646572732d617070   groupId "orders-app" (int16 length, not flexible)
 *         0003 6d2d31                 memberId "m-1"
 *   value 0000                         value version 0, then StreamsGroupMemberMetadataValue v0:
 *         00 00                        instanceId null, rackId null (compact nullable strings)
 *         04 632d31                    clientId "c-1" (compact: length + 1)
 *         0a 2f31302e302e302e37        clientHost "/10.0.0.7"
 *         00007530                     rebalanceTimeoutMs 30000
 *         04 742d31  04 702d31         topologyId "t-1", processId "p-1"
 *         02 68 00001f90 00            userEndpoint { host "h", port 8080 }, no tagged fields
 *         01                           clientTags: empty (0 + 1)
 *         00                           no tagged fields
 *
 * and a tombstone (null value) for member "m-2", which removes that member when the topic is
 * compacted. Prints one JSON line per record.
 */

import { internalTopics } from "../generated/index.js";
import { decodeRecords, encodeRecordBatch, type RecordSet } from "../src/records/index.js";

const hex = (s: string) =>
  new Uint8Array(
    s
      .replace(/\s+/g, "")
      .match(/../g)!
      .map((b) => parseInt(b, 16)),
  );

const recordSet = encodeRecordBatch({
  baseOffset: 41n,
  baseTimestamp: 1735689600000n,
  records: [
    {
      key: hex("0013 000a 6f72646572732d617070 0003 6d2d31"),
      value: hex("0000 00 00 04632d31 0a2f31302e302e302e37 00007530 04742d31 04702d31 0268 00001f90 00 01 00"),
    },
    { key: hex("0013 000a 6f72646572732d617070 0003 6d2d32"), value: null },
  ],
}) as Uint8Array;

// Uncompressed here; pass `{ codecs }` from kafka-wire-compression for compressed batches (and await).
const { batches } = decodeRecords(recordSet) as RecordSet;
for (const batch of batches) {
  for (const record of batch.records) {
    const decoded = internalTopics.decode("__consumer_offsets", record.key, record.value);
    if (decoded.keySchema !== "StreamsGroupMemberMetadataKey") continue;
    const { groupId, memberId } = decoded.key;
    if (decoded.value === null) {
      console.log(JSON.stringify({ offset: String(record.offset), groupId, memberId, removed: true }));
    } else {
      const { processId, clientHost, userEndpoint } = decoded.value;
      console.log(
        JSON.stringify({ offset: String(record.offset), groupId, memberId, processId, clientHost, userEndpoint }),
      );
    }
  }
}
