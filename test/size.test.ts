/**
 * Bundle sizes, as a web app's bundler sees the package (esbuild, browser platform, minified,
 * gzipped at level 9), and the README's size table, which is made from them.
 *
 * - Each seed codec by its subpath (`kafka-wire/messages/<Name>`) with the runtime, and without
 *   any other codec.
 * - A named import of one codec from the package root, as the root is published: one module
 *   (tsup inlines `src/index.ts` and the error-code table into `dist/index.js`), so the package's
 *   `"sideEffects": false` cannot drop the parts a bundle does not use; only statement-level
 *   purity can. It must cost what the subpath costs (no error-code table, no other codec).
 * - The runtime, the records module, and the browser build of kafka-wire-compression.
 *
 * `npm run size` prints the table; `npm run size:update` writes it into README.md between the
 * size-table markers. The README's numbers must agree with the measured ones within
 * {@link TOLERANCE} (a change of a few bytes does not make it stale; a real change does).
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { build, type Plugin } from "esbuild";
import { describe, expect, it } from "vitest";
import { bundleForBrowser, type Bundle } from "./support/browser.js";
import { REPO_ROOT } from "./support/shared.js";

/** The seed codecs: every generated module but the index and internal-topics (as tsup.config.ts finds them). */
const SEED = readdirSync(path.join(REPO_ROOT, "generated"))
  .filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts") && f !== "index.ts" && f !== "internal-topics.ts")
  .map((f) => f.slice(0, -3))
  .sort();

export const SIZE_TABLE_START = "<!-- size-table:start (npm run size:update) -->";
export const SIZE_TABLE_END = "<!-- size-table:end -->";
/** How far a README number may be from the measured one: 3%, at least 0.2 KiB. */
const TOLERANCE = { ratio: 0.03, bytes: 205 };

const kib = (n: number): string => `${(n / 1024).toFixed(1)} KiB`;

/**
 * The package root as published: `src/index.ts` bundled into one ES module (not minified, so
 * esbuild's `/* @__PURE__ *\/` marks stay), its one dependency external, served to the app's
 * bundle as the package `kafka-wire`.
 */
async function publishedRoot(): Promise<Plugin> {
  const result = await build({
    entryPoints: [path.join(REPO_ROOT, "src/index.ts")],
    bundle: true,
    write: false,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    external: ["lossless-json"],
    logLevel: "silent",
  });
  const code = result.outputFiles[0]!.text;
  return {
    name: "published-root",
    setup(b) {
      b.onResolve({ filter: /^kafka-wire$/ }, () => ({ path: "kafka-wire", namespace: "published" }));
      b.onLoad({ filter: /.*/, namespace: "published" }, () => ({
        contents: code,
        loader: "js",
        resolveDir: REPO_ROOT,
      }));
    },
  };
}

interface Row {
  readonly label: string;
  readonly bundle: Bundle;
}

describe("bundle size (esbuild, browser platform, minified + gzipped)", () => {
  const rows: Row[] = [];
  const sized = async (label: string, source: string, plugins: Plugin[] = []): Promise<Bundle> => {
    const bundle = await bundleForBrowser(source, REPO_ROOT, { plugins });
    rows.push({ label, bundle });
    console.log(`[size] ${label}: ${bundle.gzipBytes} B min+gz (${bundle.bytes} B min)`);
    return bundle;
  };
  const singles = new Map<string, Bundle>();

  it("finds the seed codecs: the four KIP-1071 messages, the describe request and the member metadata key", () => {
    expect(SEED).toEqual([
      "StreamsGroupDescribeRequest",
      "StreamsGroupDescribeResponse",
      "StreamsGroupHeartbeatRequest",
      "StreamsGroupHeartbeatResponse",
      "StreamsGroupMemberMetadataKey",
      "StreamsGroupMemberMetadataValue",
    ]);
  });

  it("one codec by its subpath: the codec and the runtime, without the other codecs", async () => {
    for (const name of SEED) {
      const bundle = await sized(
        `\`import { ${name} } from "kafka-wire/messages/${name}"\``,
        `export { ${name} } from "./generated/${name}.js";`,
      );
      singles.set(name, bundle);
      expect(bundle.code).toContain(JSON.stringify(name));
      for (const other of SEED.filter((n) => n !== name))
        expect(bundle.code, `${name}'s bundle contains ${other}`).not.toContain(other);
      // Generous ceilings: they catch a codec pulling in others or a large dependency, not small
      // growth (the largest seed codec, StreamsGroupDescribeResponse, is ~16 KiB with the runtime).
      expect(bundle.gzipBytes).toBeLessThan(20 * 1024);
    }
  });

  it("one codec from the package root tree-shakes like its subpath (no error-code table, no other codec)", async () => {
    const root = await publishedRoot();
    const name = "StreamsGroupHeartbeatRequest";
    const bundle = await sized(`\`import { ${name} } from "kafka-wire"\``, `export { ${name} } from "kafka-wire";`, [
      root,
    ]);
    expect(bundle.code).not.toContain("UNKNOWN_TOPIC_OR_PARTITION");
    for (const other of SEED.filter((n) => n !== name)) expect(bundle.code).not.toContain(other);
    const subpath = singles.get(name)!.gzipBytes;
    expect(Math.abs(bundle.gzipBytes - subpath)).toBeLessThan(256);

    // The table is there when asked for: the check above can fail.
    const codes = await sized(
      '`import { errorCodeInfo } from "kafka-wire"`',
      `export { errorCodeInfo } from "kafka-wire";`,
      [root],
    );
    expect(codes.code).toContain("UNKNOWN_TOPIC_OR_PARTITION");
    const all = await sized(
      '`import { messages } from "kafka-wire"` (every seed codec)',
      `export { messages } from "kafka-wire";`,
      [root],
    );
    for (const n of SEED) expect(all.code).toContain(JSON.stringify(n));
    // Per-message entries pay off: the largest single codec is well under all of them together.
    expect(Math.max(...[...singles.values()].map((b) => b.gzipBytes))).toBeLessThan(all.gzipBytes);
    expect(all.gzipBytes).toBeLessThan(48 * 1024);
  });

  it("the runtime, the records module and the compression codecs", async () => {
    await sized("`kafka-wire/runtime` (every export)", `export * from "./src/runtime/index.js";`);
    const records = await sized(
      '`import { decodeRecords, encodeRecordBatch } from "kafka-wire/records"`',
      `export { decodeRecords, encodeRecordBatch } from "./src/records/index.js";`,
    );
    expect(records.code).not.toContain("UNKNOWN_TOPIC_OR_PARTITION");
    await sized("`kafka-wire/records` (every export)", `export * from "./src/records/index.js";`);
    await sized(
      "`kafka-wire/records` + `kafka-wire-compression` (browser build: snappy, lz4, zstd glue; zstd.wasm apart)",
      `export * from "./src/records/index.js"; export { codecs } from "./compression/src/index.browser.ts";`,
    );
  });

  it("README.md's size table is the measured one (`npm run size:update` rewrites it)", () => {
    expect(rows.length).toBe(SEED.length + 7);
    const table = [
      "| import | min+gz |",
      "| --- | ---: |",
      ...rows.map((r) => `| ${r.label} | ${kib(r.bundle.gzipBytes)} |`),
    ].join("\n");
    console.log(`[size] table:\n${table}`);
    const file = path.join(REPO_ROOT, "README.md");
    const readme = readFileSync(file, "utf8");
    const start = readme.indexOf(SIZE_TABLE_START);
    const end = readme.indexOf(SIZE_TABLE_END);
    expect(start, "README.md lacks the size-table markers").toBeGreaterThanOrEqual(0);
    expect(end).toBeGreaterThan(start);
    if (process.env["KAFKA_WIRE_UPDATE_README"] === "1") {
      writeFileSync(file, `${readme.slice(0, start + SIZE_TABLE_START.length)}\n${table}\n${readme.slice(end)}`);
      return;
    }
    const documented = new Map<string, number>();
    for (const line of readme.slice(start, end).split("\n")) {
      const m = /^\| (.+) \| ([\d.]+) KiB \|$/.exec(line);
      if (m !== null) documented.set(m[1]!, Number(m[2]) * 1024);
    }
    const stale = rows.filter((r) => {
      const was = documented.get(r.label);
      const allowed = Math.max(TOLERANCE.bytes, r.bundle.gzipBytes * TOLERANCE.ratio);
      return was === undefined || Math.abs(was - r.bundle.gzipBytes) > allowed;
    });
    expect(
      stale.map(
        (r) =>
          `${r.label}: README ${documented.has(r.label) ? kib(documented.get(r.label)!) : "missing"}, measured ${kib(r.bundle.gzipBytes)}`,
      ),
      "README.md's size table is stale: run `npm run size:update`",
    ).toEqual([]);
    expect(
      documented.size,
      "README.md's size table has rows that are no longer measured: run `npm run size:update`",
    ).toBe(rows.length);
  });
});
