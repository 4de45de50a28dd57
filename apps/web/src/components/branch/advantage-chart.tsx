"use client";

import { Bar, BarChart, CartesianGrid, Legend, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";

export interface AdvantageRow {
  label: string;
  count: number;
  before: number;
  after: number;
}

/** Grouped bars: a label whose advantage turns more negative is one the intervention now trains away from. */
export function AdvantageChart({ rows }: { rows: AdvantageRow[] }) {
  return (
    <div data-testid="advantage-chart">
      <ResponsiveContainer width="100%" height={Math.max(160, 28 * rows.length + 60)}>
        <BarChart data={rows} layout="vertical" margin={{ left: 24 }}>
          <CartesianGrid stroke="#2a2f3a" />
          <XAxis type="number" stroke="#8b93a7" />
          <YAxis type="category" dataKey="label" stroke="#8b93a7" width={140} />
          <ReferenceLine x={0} stroke="#8b93a7" />
          <Tooltip contentStyle={{ background: "#171a21", border: "1px solid #2a2f3a" }} formatter={(v) => (typeof v === "number" ? v.toFixed(3) : String(v))} />
          <Legend />
          <Bar dataKey="before" fill="#8b93a7" isAnimationActive={false} />
          <Bar dataKey="after" fill="#6aa6ff" isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}
