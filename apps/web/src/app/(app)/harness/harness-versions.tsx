"use client";

import { useQuery } from "@tanstack/react-query";
import type { RouterOutputs } from "@evotrainer/api";
import { QualityTable } from "~/components/labels/quality-table";
import { KeyValues } from "~/components/key-values";
import { QueryState } from "~/components/query-state";
import { useTRPC } from "~/trpc/react";

type Version = RouterOutputs["harness"]["list"][number];

/** Detectors added and removed against the parent version, by detector key and version. */
function diffAgainstParent(version: Version, byId: Map<string, Version>) {
  const parent = version.parentId ? byId.get(version.parentId) : undefined;
  if (!parent) return null;
  const key = (d: Version["detectors"][number]) => `${d.key}@${d.version}`;
  const before = new Set(parent.detectors.map(key));
  const after = new Set(version.detectors.map(key));
  return { added: [...after].filter((k) => !before.has(k)), removed: [...before].filter((k) => !after.has(k)), parentVersion: parent.version };
}

/**
 * Why a version was registered, as one sentence: the recorded reason (`reason`, or `registeredBecause`
 * in older rows) is the sentence, and only the other recorded facts follow as key/value lines.
 */
function RegisteredBecause({ evidence }: { evidence: NonNullable<Version["evidence"]> }) {
  const record = typeof evidence === "object" && !Array.isArray(evidence) ? (evidence as Record<string, unknown>) : {};
  const { reason, registeredBecause, ...rest } = record;
  const because = [reason, registeredBecause].find((s): s is string => typeof s === "string");
  if (because === undefined) {
    return (
      <div className="muted registered-because" data-testid="registered-because">
        Registered with: <KeyValues value={evidence} />
      </div>
    );
  }
  return (
    <div className="muted registered-because" data-testid="registered-because">
      <p>Registered because {because.replace(/\.$/, "")}.</p>
      {Object.keys(rest).length > 0 && <KeyValues value={rest} />}
    </div>
  );
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

export function HarnessVersions() {
  const trpc = useTRPC();
  const versions = useQuery(trpc.harness.list.queryOptions());
  return (
    <QueryState isPending={versions.isPending} error={versions.error}>
      {() => {
        const byId = new Map(versions.data!.map((v) => [v.id, v]));
        if (versions.data!.length === 0) return <div className="empty">No harness versions yet: a run registers its first when it starts.</div>;
        return versions.data!.map((v) => {
          const diff = diffAgainstParent(v, byId);
          return (
            <section key={v.id} className="panel" data-testid="harness-version">
              <h3>
                {v.run ? v.run.name : "catalog"} · harness v{v.version} <span className="muted">({v.domain})</span>
              </h3>
              {diff && (
                <p>
                  vs v{diff.parentVersion}: {diff.added.length ? `added ${diff.added.join(", ")}` : "nothing added"}; {diff.removed.length ? `removed ${diff.removed.join(", ")}` : "nothing removed"}
                </p>
              )}
              {v.evidence !== null && <RegisteredBecause evidence={v.evidence} />}
              <table className="runs compact">
                <thead>
                  <tr>
                    <th>Detector</th>
                    <th>Label</th>
                    <th>CEL</th>
                    <th>Validity</th>
                    <th>Label rate across branches</th>
                    <th>Agreement with people</th>
                  </tr>
                </thead>
                <tbody>
                  {v.detectors.map((d) => {
                    const reviewed = d.stats.confirmed + d.stats.rejected;
                    const rates = d.stats.branches.map((b) => b.rate);
                    return (
                      <tr key={d.id}>
                        <td>
                          {d.key} v{d.version}
                          <div className="muted">{d.description}</div>
                        </td>
                        <td>{d.label}</td>
                        <td>
                          <code>{d.cel}</code>
                        </td>
                        <td>{d.validity ? "yes" : "no"}</td>
                        <td>{rates.length ? `${pct(Math.min(...rates))} – ${pct(Math.max(...rates))} over ${rates.length} branches` : "—"}</td>
                        <td>{reviewed ? `${pct(d.stats.confirmed / reviewed)} of ${reviewed} reviewed` : "none reviewed"}</td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
              {v.runId && (
                <>
                  <h4>
                    Label quality from reviews in this run{" "}
                    <a className="btn small" href={`/runs/${v.runId}/review`}>
                      Review queue →
                    </a>
                  </h4>
                  <QualityTable runId={v.runId} harnessVersionId={v.id} />
                </>
              )}
            </section>
          );
        });
      }}
    </QueryState>
  );
}
