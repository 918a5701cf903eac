/** The README's supported-APIs table is made from Kafka's schemas and must match them. */

import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { API_TABLE_END, API_TABLE_START, apiTable } from "../scripts/api-table.js";
import { loadSchemas } from "../generator/generate.js";
import { describeShared, REPO_ROOT } from "./support/shared.js";
import { main } from "../cli/cli.js";

describe("README's command examples", () => {
  it("every `kafka-wire encode <message> <version> '<json>'` example parses and encodes", async () => {
    const readme = readFileSync(path.join(REPO_ROOT, "README.md"), "utf8");
    const examples = [...readme.matchAll(/kafka-wire encode (\w+) (\d+) '([^']*)'/g)];
    expect(examples.length).toBeGreaterThan(0);
    for (const [, name, version, json] of examples) {
      expect(() => JSON.parse(json!), json).not.toThrow();
      let stderr = "";
      const code = await main(["encode", name!, version!, json!], {
        stdout: { write: () => true },
        stderr: { write: (s: string) => (stderr += s) },
        stdin: { isTTY: true, async *[Symbol.asyncIterator]() {} },
      });
      expect({ code, stderr }, `${name} ${version} ${json}`).toEqual({ code: 0, stderr: "" });
    }
  });

  it("the `decode --spans` example prints what the README shows", async () => {
    const readme = readFileSync(path.join(REPO_ROOT, "README.md"), "utf8");
    const block = /```\n\$ kafka-wire (decode \S+ \d+ [0-9a-f]+ --spans)\n([\s\S]*?)```/.exec(readme);
    expect(block).not.toBeNull();
    let stdout = "";
    const code = await main(block![1]!.split(" "), {
      stdout: { write: (s: string) => (stdout += s) },
      stderr: { write: () => true },
      stdin: { isTTY: true, async *[Symbol.asyncIterator]() {} },
    });
    expect(code).toBe(0);
    expect(stdout).toBe(block![2]);
  });
});

describeShared("README", "kafka-schemas", (schemas) => {
  it("lists every API of Kafka's schemas (run `npm run readme:apis` when this fails)", async () => {
    const readme = readFileSync(path.join(REPO_ROOT, "README.md"), "utf8");
    const table = readme
      .slice(readme.indexOf(API_TABLE_START) + API_TABLE_START.length, readme.indexOf(API_TABLE_END))
      .trim();
    const expected = apiTable(await loadSchemas([schemas]));
    expect(table).toBe(expected);
    // 90 request/response pairs; StreamsGroupHeartbeat is api key 88 in Kafka's own schemas.
    expect(expected.split("\n")).toHaveLength(2 + 90);
    expect(expected).toContain("| 88 | StreamsGroupHeartbeat |");
  });
});

describe("README's fault-injection example", () => {
  /**
   * The parts of test/broker-fault-example.test.ts between `// README begin` and `// README end`,
   * dedented, as users write them: the only differences are where the helper and the codecs
   * come from (the package's name and a Kafka release instead of the sources and ../shared).
   */
  function quoted(): string {
    const source = readFileSync(path.join(REPO_ROOT, "test/broker-fault-example.test.ts"), "utf8");
    const regions = [...source.matchAll(/\/\/ README begin\n([\s\S]*?)\n\s*\/\/ README end/g)].map((m) => {
      const lines = m[1]!.split("\n");
      const indent = Math.min(...lines.filter((l) => l.trim() !== "").map((l) => /^ */.exec(l)![0].length));
      return lines.map((l) => l.slice(indent)).join("\n");
    });
    expect(regions).toHaveLength(2);
    const substitutions: [string, string][] = [
      ['"../broker/src/vitest.js"', '"kafka-wire-broker/vitest"'],
      [
        "const cluster = useCluster(async () => ({ protocol: await protocol(), brokers: 3, topics: { orders: 3 } }));",
        'const cluster = useCluster({ kafka: "4.1.0", brokers: 3, topics: { orders: 3 } }); // reset after each test',
      ],
    ];
    let code = regions.join("\n\n");
    for (const [from, to] of substitutions) {
      expect(code).toContain(from);
      code = code.replace(from, to);
    }
    return code;
  }

  for (const readme of ["README.md", "broker/README.md"]) {
    it(`${readme} quotes test/broker-fault-example.test.ts as it is`, () => {
      const text = readFileSync(path.join(REPO_ROOT, readme), "utf8");
      const m = /<!-- quoted from test\/broker-fault-example\.test\.ts -->\n\n```ts\n([\s\S]*?)\n```/.exec(text);
      expect(m, `${readme} has the quoted block`).not.toBeNull();
      expect(m![1]).toBe(quoted());
    });
  }
});
