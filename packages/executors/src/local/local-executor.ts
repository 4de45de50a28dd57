import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { classifyExit, readStatus } from "@evotrainer/contract";
import type { Executor, JobHandle, JobObservation, LaunchSpec, RemoteFile } from "../executor.ts";
import { listFiles, readRange, readTail } from "./read-range.ts";

const LOG = "job.log";
const EXIT_CODE = "exit_code";
const CANCELLED = "cancelled";

// The job runs under a shell in its own session (process group) so that a restart of the control
// plane neither kills it nor loses its exit code: the shell writes the code to a file when the
// command ends. `$0` is the work dir, `"$@"` the command.
const WRAPPER = `cd "$0" || exit 2; "$@" >> ${LOG} 2>&1; code=$?; echo $code > ${EXIT_CODE}.tmp && mv ${EXIT_CODE}.tmp ${EXIT_CODE}`;

/** State letter and process group of a process, from /proc/<pid>/stat ("pid (comm) S ppid pgrp …"). */
function procStat(pid: number | string): { state: string; pgrp: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { state: state!, pgrp: Number(pgrp) };
  } catch {
    return null;
  }
}

/**
 * Whether `pid` is a live process. A zombie counts as gone: where PID 1 does not reap orphans
 * (many containers) an exited process lingers as a zombie and would look alive to kill(pid, 0).
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  return procStat(pid)?.state !== "Z";
}

/** Whether any live process is left in process group `pgid` (children a job left behind included). */
function groupAlive(pgid: number): boolean {
  return readdirSync("/proc").some((entry) => {
    if (!/^\d+$/.test(entry)) return false;
    const stat = procStat(entry);
    return stat !== null && stat.pgrp === pgid && stat.state !== "Z";
  });
}

// Running these again fails the same way: a bad config, bad data, or a job too big for its memory.
const notRetriable = new Set(["config_error", "data_error", "oom"]);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs jobs as child processes on this machine, each in `${jobsDir}/${jobId}`. */
export class LocalExecutor implements Executor {
  constructor(
    private readonly jobsDir: string,
    private readonly options: { cancelGraceMs?: number } = {},
  ) {}

  workDirFor(jobId: string): string {
    if (!/^[A-Za-z0-9_-]+$/.test(jobId)) throw new Error(`job id "${jobId}" is not a safe directory name`);
    return resolve(this.jobsDir, jobId);
  }

  async launch(spec: LaunchSpec): Promise<JobHandle> {
    const workDir = this.workDirFor(spec.jobId);
    const adopted = await this.adopt(workDir, spec.attempt);
    if (adopted) return adopted;
    // A retry starts clean of the last attempt's markers; its output dir stays, for resuming.
    await Promise.all([EXIT_CODE, CANCELLED, "pid"].map((name) => rm(join(workDir, name), { force: true })));
    await mkdir(join(workDir, "output"), { recursive: true });
    for (const [relative, content] of Object.entries(spec.files)) {
      const path = resolve(workDir, relative);
      if (!path.startsWith(`${workDir}/`)) throw new Error(`file "${relative}" would land outside the job directory`);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, content);
    }
    const child = spawn("sh", ["-c", WRAPPER, workDir, ...spec.command], {
      detached: true,
      stdio: "ignore",
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? workDir, ...spec.env, EVO_JOB_DIR: workDir },
    });
    if (child.pid === undefined) throw new Error(`could not start "${spec.command[0]}" for job ${spec.jobId}`);
    child.unref();
    await writeFile(join(workDir, "attempt"), String(spec.attempt));
    await writeFile(join(workDir, "pid"), String(child.pid));
    return { executor: "local", externalId: String(child.pid), workDir };
  }

  /** The handle of this attempt when it was already launched, so a repeated launch starts nothing. */
  private async adopt(workDir: string, attempt: number): Promise<JobHandle | null> {
    const [pid, launched] = await Promise.all(
      ["pid", "attempt"].map((name) => readFile(join(workDir, name), "utf8").then((text) => Number(text.trim()), () => null)),
    );
    if (pid == null || launched !== attempt) return null;
    return { executor: "local", externalId: String(pid), workDir };
  }

  async observe(handle: JobHandle): Promise<JobObservation> {
    const exitFile = join(handle.workDir, EXIT_CODE);
    const cancelled = existsSync(join(handle.workDir, CANCELLED));
    if (!existsSync(exitFile)) {
      if (isAlive(Number(handle.externalId))) return { state: "running" };
      if (cancelled) return { state: "cancelled" };
      return {
        state: "failed",
        exitCode: null,
        failureClass: "crash",
        retriable: true,
        message: "the job's process is gone without an exit code (machine restart or killed wrapper)",
      };
    }
    const exitCode = Number((await readFile(exitFile, "utf8")).trim());
    if (exitCode === 0) return { state: "succeeded" };
    if (cancelled) return { state: "cancelled" };

    const exit = classifyExit(exitCode);
    const status = await readStatus(join(handle.workDir, "output")).catch(() => null);
    // A SIGKILL we did not send is what the kernel's OOM killer does; the same job would be killed again.
    const failureClass = status?.failureClass ?? (exit.oomSuspect ? "oom" : exit.failureClass ?? "crash");
    const retriable = !notRetriable.has(failureClass);
    const message = status?.message ?? (exit.signal ? `killed by ${exit.signal}` : `exited with code ${exitCode}`);
    return { state: "failed", exitCode, failureClass, retriable, message };
  }

  list(handle: JobHandle, relativeDir: string): Promise<RemoteFile[]> {
    return listFiles(handle.workDir, relativeDir);
  }

  readFrom(handle: JobHandle, relativePath: string, byteOffset: number, maxBytes: number): Promise<Buffer> {
    return readRange(join(handle.workDir, relativePath), byteOffset, maxBytes);
  }

  logTail(handle: JobHandle, maxBytes: number): Promise<string> {
    return readTail(join(handle.workDir, LOG), maxBytes);
  }

  /** SIGTERM to the whole process group, SIGKILL after the grace period. */
  async cancel(handle: JobHandle): Promise<void> {
    await writeFile(join(handle.workDir, CANCELLED), "");
    const pid = Number(handle.externalId);
    const signalGroup = (signal: NodeJS.Signals) => {
      try {
        process.kill(-pid, signal);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
      }
    };
    signalGroup("SIGTERM");
    const grace = Date.now() + (this.options.cancelGraceMs ?? 10_000);
    while (groupAlive(pid) && Date.now() < grace) await sleep(50);
    signalGroup("SIGKILL");
    // Signals are delivered asynchronously: return once nothing of the job is left running.
    const gone = Date.now() + 5_000;
    while (groupAlive(pid) && Date.now() < gone) await sleep(20);
  }
}
