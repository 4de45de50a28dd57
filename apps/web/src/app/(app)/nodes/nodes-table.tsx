"use client";

import { useQuery } from "@tanstack/react-query";
import { QueryState } from "~/components/query-state";
import { useTRPC } from "~/trpc/react";

// GPUs are taken and given back as jobs start and end: keep the view live.
const REFRESH_MS = 5_000;

export function NodesTable() {
  const trpc = useTRPC();
  const nodes = useQuery({ ...trpc.node.list.queryOptions(), refetchInterval: REFRESH_MS });
  return (
    <QueryState isPending={nodes.isPending} error={nodes.error}>
      {() =>
        nodes.data!.length === 0 ? (
          <div className="empty">
            No GPU nodes yet: describe them in a compute config (see <code>examples/compute.yaml</code>) and run{" "}
            <code>npx evotrainer nodes sync compute.yaml</code>.
          </div>
        ) : (
          <table className="runs" data-testid="nodes-table">
            <thead>
              <tr>
                <th>Node</th>
                <th>Address</th>
                <th>GPUs in use</th>
                <th>Labels</th>
                <th>Key</th>
                <th>Work root</th>
              </tr>
            </thead>
            <tbody>
              {nodes.data!.map((n) => (
                <tr key={n.id} className={n.enabled ? undefined : "muted"}>
                  <td>
                    <strong>{n.name}</strong>
                    {n.enabled ? null : <div className="muted">disabled</div>}
                  </td>
                  <td>
                    <code>{n.address}</code>
                    {n.partitions ? (
                      <div className="muted" data-testid="slurm-partitions">
                        {n.partitions.map((p) => `${p.partition} ${p.available ? "up" : "down"}: ${p.nodes} node${p.nodes === 1 ? "" : "s"} ${p.state}, CPUs ${p.cpus.allocated}/${p.cpus.total} allocated${p.gres ? `, ${p.gres}` : ""}`).join("; ")}
                        {n.lastSeenAt ? ` (sinfo at ${new Date(n.lastSeenAt).toLocaleTimeString()})` : null}
                      </div>
                    ) : null}
                  </td>
                  <td>
                    {n.executor === "kubernetes" || n.executor === "slurm" ? (
                      <span className="muted">scheduled by {n.executor === "slurm" ? "Slurm" : "Kubernetes"}</span>
                    ) : (
                      <>
                        {n.gpusInUse.length} / {n.gpuCount}
                        {n.gpusInUse.length > 0 ? <div className="muted">GPU {n.gpusInUse.join(", ")}</div> : null}
                      </>
                    )}
                  </td>
                  <td>{Object.entries(n.labels).map(([k, v]) => `${k}=${v}`).join(", ") || "—"}</td>
                  <td>{n.executor === "kubernetes" ? "KUBECONFIG" : n.executor === "slurm" && n.keySource === "none" ? "local login" : n.keySource}</td>
                  <td>
                    <code>{n.workRoot}</code>
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
