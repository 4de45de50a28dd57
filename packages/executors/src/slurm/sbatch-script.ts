import { jobFiles } from "../job-dir.ts";
import { shellJoin, shellQuote } from "../ssh/shell-quote.ts";
import { timeLimitMinutes, type SlurmCluster } from "./slurm-cluster.ts";

/** The Slurm job name of one attempt of a job: how a launch that crashed before recording the id finds it again. */
export function slurmJobName(jobId: string, attempt: number): string {
  return `evo-${jobId}-a${attempt}`;
}

export interface SbatchJob {
  jobId: string;
  attempt: number;
  workDir: string;
  command: readonly string[];
  env: Record<string, string>;
  gpus: number;
  /** Wall-clock seconds the run's budget leaves the job; the script asks for the smaller of this and the cluster's limit. */
  deadlineSeconds: number;
}

/** Minutes the job asks for: the cluster's time limit, or less when the run's remaining budget is less. */
export function sbatchMinutes(cluster: SlurmCluster, deadlineSeconds: number): number {
  const limit = typeof cluster.timeLimit === "number" ? cluster.timeLimit : timeLimitMinutes(cluster.timeLimit)!;
  return Math.max(1, Math.min(limit, Math.ceil(deadlineSeconds / 60)));
}

/**
 * The batch script of one attempt. Slurm writes the script's output to job.log (appended, so a retry
 * keeps the last attempt's lines) and runs it in the job's directory; the script leaves the same
 * markers as the SSH wrapper (`started`, then `exit_code`), so the job's fate outlives the
 * controller's memory of it (MinJobAge), and exits with the command's code so that Slurm's
 * state (COMPLETED or FAILED) agrees with it.
 */
export function sbatchScript(cluster: SlurmCluster, job: SbatchJob): string {
  for (const name of Object.keys(job.env)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`job ${job.jobId}: environment variable name "${name}" is not a valid shell name`);
  }
  if (job.command.length === 0) throw new Error(`job ${job.jobId}: the command is empty`);
  const gres = job.gpus > 0 ? [`--gres=gpu:${cluster.gpuType ? `${cluster.gpuType}:` : ""}${job.gpus}`] : [];
  const options = [
    `--job-name=${slurmJobName(job.jobId, job.attempt)}`,
    `--chdir=${job.workDir}`,
    `--output=${job.workDir}/${jobFiles.log}`,
    "--open-mode=append",
    "--nodes=1",
    "--ntasks=1",
    `--time=${sbatchMinutes(cluster, job.deadlineSeconds)}`,
    ...(cluster.partition ? [`--partition=${cluster.partition}`] : []),
    ...(cluster.account ? [`--account=${cluster.account}`] : []),
    ...(cluster.qos ? [`--qos=${cluster.qos}`] : []),
    ...gres,
    ...cluster.extraSbatch,
  ];
  const env = { ...job.env, EVO_JOB_DIR: job.workDir };
  return [
    "#!/bin/sh",
    `# EvoTrainer job ${job.jobId}, attempt ${job.attempt}`,
    ...options.map((option) => `#SBATCH ${option}`),
    `cd ${shellQuote(job.workDir)} || exit 2`,
    `: > ${jobFiles.started}`,
    ...Object.entries(env).map(([name, value]) => `export ${name}=${shellQuote(value)}`),
    shellJoin(job.command),
    "code=$?",
    `echo $code > ${jobFiles.exitCode}.tmp && mv ${jobFiles.exitCode}.tmp ${jobFiles.exitCode}`,
    'exit "$code"',
    "",
  ].join("\n");
}
