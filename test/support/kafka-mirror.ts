/**
 * A stand-in for Apache's archive in tests: Kafka source releases built at test time from
 * ../shared/kafka-schemas, laid out as in Kafka's source tree, served over loopback HTTP.
 */

import { createHash } from "node:crypto";
import { cpSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { create } from "tar";

/** Shared folder → folder of Kafka's source tree (../shared/kafka-schemas/README.md). */
export const KAFKA_LAYOUT: Readonly<Record<string, string>> = {
  clients: "clients/src/main/resources/common/message",
  "clients-test": "clients/src/test/resources/common/message",
  "group-coordinator": "group-coordinator/src/main/resources/common/message",
  metadata: "metadata/src/main/resources/common/metadata",
  raft: "raft/src/main/resources/common/message",
  "share-coordinator": "share-coordinator/src/main/resources/common/message",
  storage: "storage/src/main/resources/message",
  streams: "streams/src/main/resources/common/message",
  "transaction-coordinator": "transaction-coordinator/src/main/resources/common/message",
};

export function sha512(bytes: Uint8Array): string {
  return createHash("sha512").update(bytes).digest("hex");
}

/**
 * Copies the shared schemas into `<work>/src/kafka-<version>-src/` in Kafka's layout and packs
 * that folder as `<work>/kafka-<version>-src.tgz`; returns the tree and the archive's path.
 */
export async function buildSourceRelease(
  shared: string,
  work: string,
  version: string,
): Promise<{ tree: string; archive: string }> {
  const tree = path.join(work, "src", `kafka-${version}-src`);
  for (const [from, to] of Object.entries(KAFKA_LAYOUT))
    cpSync(path.join(shared, from), path.join(tree, to), { recursive: true });
  const archive = path.join(work, `kafka-${version}-src.tgz`);
  await create({ gzip: true, file: archive, cwd: path.dirname(tree), portable: true }, [`kafka-${version}-src`]);
  return { tree, archive };
}

/** A loopback HTTP server answering `routes` (path → status and body), 404 for anything else. */
export async function serveRoutes(
  routes: ReadonlyMap<string, { readonly status: number; readonly body?: Uint8Array | string }>,
): Promise<{ server: Server; base: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const route = routes.get(new URL(req.url ?? "/", "http://x").pathname);
    res.statusCode = route?.status ?? 404;
    res.end(req.method === "HEAD" ? undefined : (route?.body ?? "Not Found"));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    server,
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
