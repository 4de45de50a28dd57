"use client";

import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import type { RouterOutputs } from "@evotrainer/api";
import { useTRPC } from "~/trpc/react";
import { recipeDifferences } from "../branch/recipe-diff";
import { branchPath, fmtDelta, fmtReward, fmtScore } from "../format";
import { QueryState } from "../query-state";
import { ScrollBlock } from "../scroll-block";
import { TaskHistory } from "../rollouts/task-history";
import { MetricCharts } from "../run/metric-charts";
import { StatusBadge } from "../status-badge";

type Compared = RouterOutputs["compare"]["branches"];
type Branch = Compared["branches"][number];

const name = (b: Branch) => `v${b.version}${b.kind === "control" ? " (control)" : ""}`;
const pct = (x: number | undefined) => (x === undefined ? "—" : `${(100 * x).toFixed(1)}%`);

function Summary({ data, basePath }: { data: Compared; basePath: string }) {
  return (
    <table className="runs compact" data-testid="compare-summary">
      <thead>
        <tr>
          <th><span className="sr-only">measure</span></th>
          {data.branches.map((b) => (
            <th key={b.id}>
              <a href={branchPath(basePath, b.id)}>{name(b)}</a>
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        <tr>
          <th>status</th>
          {data.branches.map((b) => (
            <td key={b.id}>
              <StatusBadge status={b.status} />
            </td>
          ))}
        </tr>
        <tr>
          <th>intervention</th>
          {data.branches.map((b) => (
            <td key={b.id} title={b.hypothesis ?? undefined}>
              {b.factor ?? (b.kind === "control" ? "parent's recipe" : "base")}
            </td>
          ))}
        </tr>
        <tr>
          <th>promotion score</th>
          {data.branches.map((b) => (
            <td key={b.id}>{fmtScore(b.promotionScore)}</td>
          ))}
        </tr>
        <tr>
          <th>Δ vs parent [CI]</th>
          {data.branches.map((b) => (
            <td key={b.id}>{b.verdict ? `${fmtDelta(b.verdict.deltaVsParent)} [${fmtDelta(b.verdict.ciLow)}, ${fmtDelta(b.verdict.ciHigh)}]` : "—"}</td>
          ))}
        </tr>
      </tbody>
    </table>
  );
}

function Recipes({ branches }: { branches: Branch[] }) {
  const rows = recipeDifferences(branches.map((b) => b.recipe));
  if (rows.length === 0) return <p className="muted">The recipes are identical (controls retrain their parent's recipe).</p>;
  return (
    <table className="kv diff" data-testid="compare-recipes">
      <thead>
        <tr>
          <th><span className="sr-only">recipe setting</span></th>
          {branches.map((b) => (
            <th key={b.id}>{name(b)}</th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.path}>
            <th>{r.path}</th>
            {r.values.map((v, i) => (
              <td key={branches[i]!.id}>{v ?? "—"}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function LabelRates({ data }: { data: Compared }) {
  const labels = [...new Set(data.labelRates.map((l) => l.label))].sort();
  if (labels.length === 0) return <p className="muted">No label detector has run on these branches' training rollouts yet.</p>;
  const rate = (branchId: string, label: string) => data.labelRates.find((l) => l.branchId === branchId && l.label === label)?.rate;
  return (
    <table className="runs compact" data-testid="compare-labels">
      <thead>
        <tr>
          <th>label (training rollouts, last {data.labelWindow} steps)</th>
          {data.branches.map((b) => (
            <th key={b.id}>{name(b)}</th>
          ))}
        </tr>
      </thead>
      <tbody>
        {labels.map((label) => (
          <tr key={label}>
            <td>{label}</td>
            {data.branches.map((b) => {
              const r = rate(b.id, label);
              return (
                <td key={b.id}>
                  <span className="rate-bar" style={{ width: `${Math.round(60 * (r ?? 0))}px` }} /> {pct(r)}
                </td>
              );
            })}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Tasks({ data, basePath, runId }: { data: Compared; basePath: string; runId: string }) {
  const [history, setHistory] = useState<string | null>(null);
  if (data.tasks.length === 0) return <p className="muted">These branches share no task yet: compare them again once each has rollouts.</p>;
  return (
    <div data-testid="compare-tasks">
      <p className="muted">The newest rollout of each task, from the {data.split} split.</p>
      {data.tasks.map((t) => (
        <div key={t.taskId} className="compare-task" data-testid="compare-task">
          <h4>
            {t.taskId}{" "}
            <button className="btn small" aria-expanded={history === t.taskId} onClick={() => setHistory(history === t.taskId ? null : t.taskId)}>
              {history === t.taskId ? "Hide its history" : "History across steps"}
            </button>
          </h4>
          {history === t.taskId && <TaskHistory runId={runId} taskId={t.taskId} branchIds={data.branches.map((b) => b.id)} basePath={basePath} />}
          <div className="compare-columns" style={{ gridTemplateColumns: `repeat(${data.branches.length}, minmax(0, 1fr))` }}>
            {data.branches.map((b) => {
              const r = t.byBranch[b.id];
              return (
                <div key={b.id}>
                  <p>
                    <strong>{name(b)}</strong>{" "}
                    {r ? (
                      <>
                        reward {fmtReward(r.reward)} · step {r.step}
                        {r.truncated ? " · truncated" : ""} {r.labels.map((l) => <span key={l} className="pill bad">{l}</span>)}{" "}
                        <a href={`${branchPath(basePath, b.id)}/rollouts?r=${r.id}`}>open</a>
                      </>
                    ) : (
                      <span className="muted">no rollout of this task</span>
                    )}
                  </p>
                  {r && (r.response ? <ScrollBlock name={`Response of ${name(b)} to ${t.taskId}`}>{r.response}</ScrollBlock> : <p className="muted">{r.turns > 1 ? `${r.turns} turns: open the rollout to read them.` : "Text not kept for this rollout."}</p>)}
                </div>
              );
            })}
          </div>
        </div>
      ))}
    </div>
  );
}

/** Two or more branches side by side: how they differ, how they trained, and how they answered the same tasks. */
export function CompareView({ runId, branchIds, basePath }: { runId: string; branchIds: string[]; basePath: string }) {
  const trpc = useTRPC();
  const enough = branchIds.length >= 2;
  const compared = useQuery(trpc.compare.branches.queryOptions({ runId, branchIds }, { enabled: enough }));
  const metrics = useQuery(trpc.run.metrics.queryOptions({ runId, branchIds }, { enabled: enough }));
  return (
    <main className="page wide">
      <header className="run-header">
        <a href={basePath}>← run</a>
        <h1>Compare branches</h1>
      </header>
      {!enough ? (
        <p className="muted">Pick two to eight branches in the run's Metrics chips, then "Compare selected".</p>
      ) : (
        <QueryState isPending={compared.isPending} error={compared.error}>
          {() => (
            <>
              <section className="panel">
                <Summary data={compared.data!} basePath={basePath} />
              </section>
              <section className="panel">
                <h3>Recipe differences</h3>
                <Recipes branches={compared.data!.branches} />
              </section>
              <section className="panel">
                <h3>Training curves</h3>
                <QueryState isPending={metrics.isPending} error={metrics.error}>
                  {() => <MetricCharts metrics={metrics.data!} />}
                </QueryState>
              </section>
              <section className="panel">
                <h3>Label rates</h3>
                <LabelRates data={compared.data!} />
              </section>
              <section className="panel">
                <h3>The same tasks</h3>
                <Tasks data={compared.data!} basePath={basePath} runId={runId} />
              </section>
            </>
          )}
        </QueryState>
      )}
    </main>
  );
}
