/** The handlers of a cluster, by api key: the core APIs register here, and so can other modules. */

import type { ApiKey, Handler, HandlerOptions } from "./types.js";

/** A registered handler with the versions it serves. */
export interface Registered {
  readonly apiKey: ApiKey;
  // The registry keeps handlers of every api key in one map; `register` ties each to its key's types.
  readonly handler: Handler<ApiKey>;
  readonly options: HandlerOptions;
}

export class HandlerRegistry {
  private readonly byKey = new Map<number, Registered>();
  /** Counts the changes, so that what is worked out from the handlers can be cached. */
  generation = 0;

  /**
   * Serves `apiKey` with `handler` (replacing any handler registered before, so that a module can
   * take over a core API). ApiVersions advertises the api key from then on, at the codecs'
   * versions narrowed by `options`.
   */
  register<K extends ApiKey>(apiKey: K, handler: Handler<K>, options: HandlerOptions = {}): void {
    this.byKey.set(apiKey, { apiKey, handler: handler as unknown as Handler<ApiKey>, options });
    this.generation++;
  }

  /** Stops serving `apiKey` (ApiVersions no longer lists it). */
  unregister(apiKey: ApiKey): void {
    if (this.byKey.delete(apiKey)) this.generation++;
  }

  get(apiKey: number): Registered | undefined {
    return this.byKey.get(apiKey);
  }

  /** Every registered api key, ascending. */
  apiKeys(): ApiKey[] {
    return [...this.byKey.keys()].sort((a, b) => a - b) as ApiKey[];
  }
}
