import type { RunProgress, RunReport } from "@evotrainer/db";

export function bar(used: number, total: number | null, width = 24): string {
  if (!total) return "";
  const filled = Math.min(width, Math.round((used / total) * width));
  return `[${"█".repeat(filled)}${"░".repeat(width - filled)}] ${Math.round((used / total) * 100)}%`;
}

/** One status line of a run: round, branches by state, and the budget as a progress bar. */
export function progressLine(report: RunProgress): string {
  const states = new Map<string, number>();
  for (const b of report.branches) states.set(b.status, (states.get(b.status) ?? 0) + 1);
  const counts = [...states].map(([s, n]) => `${n} ${s}`).join(", ");
  const { gpuSeconds } = report.budget;
  return `${report.status} · round ${report.round}/${report.budget.rounds.total ?? "?"} · branches: ${counts} · budget ${bar(gpuSeconds.used, gpuSeconds.total)} ${Math.round(gpuSeconds.used)}/${gpuSeconds.total ?? "?"} s (controls ${Math.round(gpuSeconds.controls)} s)`;
}

/** The progress line, and under it why the run ended without a result when it did (the reason is otherwise only in its events). */
export function progressWithReason(report: RunReport): string {
  return report.error ? `${progressLine(report)}\nno result: ${report.error}` : progressLine(report);
}

/** The run's tree as indented text, for `evotrainer report` without --json. */
export function treeText(report: RunReport): string {
  const children = new Map<string | null, RunReport["branches"]>();
  for (const b of report.branches) children.set(b.parentId, [...(children.get(b.parentId) ?? []), b]);
  const lines: string[] = [];
  const walk = (parentId: string | null, depth: number) => {
    for (const b of children.get(parentId) ?? []) {
      const score = b.promotionScore === null ? "—" : b.promotionScore.toFixed(3);
      const reward = b.trainReward === null ? "—" : b.trainReward.toFixed(3);
      const labels = Object.entries(b.labels).filter(([, rate]) => rate > 0).sort((x, y) => y[1] - x[1]).slice(0, 3).map(([l, r]) => `${l} ${(r * 100).toFixed(0)}%`).join(", ");
      const failed = b.verdict?.checks.filter((c) => !c.passed && c.blocking).map((c) => c.name).join(", ");
      lines.push(
        `${"  ".repeat(depth)}v${b.version} ${b.status}${b.id === report.bestBranchId ? " ★" : ""} · ${b.kind === "control" ? "control" : (b.factor ?? "base")}${b.provenance ? ` (${b.provenance})` : ""} · train reward ${reward} · promotion ${score}` +
          `${failed ? ` · failed: ${failed}` : ""}${b.decision ? ` · ${b.decision.actor} ${b.decision.kind}` : ""}${labels ? ` · ${labels}` : ""}` +
          `${b.weightsDeleted ? " · weights deleted by retention" : ""}`,
      );
      walk(b.id, depth + 1);
    }
  };
  walk(null, 0);
  lines.push(`skills: ${report.skills.length ? report.skills.map((s) => `${s.name} (${s.successes}✓/${s.failures}✗)`).join(", ") : "none"}`);
  lines.push(`sealed: ${report.sealed ? `${report.sealed.score.toFixed(3)} (branch ${report.sealed.branchId})` : "not evaluated"}`);
  return lines.join("\n");
}
