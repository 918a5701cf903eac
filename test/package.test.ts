/**
 * The published package as its users get it.
 *
 * Once per run (beforeAll), without touching the repository's own dist/: the build inputs are
 * copied into a temporary folder, built there with the repository's tsup.config.ts, packed with
 * `npm pack`, and the tarball is installed into a temporary consumer project. Then:
 * - publint (every level, strict) and Are The Types Wrong (`node16` profile: Node's `require`
 *   and `import`, and bundlers) find no problem;
 * - the consumer imports it as ESM (`import`) and as CommonJS (`require`), through the package
 *   root and the `./runtime` and `./messages/*` subpaths, and gets the bytes worked out by hand;
 * - a small usage file type-checks under `moduleResolution: nodenext` (as .mts and .cts) and
 *   `bundler`, against the shipped declarations (`skipLibCheck: false`);
 * - the `kafka-wire` bin runs from the install;
 * - a bundler (esbuild) importing one `kafka-wire/messages/<Name>` gets that codec and no other.
 */
import { execFile } from "node:child_process";
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, unlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { publint } from "publint";
import { formatMessage } from "publint/utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleForBrowser } from "./support/browser.js";
import { REPO_ROOT } from "./support/shared.js";

const run = promisify(execFile);

/** What `npm run build` reads (tsup.config.ts builds from src/ and generated/; the CLI bundles generator/). */
const BUILD_INPUTS = [
  "package.json",
  "README.md",
  "LICENSE",
  "tsconfig.json",
  "tsup.config.ts",
  "src",
  "generator",
  "generated",
];

const SEED = [
  "StreamsGroupDescribeResponse",
  "StreamsGroupHeartbeatRequest",
  "StreamsGroupHeartbeatResponse",
  "StreamsGroupMemberMetadataValue",
];

const bin = (name: string): string => path.join(REPO_ROOT, "node_modules", ".bin", name);

/**
 * StreamsGroupHeartbeatResponse v0 of `create({ memberId: "m", memberEpoch: 5, heartbeatIntervalMs: 5000 })`,
 * worked out by hand: throttleTimeMs 0 (int32), errorCode 0 (int16), errorMessage null (compact
 * nullable string `00`), memberId "m" (length+1 = 2, then `6d`), memberEpoch 5,
 * currentAssignmentEpoch 0, heartbeatIntervalMs 5000 (`1388`), acceptableRecoveryLag 0,
 * taskOffsetIntervalMs 0, five null compact arrays (`00` each), no tagged fields (`00`).
 */
const RESPONSE_HEX = "00000000 0000 00 026d 00000005 00000000 00001388 00000000 00000000 00 00 00 00 00 00".replace(
  / /g,
  "",
);

interface Staged {
  /** The temporary folder holding everything below. */
  readonly root: string;
  /** The staged copy of the package, built. */
  readonly pkgDir: string;
  /** The packed tarball. */
  readonly tarball: string;
  /** The files `npm pack` put in the tarball. */
  readonly packedFiles: readonly string[];
  /** The consumer project, with the tarball installed. */
  readonly consumer: string;
  /** How the install went (offline from npm's cache, or from the registry). */
  readonly installMode: string;
}

let staged: Staged | undefined;

function need(): Staged {
  if (staged === undefined) throw new Error("the package was not built (see the beforeAll error)");
  return staged;
}

async function npm(args: readonly string[], cwd: string, timeout: number): Promise<{ stdout: string; stderr: string }> {
  return run("npm", [...args], {
    cwd,
    timeout,
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, npm_config_update_notifier: "false" },
  });
}

/** A consumer script, as ESM (`import`) or CommonJS (`require`): prints what it got as JSON. */
function consumerScript(kind: "esm" | "cjs"): string {
  const load =
    kind === "esm"
      ? [
          'import * as root from "kafka-wire";',
          'import * as runtime from "kafka-wire/runtime";',
          'import * as one from "kafka-wire/messages/StreamsGroupHeartbeatResponse";',
          'import pkg from "kafka-wire/package.json" with { type: "json" };',
        ]
      : [
          'const root = require("kafka-wire");',
          'const runtime = require("kafka-wire/runtime");',
          'const one = require("kafka-wire/messages/StreamsGroupHeartbeatResponse");',
          'const pkg = require("kafka-wire/package.json");',
        ];
  return `${load.join("\n")}
const R = one.StreamsGroupHeartbeatResponse;
const bytes = R.encode(R.create({ memberId: "m", memberEpoch: 5, heartbeatIntervalMs: 5000 }), 0);
let error = null;
try {
  R.decode(bytes.subarray(0, 5), 0);
} catch (e) {
  error = { code: e.code, name: e.name, rootClass: e instanceof root.KafkaDecodeError, runtimeClass: e instanceof runtime.KafkaWireError };
}
console.log(JSON.stringify({
  hex: Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join(""),
  decoded: R.decode(bytes, 0).memberId,
  sameCodec: root.StreamsGroupHeartbeatResponse === R && root.messages.StreamsGroupHeartbeatResponse === R,
  messages: Object.keys(root.messages).sort(),
  oneExports: Object.keys(one).sort(),
  runtimeHasReaderWriter: typeof runtime.Reader === "function" && typeof runtime.Writer === "function",
  version: pkg.version,
  error,
}));
`;
}

describe("the published package (built, packed and installed once)", () => {
  beforeAll(async () => {
    const started = Date.now();
    const root = await mkdtemp(path.join(os.tmpdir(), "kafka-wire-package-"));
    try {
      // 1. Build a staged copy (the repository's dist/ is left alone: nobody has to have built it).
      const pkgDir = path.join(root, "kafka-wire");
      await mkdir(pkgDir);
      for (const entry of BUILD_INPUTS)
        await cp(path.join(REPO_ROOT, entry), path.join(pkgDir, entry), { recursive: true });
      await symlink(path.join(REPO_ROOT, "node_modules"), path.join(pkgDir, "node_modules"), "dir");
      try {
        await run(bin("tsup"), [], { cwd: pkgDir, timeout: 120_000, maxBuffer: 64 * 1024 * 1024 });
      } catch (error) {
        const e = error as { stdout?: string; stderr?: string };
        throw new Error(`tsup failed:\n${e.stdout ?? ""}\n${e.stderr ?? ""}`);
      }
      await unlink(path.join(pkgDir, "node_modules"));
      const built = Date.now();

      // 2. Pack it (scripts off: `prepack` would build again).
      const packed = JSON.parse(
        (await npm(["pack", "--json", "--ignore-scripts", "--pack-destination", root], pkgDir, 60_000)).stdout,
      ) as Array<{
        filename: string;
        files: Array<{ path: string }>;
      }>;
      const tarball = path.join(root, packed[0]!.filename);

      // 3. Install it into a consumer project: from npm's cache when it has the dependencies, else from the registry.
      const consumer = path.join(root, "consumer");
      await mkdir(consumer);
      await writeFile(
        path.join(consumer, "package.json"),
        JSON.stringify({ name: "kafka-wire-consumer", version: "0.0.0", private: true }, null, 2),
      );
      const install = ["install", "--no-audit", "--no-fund", "--ignore-scripts", "--no-package-lock", tarball];
      let installMode = "offline (npm cache)";
      try {
        await npm([...install, "--offline"], consumer, 120_000);
      } catch {
        installMode = "online (registry)";
        await npm(install, consumer, 240_000);
      }
      staged = {
        root,
        pkgDir,
        tarball,
        packedFiles: packed[0]!.files.map((f) => f.path).sort(),
        consumer,
        installMode,
      };
      console.log(
        `[package] built in ${built - started} ms; packed and installed (${installMode}) in ${Date.now() - built} ms: ${path.basename(tarball)}`,
      );
    } catch (error) {
      // The link to the repository's node_modules goes first (rm does not follow links, but be explicit).
      await unlink(path.join(root, "kafka-wire", "node_modules")).catch(() => undefined);
      await rm(root, { recursive: true, force: true });
      throw error;
    }
  }, 420_000);

  afterAll(async () => {
    if (staged !== undefined) await rm(staged.root, { recursive: true, force: true });
  });

  describe("the packed tarball", () => {
    it("holds the ESM and CJS builds, their declarations, README and LICENSE, and no sources", () => {
      const files = need().packedFiles;
      for (const f of ["package.json", "README.md", "LICENSE", "dist/cli.js"]) expect(files).toContain(f);
      for (const entry of ["index", "runtime", ...SEED.map((n) => `messages/${n}`)]) {
        for (const ext of [".js", ".cjs", ".d.ts", ".d.cts"]) expect(files).toContain(`dist/${entry}${ext}`);
      }
      const unexpected = files.filter(
        (f) => !(f.startsWith("dist/") || ["package.json", "README.md", "LICENSE"].includes(f)),
      );
      expect(unexpected).toEqual([]);
      expect(files.filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts") && !f.endsWith(".d.cts"))).toEqual([]);
    });

    it("passes publint with no message at any level (strict)", async () => {
      const data = await readFile(need().tarball);
      const tarball = data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) as ArrayBuffer;
      const { messages, pkg } = await publint({ pack: { tarball }, level: "suggestion", strict: true });
      const text = messages.map((m) => `${m.type}: ${formatMessage(m, pkg, { color: false }) ?? m.code}`);
      console.log(`[publint] ${text.length === 0 ? "All good!" : text.join("\n")}`);
      expect(text).toEqual([]);
    });

    it("passes Are The Types Wrong for Node (require and import) and bundlers, on every entry point", async () => {
      const { tarball } = need();
      // `./messages/*` is a pattern: name each message so attw checks them too.
      // Default profile: node10 (via typesVersions), node16 CJS and ESM, and bundlers.
      const args = [tarball, "--include-entrypoints", ...SEED.map((n) => `./messages/${n}`)];
      const table = await run(bin("attw"), [...args, "--format", "table-flipped", "--no-color", "--no-emoji"], {
        timeout: 60_000,
      }).then(
        (r) => ({ ok: true, out: r.stdout }),
        (e: { stdout?: string; stderr?: string }) => ({ ok: false, out: `${e.stdout ?? ""}${e.stderr ?? ""}` }),
      );
      console.log(`[attw]\n${table.out.trim()}`);
      expect(table.ok, table.out).toBe(true);

      const json = JSON.parse((await run(bin("attw"), [...args, "--format", "json"], { timeout: 60_000 })).stdout) as {
        problems: Record<string, Array<{ kind: string; entrypoint?: string; resolutionKind?: string }>>;
        analysis: {
          entrypoints: Record<string, { resolutions: Record<string, { resolution?: { fileName: string } }> }>;
        };
      };
      const all = Object.values(json.problems).flat();
      expect(all.map((p) => `${p.kind} (${p.resolutionKind}) ${p.entrypoint ?? ""}`)).toEqual([]);
      const entrypoints = json.analysis.entrypoints;
      for (const entry of [".", "./runtime", ...SEED.map((n) => `./messages/${n}`)]) {
        const resolutions = entrypoints[entry]?.resolutions;
        expect(resolutions, entry).toBeDefined();
        expect(resolutions!["node16-cjs"]?.resolution?.fileName, `${entry} from require`).toMatch(/\.d\.cts$/);
        expect(resolutions!["node16-esm"]?.resolution?.fileName, `${entry} from import`).toMatch(/\.d\.ts$/);
        expect(resolutions!["bundler"]?.resolution?.fileName, `${entry} in a bundler`).toMatch(/\.d\.ts$/);
      }
    });
  });

  describe("a consumer project with the tarball installed", () => {
    const expected = {
      hex: RESPONSE_HEX,
      decoded: "m",
      sameCodec: true,
      messages: SEED,
      oneExports: ["StreamsGroupHeartbeatResponse"],
      runtimeHasReaderWriter: true,
      error: { code: "BUFFER_UNDERFLOW", name: "KafkaDecodeError", rootClass: true, runtimeClass: true },
    };

    it.each([
      ["esm", "consumer.mjs"],
      ["cjs", "consumer.cjs"],
    ] as const)(
      "loads it as %s (root, ./runtime, ./messages/*) and encodes the hand-worked bytes",
      async (kind, file) => {
        const { consumer } = need();
        await writeFile(path.join(consumer, file), consumerScript(kind));
        const { stdout } = await run(process.execPath, [file], { cwd: consumer, timeout: 30_000 });
        const pkg = JSON.parse(await readFile(path.join(REPO_ROOT, "package.json"), "utf8")) as { version: string };
        expect(JSON.parse(stdout)).toEqual({ ...expected, version: pkg.version });
      },
    );

    it("runs the kafka-wire bin", async () => {
      const { consumer } = need();
      const { stdout } = await run(
        path.join(consumer, "node_modules", ".bin", "kafka-wire"),
        ["decode", "StreamsGroupHeartbeatResponse", "0", RESPONSE_HEX],
        {
          cwd: consumer,
          timeout: 30_000,
        },
      );
      expect(stdout).toContain('"memberId"');
      expect(stdout).toContain('"m"');
      expect(stdout).toContain("5000");
    });

    const usage = (
      kind: "esm" | "cjs" | "bundler",
    ): string => `// Type-checked only (tsc --noEmit) against the installed declarations (${kind}).
  import { KafkaDecodeError, StreamsGroupHeartbeatResponse, messages, type MessageName } from "kafka-wire";
  import { StreamsGroupHeartbeatRequest } from "kafka-wire/messages/StreamsGroupHeartbeatRequest";
  import type { StreamsGroupHeartbeatRequest as HeartbeatRequest, TaskIds } from "kafka-wire/messages/StreamsGroupHeartbeatRequest";
  import { KafkaWireError, type DecodeOptions, type MessageCodec, type KafkaWireErrorCode } from "kafka-wire/runtime";

  const request: HeartbeatRequest = StreamsGroupHeartbeatRequest.create({ groupId: "g", memberId: "m" });
  const tasks: TaskIds[] | null = request.activeTasks;
  const bytes: Uint8Array = StreamsGroupHeartbeatRequest.encode(request, 0);
  const options: DecodeOptions = { strictUtf8: true };
  const back: HeartbeatRequest = StreamsGroupHeartbeatRequest.decode(bytes, 0, options);
  const codec: MessageCodec<StreamsGroupHeartbeatResponse> = messages.StreamsGroupHeartbeatResponse;
  const response: StreamsGroupHeartbeatResponse = codec.create({ memberEpoch: 1 });
  const name: MessageName = "StreamsGroupMemberMetadataValue";
  const offset: bigint | undefined = back.taskOffsets?.[0]?.offset;

  function codeOf(error: unknown): KafkaWireErrorCode | undefined {
    if (error instanceof KafkaDecodeError) return error.code;
    return error instanceof KafkaWireError ? error.code : undefined;
  }

  // The types are real, not any:
  // @ts-expect-error memberId is a string
  StreamsGroupHeartbeatRequest.create({ memberId: 1 });
  // @ts-expect-error int64 fields are bigints
  const wrong: number | undefined = back.taskOffsets?.[0]?.offset;
  // @ts-expect-error not a generated message
  const unknownName: MessageName = "Produce";

  export { tasks, response, name, offset, codeOf, wrong, unknownName };
  `;

    it.each([
      ["nodenext (ESM .mts and CJS .cts)", "nodenext"],
      ["bundler", "bundler"],
    ] as const)("type-checks a usage file under moduleResolution %s", async (_label, mode) => {
      const { consumer } = need();
      const files =
        mode === "nodenext"
          ? { "usage.mts": usage("esm"), "usage.cts": usage("cjs") }
          : { "usage.ts": usage("bundler") };
      for (const [file, text] of Object.entries(files)) await writeFile(path.join(consumer, file), text);
      const compilerOptions = {
        ...(mode === "nodenext"
          ? { module: "nodenext", moduleResolution: "nodenext" }
          : { module: "esnext", moduleResolution: "bundler" }),
        target: "es2022",
        // No DOM and no @types/node: the declarations must need neither.
        lib: ["es2022"],
        types: [],
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        noUnusedLocals: false,
      };
      const config = `tsconfig.${mode}.json`;
      await writeFile(
        path.join(consumer, config),
        JSON.stringify({ compilerOptions, files: Object.keys(files) }, null, 2),
      );
      const result = await run(
        process.execPath,
        [path.join(REPO_ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", config],
        {
          cwd: consumer,
          timeout: 60_000,
        },
      ).then(
        () => "",
        (e: { stdout?: string; stderr?: string }) => `${e.stdout ?? ""}${e.stderr ?? ""}` || "tsc failed",
      );
      expect(result).toBe("");
    });

    it("bundles `kafka-wire/messages/<Name>` without the other codecs (esbuild, browser)", async () => {
      const { consumer } = need();
      for (const name of SEED) {
        const bundle = await bundleForBrowser(`export { ${name} } from "kafka-wire/messages/${name}";`, consumer);
        expect(bundle.code).toContain(JSON.stringify(name));
        for (const other of SEED.filter((n) => n !== name))
          expect(bundle.code, `${name}'s bundle contains ${other}`).not.toContain(other);
        console.log(`[size] installed kafka-wire/messages/${name}: ${bundle.gzipBytes} B min+gz`);
      }
      // The package root is `sideEffects: false` and the codecs are `/*@__PURE__*/`: a bundler that
      // tree-shakes drops the codecs a root import does not name (the subpaths do not depend on it).
      const named = await bundleForBrowser(`export { StreamsGroupHeartbeatResponse } from "kafka-wire";`, consumer);
      for (const other of SEED.filter((n) => n !== "StreamsGroupHeartbeatResponse"))
        expect(named.code, `root import keeps ${other}`).not.toContain(other);
      console.log(`[size] installed kafka-wire, one named import from the root: ${named.gzipBytes} B min+gz`);
      const all = await bundleForBrowser(`export { messages } from "kafka-wire";`, consumer);
      for (const name of SEED) expect(all.code).toContain(JSON.stringify(name));
      console.log(`[size] installed kafka-wire (the four seed messages): ${all.gzipBytes} B min+gz`);
    });
  });
});

describe("API docs (TypeDoc, from the docstrings)", () => {
  it("`npm run docs` builds with no warning (--treatWarningsAsErrors), covering every codec", async () => {
    const out = await mkdtemp(path.join(os.tmpdir(), "kafka-wire-docs-"));
    try {
      const result = await run(bin("typedoc"), ["--out", out, "--treatWarningsAsErrors"], {
        cwd: REPO_ROOT,
        timeout: 120_000,
        maxBuffer: 64 * 1024 * 1024,
      }).then(
        (r) => ({ ok: true, out: `${r.stdout}${r.stderr}` }),
        (e: { stdout?: string; stderr?: string }) => ({ ok: false, out: `${e.stdout ?? ""}${e.stderr ?? ""}` }),
      );
      // typedoc.json turns on `notDocumented`: an exported name without a docstring is a warning.
      expect(result.ok, result.out).toBe(true);
      expect(result.out).not.toMatch(/\[warning\]|\[error\]/);
      const modules = (await readdir(path.join(out, "modules"))).sort();
      for (const name of SEED) expect(modules).toContain(`generated_${name}.html`);
      const codecPage = await readFile(path.join(out, "interfaces", "src_runtime.MessageCodec.html"), "utf8");
      expect(codecPage).toContain("KafkaEncodeError");
      expect(codecPage).toContain("KafkaDecodeError");
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });
});
