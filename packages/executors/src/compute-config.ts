import { z } from "zod";
import { kubernetesPoolSchema } from "./kubernetes/kubernetes-pool.ts";
import { slurmClusterSchema } from "./slurm/slurm-cluster.ts";

/** One GPU node reached over SSH, as written in the compute config (`evotrainer nodes sync compute.yaml`). */
export const sshNodeConfigSchema = z.strictObject({
  name: z.string().regex(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/, "lowercase letters, digits and dashes"),
  host: z.string().min(1),
  port: z.number().int().min(1).max(65_535).default(22),
  user: z.string().min(1),
  // Never the key's text itself: a file or variable the worker reads, or a file the CLI seals into the database.
  key: z.union([
    z.strictObject({ path: z.string().min(1) }),
    z.strictObject({ env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "an environment variable name") }),
    z.strictObject({ store: z.string().min(1) }),
  ]),
  gpus: z.number().int().min(0),
  labels: z.record(z.string(), z.string()).default({}),
  // Absolute, because trainers resolve checkpoint paths themselves and SFTP does not expand "~".
  workRoot: z.string().startsWith("/", "an absolute path on the node"),
  enabled: z.boolean().default(true),
});
export type SshNodeConfig = z.infer<typeof sshNodeConfigSchema>;

export const computeConfigSchema = z.strictObject({
  nodes: z.array(sshNodeConfigSchema).default([]),
  // Kubernetes node pools a run picks with `executor: kubernetes` and `resources.pool`; the cluster is the worker's KUBECONFIG.
  pools: z.array(kubernetesPoolSchema).default([]),
  // Slurm clusters a run picks with `executor: slurm` and `resources.cluster`; their scheduler places the jobs.
  clusters: z.array(slurmClusterSchema).default([]),
});
export type ComputeConfig = z.infer<typeof computeConfigSchema>;
