/**
 * The published packages as their users get them: the library `kafka-wire` and the command
 * `kafka-wire-cli`.
 *
 * Once per run (beforeAll), without touching the repository's own dist/: the build inputs are
 * copied into a temporary folder, built there with the repository's tsup configs, packed with
 * `npm pack`, and the library's tarball is installed alone into a temporary consumer project
 * (it must bring at most one dependency), the CLI's beside it into a second one (with
 * kafka-wire-compression, which the CLI's `records` command uses). Then:
 * - publint (every level, strict) and Are The Types Wrong (`node16` profile: Node's `require`
 *   and `import`, and bundlers) find no problem;
 * - the consumer imports it as ESM (`import`) and as CommonJS (`require`), through the package
 *   root and the `./runtime` and `./messages/*` subpaths, and gets the bytes worked out by hand;
 * - a small usage file type-checks under `moduleResolution: nodenext` (as .mts and .cts) and
 *   `bundler`, against the shipped declarations (`skipLibCheck: false`);
 * - the `kafka-wire` bin of the CLI package runs from the install, generates Kafka's whole schema
 *   set and decodes a golden vector;
 * - a bundler (esbuild) importing one `kafka-wire/messages/<Name>` gets that codec and no other.
 */
import { execFile } from "node:child_process";
import {
  cp,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  realpath,
  rm,
  stat,
  symlink,
  unlink,
  writeFile,
} from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { publint } from "publint";
import { formatMessage } from "publint/utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleForBrowser } from "./support/browser.js";
import { parse as parseLossless, stringify as stringifyLossless } from "lossless-json";
import { RESPONSE_HEX } from "./support/hand-worked.js";
import { REPO_ROOT, describeShared } from "./support/shared.js";

const run = promisify(execFile);

/** What the library's build reads (tsup.config.ts builds from src/ and generated/ only). */
const BUILD_INPUTS = ["package.json", "README.md", "LICENSE", "tsconfig.json", "tsup.config.ts", "src", "generated"];

/** What the CLI package's build reads besides the library's inputs: the command and the generator and proxy it bundles. */
const CLI_BUILD_INPUTS = ["cli", "generator", "proxy"];

/** The companion package the CLI depends on (for compressed record sets), built from its folder. */
const COMPRESSION_BUILD_INPUTS = ["compression"];

const SEED = [
  "StreamsGroupDescribeRequest",
  "StreamsGroupDescribeResponse",
  "StreamsGroupHeartbeatRequest",
  "StreamsGroupHeartbeatResponse",
  "StreamsGroupMemberMetadataKey",
  "StreamsGroupMemberMetadataValue",
];

const bin = (name: string): string => path.join(REPO_ROOT, "node_modules", ".bin", name);

interface Staged {
  /** The temporary folder holding everything below. */
  readonly root: string;
  /** The staged copy of the package, built. */
  readonly pkgDir: string;
  /** The packed tarball. */
  readonly tarball: string;
  /** The files `npm pack` put in the tarball. */
  readonly packedFiles: readonly string[];
  /** The consumer project, with the library's tarball installed (alone). */
  readonly consumer: string;
  /** A second consumer project with the CLI's tarball installed (and the library's). */
  readonly cliConsumer: string;
  /** Packages under the library consumer's node_modules, and their size on disk in bytes. */
  readonly installed: { readonly packages: Readonly<Record<string, number>> };
  /** How the install went (offline from npm's cache, or from the registry). */
  readonly installMode: string;
}

let staged: Staged | undefined;

/** Builds the package in `dir` with its tsup.config.ts. */
async function tsup(dir: string): Promise<void> {
  try {
    await run(bin("tsup"), [], { cwd: dir, timeout: 120_000, maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string };
    throw new Error(`tsup failed in ${dir}:\n${e.stdout ?? ""}\n${e.stderr ?? ""}`);
  }
}

/** The packages under `nodeModules` (scoped ones as `@scope/name`), each with the bytes of its files. */
async function installedPackages(nodeModules: string): Promise<{ packages: Record<string, number> }> {
  const names: string[] = [];
  for (const entry of await readdir(nodeModules)) {
    if (entry.startsWith(".")) continue;
    if (entry.startsWith("@"))
      for (const inner of await readdir(path.join(nodeModules, entry))) names.push(`${entry}/${inner}`);
    else names.push(entry);
  }
  const bytesBelow = async (dir: string): Promise<number> => {
    let bytes = 0;
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) bytes += await bytesBelow(full);
      else if (entry.isFile()) bytes += (await stat(full)).size;
    }
    return bytes;
  };
  const packages: Record<string, number> = {};
  for (const name of names.sort()) packages[name] = await bytesBelow(path.join(nodeModules, name));
  return { packages };
}

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
          'import { createRequire } from "node:module";',
          // The other build in the same process: its errors must pass the instanceof checks too.
          'const other = createRequire(import.meta.url)("kafka-wire");',
        ]
      : [
          'const root = require("kafka-wire");',
          'const runtime = require("kafka-wire/runtime");',
          'const one = require("kafka-wire/messages/StreamsGroupHeartbeatResponse");',
          'const pkg = require("kafka-wire/package.json");',
          "let other;",
          'import("kafka-wire").then((m) => { other = m; main(); });',
        ];
  return `${load.join("\n")}
function main() {
  const R = one.StreamsGroupHeartbeatResponse;
  const bytes = R.encode(R.create({ memberId: "m", memberEpoch: 5, heartbeatIntervalMs: 5000 }), 0);
  let error = null;
  try {
    R.decode(bytes.subarray(0, 5), 0);
  } catch (e) {
    error = {
      code: e.code,
      name: e.name,
      rootClass: e instanceof root.KafkaDecodeError,
      runtimeClass: e instanceof runtime.KafkaWireError,
      otherBuild: {
        distinctClasses: other.KafkaDecodeError !== root.KafkaDecodeError,
        decodeClass: e instanceof other.KafkaDecodeError,
        wireClass: e instanceof other.KafkaWireError,
        encodeClass: e instanceof other.KafkaEncodeError,
        plainError: new Error("x") instanceof other.KafkaWireError,
      },
    };
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
}
${kind === "esm" ? "main();" : ""}
`;
}

describe("the published package (built, packed and installed once)", () => {
  beforeAll(async () => {
    const started = Date.now();
    const root = await mkdtemp(path.join(os.tmpdir(), "kafka-wire-package-"));
    try {
      // 1. Build a staged copy (the repository's dist/ is left alone: nobody has to have built it).
      //    The library first, alone (its build must not need the generator), then the CLI package.
      const pkgDir = path.join(root, "kafka-wire");
      await mkdir(pkgDir);
      for (const entry of BUILD_INPUTS)
        await cp(path.join(REPO_ROOT, entry), path.join(pkgDir, entry), { recursive: true });
      await symlink(path.join(REPO_ROOT, "node_modules"), path.join(pkgDir, "node_modules"), "dir");
      await tsup(pkgDir);
      for (const entry of CLI_BUILD_INPUTS)
        await cp(path.join(REPO_ROOT, entry), path.join(pkgDir, entry), {
          recursive: true,
          filter: (src) => !/[\\/](dist|node_modules)$/.test(src),
        });
      await tsup(path.join(pkgDir, "cli"));
      for (const entry of COMPRESSION_BUILD_INPUTS)
        await cp(path.join(REPO_ROOT, entry), path.join(pkgDir, entry), {
          recursive: true,
          filter: (src) => !/[\\/](dist|node_modules)$/.test(src),
        });
      await tsup(path.join(pkgDir, "compression"));
      await unlink(path.join(pkgDir, "node_modules"));
      const built = Date.now();

      // 2. Pack them (scripts off: `prepare` would build again).
      const pack = async (dir: string): Promise<{ tarball: string; files: string[] }> => {
        const out = (await npm(["pack", "--json", "--ignore-scripts", "--pack-destination", root], dir, 60_000)).stdout;
        const packed = JSON.parse(out) as Array<{ filename: string; files: Array<{ path: string }> }>;
        return { tarball: path.join(root, packed[0]!.filename), files: packed[0]!.files.map((f) => f.path).sort() };
      };
      const library = await pack(pkgDir);
      const cliPackage = await pack(path.join(pkgDir, "cli"));
      const compressionPackage = await pack(path.join(pkgDir, "compression"));

      // 3. Install them into consumer projects: from npm's cache when it has the dependencies, else from the registry.
      let installMode = "offline (npm cache)";
      const consumerWith = async (name: string, tarballs: readonly string[]): Promise<string> => {
        const dir = path.join(root, name);
        await mkdir(dir);
        await writeFile(
          path.join(dir, "package.json"),
          JSON.stringify({ name: `kafka-wire-${name}`, version: "0.0.0", private: true }, null, 2),
        );
        const install = ["install", "--no-audit", "--no-fund", "--ignore-scripts", "--no-package-lock", ...tarballs];
        try {
          await npm([...install, "--offline"], dir, 120_000);
        } catch {
          installMode = "online (registry)";
          await npm(install, dir, 240_000);
        }
        return dir;
      };
      const consumer = await consumerWith("consumer", [library.tarball]);
      const cliConsumer = await consumerWith("cli-consumer", [
        library.tarball,
        cliPackage.tarball,
        compressionPackage.tarball,
      ]);
      staged = {
        root,
        pkgDir,
        tarball: library.tarball,
        packedFiles: library.files,
        consumer,
        cliConsumer,
        installed: await installedPackages(path.join(consumer, "node_modules")),
        installMode,
      };
      console.log(
        `[package] built in ${built - started} ms; packed and installed (${installMode}) in ${Date.now() - built} ms: ${path.basename(library.tarball)}, ${path.basename(cliPackage.tarball)}`,
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
      for (const f of ["package.json", "README.md", "LICENSE"]) expect(files).toContain(f);
      for (const entry of ["index", "runtime", "codegen/v1", "records", ...SEED.map((n) => `messages/${n}`)]) {
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
      for (const entry of [".", "./runtime", "./codegen/v1", "./records", ...SEED.map((n) => `./messages/${n}`)]) {
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
      // The codec, its field table (`$fields`, for interpreters such as decodeWithSpans) and a
      // factory per struct (create<StructName>, the nested-defaults create).
      oneExports: [
        "StreamsGroupHeartbeatResponse",
        "StreamsGroupHeartbeatResponse$fields",
        "createEndpoint",
        "createEndpointToPartitions",
        "createStatus",
        "createStreamsGroupHeartbeatResponse",
        "createTaskIds",
        "createTopicPartition",
      ],
      runtimeHasReaderWriter: true,
      error: {
        code: "BUFFER_UNDERFLOW",
        name: "KafkaDecodeError",
        rootClass: true,
        runtimeClass: true,
        // The ESM and CJS builds are two copies of every class; the brand makes instanceof agree.
        otherBuild: {
          distinctClasses: true,
          decodeClass: true,
          wireClass: true,
          encodeClass: false,
          plainError: false,
        },
      },
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

    it("installs the library with one dependency (lossless-json) and no generator toolchain", () => {
      const { packages } = need().installed;
      const sizes = Object.entries(packages).map(([name, bytes]) => `${name} ${(bytes / 1024).toFixed(0)} KiB`);
      console.log(`[size] npm install kafka-wire: ${sizes.join(", ")} on disk`);
      expect(Object.keys(packages)).toEqual(["kafka-wire", "lossless-json"]);
      // The one dependency, Kafka's JSON form's exact-number reader, stays small.
      expect(packages["lossless-json"]).toBeLessThan(1024 * 1024);
    });
  });

  describe("a project with the CLI package (kafka-wire-cli) installed", () => {
    const cli = (args: readonly string[], input?: string): Promise<{ stdout: string; stderr: string }> => {
      const { cliConsumer } = need();
      const child = run(path.join(cliConsumer, "node_modules", ".bin", "kafka-wire"), [...args], {
        cwd: cliConsumer,
        timeout: 120_000,
        maxBuffer: 64 * 1024 * 1024,
      });
      if (input !== undefined) child.child.stdin?.end(input);
      return child;
    };

    it("runs the kafka-wire bin: decode with the shipped codecs", async () => {
      const { stdout } = await cli(["decode", "StreamsGroupHeartbeatResponse", "0", RESPONSE_HEX]);
      expect(stdout).toContain('"memberId"');
      expect(stdout).toContain('"m"');
      expect(stdout).toContain("5000");
    });

    describeShared("with Kafka's schemas and the seed golden vectors", "golden/seed", (goldenDir) => {
      it("decodes a golden vector (Kafka's bytes) to Kafka's JSON", async () => {
        const text = await readFile(path.join(goldenDir, "StreamsGroupHeartbeatRequest.json"), "utf8");
        const vector = (
          parseLossless(text) as Array<{ version: number; kind: string; hex: string; json: unknown }>
        ).find((v) => v.kind === "maximal")!;
        const { stdout } = await cli(["decode", "StreamsGroupHeartbeatRequest", String(vector.version), vector.hex]);
        expect(stringifyLossless(parseLossless(stdout))).toBe(stringifyLossless(vector.json));
      });
    });

    describeShared("on a schema set (--schemas)", "kafka-schemas/clients", (clients) => {
      /*
       * A MetadataRequest v4 request frame, worked out by hand (v4 is not flexible: header v1):
       * size 00000011 (17), requestApiKey 0003, requestApiVersion 0004, correlationId 00000007,
       * clientId "hi" (int16 length 0002, 6869), topics null (int32 length ffffffff),
       * allowAutoTopicCreation true (01).
       */
      const FRAME = "00000011" + "0003" + "0004" + "00000007" + "00026869" + "ffffffff" + "01";

      it("decode-frame compiles the codecs once against the package's codegen-v1.js, then takes them from the cache", async () => {
        const { cliConsumer } = need();
        const cache = path.join(cliConsumer, "codec-cache");
        const args = ["decode-frame", FRAME, "--jsonl", "--schemas", clients, "--cache-dir", cache];
        const times: number[] = [];
        const outputs: { stdout: string; stderr: string }[] = [];
        for (let i = 0; i < 2; i++) {
          const started = Date.now();
          outputs.push(await cli(args));
          times.push(Date.now() - started);
        }
        console.log(`[cli package] decode-frame --schemas: cold ${times[0]} ms, cached ${times[1]} ms`);
        expect(outputs[0]!.stderr).toMatch(/^generating codecs for \d+ schemas/);
        expect(outputs[1]!.stderr).toBe("");
        for (const o of outputs) {
          expect(JSON.parse(o.stdout)).toEqual({
            api: "Metadata",
            apiKey: 3,
            apiVersion: 4,
            headerVersion: 1,
            header: { requestApiKey: 3, requestApiVersion: 4, correlationId: 7, clientId: "hi" },
            body: { topics: null, allowAutoTopicCreation: true },
          });
        }
        // The compiled modules import the installed package's own copy of the codegen interface.
        const [entry] = await readdir(path.join(cache, "codecs"));
        const index = await readFile(path.join(cache, "codecs", entry!, "MetadataRequest.js"), "utf8");
        const runtime = path.join(cliConsumer, "node_modules", "kafka-wire-cli", "dist", "codegen-v1.js");
        expect(await stat(runtime).then((s) => s.isFile())).toBe(true);
        expect(index).toContain(`from "${pathToFileURL(await realpath(runtime)).href}"`);
      }, 300_000);
    });

    describeShared("generating Kafka's schema set", "kafka-schemas", (schemas) => {
      it("generates every schema, and the output compiles against the installed library (tsc --strict)", async () => {
        const { cliConsumer } = need();
        const started = Date.now();
        const { stdout } = await cli(["generate", "--schemas", schemas, "--out", "kafka"]);
        const written = stdout.split("\n").filter((l) => l.startsWith("wrote ")).length;
        const generatedIn = Date.now() - started;
        // One module per schema plus the index, protocol.ts and internal-topics.ts.
        const schemaCount = (await readdir(schemas, { recursive: true })).filter((f) => f.endsWith(".json")).length;
        expect(written).toBe(schemaCount + 3);
        await writeFile(
          path.join(cliConsumer, "tsconfig.json"),
          JSON.stringify({
            compilerOptions: {
              target: "es2022",
              module: "nodenext",
              moduleResolution: "nodenext",
              strict: true,
              noUncheckedIndexedAccess: true,
              noEmit: true,
              skipLibCheck: false,
              lib: ["es2022"],
              types: [],
            },
            include: ["kafka/*.ts"],
          }),
        );
        const tsc = await run(
          process.execPath,
          [path.join(REPO_ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", "."],
          {
            cwd: cliConsumer,
            timeout: 180_000,
            maxBuffer: 64 * 1024 * 1024,
          },
        ).then(
          () => "",
          (e: { stdout?: string; stderr?: string }) => `${e.stdout ?? ""}${e.stderr ?? ""}` || "tsc failed",
        );
        console.log(
          `[cli package] generated ${written} modules in ${generatedIn} ms; tsc ${tsc === "" ? "clean" : "failed"}`,
        );
        expect(tsc.split("\n").slice(0, 20).join("\n")).toBe("");
      }, 300_000);
    });
  });

  describe("the library consumer, continued", () => {
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
      // Every module is named after the path a user imports it from (its page: `/` → `_`), and
      // there are no others: a page named after a source path (`generated_<Name>`, `src_…`) fails.
      // The entry points take theirs from `@module`, each codec from scripts/typedoc-import-paths.mjs.
      const modules = (await readdir(path.join(out, "modules"))).sort();
      const importPaths = [
        "kafka-wire",
        "kafka-wire/runtime",
        "kafka-wire/records",
        "kafka-wire/codegen/v1",
        "kafka-wire-compression",
        ...SEED.map((name) => `kafka-wire/messages/${name}`),
      ];
      expect(modules).toEqual(importPaths.map((p) => `${p.replaceAll("/", "_")}.html`).sort());
      // What generated/index.ts and internal-topics.ts declare is documented under the root, which exports it.
      const variables = await readdir(path.join(out, "variables"));
      for (const name of ["messages", "internalTopics"]) expect(variables).toContain(`kafka-wire.${name}.html`);
      // The page lives under whichever entry point TypeDoc documents it first (root or runtime).
      const page = (await readdir(path.join(out, "interfaces"))).find((f) =>
        /^kafka-wire(_runtime)?\.MessageCodec\.html$/.test(f),
      );
      expect(page).toBeDefined();
      const codecPage = await readFile(path.join(out, "interfaces", page!), "utf8");
      expect(codecPage).toContain("KafkaEncodeError");
      expect(codecPage).toContain("KafkaDecodeError");
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });
});
