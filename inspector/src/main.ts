/**
 * The inspector page: paste or open bytes, pick (or let it detect) how to read them, and see the
 * decoded tree beside the hex, the selected field's bytes highlighted and errors at their offset.
 */

import { byteHex, parseBytes } from "./bytes.js";
import { loadCodecs, loadScript } from "./codecs.js";
import { loadCompression } from "./compression.js";
import { hasLogLines, parseFile, type FileEntry } from "./file.js";
import { pathAt, highlight } from "./highlight.js";
import { DETECT_MESSAGE, inspect, type Choice, type Inspection, type Kind, type TreeNode } from "./inspect.js";
import { schemaSets, userSet, type SchemaSet } from "./sets.js";
import type { UserSchemas } from "./user-schemas.js";
import "./style.css";

/** Bytes beyond this are decoded but not drawn (a 64 KiB hex view is about 70k elements). */
const MAX_HEX_BYTES = 64 * 1024;
/** A tree of up to this many nodes opens fully; a larger one opens its first {@link OPEN_DEPTH} levels. */
const OPEN_ALL = 2000;
const OPEN_DEPTH = 3;

const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;
const el = <K extends keyof HTMLElementTagNameMap>(tag: K, cls?: string, text?: string): HTMLElementTagNameMap[K] => {
  const e = document.createElement(tag);
  if (cls !== undefined) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
};

/** The set of the user's schema files (assets/schemas.js), once opened. */
interface SchemaLoader {
  loadUserSchemas(files: readonly { name: string; text: string }[]): UserSchemas;
}

const sets = schemaSets();
const ui = {
  set: $<HTMLSelectElement>("set"),
  kind: $<HTMLSelectElement>("kind"),
  api: $<HTMLSelectElement>("api"),
  message: $<HTMLSelectElement>("message"),
  version: $<HTMLInputElement>("version"),
  input: $<HTMLTextAreaElement>("input"),
  file: $<HTMLInputElement>("file"),
  schemaFiles: $<HTMLInputElement>("schema-files"),
  schemaStatus: $("schema-status"),
  entries: $<HTMLOListElement>("entries"),
  title: $("title"),
  notes: $("notes"),
  problems: $("problems"),
  hex: $("hex"),
  tree: $("tree"),
  status: $("status"),
};

let current: Inspection | null = null;
let cells: HTMLElement[] = [];
let nodes = new Map<string, HTMLElement>();
let entries: FileEntry[] = [];
/** Bumped by every decode: a slower earlier one (records) must not draw over a later one. */
let generation = 0;
let shown = 0;
let openDepth = OPEN_DEPTH;

function set(): SchemaSet {
  return sets.find((s) => s.id === ui.set.value) ?? sets[0]!;
}

function fillSelects(): void {
  const s = set();
  ui.api.replaceChildren(el("option", undefined, "(API of the request)"));
  ui.api.options[0]!.value = "";
  for (const api of s.protocol?.apis.values() ?? []) {
    const o = el("option", undefined, `${api.name} (${api.apiKey})`);
    o.value = String(api.apiKey);
    ui.api.append(o);
  }
  ui.message.replaceChildren(el("option", undefined, "(message of the body)"));
  ui.message.options[0]!.value = "";
  const detect = el("option", undefined, "(detect: try every message)");
  detect.value = DETECT_MESSAGE;
  ui.message.append(detect);
  for (const name of s.messages.keys()) ui.message.append(el("option", undefined, name));
}

function choice(): Choice {
  const version = ui.version.value.trim();
  return {
    kind: ui.kind.value as Kind,
    set: set(),
    message: ui.message.value || undefined,
    apiKey: ui.api.value === "" ? undefined : Number(ui.api.value),
    version: version === "" ? undefined : Number(version),
  };
}

/**
 * Starts drawing something: a later start makes this one's result stale. The page is busy
 * (`body[data-busy=true]`, what a test or a script driving the page waits on) until the latest is drawn.
 */
function begin(): number {
  document.body.dataset["busy"] = "true";
  return ++generation;
}

/** Draws `result` if nothing started since `token`. */
function finish(token: number, result: Inspection | null): void {
  if (token !== generation) return;
  show(result);
  document.body.dataset["busy"] = "false";
}

async function decodeInput(): Promise<void> {
  const token = begin();
  const text = ui.input.value;
  if (text.trim() === "") return finish(token, null);
  const parsed = parseBytes(text);
  if (parsed.bytes === undefined) {
    ui.status.textContent = `input: ${parsed.error}`;
    return finish(token, null);
  }
  ui.status.textContent = `${parsed.bytes.length} bytes (${parsed.encoding})`;
  finish(token, await inspect(parsed.bytes, choice(), loadCompression));
}

function show(result: Inspection | null): void {
  current = result;
  ui.title.textContent = result?.title ?? "";
  ui.notes.replaceChildren(...(result?.notes ?? []).map((n) => el("li", undefined, n)));
  drawProblems(result);
  drawHex(result);
  drawTree(result);
  document.body.dataset["shown"] = String(++shown);
}

function drawProblems(result: Inspection | null): void {
  ui.problems.replaceChildren();
  for (const p of result?.problems ?? []) {
    const where = p.offset < 0 ? "" : ` at byte ${p.offset}`;
    const path = p.path === "" ? p.part : `${p.part} ${p.path}`;
    const div = el("div", "problem", `${p.code}${where} (${path}): ${p.reason}`);
    div.dataset["offset"] = String(p.offset);
    div.addEventListener("click", () => cells[p.offset]?.scrollIntoView({ block: "center" }));
    ui.problems.append(div);
  }
}

function drawHex(result: Inspection | null): void {
  cells = [];
  ui.hex.replaceChildren();
  if (result === null) return;
  const { bytes } = result;
  const shown = Math.min(bytes.length, MAX_HEX_BYTES);
  const errors = new Set(result.problems.map((p) => p.offset).filter((o) => o >= 0));
  const frag = document.createDocumentFragment();
  // One more cell past the end when an error is there (a truncated input fails at its length).
  const last = errors.has(bytes.length) && shown === bytes.length ? shown + 1 : shown;
  let row: HTMLElement | null = null;
  let text: HTMLElement | null = null;
  for (let i = 0; i < last; i++) {
    if (i % 16 === 0) {
      row = el("div", "row");
      row.append(el("span", "at", i.toString(16).padStart(6, "0")));
      text = el("span", "text");
      frag.append(row);
    }
    const end = i === bytes.length;
    const b = bytes[i] ?? 0;
    const cell = el("span", end ? "b end" : "b", end ? "··" : byteHex(b));
    cell.dataset["i"] = String(i);
    if (errors.has(i)) cell.classList.add("err");
    if (!end) cells.push(cell);
    row!.append(cell);
    text!.append(end ? "" : b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : "·");
    if (i % 16 === 15 || i === last - 1) row!.append(text!);
  }
  ui.hex.append(frag);
  if (shown < bytes.length) ui.hex.append(el("div", "note", `… ${bytes.length - shown} more bytes not drawn`));
}

function drawTree(result: Inspection | null): void {
  nodes = new Map();
  ui.tree.replaceChildren();
  if (result === null) return;
  const count = (n: TreeNode): number => n.children.reduce((sum, c) => sum + count(c), 1);
  openDepth = result.tree.reduce((sum, n) => sum + count(n), 0) <= OPEN_ALL ? Infinity : OPEN_DEPTH;
  const list = el("ul");
  for (const n of result.tree) list.append(treeItem(n, 0));
  ui.tree.append(list);
}

function treeItem(n: TreeNode, depth: number): HTMLElement {
  const li = el("li");
  const row = el("div", "node");
  row.dataset["path"] = n.path;
  row.append(el("span", "k", n.name));
  if (n.value !== "") row.append(el("span", "v", n.value));
  row.addEventListener("click", (e) => {
    // Selecting a node does not fold it: its summary's disclosure marker does that.
    e.preventDefault();
    e.stopPropagation();
    select(n.path);
  });
  nodes.set(n.path, row);
  if (n.children.length === 0) {
    li.append(row);
    return li;
  }
  const details = el("details");
  details.open = depth < openDepth;
  const summary = el("summary");
  summary.append(row);
  details.append(summary);
  const ul = el("ul");
  for (const c of n.children) ul.append(treeItem(c, depth + 1));
  details.append(ul);
  li.append(details);
  return li;
}

function select(path: string | null): void {
  for (const n of ui.tree.querySelectorAll(".node.selected")) n.classList.remove("selected");
  if (current === null) return;
  const span = highlight(cells, current.spans, path);
  const node = path === null ? undefined : nodes.get(path);
  node?.classList.add("selected");
  for (let p = node?.parentElement; p != null && p !== ui.tree; p = p.parentElement) {
    if (p instanceof HTMLDetailsElement) p.open = true;
  }
  ui.status.textContent =
    path === null
      ? ""
      : span === undefined
        ? `${path}: no byte span known for this field`
        : `${path}: bytes ${span.offset}–${span.offset + span.length - 1} (${span.length} bytes)`;
  if (span !== undefined) cells[span.offset]?.scrollIntoView({ block: "nearest" });
}

function drawEntries(): void {
  ui.entries.replaceChildren();
  entries.forEach((entry, i) => {
    const li = el("li", entry.bytes === null ? "entry unread" : "entry", entry.label);
    if (entry.error !== undefined && !entry.label.includes(entry.error)) li.title = entry.error;
    li.dataset["index"] = String(i);
    li.addEventListener("click", () => openEntry(i));
    ui.entries.append(li);
  });
}

async function openEntry(i: number, token = begin()): Promise<void> {
  const entry = entries[i];
  if (entry === undefined) return finish(token, null);
  for (const li of ui.entries.children) li.classList.toggle("active", li === ui.entries.children[i]);
  if (entry.bytes === null) {
    finish(token, null);
    ui.status.textContent = entry.error ?? "";
    return;
  }
  ui.status.textContent = `line ${entry.line}: ${entry.bytes.length} bytes`;
  finish(token, await inspect(entry.bytes, { ...entry.choice, set: set() }, loadCompression));
}

async function openFile(file: File): Promise<void> {
  const token = begin();
  const text = await file.text();
  entries = parseFile(text, set(), hasLogLines(text) ? await loadCodecs() : null);
  drawEntries();
  // The first entry with bytes, else the first (which says why it has none).
  await openEntry(
    Math.max(
      0,
      entries.findIndex((e) => e.bytes !== null),
    ),
    token,
  );
}

/** Reads the chosen schema files into the `user` set (replacing an earlier one) and selects it. */
async function openSchemas(files: readonly File[]): Promise<void> {
  const token = begin();
  const loader = await loadScript<SchemaLoader>("schemas.js", "kafkaWireInspectorSchemas");
  if (loader === null) {
    ui.schemaStatus.textContent = "the schema loader (assets/schemas.js) did not load";
    return finish(token, current);
  }
  const texts = await Promise.all(files.map(async (f) => ({ name: f.name, text: await f.text() })));
  const { tables, info, errors } = loader.loadUserSchemas(texts);
  const label = `your schemas (${tables.length} message${tables.length === 1 ? "" : "s"})`;
  ui.schemaStatus.textContent = [label, ...errors].join(" · ");
  const at = sets.findIndex((s) => s.id === "user");
  if (at >= 0) sets.splice(at, 1);
  if (tables.length > 0)
    sets.push(
      userSet(
        tables,
        info,
        label,
        sets.find((s) => s.id === "kafka"),
      ),
    );
  fillSets(tables.length > 0 ? "user" : ui.set.value);
  fillSelects();
  if (token === generation) await decodeInput();
}

function fillSets(selected: string): void {
  ui.set.replaceChildren();
  for (const s of sets) {
    const o = el("option", undefined, s.label);
    o.value = s.id;
    ui.set.append(o);
  }
  ui.set.value = sets.some((s) => s.id === selected) ? selected : sets[0]!.id;
}

fillSets(sets[0]!.id);
fillSelects();
ui.schemaFiles.addEventListener("change", () => {
  const files = [...(ui.schemaFiles.files ?? [])];
  if (files.length > 0) void openSchemas(files);
});
ui.set.addEventListener("change", () => {
  fillSelects();
  void decodeInput();
});
for (const control of [ui.kind, ui.api, ui.message, ui.version])
  control.addEventListener("change", () => void decodeInput());
ui.input.addEventListener("input", () => void decodeInput());
ui.file.addEventListener("change", () => {
  const f = ui.file.files?.[0];
  if (f !== undefined) void openFile(f);
});
ui.hex.addEventListener("click", (e) => {
  const i = (e.target as HTMLElement).dataset["i"];
  if (i === undefined || current === null) return;
  select(pathAt(current.spans, Number(i)) ?? null);
});
document.body.dataset["ready"] = "true";
