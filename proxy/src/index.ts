/**
 * `kafka-wire-proxy`: a Kafka proxy on kafka-wire's codecs. See README.md.
 *
 *   import { Filters, startProxy } from "kafka-wire-proxy";
 *   const proxy = await startProxy({ upstream: "broker:9092", listen: "127.0.0.1:19092", protocol });
 */
export { startProxy, parseAddress, type Address, type Proxy, type ProxyOptions, type TappedFrame } from "./proxy.js";
export {
  Filters,
  type ConnectionInfo,
  type FilterAction,
  type FilterContext,
  type ProxyRequest,
  type ProxyResponse,
  type RequestFilter,
  type RequestFilterContext,
  type ResponseFilter,
  type UntypedApis,
} from "./filters.js";
export { formatLogLine, type ConnectionLogEntry, type LogEntry, type MessageLogEntry } from "./log.js";
export {
  editFetchRecords,
  editProduceRecords,
  editRecordSet,
  type FetchBody,
  type ProduceBody,
  type RecordEdit,
  type RecordEditOptions,
  type RecordPlace,
} from "./records.js";
export { ADDRESS_APIS, rewriteAddresses, type AddressMap } from "./addresses.js";
