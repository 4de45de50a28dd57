"use client";

import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import type { RouterOutputs } from "@evotrainer/api";
import { useTRPC } from "~/trpc/react";
import { fmtDollars, fmtTime, fmtTokens } from "../format";
import { QueryState } from "../query-state";
import { ScrollBlock } from "../scroll-block";

type Calls = RouterOutputs["run"]["llmCalls"];

/** The exact prompt and answer of one call, loaded when it is opened. */
function CallDetail({ runId, eventId }: { runId: string; eventId: string }) {
  const trpc = useTRPC();
  const call = useQuery(trpc.run.llmCall.queryOptions({ runId, eventId }));
  return (
    <QueryState isPending={call.isPending} error={call.error}>
      {() => {
        const c = call.data!;
        return (
          <div data-testid="llm-call-detail">
            {c.rejections && c.rejections.length > 0 && (
              <>
                <h4>Refused</h4>
                <ul>
                  {c.rejections.map((r) => (
                    <li key={r}>{r}</li>
                  ))}
                </ul>
              </>
            )}
            {c.error && <p className="error">{c.error}</p>}
            <h4>System prompt ({c.promptVersion})</h4>
            <ScrollBlock name="System prompt">{c.request?.system}</ScrollBlock>
            {c.request?.messages.map((m, i) => (
              <div key={i}>
                <h4>{m.role}</h4>
                <ScrollBlock name={`Message ${i + 1}, ${m.role}`}>{m.content}</ScrollBlock>
              </div>
            ))}
            <h4>Answer</h4>
            <ScrollBlock name="Answer">{c.response?.object !== undefined ? JSON.stringify(c.response.object, null, 2) : (c.response?.text ?? "(none)")}</ScrollBlock>
          </div>
        );
      }}
    </QueryState>
  );
}

/** Audit view of the LLM proposer: every call with its model, prompt version, outcome, tokens and cost, and every fallback. */
export function LlmCalls({ runId, data, basePath }: { runId: string; data: Calls; basePath: string }) {
  const [open, setOpen] = useState<string | null>(null);
  if (data.calls.length === 0 && data.fallbacks.length === 0) return <p className="muted">No LLM calls yet.</p>;
  return (
    <div data-testid="llm-calls">
      {data.fallbacks.length > 0 && (
        <ul>
          {data.fallbacks.map((f) => (
            <li key={String(f.id)}>
              <span className="pill warn">fallback</span> round {f.round ?? "?"}
              {f.branchVersion !== null && <> from <a href={`${basePath}/branches/${f.branchId}`}>v{f.branchVersion}</a></>}: {f.reason} — {f.message} → {f.to}{" "}
              <span className="muted">{fmtTime(f.createdAt)}</span>
            </li>
          ))}
        </ul>
      )}
      <table className="runs compact">
        <thead>
          <tr>
            <th>When</th>
            <th>Branch</th>
            <th>Round</th>
            <th>Model</th>
            <th>Prompt</th>
            <th>Attempt</th>
            <th>Outcome</th>
            <th>Tokens in / out</th>
            <th>Cost</th>
            <th>Time</th>
            <th><span className="sr-only">details</span></th>
          </tr>
        </thead>
        <tbody>
          {data.calls.map((c) => {
            const id = String(c.id);
            return (
              <tr key={id}>
                <td>{fmtTime(c.createdAt)}</td>
                <td>{c.branchVersion !== null ? <a href={`${basePath}/branches/${c.branchId}`}>v{c.branchVersion}</a> : "—"}</td>
                <td>{c.round ?? "—"}</td>
                <td>
                  {c.model} <span className="muted">({c.provider})</span>
                </td>
                <td>{c.promptVersion}</td>
                <td>{c.attempt}</td>
                <td>
                  <span className={`pill ${c.outcome === "ok" ? "ok" : "bad"}`}>{c.outcome}</span>
                </td>
                <td>
                  {fmtTokens(c.usage.inputTokens)} / {fmtTokens(c.usage.outputTokens)}
                </td>
                <td>{fmtDollars(c.dollars)}</td>
                <td>{(c.durationMs / 1000).toFixed(1)} s</td>
                <td>
                  <button type="button" className="btn small" onClick={() => setOpen(open === id ? null : id)}>
                    {open === id ? "close" : "open"}
                  </button>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {open !== null && (
        <section className="panel">
          <h3>LLM call {open}</h3>
          <CallDetail runId={runId} eventId={open} />
        </section>
      )}
    </div>
  );
}
