"use client";

import { useMemo, type ReactNode } from "react";
import { Bar, BarChart, CartesianGrid, Cell, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { RouterOutputs } from "@evotrainer/api";

type Metrics = RouterOutputs["run"]["metrics"];

// `empty` says why a chart has nothing to draw, so a blank panel never reads as a broken one.
const CHARTS = [
  { title: "Training reward", metric: "train/reward_mean", empty: "No training steps logged yet: the trainer reports a mean reward per step while a branch trains." },
  { title: "Dead-group ratio", metric: "train/dead_group_ratio", empty: "No training steps logged yet, or the trainer does not report dead GRPO groups." },
  { title: "Truncation rate", metric: "train/truncation_rate", empty: "No training steps logged yet, or the trainer does not report truncation." },
];
const COLOURS = ["#6aa6ff", "#f2cc60", "#7ee787", "#ff7b72", "#d2a8ff", "#79c0ff", "#ffa657", "#a5d6ff"];
const TOOLTIP = { background: "#171a21", border: "1px solid #2a2f3a" };

type Row = Record<string, number>;

function pivot(entries: { branchId: string; step: number; value: number }[], versionOf: Map<string, number>): Row[] {
  const rows = new Map<number, Row>();
  for (const e of entries) {
    const row = rows.get(e.step) ?? rows.set(e.step, { step: e.step }).get(e.step)!;
    row[`v${versionOf.get(e.branchId)}`] = e.value;
  }
  return [...rows.values()].sort((a, b) => a.step! - b.step!);
}

function Chart({ title, rows, series, empty, children }: { title: string; rows: Row[]; series: string[]; empty: string; children?: ReactNode }) {
  return (
    <div className="chart">
      <h4>{title}</h4>
      {rows.length === 0 ? (
        <p className="muted" data-testid="chart-empty">
          {empty}
        </p>
      ) : (
        <ResponsiveContainer width="100%" height={180}>
          <LineChart data={rows}>
            <CartesianGrid stroke="#2a2f3a" />
            <XAxis dataKey="step" stroke="#8b93a7" />
            <YAxis stroke="#8b93a7" width={48} />
            <Tooltip contentStyle={TOOLTIP} />
            <Legend />
            {series.map((s, i) => (
              <Line key={s} dataKey={s} stroke={COLOURS[i % COLOURS.length]} dot={false} isAnimationActive={false} connectNulls />
            ))}
          </LineChart>
        </ResponsiveContainer>
      )}
      {children}
    </div>
  );
}

/** A branch's promotion score is one number measured once it has trained, so it is a bar per branch, not a curve. */
function PromotionScores({ branches }: { branches: Metrics["branches"] }) {
  const scored = branches.filter((b) => b.promotionScore !== null).map((b) => ({ name: `v${b.version}${b.kind === "control" ? " (control)" : ""}`, score: b.promotionScore!, kind: b.kind }));
  return (
    <div className="chart" data-testid="promotion-scores">
      <h4>Promotion score</h4>
      {scored.length === 0 ? (
        <p className="muted" data-testid="chart-empty">
          No selected branch is scored yet: a branch gets its promotion score on the promotion split when its training and evaluation finish.
        </p>
      ) : (
        <ResponsiveContainer width="100%" height={180}>
          <BarChart data={scored}>
            <CartesianGrid stroke="#2a2f3a" />
            <XAxis dataKey="name" stroke="#8b93a7" />
            <YAxis stroke="#8b93a7" width={48} domain={[0, "auto"]} />
            <Tooltip contentStyle={TOOLTIP} formatter={(v) => (typeof v === "number" ? v.toFixed(3) : String(v))} />
            <Bar dataKey="score" isAnimationActive={false}>
              {scored.map((b) => (
                <Cell key={b.name} fill={b.kind === "control" ? "#8b93a7" : "#6aa6ff"} />
              ))}
            </Bar>
          </BarChart>
        </ResponsiveContainer>
      )}
    </div>
  );
}

/** Per-step series of the selected branches, from MetricPoint and LabelStat, and their promotion scores. */
export function MetricCharts({ metrics, basePath }: { metrics: Metrics; basePath?: string }) {
  const versionOf = useMemo(() => new Map(metrics.branches.map((b) => [b.id, b.version])), [metrics.branches]);
  const series = metrics.branches.map((b) => `v${b.version}`);
  const labels = [...new Set(metrics.labelRates.map((l) => l.label))];
  return (
    <div className="charts">
      <PromotionScores branches={metrics.branches} />
      {CHARTS.map((c) => (
        <Chart key={c.metric} title={c.title} series={series} empty={c.empty} rows={pivot(metrics.points.filter((p) => p.name === c.metric), versionOf)}>
          {/* From the ratio to the groups behind it. */}
          {basePath && c.metric === "train/dead_group_ratio" && (
            <p className="legend" data-testid="dead-group-links">
              Open the dead groups of{" "}
              {metrics.branches.map((b, i) => (
                <span key={b.id}>
                  {i > 0 && ", "}
                  <a href={`${basePath}/branches/${b.id}/groups`}>v{b.version}</a>
                </span>
              ))}
            </p>
          )}
        </Chart>
      ))}
      {labels.map((label) => (
        <Chart
          key={label}
          title={`Label rate: ${label}`}
          series={series}
          empty="No labelled training rollouts for the selected branches."
          rows={pivot(metrics.labelRates.filter((l) => l.label === label).map((l) => ({ ...l, value: l.rate })), versionOf)}
        />
      ))}
    </div>
  );
}
