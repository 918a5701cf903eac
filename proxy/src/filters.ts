/**
 * Typed request and response filters: `new Filters<Apis>().onRequest(ApiKey.Produce, (req, ctx) => …)`.
 *
 * A filter sees one decoded message (api version, header, typed body, the frame's original bytes)
 * and returns what the proxy does with it:
 * - nothing (or `ctx.forward()`): forward it unchanged, as the original bytes;
 * - `ctx.forward(body)`: forward this body instead (re-encoded at the same api version);
 * - `ctx.respond(body)` (requests only): answer the client without asking the broker;
 * - `ctx.close(reason)`: close the client's connection (and its upstream connection).
 * Filters of one api key run in the order they were added; each sees the body the previous one
 * forwarded. They may be asynchronous: messages of one connection still go out in order.
 * A filter that throws closes its connection only (the error is logged); other clients go on.
 */

import type { ApiKeyOf, ApiMap, Init, RequestHeaderFields } from "../../src/runtime/index.js";

/** The api map of a protocol whose bodies are known only at run time (`any`: fields by name). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type UntypedApis = Record<number, { request: any; response: any }>;

/** Who a message belongs to. */
export interface ConnectionInfo {
  /** 0, 1, ... in the order the proxy accepted connections (over all its listeners). */
  readonly id: number;
  /** The client's address and port. */
  readonly client: { readonly address: string; readonly port: number };
  /** The broker this connection goes to. */
  readonly upstream: { readonly host: string; readonly port: number };
  /** Free for filters: state kept per connection (e.g. what a request asked, for its response). */
  readonly state: Map<string, unknown>;
}

/** A decoded request, as a filter sees it. Do not mutate it: return `ctx.forward(changed)`. */
export interface ProxyRequest<B> {
  readonly apiKey: number;
  readonly apiVersion: number;
  readonly correlationId: number;
  /** The decoded request header (client id, correlation id). */
  readonly header: RequestHeaderFields;
  /** 0, 1 or 2. */
  readonly headerVersion: number;
  /** The body (the previous filter's, when one changed it). */
  readonly body: B;
  /** The request frame as the client sent it, size prefix included. */
  readonly frame: Uint8Array;
}

/** A decoded response, as a filter sees it. Do not mutate it: return `ctx.forward(changed)`. */
export interface ProxyResponse<B> {
  readonly apiKey: number;
  /** The version the body is in (ApiVersions' KIP-511 fallback: 0). */
  readonly apiVersion: number;
  readonly correlationId: number;
  /** 0 or 1. */
  readonly headerVersion: number;
  /** The body (after the proxy's address rewriting, and the previous filter's change). */
  readonly body: B;
  /** The response frame as the broker sent it, size prefix included. */
  readonly frame: Uint8Array;
  /** The request it answers, as forwarded (its body after request filters). */
  readonly request: ProxyRequest<unknown>;
}

/** What a filter decides; build it with the context's methods. */
export type FilterAction =
  | { readonly kind: "forward"; readonly body?: unknown }
  | { readonly kind: "respond"; readonly body: unknown }
  | { readonly kind: "close"; readonly reason: string };

/** What every filter gets besides the message. */
export interface FilterContext<B> {
  readonly connection: ConnectionInfo;
  /** Forward the message: unchanged (the original bytes) without a body, else this body re-encoded. */
  forward(body?: Init<B>): FilterAction;
  /** Close the client's connection; `reason` goes to the log. */
  close(reason: string): FilterAction;
}

/** A request filter's context: it may also answer the client itself. */
export interface RequestFilterContext<Req, Res> extends FilterContext<Req> {
  /** Answer the client with this response body (the request's api version; the broker never sees it). */
  respond(body: Init<Res>): FilterAction;
}

type Result = FilterAction | void | undefined;

export type RequestFilter<Req, Res> = (
  request: ProxyRequest<Req>,
  ctx: RequestFilterContext<Req, Res>,
) => Result | Promise<Result>;

export type ResponseFilter<Res> = (response: ProxyResponse<Res>, ctx: FilterContext<Res>) => Result | Promise<Result>;

/**
 * A set of filters by api key, typed by a generated protocol's `Apis` (`new Filters<Apis>()`);
 * without a type argument, bodies are loosely typed (fields by name).
 */
export class Filters<A extends ApiMap<A> = UntypedApis> {
  /** @internal */
  readonly requests = new Map<number, RequestFilter<unknown, unknown>[]>();
  /** @internal */
  readonly responses = new Map<number, ResponseFilter<unknown>[]>();

  /** Adds a filter for requests of `apiKey`. */
  onRequest<K extends ApiKeyOf<A>>(apiKey: K, filter: RequestFilter<A[K]["request"], A[K]["response"]>): this {
    add(this.requests, apiKey, filter as RequestFilter<unknown, unknown>);
    return this;
  }

  /** Adds a filter for responses to requests of `apiKey`. */
  onResponse<K extends ApiKeyOf<A>>(apiKey: K, filter: ResponseFilter<A[K]["response"]>): this {
    add(this.responses, apiKey, filter as ResponseFilter<unknown>);
    return this;
  }

  /** Every filter of `other` added after these (a new set; neither is changed). */
  concat<B extends ApiMap<B>>(other: Filters<B>): Filters<A> {
    const out = new Filters<A>();
    for (const source of [this, other] as unknown as Filters<UntypedApis>[]) {
      for (const [k, fs] of source.requests) for (const f of fs) add(out.requests, k, f);
      for (const [k, fs] of source.responses) for (const f of fs) add(out.responses, k, f);
    }
    return out;
  }
}

function add<F>(map: Map<number, F[]>, apiKey: number, filter: F): void {
  if (!Number.isInteger(apiKey) || apiKey < 0 || apiKey > 0x7fff) {
    throw new RangeError(`an api key is an int16 of 0 or more, got ${String(apiKey)}`);
  }
  if (typeof filter !== "function") throw new TypeError(`the filter for api key ${apiKey} is not a function`);
  const list = map.get(apiKey);
  if (list === undefined) map.set(apiKey, [filter]);
  else list.push(filter);
}

/** @internal The context methods (they only build actions). */
export const actions = {
  forward: (body?: unknown): FilterAction => (body === undefined ? { kind: "forward" } : { kind: "forward", body }),
  respond: (body: unknown): FilterAction => ({ kind: "respond", body }),
  close: (reason: string): FilterAction => ({ kind: "close", reason: String(reason) }),
};
