import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { createDatabase, listGpuNodes, upsertGpuNode, upsertKubernetesPool, upsertSlurmCluster, type GpuNodeSummary, type SshKeySource } from "@evotrainer/db";
import type { SshNodeConfig } from "@evotrainer/executors";
import { readComputeConfig } from "../config-files.ts";
import { loadCliEnv } from "../env.ts";

const usage = "usage: evotrainer nodes sync <compute.yaml> | evotrainer nodes list [--json]";

/**
 * `evotrainer nodes sync <compute.yaml>` makes the database's GPU nodes, Kubernetes pools and Slurm clusters what the file says (entries
 * missing from it are disabled, not deleted: jobs refer to them); `nodes list` shows them, never a key.
 */
export async function nodesCommand(args: string[]): Promise<number> {
  const [sub, file] = args;
  if (sub !== "sync" && sub !== "list") throw new Error(usage);
  if (sub === "sync" && !file) throw new Error(usage);
  const env = loadCliEnv();
  const db = createDatabase(env.DATABASE_URL);
  try {
    if (sub === "sync") {
      const path = resolve(file!);
      const config = readComputeConfig(path);
      for (const node of config.nodes) await upsertGpuNode(db, { ...node, key: await keySource(node, dirname(path)) });
      for (const pool of config.pools) await upsertKubernetesPool(db, pool);
      for (const { login, enabled, ...settings } of config.clusters) {
        const reach = login === "local" ? login : { ...login, key: await keySource({ name: settings.name, key: login.key }, dirname(path)) };
        await upsertSlurmCluster(db, { name: settings.name, jobRoot: settings.jobRoot, enabled, settings, login: reach });
      }
      const names = [...config.nodes, ...config.pools, ...config.clusters].map((n) => n.name);
      const disabled = await db.gpuNode.updateMany({ where: { name: { notIn: names }, enabled: true }, data: { enabled: false } });
      console.log(
        `nodes: ${config.nodes.length} SSH node(s), ${config.pools.length} Kubernetes pool(s) and ${config.clusters.length} Slurm cluster(s) synced from ${file}${disabled.count > 0 ? `, ${disabled.count} not in it disabled` : ""}`,
      );
    }
    const nodes = await listGpuNodes(db);
    const busy = await db.job.findMany({ where: { state: { in: ["submitted", "running"] }, nodeId: { not: null } }, select: { nodeId: true, gpuIndexes: true } });
    if (args.includes("--json")) {
      console.log(JSON.stringify(nodes.map((node) => ({ ...node, gpusInUse: busy.filter((j) => j.nodeId === node.id).flatMap((j) => j.gpuIndexes) })), null, 2));
    } else {
      for (const node of nodes) console.log(describe(node, busy.filter((j) => j.nodeId === node.id).flatMap((j) => j.gpuIndexes).length));
    }
    return 0;
  } finally {
    await db.$disconnect();
  }
}

/** A key to store is read here, once, and sealed before it is written; paths are relative to the config file. */
async function keySource(node: Pick<SshNodeConfig, "name" | "key">, base: string): Promise<SshKeySource> {
  const at = (path: string) => (path.startsWith("~/") ? join(homedir(), path.slice(2)) : resolve(base, path));
  if ("path" in node.key) return { path: at(node.key.path) };
  if ("env" in node.key) return { env: node.key.env };
  const file = at(node.key.store);
  const text = await readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
    throw new Error(`node ${node.name}: cannot read key.store file ${file} (${error.code ?? error.message})`);
  });
  return { stored: text };
}

function describe(node: GpuNodeSummary, gpusInUse: number): string {
  if (node.executor === "slurm") {
    const cluster = node.pool as { partition?: string };
    const login = node.host ? `${node.user}@${node.host}:${node.port}` : "local login";
    return [node.name.padEnd(16), `slurm ${login}`.padEnd(32), `partition ${cluster.partition ?? "(default)"}`, node.workRoot, node.enabled ? "" : "(disabled)"].join("  ").trimEnd();
  }
  if (node.executor === "kubernetes") {
    const pool = node.pool as { namespace: string; image: string };
    return [node.name.padEnd(16), `kubernetes ${pool.namespace}`.padEnd(32), pool.image, node.enabled ? "" : "(disabled)"].join("  ").trimEnd();
  }
  const labels = Object.entries(node.labels as Record<string, string>).map(([k, v]) => `${k}=${v}`).join(",") || "-";
  return [node.name.padEnd(16), `${node.user}@${node.host}:${node.port}`.padEnd(32), `${gpusInUse}/${node.gpuCount} GPUs in use`.padEnd(18), `key: ${node.keySource}`.padEnd(12), labels, node.enabled ? "" : "(disabled)"].join("  ").trimEnd();
}
