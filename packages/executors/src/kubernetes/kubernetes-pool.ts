import { join, posix } from "node:path";
import { z } from "zod";

const absolutePath = z.string().refine((path) => posix.isAbsolute(path), { error: "must be an absolute path" });

/** A Kubernetes node pool jobs can be sent to: where the Jobs go, what they run, where their files live. */
export const kubernetesPoolSchema = z.strictObject({
  name: z.string().min(1),
  // A namespace name is a DNS-1123 label.
  namespace: z.string().regex(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, { error: "must be a DNS-1123 label" }),
  /** The trainer image; it needs `sh` and `tee` besides the trainer. */
  image: z.string().min(1),
  nodeSelector: z.record(z.string(), z.string()).default({}),
  tolerations: z
    .array(
      z.strictObject({
        key: z.string().optional(),
        operator: z.enum(["Exists", "Equal"]).optional(),
        value: z.string().optional(),
        effect: z.enum(["NoSchedule", "PreferNoSchedule", "NoExecute"]).optional(),
        tolerationSeconds: z.number().int().optional(),
      }),
    )
    .default([]),
  serviceAccountName: z.string().min(1).optional(),
  imagePullSecrets: z.array(z.string().min(1)).optional(),
  /** Pod failures Kubernetes retries on its own before the Job fails (disruptions do not count). */
  backoffLimit: z.number().int().min(0).default(3),
  /**
   * Job directories live on a volume the control plane mounts too (a ReadWriteMany PVC: NFS, CephFS,
   * a cloud file store), so the control plane reads a job's outputs as plain files while it runs.
   */
  artifacts: z.strictObject({
    claimName: z.string().min(1),
    /** Where the pods mount the claim. */
    mountPath: absolutePath,
    /** Where the control plane has the same volume mounted. */
    localPath: absolutePath,
  }),
});
export type KubernetesPool = z.output<typeof kubernetesPoolSchema>;
export type KubernetesPoolInput = z.input<typeof kubernetesPoolSchema>;

/**
 * Where the control plane finds a job directory of this pool, given as the pods see it (the Job row's
 * outputUri); throws for a directory that is not one of the pool's job directories.
 */
export function localJobDir(pool: Pick<KubernetesPool, "name" | "artifacts">, workDir: string): string {
  const jobId = posix.basename(workDir);
  if (posix.dirname(workDir) !== posix.normalize(pool.artifacts.mountPath) || !/^[A-Za-z0-9_-]+$/.test(jobId)) {
    throw new Error(`${workDir} is not a job directory of pool ${pool.name} (${pool.artifacts.mountPath})`);
  }
  return join(pool.artifacts.localPath, jobId);
}
