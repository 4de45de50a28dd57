"use client";

import { Fragment, useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { RouterOutputs } from "@evotrainer/api";
import { useTRPC } from "~/trpc/react";
import { QueryState } from "../query-state";

type Found = RouterOutputs["unexplained"]["clusters"];
type Backtest = RouterOutputs["unexplained"]["backtest"]["backtest"];

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

function BacktestResult({ b }: { b: Backtest }) {
  const i = b.informativeness;
  const separates =
    i.separates === "failures"
      ? "It separates failed from successful rollouts: it fires more on failures."
      : i.separates === "successes"
        ? "It fires more on successful rollouts than on failed ones: a failure label should not."
        : "It does not separate failed from successful rollouts here (the interval holds 0, or one side has no rollouts).";
  return (
    <div data-testid="draft-backtest">
      <dl className="facts">
        <dt>flags</dt>
        <dd data-testid="draft-flag-rate">
          {b.flagged} of {b.rollouts} rollouts ({pct(b.flagRate)})
        </dd>
        {b.cluster && (
          <>
            <dt>its cluster</dt>
            <dd>
              catches {b.cluster.flagged} of {b.cluster.size}
            </dd>
          </>
        )}
        <dt>informativeness</dt>
        <dd data-testid="draft-informativeness">
          {pct(i.failedRate)} of failed ({b.flaggedFailed} of {b.failed}) vs {pct(i.succeededRate)} of successful ({b.flaggedSucceeded} of {b.succeeded}); difference {i.difference.toFixed(3)} [
          {i.interval[0].toFixed(3)}, {i.interval[1].toFixed(3)}]. {separates}
        </dd>
        <dt>precision</dt>
        <dd data-testid="draft-precision">
          {b.precision
            ? `${b.precision.precision.toFixed(2)} [${b.precision.interval[0].toFixed(2)}, ${b.precision.interval[1].toFixed(2)}] · ${b.precision.reviewed} reviewed`
            : "no reviews: nobody has reviewed this label on the branch's flagged rollouts yet"}
        </dd>
      </dl>
      {b.errors > 0 && (
        <p className="warning">
          The rule could not be evaluated on {b.errors} rollouts: {b.firstError}
        </p>
      )}
      {b.caseFailures.length > 0 && (
        <p className="error" role="alert">
          The rule does not match the cluster&apos;s own error line ({b.caseFailures.map((c) => c.caseName).join(", ")}), so it cannot be registered.
        </p>
      )}
    </div>
  );
}

/** The draft of one cluster: an editable rule, its backtest on the branch, then registration. */
function DraftDetector({
  branchId,
  clusterKey,
  harnessVersion,
  onlySeparatingLabels,
  onRegistered,
}: {
  branchId: string;
  clusterKey: string;
  harnessVersion: number;
  onlySeparatingLabels: boolean;
  onRegistered: (message: string) => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const draft = useQuery(trpc.unexplained.draft.queryOptions({ branchId, clusterKey, onlySeparatingLabels }, { staleTime: Infinity }));
  const [edited, setEdited] = useState<{ label: string; description: string; when: string; evidence: string } | null>(null);
  const [tested, setTested] = useState<{ form: string; backtest: Backtest; harnessVersionId: string } | null>(null);
  const backtest = useMutation(trpc.unexplained.backtest.mutationOptions());
  const register = useMutation(
    trpc.unexplained.register.mutationOptions({
      onSuccess: (r) => {
        onRegistered(`Registered as harness v${r.version}: detector ${r.detectorId} labels ${r.label} from now on. It has no validity role: it never voids a success until people decide it may.`);
        void queryClient.invalidateQueries();
      },
    }),
  );

  return (
    <QueryState isPending={draft.isPending} error={draft.error}>
      {() => {
        const form = edited ?? { label: draft.data!.label, description: draft.data!.description, when: draft.data!.when, evidence: draft.data!.evidence ?? "" };
        const detector = { label: form.label, description: form.description, when: form.when, ...(form.evidence.trim() ? { evidence: form.evidence } : {}) };
        const current = tested !== null && tested.form === JSON.stringify(form);
        const set = (k: keyof typeof form) => (e: { target: { value: string } }) => setEdited({ ...form, [k]: e.target.value });
        return (
          <form
            className="form"
            data-testid="draft-detector"
            onSubmit={(e) => {
              e.preventDefault();
              backtest.mutate({ branchId, clusterKey, onlySeparatingLabels, detector }, { onSuccess: (r) => setTested({ form: JSON.stringify(form), backtest: r.backtest, harnessVersionId: r.harnessVersionId }) });
            }}
          >
            <label>
              Label
              <input value={form.label} onChange={set("label")} required />
            </label>
            <label>
              Description
              <input value={form.description} onChange={set("description")} required />
            </label>
            <label>
              Rule (CEL over the rollout, as every detector)
              <textarea value={form.when} onChange={set("when")} rows={3} required spellCheck={false} data-testid="draft-rule" />
            </label>
            <label>
              Evidence (CEL, optional: what a label records)
              <textarea value={form.evidence} onChange={set("evidence")} rows={2} spellCheck={false} />
            </label>
            <div className="row">
              <button className="btn" type="submit" disabled={backtest.isPending}>
                {backtest.isPending ? "Backtesting…" : "Backtest on this branch"}
              </button>
              <button
                className="btn primary"
                type="button"
                disabled={!current || register.isPending || tested.backtest.caseFailures.length > 0}
                title={current ? undefined : "backtest the rule as it is now first"}
                onClick={() => tested && register.mutate({ branchId, clusterKey, onlySeparatingLabels, detector, harnessVersionId: tested.harnessVersionId })}
              >
                Register as harness v{harnessVersion + 1}
              </button>
            </div>
            {tested && !current && <p className="muted">The rule changed since its backtest: backtest it again before registering.</p>}
            {tested && <BacktestResult b={tested.backtest} />}
            {(backtest.error ?? register.error) && (
              <p className="error" role="alert">
                {(backtest.error ?? register.error)!.message}
              </p>
            )}
          </form>
        );
      }}
    </QueryState>
  );
}

function Clusters({
  found,
  branchId,
  basePath,
  canDraft,
  onlySeparatingLabels,
  onRegistered,
}: {
  found: Found;
  branchId: string;
  basePath: string;
  canDraft: boolean;
  onlySeparatingLabels: boolean;
  onRegistered: (message: string) => void;
}) {
  const [drafting, setDrafting] = useState<string | null>(null);
  if (found.failures === 0) return <p className="muted">No failed rollouts in the branch&apos;s last training steps.</p>;
  return (
    <>
      <p data-testid="unexplained-summary">
        {found.unexplained} of {found.failures} failed rollouts ({pct(found.unexplained / found.failures)}) carry no label of harness v{found.harnessVersion} that explains them
        {found.clusters.length > 0 ? `, in ${found.clusters.length} clusters of one error signature each` : ""}.
        {found.ignoredLabels.length > 0 && ` Not counted as explaining, since they fire no more on failures than on successes here: ${found.ignoredLabels.join(", ")}.`}
      </p>
      {found.clusters.length > 0 && (
        <table className="kv" data-testid="unexplained-clusters">
          <thead>
            <tr>
              <th>signature</th>
              <th>count</th>
              <th>share of failures</th>
              <th>examples</th>
              {canDraft && <th />}
            </tr>
          </thead>
          <tbody>
            {found.clusters.map((c) => (
              <Fragment key={c.key}>
              <tr data-testid="unexplained-cluster">
                <td>
                  <code>{c.key}</code>
                </td>
                <td>{c.count}</td>
                <td>
                  <span className="rate-bar" style={{ width: `${Math.max(2, c.shareOfFailures * 80)}px` }} /> {pct(c.shareOfFailures)}
                </td>
                <td>
                  {c.examples.map((e) =>
                    e.rolloutId ? (
                      <a key={e.uid} className="example-rollout" href={`${basePath}/branches/${branchId}/rollouts?r=${e.rolloutId}`}>
                        {e.uid}{" "}
                      </a>
                    ) : (
                      <span key={e.uid}>{e.uid} </span>
                    ),
                  )}
                </td>
                {canDraft && (
                  <td>
                    <button className="btn" onClick={() => setDrafting(drafting === c.key ? null : c.key)}>
                      {drafting === c.key ? "Close" : "Draft a detector"}
                    </button>
                  </td>
                )}
              </tr>
              {drafting === c.key && (
                <tr>
                  <td colSpan={5}>
                    <DraftDetector branchId={branchId} clusterKey={c.key} harnessVersion={found.harnessVersion} onlySeparatingLabels={onlySeparatingLabels} onRegistered={onRegistered} />
                  </td>
                </tr>
              )}
              </Fragment>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

/**
 * The branch's failed rollouts that no label of the run's harness explains, clustered by normalised
 * error signature, each with examples one click away. Approvers and admins draft a detector from a
 * cluster, backtest it here and register it as the run's next harness version.
 */
export function UnexplainedFailuresPanel({ branchId, basePath, canDraft }: { branchId: string; basePath: string; canDraft: boolean }) {
  const trpc = useTRPC();
  const [onlySeparatingLabels, setOnlySeparating] = useState(false);
  // Kept here: the registered detector explains its cluster, whose row (and draft) then leaves the list.
  const [registered, setRegistered] = useState<string | null>(null);
  const found = useQuery(trpc.unexplained.clusters.queryOptions({ branchId, onlySeparatingLabels }));
  return (
    <section className="panel" data-testid="unexplained-failures">
      <h3>Unexplained failures</h3>
      <label className="row">
        <input type="checkbox" checked={onlySeparatingLabels} onChange={(e) => setOnlySeparating(e.target.checked)} />
        Count only labels that separate failed from successful rollouts as explanations
      </label>
      {registered && (
        <p className="notice" data-testid="draft-registered">
          {registered}
        </p>
      )}
      <QueryState isPending={found.isPending} error={found.error}>
        {() => <Clusters found={found.data!} branchId={branchId} basePath={basePath} canDraft={canDraft} onlySeparatingLabels={onlySeparatingLabels} onRegistered={setRegistered} />}
      </QueryState>
    </section>
  );
}
