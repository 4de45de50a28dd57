"use client";

import { useMemo, useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "~/trpc/react";
import { budgetSeconds, fmtDollars, fmtScore, fmtTokens } from "../format";
import { QueryState } from "../query-state";
import { StatusBadge } from "../status-badge";
import { BranchTree } from "./branch-tree";
import { EventTimeline } from "./event-timeline";
import { GateCalibrationCard } from "./gate-calibration-card";
import { LlmCalls } from "./llm-calls";
import { MetricCharts } from "./metric-charts";
import { RunControlPanel } from "./run-control-panel";
import { ShareLinksPanel } from "./share-links-panel";

// The loop advances on its own; polling keeps the page live without a socket.
const LIVE_MS = 5_000;

export function RunView({ runId, basePath, readOnly }: { runId: string; basePath: string; readOnly: boolean }) {
  const trpc = useTRPC();
  const run = useQuery(trpc.run.byId.queryOptions({ runId }, { refetchInterval: LIVE_MS }));
  const tree = useQuery(trpc.run.tree.queryOptions({ runId }, { refetchInterval: LIVE_MS }));
  const events = useQuery(trpc.run.events.queryOptions({ runId, limit: 50 }, { refetchInterval: LIVE_MS }));
  const usesLlm = run.data !== undefined && (run.data.proposer === "llm" || run.data.llm.calls > 0);
  const llmCalls = useQuery(trpc.run.llmCalls.queryOptions({ runId, limit: 50 }, { enabled: usesLlm, refetchInterval: LIVE_MS }));
  const [picked, setPicked] = useState<string[] | null>(null);

  const branches = tree.data?.branches ?? [];
  const defaultPick = useMemo(() => {
    const best = tree.data?.bestBranchId;
    const root = branches.find((b) => b.parentId === null)?.id;
    const waiting = branches.filter((b) => b.status === "awaiting_decision").map((b) => b.id);
    return [...new Set([root, best, ...waiting].filter((x): x is string => Boolean(x)))].slice(0, 6);
  }, [branches, tree.data?.bestBranchId]);
  const selected = picked ?? defaultPick;
  const metrics = useQuery(trpc.run.metrics.queryOptions({ runId, branchIds: selected }, { enabled: selected.length > 0, refetchInterval: LIVE_MS * 2 }));

  return (
    <main className="page wide">
      <QueryState isPending={run.isPending} error={run.error}>
        {() => {
          const r = run.data!;
          const total = budgetSeconds(r.budget);
          return (
            <>
              <header className="run-header">
                <h1>{r.name}</h1>
                <StatusBadge status={r.status} />
                <span className="muted">
                  {r.domain} · base {r.basePolicy} · round {r.round} · GPU {Math.round(r.gpuSecondsUsed)} s{total ? ` / ${total} s` : ""}
                  {usesLlm && (
                    <span data-testid="llm-spend">
                      {" "}
                      · LLM {fmtDollars(r.llm.dollars)}
                      {r.llm.budgetDollars !== null ? ` / ${fmtDollars(r.llm.budgetDollars)}` : ""} ({r.llm.calls} calls, {fmtTokens(r.llm.inputTokens + r.llm.outputTokens)} tokens)
                    </span>
                  )}{" "}
                  · best {fmtScore(branches.find((b) => b.id === r.bestBranchId)?.promotionScore)}
                </span>
                {readOnly && <span className="pill">read-only</span>}
              </header>
              {!readOnly && (r.role === "approver" || r.role === "admin") && <RunControlPanel runId={runId} status={r.status} budgetSeconds={total} />}
            </>
          );
        }}
      </QueryState>
      <section>
        <h2>Branch tree</h2>
        <p className="muted legend">
          Gold edges: the best-so-far path. Node: version, score delta vs parent, intervention factor; colour by status.
        </p>
        <QueryState isPending={tree.isPending} error={tree.error}>
          {() => <BranchTree branches={branches} bestBranchId={tree.data!.bestBranchId} basePath={basePath} />}
        </QueryState>
      </section>
      {run.data && <GateCalibrationCard runId={runId} domain={run.data.domain} />}
      <section>
        <h2>Metrics</h2>
        {/* Below the tree, not above it: a keyboard user reaches the first branch within five tab stops of the skip link. */}
        <p>
          <a className="btn small" data-testid="review-queue-link" href={`${basePath}/review`}>
            {readOnly ? "Label review queue →" : "Review labels →"}
          </a>
        </p>
        <div className="chips" aria-label="Branches in the charts">
          {branches.slice(0, 200).map((b) => (
            <label key={b.id} className={`chip${selected.includes(b.id) ? " on" : ""}`}>
              <input
                type="checkbox"
                checked={selected.includes(b.id)}
                onChange={(e) => setPicked(e.target.checked ? [...selected, b.id].slice(-8) : selected.filter((id) => id !== b.id))}
              />
              v{b.version}
            </label>
          ))}
          {selected.length >= 2 ? (
            <a className="btn small" data-testid="compare-selected" href={`${basePath}/compare?b=${selected.join(",")}`}>
              Compare {selected.map((id) => `v${branches.find((b) => b.id === id)?.version ?? "?"}`).join(", ")} →
            </a>
          ) : (
            <span className="muted">pick two or more to compare them side by side</span>
          )}
        </div>
        {selected.length === 0 ? (
          <p className="muted">Pick branches to chart.</p>
        ) : (
          <QueryState isPending={metrics.isPending} error={metrics.error}>
            {() => <MetricCharts metrics={metrics.data!} basePath={readOnly ? undefined : basePath} />}
          </QueryState>
        )}
      </section>
      {usesLlm && (
        <section>
          <h2>LLM proposer calls</h2>
          <p className="muted legend">Every call's prompt, answer, model, tokens and estimated cost, for audit. Open one to read it.</p>
          <QueryState isPending={llmCalls.isPending} error={llmCalls.error}>
            {() => <LlmCalls runId={runId} data={llmCalls.data!} basePath={basePath} />}
          </QueryState>
        </section>
      )}
      <div className="two-col">
        <section>
          <h2>Timeline</h2>
          <QueryState isPending={events.isPending} error={events.error}>
            {() => <EventTimeline events={events.data!} basePath={basePath} />}
          </QueryState>
        </section>
        {!readOnly && run.data && (run.data.role === "approver" || run.data.role === "admin") && <ShareLinksPanel runId={runId} />}
      </div>
    </main>
  );
}
