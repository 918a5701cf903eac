/**
 * Time and peak memory of `decodeRecords` on the hostile record sets of issue 17
 * (test/support/hostile-records.ts), each in a fresh Node process with a time limit, so that a
 * hang or a heap crash is measured instead of stopping the script. A measurement, not a test.
 *
 *   npx tsx bench/hostile.ts              every case, 20 s limit each
 *   npx tsx bench/hostile.ts --limit 5    another limit (seconds)
 *
 * Prints one line per case: input bytes, outcome (the error code, "ok", "TIMEOUT" or the crash),
 * wall time of the decode with every record read, the child's peak RSS (building a class-3 case
 * counts too) and its heap-used growth over the decode (MiB).
 */

import { spawnSync } from "node:child_process";
import { gzipSync } from "node:zlib";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { zstd } from "../compression/src/index.js";
import {
  batchAround,
  CODEC_ID,
  hostileCases,
  legacyGzipWrapper,
  tinyRecordsBatch,
  type HostileCase,
} from "../test/support/hostile-records.js";

const { values } = parseArgs({ options: { child: { type: "string" }, limit: { type: "string", default: "20" } } });

/** The cases, built lazily: the class-3 ones take seconds to build. */
function cases(): { name: string; build: () => HostileCase }[] {
  const zstd3 = (b: Uint8Array) => zstd.compress(b, { level: 3, magic: 2 }) as Uint8Array;
  return [
    ...hostileCases().map((c) => ({ name: c.name, build: () => c })),
    {
      // 128 MiB of zeros (about 128 KiB of gzip) against the default 64 MiB cap.
      name: "gzip: 128 MiB of zeros (a zip bomb)",
      build: () => ({ name: "", bytes: batchAround(CODEC_ID.gzip, gzipSync(new Uint8Array(128 << 20), { level: 9 })) }),
    },
    {
      name: "class 3: 2,500,000 magic-0 messages in one gzip wrapper (65 MB decompressed)",
      build: () => ({ name: "", bytes: legacyGzipWrapper(2_500_000, (b) => gzipSync(b, { level: 9 })) }),
    },
    {
      name: "class 3: 1,000,000 empty records in one zstd batch (9 MB decompressed)",
      build: () => ({ name: "", bytes: tinyRecordsBatch(CODEC_ID.zstd, 1_000_000, zstd3) }),
    },
  ];
}

if (values.child !== undefined) {
  const { codecs, initZstd } = await import("../compression/src/index.js");
  const { decodeRecords } = await import("../src/records/index.js");
  if (typeof initZstd === "function") await initZstd();
  const c = cases()[Number(values.child)]!.build();
  const heap0 = process.memoryUsage().heapUsed;
  const t = performance.now();
  let outcome = "ok";
  try {
    const set = await decodeRecords(c.bytes, {
      codecs,
      ...(c.maxDecompressedBytes !== undefined ? { maxDecompressedBytes: c.maxDecompressedBytes } : {}),
    });
    for (const b of set.batches) for (const r of b.records) void r.offset;
  } catch (e) {
    outcome = (e as { code?: string }).code ?? String(e);
  }
  const ms = performance.now() - t;
  const heap = (process.memoryUsage().heapUsed - heap0) / 2 ** 20;
  console.log(JSON.stringify({ outcome, ms, rss: process.resourceUsage().maxRSS / 1024, heap, bytes: c.bytes.length }));
  process.exit(0);
}

const limit = Number(values.limit) * 1000;
const self = fileURLToPath(import.meta.url);
const all = cases();
for (let i = 0; i < all.length; i++) {
  const c = all[i]!;
  const started = performance.now();
  const r = spawnSync(process.execPath, ["--import", "tsx", self, "--child", String(i)], {
    encoding: "utf8",
    timeout: limit,
    killSignal: "SIGKILL",
  });
  const wall = performance.now() - started;
  let line: string;
  let bytes = "";
  if (r.error !== undefined || r.signal !== null) {
    line = `TIMEOUT (killed after ${(wall / 1000).toFixed(1)} s)`;
  } else if (r.status !== 0) {
    line = `CRASH (exit ${r.status}): ${r.stderr.split("\n").find((l) => /Error|heap/.test(l)) ?? ""}`.slice(0, 160);
  } else {
    const m = JSON.parse(r.stdout.trim().split("\n").pop()!) as {
      outcome: string;
      ms: number;
      rss: number;
      heap: number;
      bytes: number;
    };
    bytes = ` (${m.bytes} bytes)`;
    line = `${m.outcome}, ${m.ms.toFixed(1)} ms, peak RSS ${m.rss.toFixed(0)} MiB, heap +${m.heap.toFixed(1)} MiB`;
  }
  if (bytes === "") bytes = ` (${c.build().bytes.length} bytes)`;
  console.log(`${c.name}${bytes}: ${line}`);
}
