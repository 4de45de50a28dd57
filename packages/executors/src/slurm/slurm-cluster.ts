import { z } from "zod";

// Partition, account and QoS names go into #SBATCH lines: no spaces, quotes or newlines.
const slurmName = z.string().regex(/^[A-Za-z0-9_.,:+-]+$/, "a Slurm name: letters, digits and _ . , : + -");

/** Slurm's time formats (`minutes`, `MM:SS`, `HH:MM:SS`, `D-HH`, `D-HH:MM`, `D-HH:MM:SS`) in whole minutes, rounded up as Slurm does. */
export function timeLimitMinutes(text: string): number | null {
  const days = /^(\d+)-(\d+)(?::(\d+))?(?::(\d+))?$/.exec(text);
  if (days) {
    const [d, h, m = "0", s = "0"] = days.slice(1) as [string, string, string?, string?];
    return Number(d) * 1440 + Number(h) * 60 + Number(m) + Math.ceil(Number(s) / 60);
  }
  const parts = /^\d+(?::\d+){0,2}$/.test(text) ? text.split(":").map(Number) : null;
  if (!parts) return null;
  if (parts.length === 1) return parts[0]!;
  if (parts.length === 2) return parts[0]! + Math.ceil(parts[1]! / 60);
  return parts[0]! * 60 + parts[1]! + Math.ceil(parts[2]! / 60);
}

/**
 * A Slurm cluster as written in the compute config (`clusters:`): where the worker runs sbatch (its
 * login node over SSH, or `local` when the worker runs on a login node), the job directories on the
 * cluster's shared filesystem, and what every job's script asks of the scheduler.
 */
export const slurmClusterSchema = z.strictObject({
  name: z.string().regex(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/, "lowercase letters, digits and dashes"),
  login: z.union([
    z.literal("local"),
    z.strictObject({
      host: z.string().min(1),
      port: z.number().int().min(1).max(65_535).default(22),
      user: z.string().min(1),
      // As an SSH node's key: a file or variable the worker reads, or a file the CLI seals into the database.
      key: z.union([
        z.strictObject({ path: z.string().min(1) }),
        z.strictObject({ env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "an environment variable name") }),
        z.strictObject({ store: z.string().min(1) }),
      ]),
    }),
  ]),
  // On the shared filesystem, the same path on the login node and on every compute node; absolute,
  // because sbatch's --chdir and --output take it as written. No whitespace: #SBATCH lines split on it.
  jobRoot: z.string().startsWith("/", "an absolute path on the cluster's shared filesystem").regex(/^[^\s'"\\]+$/, "a path without whitespace, quotes or backslashes"),
  partition: slurmName.optional(),
  account: slurmName.optional(),
  qos: slurmName.optional(),
  // The most a job may run; a run's remaining budget can make it shorter. Slurm counts whole minutes.
  timeLimit: z.union([z.number().int().min(1), z.string().refine((text) => timeLimitMinutes(text) !== null, "a Slurm time: minutes, HH:MM:SS or D-HH:MM:SS")]).default("1-00:00:00"),
  // The GRES name of a GPU (`--gres=gpu:N`, or `gpu:<type>:N` with a type).
  gpuType: slurmName.optional(),
  // Further #SBATCH options, one a line, as sbatch takes them (`--constraint=a100`, `--mem=64G`).
  extraSbatch: z.array(z.string().regex(/^--?[A-Za-z][^\n\r]*$/, "one sbatch option starting with - or --, on one line")).default([]),
  enabled: z.boolean().default(true),
});
export type SlurmClusterConfig = z.infer<typeof slurmClusterSchema>;

/** What the executor needs of a cluster (its row's settings): everything but how to reach the login node. */
export type SlurmCluster = Omit<SlurmClusterConfig, "login" | "enabled">;

/** The settings kept in the cluster's row (`pool`): the config without its login and its enabled flag. */
export const slurmSettingsSchema = slurmClusterSchema.omit({ login: true, enabled: true });
