import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { readStatus } from "@evotrainer/contract";
import { classifyEndedJob, LOG_TAIL_BYTES } from "../ended-job.ts";
import type { Executor, JobHandle, JobObservation, JobTimes, LaunchSpec, ProbeResult, ProbeSpec, RemoteFile } from "../executor.ts";
import { checkJobId, jobFiles, WRAPPER } from "../job-dir.ts";
import { probeHere } from "./local-probe.ts";
import { listFiles, readRange, readTail } from "./read-range.ts";

const { log: LOG, exitCode: EXIT_CODE, cancelled: CANCELLED } = jobFiles;

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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs jobs as child processes on this machine, each in `${jobsDir}/${jobId}`. */
export class LocalExecutor implements Executor {
  constructor(
    private readonly jobsDir: string,
    private readonly options: { cancelGraceMs?: number } = {},
  ) {}

  workDirFor(jobId: string): string {
    return resolve(this.jobsDir, checkJobId(jobId));
  }

  async launch(spec: LaunchSpec): Promise<JobHandle> {
    const workDir = this.workDirFor(spec.jobId);
    const adopted = await this.adopt(workDir, spec.attempt);
    if (adopted) return adopted;
    // A retry starts clean of the last attempt's markers; its output dir stays, for resuming.
    await Promise.all([EXIT_CODE, CANCELLED, jobFiles.pid, jobFiles.started].map((name) => rm(join(workDir, name), { force: true })));
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
    await writeFile(join(workDir, jobFiles.attempt), String(spec.attempt));
    await writeFile(join(workDir, jobFiles.pid), String(child.pid));
    return { executor: "local", externalId: String(child.pid), workDir };
  }

  /** The handle of this attempt when it was already launched, so a repeated launch starts nothing. */
  private async adopt(workDir: string, attempt: number): Promise<JobHandle | null> {
    const [pid, launched] = await Promise.all(
      [jobFiles.pid, jobFiles.attempt].map((name) => readFile(join(workDir, name), "utf8").then((text) => Number(text.trim()), () => null)),
    );
    if (pid == null || launched !== attempt) return null;
    return { executor: "local", externalId: String(pid), workDir };
  }

  async observe(handle: JobHandle): Promise<JobObservation> {
    const exitFile = join(handle.workDir, EXIT_CODE);
    if (!existsSync(exitFile) && isAlive(Number(handle.externalId))) return { state: "running" };
    const exitText = await readFile(exitFile, "utf8").catch(() => null);
    return classifyEndedJob({
      exitCode: exitText === null ? null : Number(exitText.trim()),
      cancelled: existsSync(join(handle.workDir, CANCELLED)),
      status: () => readStatus(join(handle.workDir, "output")).catch(() => null),
      logTail: () => this.logTail(handle, LOG_TAIL_BYTES),
    });
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

  /** The wrapper's start marker and exit code record the attempt's start and end, and outlive its process. */
  async times(handle: JobHandle): Promise<JobTimes | null> {
    const mtime = (name: string) => stat(join(handle.workDir, name)).then((info) => info.mtime.toISOString(), () => null);
    const [startedAt, endedAt] = await Promise.all([mtime(jobFiles.started), mtime(EXIT_CODE)]);
    return startedAt === null ? null : { startedAt, endedAt, now: new Date().toISOString() };
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

  probe(spec: ProbeSpec): Promise<ProbeResult> {
    return probeHere(spec);
  }
}
