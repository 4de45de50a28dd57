import { posix } from "node:path";
import { statusSchema, type Status } from "@evotrainer/contract";
import { classifyEndedJob, LOG_TAIL_BYTES } from "../ended-job.ts";
import type { Executor, JobHandle, JobObservation, JobTimes, LaunchSpec, ProbeResult, ProbeSpec, RemoteFile } from "../executor.ts";
import type { WeightsPlace } from "../job-weights.ts";
import { checkJobId, jobFiles } from "../job-dir.ts";
import { checkProbe, PROBE_SCRIPT } from "../probe-dir.ts";
import type { Backoff } from "./backoff.ts";
import { jobEnv } from "./job-env.ts";
import { shellJoin, shellQuote } from "./shell-quote.ts";
import { NodeUnreachableError } from "./node-unreachable.ts";
import { groupAliveScript, jobTimesScript, parseJobTimes, prepareScript, signalGroupScript, startScript } from "./remote-scripts.ts";
import { exists, listFiles, readRange, readTail, readText, writeFile } from "./sftp-files.ts";
import { sftpWeightsFiles } from "./sftp-weights-files.ts";
import { SshConnection, type Session } from "./ssh-connection.ts";
import type { SshNode } from "./ssh-node.ts";

export interface SshExecutorOptions {
  /** How long one connection attempt may take. */
  connectTimeoutMs?: number;
  /** Waits between failed connection attempts: doubling from the initial delay up to the max. */
  reconnect?: Backoff;
  /** How long a node may stay unreachable before its jobs count as lost (retriable). */
  nodeLostAfterMs?: number;
  /** How long a cancelled job gets to stop after SIGTERM before SIGKILL. */
  cancelGraceMs?: number;
  log?: (line: string) => void;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The handle's pid, checked: it goes into shell commands and must name a process group. */
function pgidOf(handle: JobHandle): number {
  if (!/^[1-9][0-9]*$/.test(handle.externalId) || Number(handle.externalId) < 2) {
    throw new Error(`job handle for ${handle.workDir} has no valid pid: "${handle.externalId}"`);
  }
  return Number(handle.externalId);
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

function parseInteger(text: string | null): number | null {
  const trimmed = text?.trim() ?? "";
  return /^-?[0-9]+$/.test(trimmed) ? Number(trimmed) : null;
}

/**
 * Runs jobs on a machine reached over SSH, each in `${workRoot}/${jobId}`. Jobs are started detached
 * and leave their fate in files (pid, exit_code, status.json), so neither a dropped connection nor a
 * restart of the control plane loses them; everything is read back over SFTP.
 */
export class SshExecutor implements Executor {
  readonly #connection: SshConnection;
  readonly #workRoot: string;
  readonly #nodeLostAfterMs: number;
  readonly #cancelGraceMs: number;
  readonly #log: (line: string) => void;

  constructor(node: SshNode, options: SshExecutorOptions = {}) {
    if (!posix.isAbsolute(node.workRoot)) throw new Error(`ssh node "${node.name}": workRoot must be an absolute path, got "${node.workRoot}"`);
    this.#workRoot = posix.normalize(node.workRoot);
    this.#nodeLostAfterMs = options.nodeLostAfterMs ?? 300_000;
    this.#cancelGraceMs = options.cancelGraceMs ?? 10_000;
    this.#log = options.log ?? (() => {});
    this.#connection = new SshConnection(node, {
      connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
      reconnect: options.reconnect ?? { initialDelayMs: 1_000, maxDelayMs: 60_000 },
      log: this.#log,
    });
  }

  workDirFor(jobId: string): string {
    return posix.join(this.#workRoot, checkJobId(jobId));
  }

  async launch(spec: LaunchSpec): Promise<JobHandle> {
    const workDir = this.workDirFor(spec.jobId);
    if (spec.command.length === 0) throw new Error(`job ${spec.jobId}: the command is empty`);
    const files = Object.entries(spec.files).map(([relative, content]) => ({ path: inside(workDir, relative, "file"), content }));
    const env = jobEnv(spec, workDir);
    const dirs = [posix.join(workDir, "output"), ...new Set(files.map(({ path }) => posix.dirname(path)))];
    return this.#connection.run(`launch of job ${spec.jobId}`, async (session) => {
      const adopted = await this.#adopt(session, workDir, spec.attempt);
      if (adopted) {
        this.#log(`${this.#connection.description}: job ${spec.jobId} attempt ${spec.attempt} already runs as pid ${adopted.externalId}; adopted`);
        return adopted;
      }
      await this.#mustExec(session, prepareScript(workDir, dirs), `prepare ${workDir}`);
      for (const { path, content } of files) await writeFile(session.sftp, path, content);
      await writeFile(session.sftp, posix.join(workDir, jobFiles.attempt), String(spec.attempt));
      const pid = parseInteger(await this.#mustExec(session, startScript(workDir, spec.command, env), `start job ${spec.jobId}`));
      if (pid === null) throw new Error(`job ${spec.jobId} was started but reported no pid`);
      this.#log(`${this.#connection.description}: job ${spec.jobId} attempt ${spec.attempt} started as pid ${pid}`);
      return { executor: "ssh", externalId: String(pid), workDir };
    });
  }

  /** The handle of this attempt when it was already launched, so a repeated launch starts nothing. */
  async #adopt(session: Session, workDir: string, attempt: number): Promise<JobHandle | null> {
    const [pid, launched] = await Promise.all(
      [jobFiles.pid, jobFiles.attempt].map(async (name) => parseInteger(await readText(session.sftp, posix.join(workDir, name)))),
    );
    if (pid == null || launched !== attempt) return null;
    return { executor: "ssh", externalId: String(pid), workDir };
  }

  async #mustExec(session: Session, script: string, what: string): Promise<string> {
    const result = await session.exec(script);
    if (result.code !== 0) throw new Error(`could not ${what} (exit ${result.code}): ${result.stderr.trim()}`);
    return result.stdout;
  }

  /**
   * While the node cannot be reached, its job is presumed running (SSH trouble is no job failure)
   * until the node has been silent for `nodeLostAfterMs`; once it answers again, the job's files
   * decide.
   */
  async observe(handle: JobHandle): Promise<JobObservation> {
    const pgid = pgidOf(handle);
    try {
      return await this.#connection.run(`observe of ${handle.workDir}`, (session) => this.#observe(session, handle.workDir, pgid));
    } catch (error) {
      if (!(error instanceof NodeUnreachableError)) throw error;
      const silentMs = Date.now() - this.#connection.lastContactAt;
      if (silentMs < this.#nodeLostAfterMs) return { state: "running" };
      const message = `${error.message}; no contact for ${Math.round(silentMs / 1000)} s`;
      return { state: "failed", exitCode: null, failureClass: "node_lost", retriable: true, message };
    }
  }

  async #observe(session: Session, workDir: string, pgid: number): Promise<JobObservation> {
    const exitFile = posix.join(workDir, jobFiles.exitCode);
    let exitText = await readText(session.sftp, exitFile);
    if (exitText === null) {
      if (await this.#groupAlive(session, pgid)) return { state: "running" };
      // The wrapper may have written the code between the two looks.
      exitText = await readText(session.sftp, exitFile);
    }
    return classifyEndedJob({
      exitCode: parseInteger(exitText),
      cancelled: await exists(session.sftp, posix.join(workDir, jobFiles.cancelled)),
      status: async () => parseStatus(await readText(session.sftp, posix.join(workDir, jobFiles.status))),
      logTail: () => readTail(session.sftp, posix.join(workDir, jobFiles.log), LOG_TAIL_BYTES),
    });
  }

  async #groupAlive(session: Session, pgid: number): Promise<boolean> {
    const { code, stderr } = await session.exec(groupAliveScript(pgid));
    if (code === 0 || code === 1) return code === 0;
    throw new Error(`could not list the node's processes with ps (exit ${code}): ${stderr.trim()}`);
  }

  // Async so that a refused path rejects like any other failure instead of throwing synchronously.
  async list(handle: JobHandle, relativeDir: string): Promise<RemoteFile[]> {
    inside(handle.workDir, relativeDir, "directory");
    return this.#connection.run(`listing of ${relativeDir} in ${handle.workDir}`, (session) =>
      listFiles(session.sftp, handle.workDir, relativeDir),
    );
  }

  async readFrom(handle: JobHandle, relativePath: string, byteOffset: number, maxBytes: number): Promise<Buffer> {
    const path = inside(handle.workDir, relativePath, "file");
    return this.#connection.run(`read of ${path}`, (session) => readRange(session.sftp, path, byteOffset, maxBytes));
  }

  logTail(handle: JobHandle, maxBytes: number): Promise<string> {
    const path = posix.join(handle.workDir, jobFiles.log);
    return this.#connection.run(`read of ${path}`, (session) => readTail(session.sftp, path, maxBytes));
  }

  /** When the wrapper started and ended the attempt, by the node's clock, which also gives "now". */
  async times(handle: JobHandle): Promise<JobTimes | null> {
    const output = await this.#connection.run(`times of ${handle.workDir}`, (session) => this.#mustExec(session, jobTimesScript(handle.workDir), `read the job's times in ${handle.workDir}`));
    return parseJobTimes(output);
  }

  /** Retention's reach into a job directory on this node; a directory outside its work root is refused. */
  weightsPlace(workDir: string): WeightsPlace {
    const jobDir = posix.normalize(workDir);
    if (posix.dirname(jobDir) !== this.#workRoot) throw new Error(`${workDir} is not a job directory under ${this.#workRoot} on ${this.#connection.description}`);
    return { files: sftpWeightsFiles((what, operation) => this.#connection.run(what, operation)), outputDir: posix.join(jobDir, "output") };
  }

  /** SIGTERM to the whole process group, SIGKILL after the grace period; returns once it is gone. */
  async cancel(handle: JobHandle): Promise<void> {
    const pgid = pgidOf(handle);
    const run = <T>(what: string, operation: (session: Session) => Promise<T>) =>
      this.#connection.run(`${what} of ${handle.workDir}`, operation);
    const alive = () => run("cancel", (session) => this.#groupAlive(session, pgid));
    await run("cancel", async (session) => {
      await writeFile(session.sftp, posix.join(handle.workDir, jobFiles.cancelled), "");
      await this.#mustExec(session, signalGroupScript(pgid, "TERM"), `signal process group ${pgid}`);
    });
    const grace = Date.now() + this.#cancelGraceMs;
    while ((await alive()) && Date.now() < grace) await sleep(100);
    await run("cancel", (session) => this.#mustExec(session, signalGroupScript(pgid, "KILL"), `signal process group ${pgid}`));
    // Signals are delivered asynchronously: return once nothing of the job is left running.
    const gone = Date.now() + 5_000;
    while ((await alive()) && Date.now() < gone) await sleep(50);
  }

  /**
   * Runs a probe on the node in `${workRoot}/.probes/<id>`, in the environment a non-interactive
   * login of the node's user gets (as the jobs launched here do), and removes the directory.
   */
  async probe(spec: ProbeSpec): Promise<ProbeResult> {
    checkProbe(spec);
    const dir = posix.join(this.#workRoot, ".probes", spec.id);
    const timeoutMs = spec.timeoutSeconds * 1_000;
    return this.#connection.run(`check ${spec.id}`, async (session) => {
      await this.#mustExec(session, `mkdir -p -- ${shellQuote(dir)}`, `prepare ${dir}`);
      try {
        for (const [name, content] of Object.entries(spec.files)) await writeFile(session.sftp, posix.join(dir, name), content);
        const result = await session.exec(["sh", "-c", shellQuote(PROBE_SCRIPT), shellQuote(dir), shellJoin(spec.command)].join(" "), { stdin: spec.stdin, timeoutMs });
        return { exitCode: result.code, stdout: result.stdout, stderr: result.stderr, where: this.#connection.description };
      } finally {
        await session.exec(`rm -rf -- ${shellQuote(dir)}`).catch(() => {});
      }
    });
  }

  close(): Promise<void> {
    return this.#connection.close();
  }
}
