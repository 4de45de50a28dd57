"use client";

import { useQuery } from "@tanstack/react-query";
import type { RouterOutputs } from "@evotrainer/api";
import { useTRPC } from "~/trpc/react";
import { fmtDollars, fmtNumber, fmtScore, fmtTime, fmtTokens } from "../format";
import { QueryState } from "../query-state";
import { ScrollBlock } from "../scroll-block";
import { StatusBadge } from "../status-badge";
import { DecisionPanel } from "./decision-panel";
import { BacktestPanel } from "./backtest-panel";
import { HealthReport } from "./health-report";
import { CancelJobButton } from "./cancel-job-button";
import { VetoOverridePanel } from "./veto-override-panel";
import { recipeDiff } from "./recipe-diff";
import { UnexplainedFailuresPanel } from "./unexplained-failures-panel";
import { RewardComponents } from "./reward-components";
import { VerdictPanel, type Check } from "./verdict-panel";

type Branch = RouterOutputs["branch"]["byId"];

const WAITING = ["awaiting_decision", "proposed"];

/** The intervention's expected effect ({direction, size?, note?} on its target metric) as a sentence. */
function expectedInWords(metric: string, effect: unknown): string {
  const e = effect as { direction?: string; size?: number; note?: string } | null;
  if (!e?.direction) return "—";
  return `${metric} goes ${e.direction}${typeof e.size === "number" ? ` by about ${fmtNumber(e.size)}` : ""}${e.note ? ` (${e.note})` : ""}`;
}

/** The checks that block promotion and failed: what an approval would override. */
function failedChecksOf(checks: Check[]) {
  return checks.filter((c) => !c.passed && c.blocking !== false).map((c) => ({ name: c.name, detail: c.detail }));
}

function Body({ b, basePath, readOnly }: { b: Branch; basePath: string; readOnly: boolean }) {
  const intervention = b.intervention;
  const backtest = intervention?.backtest;
  const checks = (b.verdict?.checks ?? []) as Check[];
  // A recorded decision waits for the worker to apply it: nothing is left to decide meanwhile.
  const decidedAlready = b.decisions.some((d) => (b.status === "proposed" ? d.stage === "design" : d.stage === "completion"));
  const canControl = !readOnly && (b.role === "approver" || b.role === "admin");
  const canDecide = !readOnly && (b.role === "approver" || b.role === "admin") && WAITING.includes(b.status) && !decidedAlready;
  // Decisions come newest first: the policy's veto is open to a person's override until one is made.
  const lastCompletion = b.decisions.find((d) => d.stage === "completion");
  // The API says whether the override would be admitted (a finished run's result no longer changes).
  const canOverride = !readOnly && (b.role === "approver" || b.role === "admin") && b.vetoOverride.open && lastCompletion !== undefined;
  const diff = recipeDiff(b.parent?.recipe.canonical ?? null, b.recipe.canonical);
  return (
    <>
      <header className="run-header">
        <a href={basePath}>← {b.run.name}</a>
        <h1>Branch v{b.version}</h1>
        {/* The same word the tree shows: the base branch is the run's reference, whatever its own verdict. */}
        {b.parent === null && b.status !== "promoted" ? (
          <span className="status status-reference" title="the run's first branch is every later branch's reference, whatever its own verdict">
            reference
          </span>
        ) : (
          <StatusBadge status={b.status} />
        )}
        {b.run.bestBranchId === b.id && b.status === "promoted" && <span className="pill best">best so far</span>}
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
          <DecisionPanel branchId={b.id} failedChecks={b.status === "awaiting_decision" ? failedChecksOf(checks) : []} />
        </section>
      )}
      {canOverride && (
        <section className="panel">
          <h3>Decision</h3>
          <VetoOverridePanel branchId={b.id} policyReason={lastCompletion.reason} failedChecks={failedChecksOf(checks)} />
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
                <dd>{expectedInWords(intervention.targetMetric, intervention.expectedEffect)}</dd>
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
          {backtest ? <BacktestPanel backtest={backtest} trained={b.verdict !== null} /> : <p className="muted">No backtest: {intervention ? "the intervention was not replayed before training." : "the base branch has no intervention to replay."}</p>}
        </section>
      </div>
      <section className="panel" data-testid="verdict">
        <h3>Verdict</h3>
        {b.verdict ? <VerdictPanel verdict={b.verdict} /> : <p className="muted">No verdict yet: it is computed when training and evaluation finish.</p>}
      </section>
      <section className="panel">
        <h3>Health report</h3>
        <HealthReport health={b.health} />
      </section>
      <UnexplainedFailuresPanel branchId={b.id} basePath={basePath} canDraft={canControl} />
      <section className="panel">
        <h3>Reward components</h3>
        <p className="muted">Each component&apos;s share of the reward at each training step, and its mean.</p>
        <RewardComponents branchId={b.id} />
        <p>
          <a href={`${basePath}/branches/${b.id}/groups`}>Dead GRPO groups of this branch →</a>
        </p>
      </section>
      <section className="panel" data-testid="jobs">
        <h3>Jobs</h3>
        {b.jobs.length === 0 ? (
          <p className="muted">No jobs dispatched yet.</p>
        ) : (
          b.jobs.map((j) => (
            <div key={j.id} className="job">
              <p>
                <strong>{j.imported ? "import" : j.kind}</strong> <StatusBadge status={j.state} /> {j.failureClass && <span className="pill bad">{j.failureClass}</span>}{" "}
                {j.imported ? `${j.adapter} rollouts` : `${j.executor}/${j.adapter}`}
                {j.node ? ` on ${j.node.name}` : ""} · attempt {j.attempts}/{j.maxAttempts} · {Math.round(j.gpuSeconds)} GPU s · {fmtTime(j.startedAt)} → {fmtTime(j.finishedAt)}
                {j.exitCode !== null ? ` · exit ${j.exitCode}` : ""}
                {canControl && j.kind === "train" && ["pending", "submitted", "running"].includes(j.state) && (
                  <>
                    {" "}
                    <CancelJobButton jobId={j.id} branchId={b.id} />
                  </>
                )}
              </p>
              {j.message && <p className="muted">{j.message}</p>}
              {j.logTail && (
                <ScrollBlock name={`Log of job ${j.id}`} className="log">
                  {j.logTail}
                </ScrollBlock>
              )}
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
                {/* A person's approval of a failed verdict is always an override (the API admits no other). */}
                {d.kind === "approve" && d.actorType === "human" && d.stage === "completion" && b.verdict && !b.verdict.passed && (
                  <span className="pill bad" data-testid="override-pill">
                    override of the verdict
                  </span>
                )}
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
