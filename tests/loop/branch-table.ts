import type { LoopHistory } from "./in-memory-loop.ts";

const f3 = (x: number) => x.toFixed(3);

/** A compact table of a run's branches, one line each, for the test's log. */
export function branchTable(history: LoopHistory): string {
  const header = ["v", "rnd", "parent", "factor", "prov", "rank", "pred", "dead b→a (resc)", "trainR", "baseR", "score", "Δ vs parent [CI]", "tamper", "status", "failed checks"];
  const rows = history.branches.map((b) => {
    const ci = b.parentId ? `${f3(b.verdict.vsParent.delta)} [${f3(b.verdict.vsParent.ci[0])}, ${f3(b.verdict.vsParent.ci[1])}]` : "-";
    const dead = b.backtest ? `${b.backtest.deadGroups.before}→${b.backtest.deadGroups.after} (${b.backtest.deadGroups.rescued})` : "-";
    const pred = b.backtest ? `${b.backtest.predicted.direction} ${b.backtest.predicted.size.toFixed(3)}` : "-";
    const failed = b.verdict.checks.filter((c) => !c.passed).map((c) => (c.name === "validity_limit" ? `validity:${String(c.numbers["label"])}` : c.name));
    return [
      b.id,
      String(b.round),
      b.parentId ?? "-",
      b.intervention?.factor ?? "(base)",
      b.intervention?.provenance.kind ?? "-",
      b.rank === undefined ? "-" : String(b.rank),
      pred,
      dead,
      f3(b.trainReward),
      f3(b.baseReward),
      f3(b.score),
      ci,
      f3(b.report.metrics.label_rate["test_tampering"] ?? 0),
      b.status + (b.id === history.bestId ? " *best" : ""),
      failed.join(",") || "-",
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join("  ").trimEnd();
  return [`${history.config.name} (${history.config.domain}): ${history.finishedBecause}; sealed score of ${history.sealed.branchId}: ${f3(history.sealed.score)}`, line(header), ...rows.map(line)].join("\n");
}
