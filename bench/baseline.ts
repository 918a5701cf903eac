/**
 * An older kafka-wire as a bench contender ("kafka-wire (baseline)"), so that a change is measured
 * side by side with the code it replaces, in the same process and the same interleaved rounds.
 *
 *   npm run bench -- --baseline-rev a02f9cf   extract that revision into bench/.baseline/<rev>/
 *                                             (git-ignored; reused when already there) and use it
 *   npm run bench -- --baseline <dir>         use a folder prepared that way
 *
 * Preparing a revision: `git archive` of it into the folder, `npm ci --ignore-scripts` there (its
 * own lock file: its generator may need packages this checkout no longer has), then its own generator writes the
 * corpus codecs the shared ops need into `<dir>/corpus/`, importing its own runtime. The baseline is
 * TypeScript run through tsx exactly like the current code, so both go through the same compiler.
 * Nothing built is committed.
 */

import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { CORPUS_NAMES, REPO_ROOT, SCHEMAS_DIR, type CorpusCodecs } from "./corpus.js";
import type { SeedCodecs } from "./ops.js";

/** The kafka-wire codecs of one build: the committed seed codecs and, with the shared schemas, the corpus ones. */
export interface Codecs {
  readonly seeds: SeedCodecs;
  readonly corpus: CorpusCodecs | null;
}

const BASELINE_ROOT = path.join(REPO_ROOT, "bench", ".baseline");
/** Written last by {@link prepareBaseline}: a folder without it is incomplete and is prepared again. */
const MARK = ".prepared";
const SEED_NAMES: readonly (keyof SeedCodecs)[] = [
  "StreamsGroupDescribeResponse",
  "StreamsGroupHeartbeatRequest",
  "StreamsGroupHeartbeatResponse",
  "StreamsGroupMemberMetadataValue",
];

function git(args: readonly string[]): string {
  return execFileSync("git", args, { cwd: REPO_ROOT, encoding: "utf8" }).trim();
}

/** Extracts revision `rev` into bench/.baseline/<short hash>/ (unless already there); returns the folder. */
export async function prepareBaseline(rev: string, log: (line: string) => void): Promise<string> {
  const hash = git(["rev-parse", "--short=12", `${rev}^{commit}`]);
  const dir = path.join(BASELINE_ROOT, hash);
  if (existsSync(path.join(dir, MARK))) return dir;
  log(`preparing the baseline ${rev} (${hash}) in ${path.relative(REPO_ROOT, dir)}/`);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const tar = execFileSync("git", ["archive", "--format=tar", hash], { cwd: REPO_ROOT, maxBuffer: 1 << 30 });
  execFileSync("tar", ["-x", "-C", dir], { input: tar });
  // Its own dependencies, as its lock file pins them; no install scripts (nothing is built there).
  execFileSync("npm", ["ci", "--ignore-scripts", "--no-audit", "--no-fund"], { cwd: dir, stdio: "ignore" });
  if (existsSync(path.join(SCHEMAS_DIR, "clients"))) {
    const { generate } = (await import(pathToFileURL(path.join(dir, "generator", "generate.ts")).href)) as {
      generate(options: {
        schemas: readonly string[];
        out: string;
        runtimeImport: string;
        cwd: string;
      }): Promise<unknown>;
    };
    // The codegen interface where the revision has one, else its runtime entry point.
    const runtime = existsSync(path.join(dir, "src", "codegen", "v1.ts"))
      ? "../src/codegen/v1.js"
      : "../src/runtime/index.js";
    await generate({
      schemas: CORPUS_NAMES.map((n) => path.join(SCHEMAS_DIR, "clients", `${n}.json`)),
      out: path.join(dir, "corpus"),
      runtimeImport: runtime,
      cwd: dir,
    });
  }
  await writeFile(path.join(dir, MARK), `${hash}\n`);
  return dir;
}

async function exportOf(file: string, name: string): Promise<unknown> {
  const mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  if (mod[name] === undefined) throw new Error(`${file} does not export ${name}`);
  return mod[name];
}

/** Loads the codecs of a folder prepared by {@link prepareBaseline}. */
export async function loadBaseline(dir: string): Promise<{ codecs: Codecs; label: string }> {
  const root = path.resolve(dir);
  if (!existsSync(path.join(root, MARK))) {
    throw new Error(`${dir} is not a prepared baseline (use --baseline-rev <revision> to prepare one)`);
  }
  const label = (await readFile(path.join(root, MARK), "utf8")).trim();
  const seeds: Partial<Record<keyof SeedCodecs, unknown>> = {};
  for (const name of SEED_NAMES) seeds[name] = await exportOf(path.join(root, "generated", `${name}.ts`), name);
  let corpus: CorpusCodecs | null = null;
  if (existsSync(path.join(root, "corpus"))) {
    const found: Partial<Record<keyof CorpusCodecs, unknown>> = {};
    for (const name of CORPUS_NAMES) {
      // A folder prepared before the bench used this message has none: no baseline for its ops.
      const file = path.join(root, "corpus", `${name}.ts`);
      if (existsSync(file)) found[name] = await exportOf(file, name);
    }
    corpus = found as CorpusCodecs;
  }
  return { codecs: { seeds: seeds as SeedCodecs, corpus }, label };
}
