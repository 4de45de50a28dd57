"use client";

import { useQuery } from "@tanstack/react-query";
import type { RouterOutputs } from "@evotrainer/api";
import { useTRPC } from "~/trpc/react";
import { fmtDelta, fmtDollars, fmtScore, fmtTime, fmtTokens } from "../format";
import { QueryState } from "../query-state";
import { StatusBadge } from "../status-badge";
import { DecisionPanel } from "./decision-panel";
import { NumbersTable } from "./numbers-table";
import { recipeDiff } from "./recipe-diff";

type Branch = RouterOutputs["branch"]["byId"];
type Check = { name: string; passed: boolean; detail: string; numbers?: Record<string, unknown>; blocking?: boolean };
type Finding = { id?: string; level?: string; message?: string; evidence?: unknown };

const WAITING = ["awaiting_decision", "proposed"];

function HealthReport({ health }: { health: Branch["health"] }) {
  const layers = (health?.payload as { layers?: Record<string, Finding[] | Record<string, Finding>> } | null)?.layers;
  if (!layers) return <p className="muted">No health report yet: diagnosis writes one after the branch's rollouts are labelled.</p>;
  return (
    <div className="layers">
      {Object.entries(layers).map(([layer, findings]) => {
        const list = Array.isArray(findings) ? findings : Object.entries(findings).map(([id, f]) => ({ id, ...f }));
        return (
          <div key={layer}>
            <h4>{layer}</h4>
            {list.length === 0 ? (
              <p className="muted">No findings.</p>
            ) : (
              <ul>
                {list.map((f, i) => (
                  <li key={f.id ?? i}>
                    <span className={`pill level-${f.level}`}>{f.level}</span> {f.id} {f.message}
                    {f.evidence !== undefined && <code className="evidence-json">{JSON.stringify(f.evidence)}</code>}
                  </li>
                ))}
              </ul>
            )}
          </div>
        );
      })}
    </div>
  );
}

function Body({ b, basePath, readOnly }: { b: Branch; basePath: string; readOnly: boolean }) {
  const intervention = b.intervention;
  const backtest = intervention?.backtest;
  const checks = (b.verdict?.checks ?? []) as Check[];
  const canDecide = !readOnly && (b.role === "approver" || b.role === "admin") && WAITING.includes(b.status);
  const diff = recipeDiff(b.parent?.recipe.canonical ?? null, b.recipe.canonical);
  return (
    <>
      <header className="run-header">
        <a href={basePath}>← {b.run.name}</a>
        <h1>Branch v{b.version}</h1>
        <StatusBadge status={b.status} />
        {b.run.bestBranchId === b.id && <span className="pill best">best so far</span>}
        <span className="muted">
          round {b.round} · score {fmtScore(b.promotionScore)} · GPU {Math.round(b.gpuSecondsUsed)} s
          {b.llm.calls > 0 && (
            <span data-testid="branch-llm-spend">
              {" "}
              · LLM {fmtDollars(b.llm.dollars)} ({b.llm.calls} calls, {fmtTokens(b.llm.inputTokens + b.llm.outputTokens)} tokens designing its children)
            </span>
          )}
        </span>
        <a className="btn" href={`${basePath}/branches/${b.id}/rollouts`}>
          Rollouts →
        </a>
      </header>
      {canDecide && (
        <section className="panel">
          <h3>Decision</h3>
          <DecisionPanel branchId={b.id} />
        </section>
      )}
      <div className="two-col">
        <section className="panel" data-testid="intervention">
          <h3>Hypothesis and intervention</h3>
          {intervention ? (
            <>
              <p className="hypothesis">{intervention.hypothesis}</p>
              <dl className="facts">
                <dt>factor</dt>
                <dd>{intervention.factor}</dd>
                <dt>targets</dt>
                <dd>{intervention.targetMetric}</dd>
                <dt>expected</dt>
                <dd>
                  <code>{JSON.stringify(intervention.expectedEffect)}</code>
                </dd>
                <dt>falsified if</dt>
                <dd>{intervention.falsification}</dd>
                <dt>provenance</dt>
                <dd>
                  {intervention.provenance}
                  {intervention.skill ? ` (skill ${intervention.skill.name})` : ""}
                </dd>
              </dl>
            </>
          ) : (
            <p className="muted">The base branch: no intervention.</p>
          )}
          <h4>Recipe diff vs {b.parent ? `v${b.parent.version}` : "nothing (base)"}</h4>
          {diff.length === 0 ? (
            <p className="muted">Same recipe.</p>
          ) : (
            <table className="kv diff" data-testid="recipe-diff">
              <tbody>
                {diff.map((c) => (
                  <tr key={c.path}>
                    <th>{c.path}</th>
                    <td className="del">{c.before ?? "—"}</td>
                    <td className="add">{c.after ?? "—"}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
        <section className="panel" data-testid="backtest">
          <h3>Backtest</h3>
          {backtest ? (
            <>
              <dl className="facts">
                <dt>predicted effect</dt>
                <dd>{fmtDelta(backtest.predictedEffect)}</dd>
                <dt>realised effect</dt>
                <dd>{fmtDelta(backtest.realisedEffect)}</dd>
                <dt>rank</dt>
                <dd>
                  {backtest.rank ?? "—"} {backtest.kept ? "(kept)" : "(not kept)"}
                </dd>
              </dl>
              <NumbersTable value={backtest.report} testId="backtest-report" />
            </>
          ) : (
            <p className="muted">No backtest for this branch.</p>
          )}
        </section>
      </div>
      <section className="panel" data-testid="verdict">
        <h3>Verdict</h3>
        {b.verdict ? (
          <>
            <p>
              <span className={`pill ${b.verdict.passed ? "ok" : "bad"}`}>{b.verdict.passed ? "passed" : "failed"}</span> promotion score {fmtScore(b.verdict.promotionScore)} · parent{" "}
              {fmtScore(b.verdict.parentScore)} · best {fmtScore(b.verdict.bestScore)} · Δ vs parent {fmtDelta(b.verdict.deltaVsParent)} · bootstrap CI [
              {fmtDelta(b.verdict.ciLow)}, {fmtDelta(b.verdict.ciHigh)}]
            </p>
            <table className="runs compact">
              <thead>
                <tr>
                  <th>Check</th>
                  <th>Result</th>
                  <th>Detail</th>
                  <th>Numbers</th>
                </tr>
              </thead>
              <tbody>
                {checks.map((c) => (
                  <tr key={c.name}>
                    <td>{c.name}</td>
                    <td>
                      {c.blocking === false ? (
                        <span className="pill" title="shown as context; it does not decide the promotion">context</span>
                      ) : (
                        <span className={`pill ${c.passed ? "ok" : "bad"}`}>{c.passed ? "pass" : "fail"}</span>
                      )}
                    </td>
                    <td>{c.detail}</td>
                    <td>
                      <code>{JSON.stringify(c.numbers ?? {})}</code>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </>
        ) : (
          <p className="muted">No verdict yet: it is computed when training and evaluation finish.</p>
        )}
      </section>
      <section className="panel">
        <h3>Health report</h3>
        <HealthReport health={b.health} />
      </section>
      <section className="panel" data-testid="jobs">
        <h3>Jobs</h3>
        {b.jobs.length === 0 ? (
          <p className="muted">No jobs dispatched yet.</p>
        ) : (
          b.jobs.map((j) => (
            <div key={j.id} className="job">
              <p>
                <strong>{j.kind}</strong> <StatusBadge status={j.state} /> {j.failureClass && <span className="pill bad">{j.failureClass}</span>} {j.executor}/{j.adapter}
                {j.node ? ` on ${j.node.name}` : ""} · attempt {j.attempts}/{j.maxAttempts} · {Math.round(j.gpuSeconds)} GPU s · {fmtTime(j.startedAt)} → {fmtTime(j.finishedAt)}
                {j.exitCode !== null ? ` · exit ${j.exitCode}` : ""}
              </p>
              {j.message && <p className="muted">{j.message}</p>}
              {j.logTail && <pre className="log">{j.logTail}</pre>}
            </div>
          ))
        )}
      </section>
      <section className="panel" data-testid="decisions">
        <h3>Decision history</h3>
        {b.decisions.length === 0 ? (
          <p className="muted">No decisions yet.</p>
        ) : (
          <ul>
            {b.decisions.map((d) => (
              <li key={d.id}>
                {fmtTime(d.createdAt)} <strong>{d.kind}</strong> at {d.stage} by {d.actorType === "policy" ? "the autonomy policy" : (d.user?.name ?? "a person")}
                {d.reason ? `: ${d.reason}` : ""}
                {d.instructions ? ` — instructions: ${d.instructions}` : ""}
              </li>
            ))}
          </ul>
        )}
      </section>
    </>
  );
}

export function BranchView({ branchId, basePath, readOnly }: { branchId: string; basePath: string; readOnly: boolean }) {
  const trpc = useTRPC();
  // A recorded decision is settled by the worker within a moment; look again soon while one is pending.
  const branch = useQuery(
    trpc.branch.byId.queryOptions({ branchId }, { refetchInterval: (query) => (query.state.data?.status === "awaiting_decision" ? 1_000 : 5_000) }),
  );
  return (
    <main className="page wide">
      <QueryState isPending={branch.isPending} error={branch.error}>
        {() => <Body b={branch.data!} basePath={basePath} readOnly={readOnly} />}
      </QueryState>
    </main>
  );
}
