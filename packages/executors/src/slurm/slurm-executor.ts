import { posix } from "node:path";
import { isControllerUnreachable, isUnknownJob, parseScontrolJob, parseSinfo, SINFO_FORMAT, slurmJobEnded, slurmOutcome, type SinfoRow, type SlurmOutcome } from "@evotrainer/core";
import { statusSchema, type Status } from "@evotrainer/contract";
import { classifyEndedJob, LOG_TAIL_BYTES } from "../ended-job.ts";
import type { Executor, JobHandle, JobObservation, JobTimes, LaunchSpec, ProbeResult, ProbeSpec, RemoteFile } from "../executor.ts";
import type { WeightsPlace } from "../job-weights.ts";
import { checkJobId, jobFiles } from "../job-dir.ts";
import { checkProbe, PROBE_SCRIPT } from "../probe-dir.ts";
import { NodeUnreachableError } from "../ssh/node-unreachable.ts";
import { jobTimesScript, parseJobTimes } from "../ssh/remote-scripts.ts";
import { shellJoin, shellQuote } from "../ssh/shell-quote.ts";
import { localLogin, sshLogin, type LoginNode } from "./login-node.ts";
import { SshConnection } from "../ssh/ssh-connection.ts";
import type { SshNode } from "../ssh/ssh-node.ts";
import { sbatchMinutes, sbatchScript, slurmJobName } from "./sbatch-script.ts";
import { slurmSettingsSchema, type SlurmCluster } from "./slurm-cluster.ts";

/** Files the Slurm executor keeps in a job's directory, beside the shared ones (job.log, exit_code, started, cancelled, attempt). */
export const slurmFiles = { script: "job.sbatch", jobId: "slurm_job_id" } as const;

export interface SlurmExecutorOptions {
  /** How long a cancelled job gets to leave the queue after scancel (Slurm's KillWait and epilog included). */
  cancelWaitMs?: number;
  log?: (line: string) => void;
}

type Failed = Extract<JobObservation, { state: "failed" }>;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The handle's Slurm job id, checked: it goes into shell commands. */
function slurmIdOf(handle: JobHandle): string {
  if (!/^[1-9][0-9]*$/.test(handle.externalId)) throw new Error(`job handle for ${handle.workDir} has no valid Slurm job id: "${handle.externalId}"`);
  return handle.externalId;
}

/** `relative` under `workDir`, refused when it would land outside (absolute, `..`). */
function inside(workDir: string, relative: string, what: string): string {
  const path = posix.join(workDir, relative);
  if (posix.isAbsolute(relative) || (path !== workDir && !path.startsWith(`${workDir}/`))) {
    throw new Error(`${what} "${relative}" would land outside the job directory`);
  }
  return path;
}

function parseStatus(text: string | null): Status | null {
  if (text === null) return null;
  try {
    return statusSchema.safeParse(JSON.parse(text)).data ?? null;
  } catch {
    return null;
  }
}

const integer = (text: string | null) => (/^\s*-?[0-9]+\s*$/.test(text ?? "") ? Number(text) : null);

/**
 * Runs each attempt of a job as one Slurm batch job, submitted with sbatch from the cluster's login
 * node (this machine, or one reached over SSH), in `${jobRoot}/${jobId}` on the shared filesystem.
 * The controller's view (`scontrol show job`) says whether it waits, runs or ended and why; the
 * script's own markers in the job directory say how the command exited, and outlive the
 * controller's memory of the job.
 */
export class SlurmExecutor implements Executor {
  readonly #jobRoot: string;
  readonly #cancelWaitMs: number;
  readonly #log: (line: string) => void;
  /** When the controller stopped answering, while it does not; for saying so once, not each look. */
  #controllerLostAt: number | null = null;

  constructor(
    private readonly clusterName: string,
    private readonly cluster: SlurmCluster,
    private readonly login: LoginNode,
    options: SlurmExecutorOptions = {},
  ) {
    this.#jobRoot = posix.normalize(cluster.jobRoot);
    this.#cancelWaitMs = options.cancelWaitMs ?? 60_000;
    this.#log = options.log ?? (() => {});
  }

  get description(): string {
    return `Slurm cluster "${this.clusterName}" via ${this.login.description}`;
  }

  workDirFor(jobId: string): string {
    return posix.join(this.#jobRoot, checkJobId(jobId));
  }

  async #mustExec(script: string, what: string): Promise<string> {
    const result = await this.login.exec(script);
    if (result.code !== 0) throw new Error(`${this.description}: could not ${what} (exit ${result.code}): ${result.stderr.trim() || result.stdout.trim()}`);
    return result.stdout;
  }

  async launch(spec: LaunchSpec): Promise<JobHandle> {
    const workDir = this.workDirFor(spec.jobId);
    const files = Object.entries(spec.files).map(([relative, content]) => ({ path: inside(workDir, relative, "file"), content }));
    const script = sbatchScript(this.cluster, { jobId: spec.jobId, attempt: spec.attempt, workDir, command: spec.command, env: spec.env, gpus: spec.gpus, deadlineSeconds: spec.deadlineSeconds });
    const adopted = await this.#adopt(workDir, spec);
    if (adopted) {
      this.#log(`${this.description}: job ${spec.jobId} attempt ${spec.attempt} is already Slurm job ${adopted.externalId}; adopted`);
      return adopted;
    }
    // The last attempt's Slurm job may still sit in the queue (Slurm requeued it): it must not run beside this one.
    const previous = integer(await this.login.readText(posix.join(workDir, slurmFiles.jobId)));
    if (previous !== null) await this.login.exec(`scancel ${previous}`);
    const markers = [jobFiles.exitCode, jobFiles.cancelled, jobFiles.started, slurmFiles.jobId].map((name) => posix.join(workDir, name));
    const dirs = [posix.join(workDir, "output"), ...new Set(files.map(({ path }) => posix.dirname(path)))];
    await this.#mustExec(`mkdir -p -- ${shellJoin(dirs)} && rm -f -- ${shellJoin(markers)}`, `prepare ${workDir}`);
    for (const { path, content } of files) await this.login.writeFile(path, content);
    await this.login.writeFile(posix.join(workDir, slurmFiles.script), script);
    await this.login.writeFile(posix.join(workDir, jobFiles.attempt), String(spec.attempt));
    const answer = await this.#mustExec(`cd ${shellQuote(workDir)} && sbatch --parsable ${slurmFiles.script}`, `submit job ${spec.jobId} with sbatch`);
    // `--parsable` prints "<id>" or "<id>;<cluster>".
    const slurmId = /^([0-9]+)(;\S+)?\s*$/.exec(answer.trim())?.[1];
    if (!slurmId) throw new Error(`${this.description}: sbatch submitted job ${spec.jobId} but printed no job id: "${answer.trim()}"`);
    await this.login.writeFile(posix.join(workDir, slurmFiles.jobId), slurmId);
    this.#log(`${this.description}: job ${spec.jobId} attempt ${spec.attempt} submitted as Slurm job ${slurmId} (--time=${sbatchMinutes(this.cluster, spec.deadlineSeconds)} min)`);
    return { executor: "slurm", externalId: slurmId, workDir };
  }

  /**
   * The handle of this attempt when it was already submitted, so a repeated launch submits nothing:
   * by the id the directory records, or, when the launch crashed between sbatch and recording it,
   * by the attempt's job name in the queue.
   */
  async #adopt(workDir: string, spec: LaunchSpec): Promise<JobHandle | null> {
    const [recorded, launched] = await Promise.all([slurmFiles.jobId, jobFiles.attempt].map(async (name) => integer(await this.login.readText(posix.join(workDir, name)))));
    if (launched === spec.attempt && recorded !== null) return { executor: "slurm", externalId: String(recorded), workDir };
    if (launched !== spec.attempt) return null;
    const queued = await this.login.exec(`squeue -h --name=${slurmJobName(spec.jobId, spec.attempt)} -o %i`);
    const found = queued.code === 0 ? queued.stdout.trim().split("\n")[0]?.trim() : undefined;
    if (!found || !/^[0-9]+$/.test(found)) return null;
    await this.login.writeFile(posix.join(workDir, slurmFiles.jobId), found);
    return { executor: "slurm", externalId: found, workDir };
  }

  /**
   * While the controller (or the login node) cannot be reached, the job is presumed running: the
   * compute nodes run on without slurmctld, and its state is read again once it answers.
   */
  async observe(handle: JobHandle): Promise<JobObservation> {
    const slurmId = slurmIdOf(handle);
    let result;
    try {
      result = await this.login.exec(`scontrol show job -o ${slurmId}`);
    } catch (error) {
      if (!(error instanceof NodeUnreachableError)) throw error;
      return this.#waitingForController(`${error.message}`);
    }
    if (result.code !== 0 && isControllerUnreachable(result.stderr)) return this.#waitingForController(result.stderr.trim());
    if (this.#controllerLostAt !== null) {
      this.#log(`${this.description}: slurmctld answers again after ${Math.round((Date.now() - this.#controllerLostAt) / 1000)} s; watching its jobs again`);
      this.#controllerLostAt = null;
    }
    if (result.code !== 0 && isUnknownJob(result.stderr)) return this.#forgotten(handle, slurmId);
    if (result.code !== 0) throw new Error(`${this.description}: scontrol show job ${slurmId} failed (exit ${result.code}): ${result.stderr.trim()}`);
    const job = parseScontrolJob(result.stdout);
    if (!job) return this.#forgotten(handle, slurmId);
    return this.#observation(handle, slurmId, slurmOutcome(job));
  }

  #waitingForController(why: string): JobObservation {
    if (this.#controllerLostAt === null) {
      this.#controllerLostAt = Date.now();
      this.#log(`${this.description}: slurmctld cannot be reached (${why}); its jobs are presumed running and looked at again until it answers`);
    }
    return { state: "running" };
  }

  async #observation(handle: JobHandle, slurmId: string, outcome: SlurmOutcome): Promise<JobObservation> {
    const where = `Slurm job ${slurmId} on cluster "${this.clusterName}"`;
    const failed = (failure: Omit<Failed, "state">): Failed => ({ state: "failed", ...failure });
    switch (outcome.kind) {
      case "pending":
      case "running":
        return { state: "running" };
      case "completed":
      case "failed":
        // The script's own exit code and the trainer's status.json say more than Slurm's state.
        return this.#ended(handle, outcome.kind === "failed" ? `${where} ended ${outcome.state} with exit code ${outcome.exitCode}${outcome.signal ? ` (signal ${outcome.signal})` : ""}` : null);
      case "timeout":
        return failed({ exitCode: null, failureClass: "deadline_exceeded", retriable: false, message: `${where} was stopped by Slurm at its time limit of ${outcome.timeLimit} (the cluster's timeLimit, or less when the run's remaining budget was less): raise timeLimit in the compute config or train fewer steps per job` });
      case "cancelled":
        if (await this.login.exists(posix.join(handle.workDir, jobFiles.cancelled))) return { state: "cancelled" };
        return failed({ exitCode: null, failureClass: "crash", retriable: false, message: `${where} was cancelled in Slurm outside EvoTrainer (scancel${outcome.by ? ` by uid ${outcome.by}` : "; scontrol does not say by whom, sacct does"}): not retried` });
      case "out_of_memory":
        return failed({ exitCode: null, failureClass: "oom", retriable: false, message: `${where} ran out of its memory allocation and Slurm ended it (OUT_OF_MEMORY): ask for more with --mem in the cluster's extraSbatch` });
      case "infrastructure":
        // Slurm would run a requeued job again on its own, beside the retry: it is cancelled first.
        if (outcome.cause === "requeued") await this.#scancelUntilEnded(slurmId);
        return failed({ exitCode: null, failureClass: outcome.cause === "preempted" || outcome.cause === "requeued" ? "preempted" : "node_lost", retriable: true, message: `${where} was ${outcome.detail}: an infrastructure failure, retried` });
    }
  }

  /** A job whose batch script is done: classified by its markers, as every executor's are. */
  async #ended(handle: JobHandle, slurmSays: string | null): Promise<JobObservation> {
    const read = (name: string) => this.login.readText(posix.join(handle.workDir, name));
    const exitCode = integer(await read(jobFiles.exitCode));
    const observation = await classifyEndedJob({
      exitCode,
      cancelled: await this.login.exists(posix.join(handle.workDir, jobFiles.cancelled)),
      status: async () => parseStatus(await read(jobFiles.status)),
      logTail: () => this.login.readTail(posix.join(handle.workDir, jobFiles.log), LOG_TAIL_BYTES),
    });
    if (observation.state !== "failed" || slurmSays === null) return observation;
    return exitCode === null ? { ...observation, message: `${slurmSays}; the job's command left no exit code` } : observation;
  }

  /** The controller no longer knows the job (purged after MinJobAge, or a fresh controller state): its markers decide. */
  async #forgotten(handle: JobHandle, slurmId: string): Promise<JobObservation> {
    const exitCode = integer(await this.login.readText(posix.join(handle.workDir, jobFiles.exitCode)));
    if (exitCode !== null) return this.#ended(handle, null);
    if (await this.login.exists(posix.join(handle.workDir, jobFiles.cancelled))) return { state: "cancelled" };
    return {
      state: "failed",
      exitCode: null,
      failureClass: "node_lost",
      retriable: true,
      message: `Slurm job ${slurmId} on cluster "${this.clusterName}" is unknown to slurmctld and its command left no exit code (its state was lost, or it ended long ago)`,
    };
  }

  async list(handle: JobHandle, relativeDir: string): Promise<RemoteFile[]> {
    inside(handle.workDir, relativeDir, "directory");
    return this.login.listFiles(handle.workDir, relativeDir);
  }

  async readFrom(handle: JobHandle, relativePath: string, byteOffset: number, maxBytes: number): Promise<Buffer> {
    return this.login.readRange(inside(handle.workDir, relativePath, "file"), byteOffset, maxBytes);
  }

  logTail(handle: JobHandle, maxBytes: number): Promise<string> {
    return this.login.readTail(posix.join(handle.workDir, jobFiles.log), maxBytes);
  }

  /** The script's start marker and exit code, by the shared filesystem's clock as the login node sees it. */
  async times(handle: JobHandle): Promise<JobTimes | null> {
    return parseJobTimes(await this.#mustExec(jobTimesScript(handle.workDir), `read the job's times in ${handle.workDir}`));
  }

  /** Retention's reach into a job directory on the shared filesystem; a directory outside the job root is refused. */
  weightsPlace(workDir: string): WeightsPlace {
    const jobDir = posix.normalize(workDir);
    if (posix.dirname(jobDir) !== this.#jobRoot) throw new Error(`${workDir} is not a job directory under ${this.#jobRoot} of ${this.description}`);
    return { files: this.login.weightsFiles(), outputDir: posix.join(jobDir, "output") };
  }

  /** scancel, with the marker that makes its end a cancellation; returns once Slurm no longer runs it. */
  async cancel(handle: JobHandle): Promise<void> {
    const slurmId = slurmIdOf(handle);
    await this.login.writeFile(posix.join(handle.workDir, jobFiles.cancelled), slurmId);
    await this.#scancelUntilEnded(slurmId);
  }

  /**
   * scancel until Slurm is done with the job. It is sent again at each look: a job being requeued
   * ignores it while COMPLETING and would otherwise wait in the queue, to run again unseen.
   */
  async #scancelUntilEnded(slurmId: string): Promise<void> {
    const deadline = Date.now() + this.#cancelWaitMs;
    while (Date.now() < deadline) {
      await this.#mustExec(`scancel ${slurmId}`, `cancel Slurm job ${slurmId}`);
      const { code, stdout, stderr } = await this.login.exec(`scontrol show job -o ${slurmId}`);
      const job = code === 0 ? parseScontrolJob(stdout) : null;
      if ((code !== 0 && isUnknownJob(stderr)) || (job && slurmJobEnded(job))) return;
      if (code !== 0 && !isControllerUnreachable(stderr)) throw new Error(`${this.description}: scontrol show job ${slurmId} failed (exit ${code}): ${stderr.trim()}`);
      await sleep(200);
    }
    throw new Error(`${this.description}: Slurm job ${slurmId} was still queued or running ${Math.round(this.#cancelWaitMs / 1000)} s after scancel`);
  }

  /**
   * Runs a probe on a compute node with srun (the cluster's partition, account and QoS, one minute),
   * in `${jobRoot}/.probes/<id>` on the shared filesystem, and removes the directory.
   */
  async probe(spec: ProbeSpec): Promise<ProbeResult> {
    checkProbe(spec);
    const dir = posix.join(this.#jobRoot, ".probes", spec.id);
    const options = [
      "--nodes=1",
      "--ntasks=1",
      `--time=${Math.max(1, Math.ceil(spec.timeoutSeconds / 60))}`,
      `--job-name=evo-probe-${spec.id}`,
      ...(this.cluster.partition ? [`--partition=${this.cluster.partition}`] : []),
      ...(this.cluster.account ? [`--account=${this.cluster.account}`] : []),
      ...(this.cluster.qos ? [`--qos=${this.cluster.qos}`] : []),
    ];
    await this.#mustExec(`mkdir -p -- ${shellQuote(dir)}`, `prepare ${dir}`);
    try {
      for (const [name, content] of Object.entries(spec.files)) await this.login.writeFile(posix.join(dir, name), content);
      const result = await this.login.exec([`srun ${shellJoin(options)}`, "sh", "-c", shellQuote(PROBE_SCRIPT), shellQuote(dir), shellJoin(spec.command)].join(" "), { stdin: spec.stdin, timeoutMs: spec.timeoutSeconds * 1_000 });
      return { exitCode: result.code, stdout: result.stdout, stderr: result.stderr, where: this.description };
    } finally {
      await this.login.exec(`rm -rf -- ${shellQuote(dir)}`).catch(() => {});
    }
  }

  /** The cluster's partition (or every partition, without one configured) as sinfo shows it. */
  async partitions(): Promise<SinfoRow[]> {
    const only = this.cluster.partition ? ` --partition=${this.cluster.partition}` : "";
    return parseSinfo(await this.#mustExec(`sinfo -h -o ${shellQuote(SINFO_FORMAT)}${only}`, "list its partitions with sinfo"));
  }

  close(): Promise<void> {
    return this.login.close();
  }
}

/**
 * The executor of a cluster's row: its settings as stored (checked again here, as everything read
 * back from the database is), and its login node, this machine or one over SSH.
 */
export function connectSlurm(settings: unknown, login: "local" | SshNode, options: SlurmExecutorOptions = {}): SlurmExecutor {
  const cluster = slurmSettingsSchema.parse(settings);
  const node =
    login === "local"
      ? localLogin()
      : sshLogin(new SshConnection(login, { connectTimeoutMs: 10_000, reconnect: { initialDelayMs: 1_000, maxDelayMs: 60_000 }, log: options.log ?? (() => {}) }));
  return new SlurmExecutor(cluster.name, cluster, node, options);
}
