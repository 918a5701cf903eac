/**
 * kafka-wire-compression's zstd owns its WebAssembly instance: whatever else in the process loads
 * @bokuweb/zstd-wasm (another library, or a second copy of this package: here the built one,
 * `kafka-wire-compression`, beside compression/src) cannot replace it.
 *
 * That package's Emscripten glue is one module-level `Module`: each `init()` instantiates
 * zstd.wasm again and, when that instantiation settles (after `init()`'s Promise has resolved),
 * points the glue's memory views at the new instance's memory while the exports bound on first
 * use stay the old instance's. A valid frame then decompressed into zeros, and the broker (whose
 * copy is the built package) answered valid zstd Produce requests with CORRUPT_MESSAGE.
 */

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import * as zstdWasm from "@bokuweb/zstd-wasm";
import { codecs as builtCodecs, initZstd as initBuilt } from "kafka-wire-compression";
import { expect, it, vi } from "vitest";
import { codecs, initZstd, zstd } from "../compression/src/index.js";
import { ZSTD_WASM_EXPORTS } from "../compression/src/zstd.js";
import { decodeRecords, type Codecs } from "../src/records/index.js";
import { describeShared } from "./support/shared.js";
import { describeBatch, expectedBatch, fromHex, readVectors, type RecordSetVector } from "./records/support.js";

const require = createRequire(import.meta.url);
/** @bokuweb/zstd-wasm's Node build (dist/common): its glue, and the zstd.wasm we instantiate. */
const packageDir = path.dirname(require.resolve("@bokuweb/zstd-wasm"));

/**
 * The glue's shared `Module` (dist/common/module.js, beside the package's Node entry; not in its
 * `exports`, so reached by path): the same object every user of the package in this process gets.
 */
function packageGlue(): { HEAPU8?: Uint8Array } {
  return (require(path.join(packageDir, "module.js")) as { Module: { HEAPU8?: Uint8Array } }).Module;
}

/** Another library starting @bokuweb/zstd-wasm, and the tick after: its instantiation has replaced the glue's memory. */
async function anotherLibraryStarts(): Promise<void> {
  const glue = packageGlue();
  const before = glue.HEAPU8;
  await zstdWasm.init();
  await vi.waitFor(() => expect(glue.HEAPU8).not.toBe(before), { timeout: 10_000 });
}

describeShared(
  "zstd's WebAssembly instance is ours (a second init elsewhere in the process)",
  "golden/records",
  (dir) => {
    const vectors = readVectors<RecordSetVector>(dir, "records-zstd.json");

    async function expectGolden(set: Codecs): Promise<void> {
      for (const v of vectors) {
        const decoded = await decodeRecords(fromHex(v.hex), { codecs: set });
        expect(decoded.batches.map(describeBatch), v.id).toEqual(v.batches.map(expectedBatch));
      }
    }

    // One test: the package's glue breaks itself on its own second init, so "another library"
    // starts it exactly once in this process.
    it("both copies started, then another library's init: each copy still decodes every golden zstd batch", async () => {
      await initZstd();
      await expectGolden(codecs);
      await initBuilt();
      await anotherLibraryStarts();
      await expectGolden(codecs);
      await expectGolden(builtCodecs);
      // And the other library's zstd works beside ours, each reading what the other wrote.
      const text = "kafka-wire ".repeat(500);
      const data = new TextEncoder().encode(text);
      const ours = (await zstd.compress(data, { level: 3, magic: 2 })) as Uint8Array;
      expect(new TextDecoder().decode(zstdWasm.decompress(ours))).toBe(text);
      const theirs = zstdWasm.compress(data, 3);
      expect(new TextDecoder().decode(zstd.decompress(theirs, { maxBytes: data.length, magic: 2 }) as Uint8Array)).toBe(
        text,
      );
    });
  },
);

it("binds zstd.wasm's exports and its heap-growing import by the letters the package's own glue gives them", () => {
  const glue = readFileSync(path.join(packageDir, "zstd.js"), "utf8");
  // The glue's lines, e.g. `var _malloc = (Module['_malloc'] = (a0) => (_malloc = Module['_malloc'] = wasmExports['s'])(a0));`.
  const bound = (name: string): string | undefined =>
    new RegExp(`Module\\['${name}'\\] = wasmExports\\['(\\w+)'\\]`).exec(glue)?.[1];
  expect({
    memory: /wasmMemory = wasmExports\['(\w+)'\]/.exec(glue)?.[1],
    ctors: /___wasm_call_ctors = wasmExports\['(\w+)'\]/.exec(glue)?.[1],
    isError: bound("_ZSTD_isError"),
    compressBound: bound("_ZSTD_compressBound"),
    createCCtx: bound("_ZSTD_createCCtx"),
    compressUsingDict: bound("_ZSTD_compress_usingDict"),
    createDCtx: bound("_ZSTD_createDCtx"),
    decompressUsingDict: bound("_ZSTD_decompress_usingDict"),
    malloc: bound("_malloc"),
    free: bound("_free"),
  }).toEqual(ZSTD_WASM_EXPORTS);
  // Our imports object gives module "a" these five; e is the one zstd calls (malloc growing the heap).
  const imports = /var wasmImports = \{([^}]*)\}/.exec(glue)?.[1]?.replace(/\s+/g, " ").trim();
  expect(imports).toBe(
    "c: __abort_js, b: __emscripten_runtime_keepalive_clear, d: __setitimer_js, e: _emscripten_resize_heap, a: _proc_exit,",
  );
  const wasm = new WebAssembly.Module(readFileSync(path.join(packageDir, "zstd.wasm")));
  expect(WebAssembly.Module.imports(wasm).map((i) => `${i.module}.${i.name}`)).toEqual([
    "a.a",
    "a.b",
    "a.c",
    "a.d",
    "a.e",
  ]);
});
