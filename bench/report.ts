/** Turns results into the markdown tables printed by `npm run bench` and written to bench/results.md. */

import type { ContenderResult, OpResult } from "./harness.js";
import { BASELINE, baselineTarget, KAFKAJS, MEMCPY, OURS, PLT, SPANS } from "./ops.js";

function fmtNs(ns: number): string {
  if (ns < 100) return ns.toFixed(1);
  return Math.round(ns).toLocaleString("en-US");
}

function fmtMBs(bytes: number, ns: number): string {
  const mbs = (bytes / ns) * 1e3; // bytes per ns = GB/s
  return mbs < 10 ? mbs.toFixed(1) : Math.round(mbs).toLocaleString("en-US");
}

function fmtBytes(b: number | undefined): string {
  if (b === undefined) return "—";
  return b < 10 ? b.toFixed(1) : Math.round(b).toLocaleString("en-US");
}

function fmtRatio(r: number): string {
  return `${r < 10 ? r.toFixed(2) : r.toFixed(1)}×`;
}

function fmtPct(f: number): string {
  return `±${(f * 50).toFixed(1)}%`; // half the interquartile range, relative to the median
}

function find(results: readonly ContenderResult[], name: string): ContenderResult | undefined {
  return results.find((r) => r.name === name);
}

/** Footnotes shared by identical reasons, numbered in order of appearance. */
class Footnotes {
  private readonly reasons: string[] = [];
  ref(reason: string): string {
    let i = this.reasons.indexOf(reason);
    if (i < 0) i = this.reasons.push(reason) - 1;
    return `[${i + 1}]`;
  }
  lines(): string[] {
    return this.reasons.map((r, i) => `[${i + 1}] ${r}`);
  }
}

/**
 * op | contender | ns/op | MB/s | B/op | vs fastest peer | vs memcpy | spread. The ratios are time
 * ratios (this contender's ns ÷ the reference's ns): below 1 is faster than the reference.
 */
export function resultsTable(results: readonly OpResult[]): string {
  const notes = new Footnotes();
  const lines = [
    "| op | bytes | contender | ns/op | MB/s | heap B/op | vs fastest peer | vs memcpy | spread |",
    "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
  ];
  for (const { op, results: rs } of results) {
    const peers = rs.filter((r) => r.role === "peer");
    const fastestPeer = peers.length === 0 ? undefined : Math.min(...peers.map((r) => r.ns));
    const memcpy = find(rs, MEMCPY);
    const order = [OURS, BASELINE, PLT, KAFKAJS, SPANS, MEMCPY];
    const rows = [...rs].sort((a, b) => order.indexOf(a.name) - order.indexOf(b.name));
    for (const r of rows) {
      const vsPeer = fastestPeer === undefined || r.role === "memcpy" ? "—" : fmtRatio(r.ns / fastestPeer);
      const vsMemcpy = memcpy === undefined ? "—" : fmtRatio(r.ns / memcpy.ns);
      lines.push(
        `| ${op.name} | ${op.bytes} | ${r.name} | ${fmtNs(r.ns)} | ${fmtMBs(op.bytes, r.ns)} | ${fmtBytes(r.bytesPerCall)} | ${vsPeer} | ${vsMemcpy} | ${fmtPct(r.spread)} |`,
      );
    }
    // One n/a row per reason, naming every peer it applies to.
    const byReason = new Map<string, string[]>();
    for (const u of op.unsupported) byReason.set(u.reason, [...(byReason.get(u.reason) ?? []), u.name]);
    for (const [reason, names] of byReason) {
      lines.push(`| ${op.name} | ${op.bytes} | ${names.join(", ")} | n/a ${notes.ref(reason)} | | | | | |`);
    }
  }
  const footnotes = notes.lines();
  return [...lines, ...(footnotes.length > 0 ? ["", ...footnotes] : [])].join("\n");
}

/**
 * Per op with a peer or a baseline: how many times faster kafka-wire is than each (their ns ÷
 * kafka-wire's ns) and whether the targets are met; null when no op has either.
 */
export function ratioTable(results: readonly OpResult[]): string | null {
  const withBaseline = results.some(({ results: rs }) => find(rs, BASELINE) !== undefined);
  const head = [`op`, `${OURS} ns/op`, `vs ${PLT}`, `target vs plt`, `met`, `vs ${KAFKAJS}`];
  if (withBaseline) head.push("vs baseline", "target vs baseline", "met");
  const lines = [
    `| ${head.join(" | ")} |`,
    `| --- | ${head
      .slice(1)
      .map((h) => (h === "met" ? ":---:" : "---:"))
      .join(" | ")} |`,
  ];
  const met = (ratio: number | undefined, target: number | undefined): string =>
    ratio === undefined || target === undefined ? "" : ratio >= target ? "yes" : "**no**";
  for (const { op, results: rs } of results) {
    const ours = find(rs, OURS);
    const plt = find(rs, PLT);
    const kjs = find(rs, KAFKAJS);
    const old = find(rs, BASELINE);
    if (ours === undefined || (plt === undefined && kjs === undefined && old === undefined)) continue;
    const vsPlt = plt === undefined ? undefined : plt.ns / ours.ns;
    const vsOld = old === undefined ? undefined : old.ns / ours.ns;
    const cells = [
      op.name,
      fmtNs(ours.ns),
      vsPlt === undefined ? "n/a" : fmtRatio(vsPlt),
      op.target === undefined || plt === undefined ? "" : `≥ ${op.target}×`,
      met(vsPlt, plt === undefined ? undefined : op.target),
      kjs === undefined ? "n/a" : fmtRatio(kjs.ns / ours.ns),
    ];
    if (withBaseline) {
      const target = baselineTarget(op.name);
      cells.push(
        vsOld === undefined ? "n/a" : fmtRatio(vsOld),
        vsOld === undefined ? "" : `≥ ${target}×`,
        met(vsOld, target),
      );
    }
    lines.push(`| ${cells.join(" | ")} |`);
  }
  return lines.length > 2 ? lines.join("\n") : null;
}
