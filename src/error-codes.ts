/**
 * Kafka's error codes: the int16 `errorCode` fields of responses and records, with their names
 * and whether a client may retry.
 *
 * Source: the "Error Codes" table of the Kafka protocol guide, which Kafka generates from its
 * `Errors` enum (clients/src/main/java/org/apache/kafka/common/protocol/Errors.java). Codes −1 to
 * 133 as of Kafka 4.1. A code is retriable when Kafka's exception class for it is a
 * `RetriableException` (the guide's "Retriable" column): the same request may succeed later
 * without changes (e.g. after a metadata refresh or once a coordinator has loaded). The
 * descriptions are short summaries, not Kafka's own messages.
 */

/** One of Kafka's error codes. */
export interface ErrorCodeInfo {
  /** The code as it appears on the wire (int16). */
  readonly code: number;
  /** Kafka's name for it, e.g. `UNKNOWN_TOPIC_OR_PARTITION` (the `Errors` enum constant). */
  readonly name: string;
  /** True when retrying the same request may succeed (Kafka's `RetriableException`). */
  readonly retriable: boolean;
  /** What the code means, in one short sentence. */
  readonly description: string;
}

/** What {@link errorCodeInfo} returns: a known code, or the fallback for an unknown one. */
export interface ErrorCodeLookup extends ErrorCodeInfo {
  /** False when `code` is not in {@link ERROR_CODES} (a newer broker, or a corrupt field). */
  readonly known: boolean;
}

// One row per code: code, name, retriable, description. Kept as a compact table (one line per
// code, as in the protocol guide) rather than in prettier's one-field-per-line layout.
// prettier-ignore
const ROWS: readonly (readonly [number, string, boolean, string])[] = [
  [-1, "UNKNOWN_SERVER_ERROR", false, "The server hit an unexpected error while handling the request."],
  [0, "NONE", false, "No error."],
  [1, "OFFSET_OUT_OF_RANGE", false, "The offset is outside the range the server keeps for the partition."],
  [2, "CORRUPT_MESSAGE", true, "A message failed its CRC check, is too large, lacks a key on a compacted topic, or is otherwise corrupt."],
  [3, "UNKNOWN_TOPIC_OR_PARTITION", true, "This server does not host the topic or partition."],
  [4, "INVALID_FETCH_SIZE", false, "The fetch size is not valid."],
  [5, "LEADER_NOT_AVAILABLE", true, "The partition has no leader at the moment (an election is under way)."],
  [6, "NOT_LEADER_OR_FOLLOWER", true, "This broker is not the leader (or, for follower requests, not a replica) of the partition."],
  [7, "REQUEST_TIMED_OUT", true, "The request timed out."],
  [8, "BROKER_NOT_AVAILABLE", false, "The broker is not available."],
  [9, "REPLICA_NOT_AVAILABLE", true, "The replica is not available for the partition."],
  [10, "MESSAGE_TOO_LARGE", false, "A message is larger than the largest the server accepts."],
  [11, "STALE_CONTROLLER_EPOCH", false, "The controller has moved to another broker."],
  [12, "OFFSET_METADATA_TOO_LARGE", false, "The metadata string of an offset commit is too long."],
  [13, "NETWORK_EXCEPTION", true, "The server closed the connection before sending a response."],
  [14, "COORDINATOR_LOAD_IN_PROGRESS", true, "The coordinator is still loading its state and cannot serve requests yet."],
  [15, "COORDINATOR_NOT_AVAILABLE", true, "The coordinator is not available."],
  [16, "NOT_COORDINATOR", true, "This broker is not the coordinator for the group or transactional id."],
  [17, "INVALID_TOPIC_EXCEPTION", false, "The topic name is not valid for this operation."],
  [18, "RECORD_LIST_TOO_LARGE", false, "A record batch is larger than the server's log segment size."],
  [19, "NOT_ENOUGH_REPLICAS", true, "Rejected: fewer in-sync replicas than required."],
  [20, "NOT_ENOUGH_REPLICAS_AFTER_APPEND", true, "Written to the log, but to fewer in-sync replicas than required."],
  [21, "INVALID_REQUIRED_ACKS", false, "The produce request's acks value is not valid."],
  [22, "ILLEGAL_GENERATION", false, "The group generation id is not valid."],
  [23, "INCONSISTENT_GROUP_PROTOCOL", false, "The member's protocols do not match the group's (or the protocol type or list is empty)."],
  [24, "INVALID_GROUP_ID", false, "The group id is not valid."],
  [25, "UNKNOWN_MEMBER_ID", false, "The coordinator does not know this member id."],
  [26, "INVALID_SESSION_TIMEOUT", false, "The session timeout is outside the broker's group.min/max.session.timeout.ms."],
  [27, "REBALANCE_IN_PROGRESS", false, "The group is rebalancing; the member must rejoin."],
  [28, "INVALID_COMMIT_OFFSET_SIZE", false, "The size of the offset commit data is not valid."],
  [29, "TOPIC_AUTHORIZATION_FAILED", false, "Not authorized to access the topic."],
  [30, "GROUP_AUTHORIZATION_FAILED", false, "Not authorized to access the group."],
  [31, "CLUSTER_AUTHORIZATION_FAILED", false, "Not authorized for this cluster operation."],
  [32, "INVALID_TIMESTAMP", false, "A message timestamp is outside the accepted range."],
  [33, "UNSUPPORTED_SASL_MECHANISM", false, "The broker does not support the SASL mechanism."],
  [34, "ILLEGAL_SASL_STATE", false, "The request is not valid in the current SASL state."],
  [35, "UNSUPPORTED_VERSION", false, "The broker does not support this version of the API."],
  [36, "TOPIC_ALREADY_EXISTS", false, "A topic with this name already exists."],
  [37, "INVALID_PARTITIONS", false, "The number of partitions is not valid (below 1)."],
  [38, "INVALID_REPLICATION_FACTOR", false, "The replication factor is below 1 or above the number of available brokers."],
  [39, "INVALID_REPLICA_ASSIGNMENT", false, "The replica assignment is not valid."],
  [40, "INVALID_CONFIG", false, "The configuration is not valid."],
  [41, "NOT_CONTROLLER", true, "This broker is not the cluster's active controller."],
  [42, "INVALID_REQUEST", false, "The request is malformed or not valid for this broker; the broker log has details."],
  [43, "UNSUPPORTED_FOR_MESSAGE_FORMAT", false, "The broker's message format version does not support the request."],
  [44, "POLICY_VIOLATION", false, "The request's parameters break a configured policy."],
  [45, "OUT_OF_ORDER_SEQUENCE_NUMBER", false, "The broker received a sequence number out of order."],
  [46, "DUPLICATE_SEQUENCE_NUMBER", false, "The broker received a duplicate sequence number."],
  [47, "INVALID_PRODUCER_EPOCH", false, "The producer used an old epoch."],
  [48, "INVALID_TXN_STATE", false, "The transactional operation is not valid in the producer's current state."],
  [49, "INVALID_PRODUCER_ID_MAPPING", false, "The producer id is not the one assigned to this transactional id."],
  [50, "INVALID_TRANSACTION_TIMEOUT", false, "The transaction timeout exceeds the broker's transaction.max.timeout.ms."],
  [51, "CONCURRENT_TRANSACTIONS", true, "Another operation on the same transaction is still in progress."],
  [52, "TRANSACTION_COORDINATOR_FENCED", false, "The transaction coordinator that sent the marker is no longer the current one."],
  [53, "TRANSACTIONAL_ID_AUTHORIZATION_FAILED", false, "Not authorized to use the transactional id."],
  [54, "SECURITY_DISABLED", false, "Security features are disabled on the broker."],
  [55, "OPERATION_NOT_ATTEMPTED", false, "Not attempted, because other operations in the same batch failed."],
  [56, "KAFKA_STORAGE_ERROR", true, "The broker hit a disk error accessing the log."],
  [57, "LOG_DIR_NOT_FOUND", false, "The log directory is not in the broker's configuration."],
  [58, "SASL_AUTHENTICATION_FAILED", false, "SASL authentication failed."],
  [59, "UNKNOWN_PRODUCER_ID", false, "The broker has no state for this producer id (e.g. its records were all deleted)."],
  [60, "REASSIGNMENT_IN_PROGRESS", false, "A partition reassignment is in progress."],
  [61, "DELEGATION_TOKEN_AUTH_DISABLED", false, "Delegation tokens are not enabled."],
  [62, "DELEGATION_TOKEN_NOT_FOUND", false, "The delegation token does not exist on the server."],
  [63, "DELEGATION_TOKEN_OWNER_MISMATCH", false, "The principal is not the token's owner or renewer."],
  [64, "DELEGATION_TOKEN_REQUEST_NOT_ALLOWED", false, "Delegation token requests are not allowed on this kind of connection."],
  [65, "DELEGATION_TOKEN_AUTHORIZATION_FAILED", false, "Not authorized for the delegation token."],
  [66, "DELEGATION_TOKEN_EXPIRED", false, "The delegation token has expired."],
  [67, "INVALID_PRINCIPAL_TYPE", false, "The principal type is not supported."],
  [68, "NON_EMPTY_GROUP", false, "The group still has members."],
  [69, "GROUP_ID_NOT_FOUND", false, "The group does not exist."],
  [70, "FETCH_SESSION_ID_NOT_FOUND", true, "The fetch session does not exist."],
  [71, "INVALID_FETCH_SESSION_EPOCH", true, "The fetch session epoch is not valid."],
  [72, "LISTENER_NOT_FOUND", true, "The leader has no listener matching the one the metadata request came in on."],
  [73, "TOPIC_DELETION_DISABLED", false, "Topic deletion is disabled."],
  [74, "FENCED_LEADER_EPOCH", true, "The request's leader epoch is older than the broker's."],
  [75, "UNKNOWN_LEADER_EPOCH", true, "The request's leader epoch is newer than the broker's."],
  [76, "UNSUPPORTED_COMPRESSION_TYPE", false, "The client does not support the partition's compression type."],
  [77, "STALE_BROKER_EPOCH", false, "The broker epoch has changed."],
  [78, "OFFSET_NOT_AVAILABLE", true, "The new leader's high watermark has not caught up yet, so offsets may not be monotonic."],
  [79, "MEMBER_ID_REQUIRED", false, "The member must get a member id before joining the group."],
  [80, "PREFERRED_LEADER_NOT_AVAILABLE", true, "The preferred leader is not available."],
  [81, "GROUP_MAX_SIZE_REACHED", false, "The group has reached its maximum size."],
  [82, "FENCED_INSTANCE_ID", false, "Another member with the same group.instance.id has registered with a different member id."],
  [83, "ELIGIBLE_LEADERS_NOT_AVAILABLE", true, "No eligible leader is available for the partition."],
  [84, "ELECTION_NOT_NEEDED", true, "The partition needs no leader election."],
  [85, "NO_REASSIGNMENT_IN_PROGRESS", false, "No partition reassignment is in progress."],
  [86, "GROUP_SUBSCRIBED_TO_TOPIC", false, "The group's offsets for a topic cannot be deleted while it is subscribed to the topic."],
  [87, "INVALID_RECORD", false, "The broker rejected a record that failed its validation."],
  [88, "UNSTABLE_OFFSET_COMMIT", true, "Pending transactional offsets must be resolved first."],
  [89, "THROTTLING_QUOTA_EXCEEDED", true, "The throttling quota has been exceeded."],
  [90, "PRODUCER_FENCED", false, "A newer producer with the same transactional id has fenced this one."],
  [91, "RESOURCE_NOT_FOUND", false, "The request names a resource that does not exist."],
  [92, "DUPLICATE_RESOURCE", false, "The request names the same resource twice."],
  [93, "UNACCEPTABLE_CREDENTIAL", false, "The credential does not meet the acceptance criteria."],
  [94, "INCONSISTENT_VOTER_SET", false, "The sender or receiver of a voter-only request is not an expected voter."],
  [95, "INVALID_UPDATE_VERSION", false, "The update version is not valid."],
  [96, "FEATURE_UPDATE_FAILED", false, "The finalized features could not be updated (unexpected server error)."],
  [97, "PRINCIPAL_DESERIALIZATION_FAILURE", false, "A forwarded request's principal could not be deserialized (a broker security setup error)."],
  [98, "SNAPSHOT_NOT_FOUND", false, "The snapshot does not exist."],
  [99, "POSITION_OUT_OF_RANGE", false, "The position is negative or beyond the end of the snapshot."],
  [100, "UNKNOWN_TOPIC_ID", true, "This server does not host the topic id."],
  [101, "DUPLICATE_BROKER_REGISTRATION", false, "The broker id is already in use."],
  [102, "BROKER_ID_NOT_REGISTERED", false, "The broker id is not registered."],
  [103, "INCONSISTENT_TOPIC_ID", true, "The log's topic id differs from the request's."],
  [104, "INCONSISTENT_CLUSTER_ID", false, "The request's cluster id differs from the server's."],
  [105, "TRANSACTIONAL_ID_NOT_FOUND", false, "The transactional id does not exist."],
  [106, "FETCH_SESSION_TOPIC_ID_ERROR", true, "The fetch session used topic ids inconsistently."],
  [107, "INELIGIBLE_REPLICA", false, "The new ISR contains a replica that is not eligible."],
  [108, "NEW_LEADER_ELECTED", false, "The partition state was updated, but the leader has changed."],
  [109, "OFFSET_MOVED_TO_TIERED_STORAGE", false, "The offset has moved to tiered storage."],
  [110, "FENCED_MEMBER_EPOCH", false, "The member epoch is fenced; the member must give up its partitions and rejoin."],
  [111, "UNRELEASED_INSTANCE_ID", false, "Another member still uses the instance id and must leave first."],
  [112, "UNSUPPORTED_ASSIGNOR", false, "The group does not support the assignor or its versions."],
  [113, "STALE_MEMBER_EPOCH", false, "The member epoch is stale; retry after a heartbeat returns the current one."],
  [114, "MISMATCHED_ENDPOINT_TYPE", false, "The request went to the wrong type of endpoint."],
  [115, "UNSUPPORTED_ENDPOINT_TYPE", false, "This endpoint type is not supported yet."],
  [116, "UNKNOWN_CONTROLLER_ID", false, "The controller id is not known."],
  [117, "UNKNOWN_SUBSCRIPTION_ID", false, "The telemetry subscription id is not valid or is outdated."],
  [118, "TELEMETRY_TOO_LARGE", false, "The telemetry push is larger than the broker accepts."],
  [119, "INVALID_REGISTRATION", false, "The controller considers the broker registration not valid."],
  [120, "TRANSACTION_ABORTABLE", false, "The transaction hit an error; abort it to keep using the transactional id."],
  [121, "INVALID_RECORD_STATE", false, "The record's state does not allow the acknowledgement."],
  [122, "SHARE_SESSION_NOT_FOUND", true, "The share session does not exist."],
  [123, "INVALID_SHARE_SESSION_EPOCH", true, "The share session epoch is not valid."],
  [124, "FENCED_STATE_EPOCH", false, "The share-group state epoch does not match the share coordinator's."],
  [125, "INVALID_VOTER_KEY", false, "The voter key does not match the receiving replica's."],
  [126, "DUPLICATE_VOTER", false, "The voter is already in the voter set."],
  [127, "VOTER_NOT_FOUND", false, "The voter is not in the voter set."],
  [128, "INVALID_REGULAR_EXPRESSION", false, "The regular expression is not valid."],
  [129, "REBOOTSTRAP_REQUIRED", false, "The client's metadata is stale; it must rebootstrap."],
  [130, "STREAMS_INVALID_TOPOLOGY", false, "The streams topology is not valid."],
  [131, "STREAMS_INVALID_TOPOLOGY_EPOCH", false, "The streams topology epoch is not valid."],
  [132, "STREAMS_TOPOLOGY_FENCED", false, "The streams topology epoch is outdated."],
  [133, "SHARE_SESSION_LIMIT_REACHED", true, "The broker's limit of share sessions has been reached."],
];

/** Every known error code, in code order. */
export const ERROR_CODES: readonly ErrorCodeInfo[] = /*@__PURE__*/ ROWS.map(([code, name, retriable, description]) =>
  Object.freeze({ code, name, retriable, description }),
);

// Built on first use, not at load: a bundler keeps a top-level `new Map(ERROR_CODES.map(…))` (the
// `.map` call may have effects, /*@__PURE__*/ or not), which would put the whole table in every
// bundle that imports anything from the package root (test/browser.test.ts measures it).
let byCode: ReadonlyMap<number, ErrorCodeInfo> | undefined;

/** The table by code. */
function byCodeTable(): ReadonlyMap<number, ErrorCodeInfo> {
  byCode ??= new Map(ERROR_CODES.map((e) => [e.code, e]));
  return byCode;
}

/**
 * The name, retriability and description of an error code.
 *
 * An unknown code (a broker newer than this table, or a corrupt field) is reported as Kafka's
 * Java client reports it: `Errors.forCode` maps every unknown code to UNKNOWN_SERVER_ERROR,
 * which is not retriable. The result keeps the code that was given and says `known: false`.
 *
 * @param code the int16 value of an `errorCode` field, e.g. 35.
 * @returns e.g. `{ code: 35, name: "UNSUPPORTED_VERSION", retriable: false, description: "…", known: true }`.
 */
export function errorCodeInfo(code: number): ErrorCodeLookup {
  const table = byCodeTable();
  const info = table.get(code);
  if (info !== undefined) return { ...info, known: true };
  const fallback = table.get(-1)!;
  return {
    code,
    name: fallback.name,
    retriable: fallback.retriable,
    description: `Unknown error code ${code}; handled as ${fallback.name}.`,
    known: false,
  };
}

/** An error code field found by {@link findErrorCodes}. */
export interface ErrorCodeField extends ErrorCodeLookup {
  /** Where the field is, in the message's JSON form, e.g. `topics[0].partitions[2].errorCode`. */
  readonly path: string;
}

/**
 * Every error code field in a decoded message (or its parsed JSON form), in field order: each
 * key `errorCode` or ending in `ErrorCode` (`partitionErrorCode`, `acknowledgeErrorCode`, …)
 * whose value is an integer, with what {@link errorCodeInfo} says about it.
 *
 * @param message a decoded message: plain objects and arrays (other values are not searched).
 *   Not modified; an object reached twice (a cycle or a shared subtree) is searched once.
 */
export function findErrorCodes(message: unknown): ErrorCodeField[] {
  const found: ErrorCodeField[] = [];
  const seen = new Set<object>();
  // An explicit stack instead of recursion: no depth limit to hit on deep input. An entry is a
  // value to search or an error code field already found (kept in place to preserve field order).
  type Entry = { readonly value: unknown; readonly path: string } | { readonly field: ErrorCodeField };
  const stack: Entry[] = [{ value: message, path: "" }];
  while (stack.length > 0) {
    const entry = stack.pop()!;
    if ("field" in entry) {
      found.push(entry.field);
      continue;
    }
    const { value, path } = entry;
    if (typeof value !== "object" || value === null || seen.has(value)) continue;
    seen.add(value);
    const children: Entry[] = [];
    if (Array.isArray(value)) {
      value.forEach((item, i) => children.push({ value: item, path: `${path}[${i}]` }));
    } else if (Object.getPrototypeOf(value) === Object.prototype || Object.getPrototypeOf(value) === null) {
      for (const [key, item] of Object.entries(value)) {
        const at = path === "" ? key : `${path}.${key}`;
        const isCode = (key === "errorCode" || key.endsWith("ErrorCode")) && Number.isInteger(item);
        children.push(isCode ? { field: { path: at, ...errorCodeInfo(item as number) } } : { value: item, path: at });
      }
    }
    // Pushed in reverse so that they are popped in field order.
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  return found;
}
