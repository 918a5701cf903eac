/**
 * The codecs for record batches compressed with snappy, lz4 or zstd: kafka-wire-compression's
 * browser build, a bundle of its own (assets/compression.js, vite.compression.config.ts, with
 * zstd's WebAssembly module inlined: a file:// page cannot fetch it from beside the script),
 * loaded as a classic script the first time a batch needs it. gzip needs none of it:
 * kafka-wire/records decompresses it with the browser's DecompressionStream.
 */

import type { Codecs, CompressionCodec, CompressionName } from "../../src/records/index.js";
import { loadScript } from "./codecs.js";

/** The global the compression bundle sets (its IIFE's name, see vite.compression.config.ts). */
export const COMPRESSION_GLOBAL = "kafkaWireInspectorCompression";

/** What src/compression-entry.ts exports. */
interface CompressionBundle {
  readonly snappy: CompressionCodec;
  readonly lz4: CompressionCodec;
  startZstd(): Promise<CompressionCodec>;
}

/** The codecs the page has, and why each of the others cannot run here. */
export interface PageCodecs {
  readonly codecs: Codecs;
  readonly unavailable: Readonly<Partial<Record<CompressionName, string>>>;
}

/** How long zstd's WebAssembly module may take to start (its loader never settles when instantiation fails). */
const ZSTD_START_MS = 10_000;

let loading: Promise<PageCodecs> | undefined;

/** Loads assets/compression.js once and starts zstd; never rejects (what fails is in `unavailable`). */
export function loadCompression(): Promise<PageCodecs> {
  loading ??= load();
  return loading;
}

async function load(): Promise<PageCodecs> {
  const bundle = await loadScript<CompressionBundle>("compression.js", COMPRESSION_GLOBAL);
  if (bundle === null) {
    const reason = "assets/compression.js, which holds the codec, did not load";
    return { codecs: {}, unavailable: { snappy: reason, lz4: reason, zstd: reason } };
  }
  const { snappy, lz4 } = bundle;
  if (typeof WebAssembly !== "object")
    return { codecs: { snappy, lz4 }, unavailable: { zstd: "this browser has no WebAssembly" } };
  const zstd = await started(bundle.startZstd());
  return typeof zstd === "string"
    ? { codecs: { snappy, lz4 }, unavailable: { zstd } }
    : { codecs: { snappy, lz4, zstd }, unavailable: {} };
}

/** The codec once `start` resolves; why not when it rejects or takes longer than {@link ZSTD_START_MS}. */
function started(start: Promise<CompressionCodec>): Promise<CompressionCodec | string> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(
      () => resolve(`its WebAssembly module did not start within ${ZSTD_START_MS / 1000} s`),
      ZSTD_START_MS,
    );
  });
  const settled = start.catch(
    (e: unknown) => `its WebAssembly module did not start: ${e instanceof Error ? e.message : String(e)}`,
  );
  return Promise.race([settled, late]).finally(() => clearTimeout(timer));
}
