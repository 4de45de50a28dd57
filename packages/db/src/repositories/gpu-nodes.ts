import { readFile } from "node:fs/promises";
import type { Database } from "../client.ts";
import type { GpuNode, Prisma } from "../generated/prisma/client.ts";
import { masterKeyFrom, openSecret, sealSecret } from "../secrets/secret-box.ts";

/** Where a node's SSH private key comes from; the key itself is only ever held in the worker's memory. */
export type SshKeySource =
  | { path: string } // read from this file on the worker's machine at connect time
  | { env: string } // the key's text is in this environment variable of the worker
  | { stored: string }; // the key's text, sealed under EVO_MASTER_KEY before it reaches the database

export interface GpuNodeInput {
  name: string;
  host: string;
  port: number;
  user: string;
  key: SshKeySource;
  gpus: number;
  labels: Record<string, string>;
  workRoot: string;
  enabled: boolean;
}

/** A node as listed to people and the API: everything but its key material. */
export type GpuNodeSummary = Omit<GpuNode, "encryptedKey" | "keyRef"> & { keySource: "path" | "env" | "stored" | "none" };

/** Creates or updates the node of that name (configuration is the source; running it twice changes nothing). */
export async function upsertGpuNode(db: Database, input: GpuNodeInput, env: Record<string, string | undefined> = process.env): Promise<GpuNodeSummary> {
  const key =
    "stored" in input.key
      ? { keyRef: null, encryptedKey: new Uint8Array(sealSecret(input.key.stored, masterKeyFrom(env), input.name)) }
      : { keyRef: "path" in input.key ? `path:${input.key.path}` : `env:${input.key.env}`, encryptedKey: null };
  const data = { executor: "ssh" as const, host: input.host, port: input.port, user: input.user, gpuCount: input.gpus, labels: input.labels, workRoot: input.workRoot, enabled: input.enabled, ...key };
  const node = await db.gpuNode.upsert({ where: { name: input.name }, update: data, create: { name: input.name, ...data } });
  return summarize(node);
}

/** A Kubernetes node pool, kept as a row of its own so jobs can point at the pool they run in. */
export async function upsertKubernetesPool(db: Database, pool: { name: string } & Record<string, unknown>): Promise<GpuNodeSummary> {
  const data = { executor: "kubernetes" as const, gpuCount: 0, pool: pool as Prisma.InputJsonObject, enabled: true, host: null, user: null, keyRef: null, encryptedKey: null };
  return summarize(await db.gpuNode.upsert({ where: { name: pool.name }, update: data, create: { name: pool.name, ...data } }));
}

/** How the worker reaches a Slurm cluster's login node: this machine, or over SSH with a key as an SSH node's. */
export type SlurmLoginInput = "local" | { host: string; port: number; user: string; key: SshKeySource };

/**
 * A Slurm cluster, kept as a row of its own so jobs can point at the cluster they run on: its
 * scheduler settings in `pool`, its shared job root as `workRoot`, its login node (when not this
 * machine) as an SSH node's host, port, user and key.
 */
export async function upsertSlurmCluster(
  db: Database,
  cluster: { name: string; jobRoot: string; enabled: boolean; settings: Record<string, unknown>; login: SlurmLoginInput },
  env: Record<string, string | undefined> = process.env,
): Promise<GpuNodeSummary> {
  const { login } = cluster;
  const where =
    login === "local"
      ? { host: null, port: 22, user: null, keyRef: null, encryptedKey: null }
      : {
          host: login.host,
          port: login.port,
          user: login.user,
          ...("stored" in login.key
            ? { keyRef: null, encryptedKey: new Uint8Array(sealSecret(login.key.stored, masterKeyFrom(env), cluster.name)) }
            : { keyRef: "path" in login.key ? `path:${login.key.path}` : `env:${login.key.env}`, encryptedKey: null }),
        };
  const data = { executor: "slurm" as const, gpuCount: 0, pool: cluster.settings as Prisma.InputJsonObject, workRoot: cluster.jobRoot, enabled: cluster.enabled, ...where };
  return summarize(await db.gpuNode.upsert({ where: { name: cluster.name }, update: data, create: { name: cluster.name, ...data } }));
}

/**
 * What the worker last saw of a Slurm cluster's partitions (sinfo), for the nodes page. The row's
 * `updatedAt` is kept: it versions the cluster's configuration, and a changed one reconnects the worker.
 */
export async function recordSlurmPartitions(db: Database, cluster: Pick<GpuNode, "id" | "updatedAt">, partitions: readonly Record<string, unknown>[], seenAt: Date): Promise<void> {
  await db.gpuNode.update({ where: { id: cluster.id }, data: { partitions: partitions as Prisma.InputJsonArray, lastSeenAt: seenAt, updatedAt: cluster.updatedAt } });
}

export async function listGpuNodes(db: Database): Promise<GpuNodeSummary[]> {
  return (await db.gpuNode.findMany({ orderBy: { name: "asc" } })).map(summarize);
}

function summarize({ encryptedKey, keyRef, ...node }: GpuNode): GpuNodeSummary {
  const keySource = encryptedKey ? "stored" : keyRef?.startsWith("path:") ? "path" : keyRef?.startsWith("env:") ? "env" : "none";
  return { ...node, keySource };
}

/** The node's private key, from wherever its configuration says; errors name the node and what to fix. */
export async function sshPrivateKeyOf(node: Pick<GpuNode, "name" | "keyRef" | "encryptedKey">, env: Record<string, string | undefined> = process.env): Promise<string> {
  if (node.encryptedKey) return openSecret(node.encryptedKey, masterKeyFrom(env), node.name);
  const [kind, ref] = [node.keyRef?.slice(0, node.keyRef.indexOf(":")), node.keyRef?.slice(node.keyRef.indexOf(":") + 1)];
  if (kind === "path" && ref) {
    return readFile(ref, "utf8").catch((error: NodeJS.ErrnoException) => {
      throw new Error(`node ${node.name}: cannot read its SSH key file ${ref} (${error.code ?? error.message}) on the worker's machine`);
    });
  }
  if (kind === "env" && ref) {
    const key = env[ref];
    if (!key) throw new Error(`node ${node.name}: its SSH key is expected in the worker's environment variable ${ref}, which is not set`);
    return key;
  }
  throw new Error(`node ${node.name} has no SSH key configured: set key.path, key.env or key.stored in its configuration`);
}
