"use client";

import { useMemo } from "react";
import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { RouterOutputs } from "@evotrainer/api";

type Metrics = RouterOutputs["run"]["metrics"];

const CHARTS = [
  { title: "Training reward", metric: "train/reward_mean" },
  { title: "Promotion score", metric: "promotion/score" },
  { title: "Dead-group ratio", metric: "train/dead_group_ratio" },
  { title: "Truncation rate", metric: "train/truncation_rate" },
];
const COLOURS = ["#6aa6ff", "#f2cc60", "#7ee787", "#ff7b72", "#d2a8ff", "#79c0ff", "#ffa657", "#a5d6ff"];

type Row = Record<string, number>;

function pivot(entries: { branchId: string; step: number; value: number }[], versionOf: Map<string, number>): Row[] {
  const rows = new Map<number, Row>();
  for (const e of entries) {
    const row = rows.get(e.step) ?? rows.set(e.step, { step: e.step }).get(e.step)!;
    row[`v${versionOf.get(e.branchId)}`] = e.value;
  }
  return [...rows.values()].sort((a, b) => a.step! - b.step!);
}

function Chart({ title, rows, series }: { title: string; rows: Row[]; series: string[] }) {
  return (
    <div className="chart">
      <h4>{title}</h4>
      {rows.length === 0 ? (
        <p className="muted">No data yet.</p>
      ) : (
        <ResponsiveContainer width="100%" height={180}>
          <LineChart data={rows}>
            <CartesianGrid stroke="#2a2f3a" />
            <XAxis dataKey="step" stroke="#8b93a7" />
            <YAxis stroke="#8b93a7" width={48} />
            <Tooltip contentStyle={{ background: "#171a21", border: "1px solid #2a2f3a" }} />
            <Legend />
            {series.map((s, i) => (
              <Line key={s} dataKey={s} stroke={COLOURS[i % COLOURS.length]} dot={false} isAnimationActive={false} connectNulls />
            ))}
          </LineChart>
        </ResponsiveContainer>
      )}
    </div>
  );
}

/** Per-step series of the selected branches, from MetricPoint and LabelStat. */
export function MetricCharts({ metrics }: { metrics: Metrics }) {
  const versionOf = useMemo(() => new Map(metrics.branches.map((b) => [b.id, b.version])), [metrics.branches]);
  const series = metrics.branches.map((b) => `v${b.version}`);
  const labels = [...new Set(metrics.labelRates.map((l) => l.label))];
  return (
    <div className="charts">
      {CHARTS.map((c) => (
        <Chart key={c.metric} title={c.title} series={series} rows={pivot(metrics.points.filter((p) => p.name === c.metric), versionOf)} />
      ))}
      {labels.map((label) => (
        <Chart key={label} title={`Label rate: ${label}`} series={series} rows={pivot(metrics.labelRates.filter((l) => l.label === label).map((l) => ({ ...l, value: l.rate })), versionOf)} />
      ))}
    </div>
  );
}
