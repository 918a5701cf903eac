/**
 * Formatting generated TypeScript with prettier, on worker threads when there is enough of it.
 *
 * Prettier is nearly all of a cold `generate`: on this project's 2-core machine, formatting Kafka's
 * 283 generated files takes about 6 s of one thread with prettier's `typescript` parser and about
 * 4 s with `babel-ts` (emitting them 0.3 s). Every file is formatted on its own, so a large set is
 * shared out between this thread and a few worker threads. Prettier is deterministic: a file
 * comes out byte for byte the same on any thread. It gains less than the thread count suggests:
 * one thread formatting already keeps about 1.3 cores busy (V8 collects garbage and compiles on
 * helper threads), and every worker warms prettier up again.
 *
 * The worker is a short `eval` script that imports prettier from the URL this module resolves, so
 * that no worker file has to be found next to it: this module runs from source (tsx, vitest),
 * from the CLI's bundle and from the installed CLI package alike, and the worker always gets the
 * prettier this module itself imports.
 */

import { createRequire } from "node:module";
import os from "node:os";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { format } from "prettier";

/**
 * Prettier's options for generated code; no user configuration is read, so every machine agrees.
 * `babel-ts` prints generated code byte for byte as prettier's `typescript` parser does (checked on
 * all of Kafka's schemas, and by test/generator/format-pool.test.ts), in about 60% of the time.
 */
export const FORMAT_OPTIONS = { parser: "babel-ts", printWidth: 120, trailingComma: "all" } as const;

/** Formats generated TypeScript in this thread. */
export function formatTypeScript(text: string): Promise<string> {
  return format(text, FORMAT_OPTIONS);
}

/**
 * Fewer files than this are formatted in this thread alone. A worker costs about 0.2 s to start
 * and load prettier, and prettier runs slowly in it for its first ten files or so while it warms
 * up. On a 2-core machine busy with other work, 16 files formatted faster without a worker, and
 * 32 no faster with one: small schema sets stay in this thread, Kafka's (283 files) gain when
 * there are free cores.
 */
export const POOL_THRESHOLD = 32;

/**
 * At most this many workers: each loads and warms up its own prettier (about 1 s of CPU time and
 * tens of MB), which more files would have to pay back.
 */
const MAX_WORKERS = 3;

/** Files handed to a worker before it answers: one to format, one waiting so that it never idles. */
const IN_FLIGHT_PER_WORKER = 2;

// Answers each `{ id, text }` with `{ id, text }` or `{ id, error }`. Only dynamic imports, so that it
// runs as CommonJS (an eval worker's default) and as a module (a process run with --input-type=module).
// Prettier's CommonJS entry (see prettierUrl) has its functions on `default` only.
const WORKER_SOURCE = `
import("node:worker_threads").then(async ({ parentPort, workerData }) => {
  const prettier = await import(workerData.prettier);
  const format = prettier.format ?? prettier.default.format;
  parentPort.on("message", ({ id, text }) => {
    format(text, workerData.options).then(
      (formatted) => parentPort.postMessage({ id, text: formatted }),
      (error) => parentPort.postMessage({ id, error: String(error instanceof Error ? error.message : error) }),
    );
  });
});
`;

/** A generated file to format: its name (for errors) and its text. */
export interface FormatJob {
  readonly name: string;
  readonly text: string;
}

/**
 * How many workers {@link formatTypeScriptFiles} starts for `files` files, besides formatting in
 * this thread: one fewer than the threads the machine can run at once, at most {@link MAX_WORKERS}.
 */
export function workerCount(files: number): number {
  if (files < POOL_THRESHOLD) return 0;
  return Math.min(MAX_WORKERS, os.availableParallelism() - 1);
}

/**
 * Formats each job's text as {@link formatTypeScript} does; the results are in the order of `jobs`.
 * Starts {@link workerCount} workers unless `options.workers` says how many, and formats in this
 * thread too unless `options.thisThread` is false (for tests: everything on workers). Workers are
 * terminated before this returns or throws.
 * @throws Error `cannot format <name>: <prettier's message>` for the first text prettier rejects
 *   (a bug in the generator: emitted code must parse).
 */
export async function formatTypeScriptFiles(
  jobs: readonly FormatJob[],
  options: { readonly workers?: number; readonly thisThread?: boolean } = {},
): Promise<string[]> {
  const workers = Array.from({ length: options.workers ?? workerCount(jobs.length) }, () => startWorker());
  const thisThread = options.thisThread ?? true;
  if (workers.length === 0 && !thisThread) throw new Error("no thread to format on");
  const results: string[] = new Array<string>(jobs.length);
  let next = 0;
  let failed = false;
  // A lane formats one file at a time, taking the next one when done: fast threads take more.
  const lane = async (formatText: (text: string) => Promise<string>): Promise<void> => {
    while (!failed && next < jobs.length) {
      const job = jobs[next]!;
      const at = next++;
      try {
        results[at] = await formatText(job.text);
      } catch (error) {
        failed = true;
        throw new Error(`cannot format ${job.name}: ${error instanceof Error ? error.message : String(error)}`, {
          cause: error,
        });
      }
    }
  };
  try {
    // Workers' lanes first: they start taking files while this thread formats its first one.
    await Promise.all([
      ...workers.flatMap((worker) => Array.from({ length: IN_FLIGHT_PER_WORKER }, () => lane(worker.format))),
      ...(thisThread ? [lane(formatTypeScript)] : []),
    ]);
    return results;
  } finally {
    // Always: a worker left running would keep the process alive.
    await Promise.all(workers.map((worker) => worker.stop()));
  }
}

interface FormatWorker {
  /** Prettier's output for `text`, or its error message as an Error. */
  readonly format: (text: string) => Promise<string>;
  readonly stop: () => Promise<void>;
}

/** Where the worker imports prettier from: the prettier this module imports. */
function prettierUrl(): string {
  try {
    return import.meta.resolve("prettier");
  } catch {
    // Vite's module runner (vitest's global setup) has no import.meta.resolve; prettier's
    // CommonJS entry, which loads the same package, is found the CommonJS way.
    return pathToFileURL(createRequire(import.meta.url).resolve("prettier")).href;
  }
}

function startWorker(): FormatWorker {
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    // Not this process's flags: a loader such as tsx's would only slow the worker's start.
    execArgv: [],
    workerData: { prettier: prettierUrl(), options: FORMAT_OPTIONS },
  });
  const waiting = new Map<number, { resolve: (text: string) => void; reject: (error: Error) => void }>();
  let ids = 0;
  let stopped: Error | null = null;
  worker.on("message", ({ id, text, error }: { id: number; text?: string; error?: string }) => {
    const answer = waiting.get(id)!;
    waiting.delete(id);
    if (error === undefined) answer.resolve(text!);
    else answer.reject(new Error(error));
  });
  const fail = (error: Error): void => {
    stopped ??= error;
    for (const { reject } of waiting.values()) reject(error);
    waiting.clear();
  };
  // A worker that cannot load prettier, or dies, fails its files instead of leaving them waiting.
  worker.on("error", fail);
  worker.on("exit", (code) => fail(new Error(`the formatting worker stopped (exit code ${code})`)));
  return {
    format: (text) =>
      new Promise((resolve, reject) => {
        if (stopped !== null) return reject(stopped);
        const id = ids++;
        waiting.set(id, { resolve, reject });
        worker.postMessage({ id, text });
      }),
    stop: async () => {
      await worker.terminate();
    },
  };
}
