/**
 * The inspector page (inspector/): built with vite into a temporary folder, opened from file://
 * in Debian's headless Chromium (playwright-core), and driven as a user would: paste a frame,
 * click a tree node, open a file of frames. Bodies come from Apache Kafka's golden vectors
 * (../shared/golden), frames around them are worked out by hand below; the error case is
 * compared with the library's own decode in Node. A screenshot goes to test-artifacts/.
 */
import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { KafkaWireError } from "../src/runtime/index.js";
import { CHROMIUM_ARGS, CHROMIUM_PATH, describeChromium } from "./support/browser.js";
import { fromHex, readGolden, toHex } from "./support/golden.js";
import { describeShared, REPO_ROOT } from "./support/shared.js";

const INSPECTOR = path.join(REPO_ROOT, "inspector");
/** Where CI keeps what it shows (gitignored). */
const ARTIFACTS = path.join(REPO_ROOT, "test-artifacts");

/** `n` as `bytes` big-endian bytes of hex. */
const be = (n: number, bytes: number): string =>
  (n >>> 0)
    .toString(16)
    .padStart(8, "0")
    .slice(8 - 2 * bytes);
/** A frame: the int32 size of what follows, then it. */
const frame = (hex: string): string => be(hex.length / 2, 4) + hex;
/** `"tst"`, a classic (int16 length) string: header v1 and v2 client ids are this form. */
const CLIENT_ID = "0003" + "747374";

describeChromium("the inspector page in headless Chromium", () => {
  describeShared("decoding Kafka's golden vectors", "golden", (golden) => {
    let out: string;
    let browser: Browser;
    let page: Page;

    const apiVersionsRequest = readGolden(path.join(golden, "kafka/ApiVersionsRequest.json")).find(
      (v) => v.version === 3 && v.kind === "random",
    )!;
    const apiVersionsResponse = readGolden(path.join(golden, "kafka/ApiVersionsResponse.json")).find(
      (v) => v.version === 3 && v.kind === "random",
    )!;
    /** Kafka's `<kind>/fixed/basic` record set: one batch of 3 records (key-0/value-0 …), written by MemoryRecordsBuilder. */
    const basicOf = (kind: string) =>
      (
        JSON.parse(readFileSync(path.join(golden, `records/records-${kind}.json`), "utf8")) as {
          id: string;
          hex: string;
          batches: {
            baseOffset: string;
            crc: number;
            recordCount: number;
            compression: string;
            records: { key: string; value: string }[];
          }[];
        }[]
      ).find((v) => v.id === `${kind}/fixed/basic`)!;
    const basic = basicOf("none");

    /**
     * ApiVersions v3 request frame: header v2 (the request is flexible from v3): api key 18
     * (int16), api version 3 (int16), correlation id 42 (int32), client id "tst" (a classic
     * string even in header v2), no tagged fields (00); then the golden body.
     */
    const apiVersionsHeader = "0012" + "0003" + "0000002a" + CLIENT_ID + "00";
    const apiVersionsFrame = frame(apiVersionsHeader + apiVersionsRequest.hex);
    /** Its response: ApiVersions responses always use header v0 (KIP-511): correlation id 42 only. */
    const apiVersionsResponseFrame = frame("0000002a" + apiVersionsResponse.hex);

    /**
     * Produce v3 (not flexible: header v1, classic strings and arrays) carrying the golden record
     * batch: transactionalId null (ffff), acks 1, timeoutMs 30000, topicData [1] { name "t",
     * partitionData [1] { index 0, records (int32 length, then the batch) } }.
     */
    const produceOf = (records: string): string =>
      frame(
        "0000" +
          "0003" +
          "00000007" +
          CLIENT_ID +
          ("ffff" + "0001" + "00007530" + "00000001" + "0001" + "74" + "00000001" + "00000000") +
          be(records.length / 2, 4) +
          records,
      );
    const produceFrame = produceOf(basic.hex);
    /** size 4 + header (2 + 2 + 4 + 5) = 17; then 27 bytes of body before the records' bytes. */
    const RECORDS_AT = 17 + 27;

    beforeAll(async () => {
      out = mkdtempSync(path.join(os.tmpdir(), "kafka-wire-inspector-"));
      await promisify(execFile)("npx", ["tsx", "inspector/scripts/codecs.ts"], { cwd: REPO_ROOT });
      const { build } = await import("vite");
      const quiet = { root: INSPECTOR, logLevel: "warn" } as const;
      await build({ ...quiet, configFile: path.join(INSPECTOR, "vite.config.ts"), build: { outDir: out } });
      const assets = path.join(out, "assets");
      await build({ ...quiet, configFile: path.join(INSPECTOR, "vite.codecs.config.ts"), build: { outDir: assets } });
      await build({ ...quiet, configFile: path.join(INSPECTOR, "vite.schemas.config.ts"), build: { outDir: assets } });
      await build({
        ...quiet,
        configFile: path.join(INSPECTOR, "vite.compression.config.ts"),
        build: { outDir: assets },
      });
      browser = await chromium.launch({
        executablePath: CHROMIUM_PATH,
        headless: true,
        args: [...CHROMIUM_ARGS],
        timeout: 60_000,
      });
      page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(e.message));
      await page.goto(pathToFileURL(path.join(out, "index.html")).href);
      await page.waitForSelector("body[data-ready]");
      expect(errors).toEqual([]);
    });

    afterAll(async () => {
      await browser?.close();
      if (out !== undefined) rmSync(out, { recursive: true, force: true });
    });

    /** Makes the page decode (`act`), then waits until it has drawn the latest result. */
    async function drawn(act: () => Promise<void>): Promise<void> {
      const before = Number(await page.evaluate("document.body.dataset.shown ?? 0"));
      await act();
      await page.waitForFunction(
        `document.body.dataset.busy === "false" && Number(document.body.dataset.shown) > ${before}`,
      );
    }

    async function paste(hex: string, kind = "auto", message = "", version = ""): Promise<void> {
      await page.selectOption("#kind", kind);
      await page.selectOption("#message", message);
      await page.fill("#version", version);
      await drawn(() => page.fill("#input", hex));
    }

    const text = async (selector: string): Promise<string> =>
      (await page.locator(selector).first().textContent()) ?? "";
    const value = (p: string): Promise<string> => text(`.node[data-path="${p}"] .v`);
    /** The byte indexes of the highlighted hex cells. */
    const highlighted = (): Promise<number[]> =>
      page.$$eval("#hex .b.sel", (cells) => cells.map((c) => Number((c as HTMLElement).dataset["i"])));
    const range = (from: number, length: number): number[] => Array.from({ length }, (_, i) => from + i);
    async function select(p: string): Promise<number[]> {
      await page.locator(`.node[data-path="${p}"]`).first().click();
      return highlighted();
    }

    it("detects a request frame and shows its header and the golden body's fields", async () => {
      await paste(apiVersionsFrame);
      expect(await text("#title")).toBe("ApiVersionsRequest v3 · request header v2 · correlation id 42");
      expect(await page.locator(".problem").count()).toBe(0);
      expect(await value("header.requestApiKey")).toBe("18");
      expect(await value("header.clientId")).toBe('"tst"');
      const json = JSON.parse(apiVersionsRequest.jsonText) as Record<string, string>;
      for (const [field, v] of Object.entries(json)) expect(await value(`body.${field}`)).toBe(JSON.stringify(v));
      // One hex cell per byte.
      expect(await page.locator("#hex .b").count()).toBe(apiVersionsFrame.length / 2);
    });

    it("highlights exactly the selected part's bytes", async () => {
      await paste(apiVersionsFrame);
      expect(await select("size")).toEqual(range(0, 4));
      expect(await select("header")).toEqual(range(4, apiVersionsHeader.length / 2));
      const bodyAt = 4 + apiVersionsHeader.length / 2;
      expect(await select("body")).toEqual(range(bodyAt, apiVersionsRequest.hex.length / 2));
      // header.correlationId: the int32 after api key and version.
      expect(await select("header.correlationId")).toEqual(range(8, 4));
      // clientSoftwareName, a compact string: uvarint length+1 (a7 01 = 0x27 + 0x01 * 128 = 167), then 166 bytes.
      expect(apiVersionsRequest.hex.slice(0, 4)).toBe("a701");
      expect(await select("body.clientSoftwareName")).toEqual(range(bodyAt, 2 + 166));
    });

    it("expands a Produce request's record batch and highlights a records field, a batch header field and a record", async () => {
      await paste(produceFrame);
      expect(await text("#title")).toBe("ProduceRequest v3 · request header v1 · correlation id 7");
      expect(await page.locator(".problem").count()).toBe(0);
      const records = "body.topicData[0].partitionData[0].records";
      const want = basic.batches[0]!;
      expect(await value(`${records}[0]`)).toBe(`baseOffset ${want.baseOffset} · ${want.recordCount} records, none`);
      expect(await value(`${records}[0].crc`)).toBe(String(want.crc));
      for (const [i, r] of want.records.entries()) {
        expect(await value(`${records}[0].records[${i}].key`)).toContain(
          `"${Buffer.from(r.key, "base64").toString()}"`,
        );
        expect(await value(`${records}[0].records[${i}].value`)).toContain(
          `"${Buffer.from(r.value, "base64").toString()}"`,
        );
      }
      // The records field: its int32 length, then the batch.
      expect(await select(records)).toEqual(range(RECORDS_AT - 4, 4 + basic.hex.length / 2));
      // The batch header: crc is the int32 at bytes 17-20 of the batch (protocol guide, "Record Batch").
      expect(await select(`${records}[0].crc`)).toEqual(range(RECORDS_AT + 17, 4));
      // compression is attribute bits 0-2: the attributes' int16 at bytes 21-22.
      expect(await select(`${records}[0].compression`)).toEqual(range(RECORDS_AT + 21, 2));
      const crcHex = basic.hex.slice(2 * 17, 2 * 21);
      expect(Number.parseInt(crcHex, 16)).toBe(want.crc);
      // A key: its varint length (0a, the zigzag of 5), then "key-0" as written, found in the batch's hex.
      const key0 = Buffer.from("key-0").toString("hex");
      const keyAt = RECORDS_AT + basic.hex.indexOf(key0, 2 * 61) / 2;
      expect(basic.hex.slice(2 * (keyAt - RECORDS_AT - 1), 2 * (keyAt - RECORDS_AT))).toBe("0a");
      expect(await select(`${records}[0].records[0].key`)).toEqual(range(keyAt - 1, 6));
      // The first record follows the 61-byte batch header: sizeInBytes 19 (golden), length varint included.
      expect(await select(`${records}[0].records[0]`)).toEqual(range(RECORDS_AT + 61, 19));
      // Clicking a hex cell selects the deepest field there.
      await page.locator(`#hex .b[data-i="${keyAt + 2}"]`).click();
      expect(await page.locator(".node.selected").getAttribute("data-path")).toBe(`${records}[0].records[0].key`);
      // What the screenshot shows: a batch's crc selected, the tree scrolled to its batch.
      await select(`${records}[0].crc`);
      await page.locator(`.node[data-path="${records}"]`).first().scrollIntoViewIfNeeded();
      await page.evaluate(`document.getElementById("tree").scrollTop -= 120`);
      mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: path.join(ARTIFACTS, "inspector.png"), fullPage: false });
    });

    /** Checks the page's tree of Kafka's `<kind>/fixed/basic` set in a Produce request: summary, keys and values. */
    async function expectBasicBatch(kind: string): Promise<void> {
      const vector = basicOf(kind);
      const want = vector.batches[0]!;
      expect(want.compression).toBe(kind);
      await paste(produceOf(vector.hex));
      expect(await page.locator(".problem").allTextContents()).toEqual([]);
      const records = "body.topicData[0].partitionData[0].records";
      expect(await value(`${records}[0]`)).toBe(`baseOffset ${want.baseOffset} · ${want.recordCount} records, ${kind}`);
      for (const [i, r] of want.records.entries()) {
        expect(await value(`${records}[0].records[${i}].key`)).toContain(`"${Buffer.from(r.key, "base64")}"`);
        expect(await value(`${records}[0].records[${i}].value`)).toContain(`"${Buffer.from(r.value, "base64")}"`);
      }
    }

    it("decompresses snappy, lz4 and zstd batches (kafka-wire-compression in the page; zstd as WebAssembly), and gzip", async () => {
      for (const kind of ["snappy", "lz4", "zstd", "gzip"]) await expectBasicBatch(kind);
    });

    /** Runs `act` with the helpers above driving a fresh page at `url`, set up by `init` before its scripts run. */
    async function onOtherPage(url: string, init: string, act: () => Promise<void>): Promise<void> {
      const main = page;
      page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      try {
        if (init !== "") await page.addInitScript(init);
        await page.goto(url);
        await page.waitForSelector("body[data-ready]");
        await act();
      } finally {
        await page.close();
        page = main;
      }
    }

    it("says which batches it cannot decompress here, and why, keeping their header fields", async () => {
      const records = "body.topicData[0].partitionData[0].records";
      const zstd = basicOf("zstd");
      const index = pathToFileURL(path.join(out, "index.html")).href;
      // A browser without WebAssembly: zstd cannot run, snappy still does.
      await onOtherPage(index, "delete globalThis.WebAssembly;", async () => {
        await paste(produceOf(zstd.hex));
        expect(await text(".problem")).toMatch(
          /^UNSUPPORTED_COMPRESSION at byte \d+ \(body\.topicData\[0\]\.partitionData\[0\]\.records\[0\].*\): compressed with zstd: not decodable here \(this browser has no WebAssembly\)$/,
        );
        expect(await value(`${records}[0].crc`)).toBe(String(zstd.batches[0]!.crc));
        expect(await value(`${records}[0]`)).toBe(`baseOffset 0 · zstd`);
        await expectBasicBatch("snappy");
      });
      // The page without assets/compression.js: every codec it holds is missing, gzip is not.
      const bare = mkdtempSync(path.join(os.tmpdir(), "kafka-wire-inspector-bare-"));
      try {
        cpSync(out, bare, { recursive: true, filter: (f) => path.basename(f) !== "compression.js" });
        await onOtherPage(pathToFileURL(path.join(bare, "index.html")).href, "", async () => {
          await paste(produceOf(basicOf("lz4").hex));
          expect(await text(".problem")).toContain(
            "compressed with lz4: not decodable here (assets/compression.js, which holds the codec, did not load)",
          );
          await expectBasicBatch("gzip");
        });
      } finally {
        rmSync(bare, { recursive: true, force: true });
      }
    });

    it("shows a truncated body's error at its offset, as the library reports it, and what decoded before it", async () => {
      // A body whose first string is short: the cut falls in the second, clientSoftwareVersion.
      const vector = readGolden(path.join(golden, "kafka/ApiVersionsRequest.json")).find(
        (v) => v.version === 3 && v.kind === "random" && v.hex.length < 200,
      )!;
      const json = JSON.parse(vector.jsonText) as { clientSoftwareName: string };
      const firstLength = 1 + Buffer.byteLength(json.clientSoftwareName); // a one-byte uvarint, then UTF-8
      const cut = fromHex(vector.hex).subarray(0, firstLength + 4);
      await paste(toHex(cut), "body", "ApiVersionsRequest", "3");
      // The same codec in Node: the page must show its code, path and offset.
      const { ApiVersionsRequest } = (await import(path.join(INSPECTOR, ".codecs/kafka/ApiVersionsRequest.js"))) as {
        ApiVersionsRequest: { decode(b: Uint8Array, v: number): unknown };
      };
      let error: KafkaWireError | undefined;
      try {
        ApiVersionsRequest.decode(cut, 3);
      } catch (e) {
        error = e as KafkaWireError;
      }
      expect(error).toBeInstanceOf(KafkaWireError);
      const { code, offset, path: at } = error!;
      expect(at).toBe("clientSoftwareVersion");
      expect(offset).toBeGreaterThanOrEqual(firstLength);
      expect(offset).toBeLessThanOrEqual(cut.length);
      expect(await text(".problem")).toContain(`${code} at byte ${offset} (body ${at})`);
      const errorCells = await page.$$eval("#hex .b.err", (c) => c.map((x) => Number((x as HTMLElement).dataset["i"])));
      expect(errorCells).toEqual([offset]);
      // The first field decoded: shown, with its bytes.
      expect(await value("body.clientSoftwareName")).toBe(JSON.stringify(json.clientSoftwareName));
      expect(await select("body.clientSoftwareName")).toEqual(range(0, firstLength));
    });

    it("shows a frame whose size prefix disagrees with its length as an error at byte 0", async () => {
      await paste(apiVersionsFrame.slice(0, -2), "request");
      expect(await text(".problem")).toContain("INVALID_LENGTH at byte 0 (size)");
      expect(await page.locator("#hex .b.err").getAttribute("data-i")).toBe("0");
    });

    it("opens a file of hex lines and pairs the response with its request by correlation id", async () => {
      const file = `# an ApiVersions exchange\n${apiVersionsFrame}\n\n${apiVersionsResponseFrame}\n`;
      await page.selectOption("#kind", "auto");
      await drawn(() =>
        page.setInputFiles("#file", { name: "frames.hex", mimeType: "text/plain", buffer: Buffer.from(file) }),
      );
      const labels = await page.$$eval("#entries li", (li) => li.map((x) => x.textContent));
      expect(labels).toEqual([
        "→ ApiVersions v3 request · correlation id 42",
        "← ApiVersions v3 response · correlation id 42",
      ]);
      await drawn(() => page.locator("#entries li").nth(1).click());
      expect(await text("#title")).toBe("ApiVersionsResponse v3 · response header v0 · correlation id 42");
      expect(await page.locator(".problem").count()).toBe(0);
      const json = JSON.parse(apiVersionsResponse.jsonText) as {
        errorCode: number;
        supportedFeatures: { name: string }[];
      };
      expect(await value("body.errorCode")).toBe(String(json.errorCode));
      expect(await value("body.supportedFeatures[0].name")).toBe(JSON.stringify(json.supportedFeatures[0]!.name));
      expect(await text("#notes")).toContain("paired with the request on line 2");
    });

    it("opens a proxy log (--log jsonl) and shows each body's bytes, encoded again from its Kafka JSON", async () => {
      // Lines as proxy/src/log.ts writes them (formatLogLine: the entry's fields, then "body").
      const line = (direction: string, json: string, extra = ""): string =>
        `{"time":"2026-12-01T00:00:00.000Z","connection":0,"direction":"${direction}","apiKey":18,"api":"ApiVersions",` +
        `"apiVersion":3,"correlationId":42,${extra}"size":0,"body":${json}}`;
      const log = [
        '{"time":"2026-12-01T00:00:00.000Z","connection":0,"direction":"connection","event":"open","detail":"127.0.0.1:5000 -> broker"}',
        line("request", apiVersionsRequest.jsonText),
        line("response", apiVersionsResponse.jsonText, '"latencyMs":1,'),
        // JSON lines that are no log entries say so, with their line (not "connection NaN").
        '{"not":"a log"}',
        '{"direction":"request","apiKey":"18"}',
      ].join("\n");
      await drawn(() =>
        page.setInputFiles("#file", { name: "proxy.jsonl", mimeType: "application/json", buffer: Buffer.from(log) }),
      );
      const labels = await page.$$eval("#entries li", (li) => li.map((x) => x.textContent));
      expect(labels).toEqual([
        "connection 0 open: 127.0.0.1:5000 -> broker",
        "→ ApiVersions v3 request · correlation id 42",
        "← ApiVersions v3 response · correlation id 42",
        "line 4: not a kafka-wire-proxy log entry (no direction request, response or connection)",
        "line 5: not a kafka-wire-proxy log entry (apiKey is no integer)",
      ]);
      // The first entry with bytes opens: the request body, Kafka's golden bytes.
      const cells = await page.$$eval("#hex .b", (c) => c.map((x) => x.textContent).join(""));
      expect(cells).toBe(apiVersionsRequest.hex);
      expect(await text("#title")).toBe("ApiVersionsRequest v3");
      await drawn(() => page.locator("#entries li").nth(2).click());
      expect(await page.$$eval("#hex .b", (c) => c.map((x) => x.textContent).join(""))).toBe(apiVersionsResponse.hex);
      expect(await text("#notes")).toContain("encoded again from the log's Kafka JSON");
    });

    it("reads a body of the repository's generated/ set (the KIP-1071 drafts: the seed's golden vector)", async () => {
      const maximal = readGolden(path.join(golden, "seed/StreamsGroupHeartbeatRequest.json")).find(
        (v) => v.kind === "maximal",
      )!;
      await page.selectOption("#set", "generated");
      try {
        await paste(maximal.hex, "body", "StreamsGroupHeartbeatRequest");
        expect(await text("#title")).toBe("StreamsGroupHeartbeatRequest v0");
        expect(await page.locator(".problem").count()).toBe(0);
        const json = JSON.parse(maximal.jsonText) as { groupId: string; memberEpoch: number; memberId: string };
        expect(await value("body.groupId")).toBe(JSON.stringify(json.groupId));
        expect(await value("body.memberId")).toBe(JSON.stringify(json.memberId));
        expect(await value("body.memberEpoch")).toBe(String(json.memberEpoch));
        // groupId, the first field, is a compact string: its uvarint length+1 (one byte here), then UTF-8.
        const groupIdBytes = 1 + Buffer.byteLength(json.groupId);
        expect(Number.parseInt(maximal.hex.slice(0, 2), 16)).toBe(groupIdBytes);
        expect(await select("body.groupId")).toEqual(range(0, groupIdBytes));
      } finally {
        await page.selectOption("#set", "kafka");
      }
    });

    it("reads an ApiVersions answer in the v0 layout (KIP-511) as v0, though the request was v3", async () => {
      // Header v0 (correlation id 42), then ApiVersionsResponse v0: errorCode 35 (UNSUPPORTED_VERSION),
      // apiKeys: an int32 count 0. As v3 it would need a compact array and throttleTimeMs: it does not fit.
      const fallback = frame("0000002a" + "0023" + "00000000");
      const file = `${apiVersionsFrame}\n${fallback}\n`;
      await page.selectOption("#kind", "auto");
      await drawn(() =>
        page.setInputFiles("#file", { name: "kip511.hex", mimeType: "text/plain", buffer: Buffer.from(file) }),
      );
      await drawn(() => page.locator("#entries li").nth(1).click());
      expect(await text("#title")).toBe("ApiVersionsResponse v0 · response header v0 · correlation id 42");
      expect(await page.locator(".problem").count()).toBe(0);
      expect(await value("body.errorCode")).toBe("35");
      expect(await text("#notes")).toContain("KIP-511");
    });

    it("reads with schema files opened in the page (the generator's front end and the interpreter in the browser)", async () => {
      // Kafka's own ApiVersions schemas, as a user would open them; the frame's headers come from Kafka's set.
      const clients = path.join(golden, "../kafka-schemas/clients");
      const schemaFile = (name: string) => ({
        name,
        mimeType: "application/json",
        buffer: readFileSync(path.join(clients, name)),
      });
      const broken = { name: "Broken.json", mimeType: "application/json", buffer: Buffer.from('{ "name": "Broken", ') };
      await paste(apiVersionsFrame);
      await drawn(() =>
        page.setInputFiles("#schema-files", [
          schemaFile("ApiVersionsRequest.json"),
          schemaFile("ApiVersionsResponse.json"),
          broken,
        ]),
      );
      try {
        expect(await page.inputValue("#set")).toBe("user");
        const status = await text("#schema-status");
        expect(status).toContain("your schemas (2 messages)");
        expect(status).toContain("Broken.json:");
        expect(await text("#title")).toBe("ApiVersionsRequest v3 · request header v2 · correlation id 42");
        expect(await page.locator(".problem").count()).toBe(0);
        const json = JSON.parse(apiVersionsRequest.jsonText) as Record<string, string>;
        for (const [field, v] of Object.entries(json)) expect(await value(`body.${field}`)).toBe(JSON.stringify(v));
        const bodyAt = 4 + apiVersionsHeader.length / 2;
        expect(await select("body.clientSoftwareName")).toEqual(range(bodyAt, 2 + 166));
      } finally {
        await page.selectOption("#set", "kafka");
      }
    });

    it("detects the message of a bare body by trying every message of the set", async () => {
      await paste(apiVersionsRequest.hex, "body", "*");
      const notes = await text("#notes");
      // Listed at the highest version that fits: ApiVersionsRequest v4 has v3's fields (the schema).
      expect(notes).toMatch(/messages decode every byte: .*ApiVersionsRequest v4/);
      expect(await page.locator(".problem").count()).toBe(0);
      // Whatever it shows first decodes every byte: its body node covers the whole input.
      expect(await select("body")).toEqual(range(0, apiVersionsRequest.hex.length / 2));
    });
  });
});

// No test imports the page's sources, so the repository's own type-check (the root tsconfig.json)
// never sees them: they have a tsconfig of their own (DOM, vite's client types).
it("the page's sources type-check (inspector/tsconfig.json, over the codecs it generates)", async () => {
  const run = promisify(execFile);
  await run("npx", ["tsx", "inspector/scripts/codecs.ts", "--if-available"], { cwd: REPO_ROOT });
  const tsc = path.join(REPO_ROOT, "node_modules", "typescript", "bin", "tsc");
  const output = await run(process.execPath, [tsc, "--noEmit", "-p", INSPECTOR], { maxBuffer: 16 << 20 }).then(
    (r) => r.stdout,
    (e: { stdout?: string; stderr?: string }) => `${e.stdout ?? ""}${e.stderr ?? ""}` || "tsc failed",
  );
  expect(output).toBe("");
}, 300_000);
