/**
 * Deliberately broken codecs for the codec fuzz target's own test (test/fuzz-codecs.test.ts): each
 * reproduces one class of issue 17 on a marked input, so that the test can check the target
 * reports it. Everything else goes to kafka-wire-compression's codecs.
 * - snappy: a payload starting `01 fc` loops forever (class 1, as snappyjs did);
 * - lz4: every payload leaks 8 MiB into a module-level array (memory held past the decode);
 * - zstd: every payload allocates until the child's heap limit (a heap crash).
 */

import { codecs as ours } from "../../compression/src/index.js";
import type { Codecs } from "../../src/records/index.js";

const leaked: Uint8Array[] = [];
const hog: number[][] = [];

export const codecs: Codecs = {
  ...ours,
  snappy: {
    compress: ours.snappy!.compress,
    decompress(data, options) {
      if (data[0] === 0x01 && data[1] === 0xfc) for (;;);
      return ours.snappy!.decompress(data, options);
    },
  },
  lz4: {
    compress: ours.lz4!.compress,
    decompress(data, options) {
      leaked.push(new Uint8Array(8 << 20).fill(1));
      return ours.lz4!.decompress(data, options);
    },
  },
  zstd: {
    compress: ours.zstd!.compress,
    decompress() {
      for (;;) hog.push(new Array(1 << 16).fill(hog.length));
    },
  },
};
