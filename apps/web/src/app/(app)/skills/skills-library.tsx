"use client";

import { useQuery } from "@tanstack/react-query";
import { KeyValues } from "~/components/key-values";
import { QueryState } from "~/components/query-state";
import { useTRPC } from "~/trpc/react";

export function SkillsLibrary() {
  const trpc = useTRPC();
  const skills = useQuery(trpc.skill.list.queryOptions());
  return (
    <QueryState isPending={skills.isPending} error={skills.error}>
      {() =>
        skills.data!.length === 0 ? (
          <div className="empty">No skills yet: a verified intervention becomes one.</div>
        ) : (
          <table className="runs" data-testid="skills-table">
            <thead>
              <tr>
                <th>Skill</th>
                <th>Trigger</th>
                <th>Template</th>
                <th>Domains</th>
                <th>Success / failure</th>
                <th>Applied in</th>
              </tr>
            </thead>
            <tbody>
              {skills.data!.map((s) => (
                <tr key={s.id}>
                  <td>
                    <strong>{s.name}</strong>
                    <div className="muted">{s.expectedOutcome}</div>
                  </td>
                  <td>
                    <code>{s.trigger}</code>
                  </td>
                  <td>
                    <KeyValues value={s.template} />
                  </td>
                  <td>{s.domains.join(", ")}</td>
                  <td>
                    {s.successCount} / {s.failureCount}
                  </td>
                  <td>
                    {s.applications.length === 0
                      ? "—"
                      : s.applications.map((a) => (
                          <div key={a.id}>
                            <a href={`/runs/${a.intervention.runId}${a.intervention.branch ? `/branches/${a.intervention.branch.id}` : ""}`}>
                              {a.intervention.run.name}
                              {a.intervention.branch ? ` v${a.intervention.branch.version}` : ""}
                            </a>{" "}
                            <span className="muted">{a.outcome}</span>
                          </div>
                        ))}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )
      }
    </QueryState>
  );
}
