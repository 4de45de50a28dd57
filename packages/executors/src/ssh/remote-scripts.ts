import { posix } from "node:path";
import { jobFiles, WRAPPER } from "../job-dir.ts";
import { shellJoin, shellQuote } from "./shell-quote.ts";

/** A retry starts clean of the last attempt's markers; its output dir stays, for resuming. */
export function prepareScript(workDir: string, dirs: readonly string[]): string {
  const markers = [jobFiles.exitCode, jobFiles.cancelled, jobFiles.pid].map((name) => posix.join(workDir, name));
  return `mkdir -p -- ${shellJoin(dirs)} && rm -f -- ${shellJoin(markers)}`;
}

/**
 * Starts the job detached from the SSH session (its own session via setsid, immune to the hangup
 * of a dropped connection via nohup, no stdio tied to the channel), records its pid atomically and
 * prints it. In a non-interactive sh the background job is no group leader, so setsid does not fork
 * and `$!` is the pid of the new session's leader: the job's process group id.
 */
export function startScript(workDir: string, command: readonly string[], env: Record<string, string>): string {
  const assignments = Object.entries(env).map(([name, value]) => `${name}=${shellQuote(value)}`);
  const pidFile = shellQuote(posix.join(workDir, jobFiles.pid));
  return [
    `cd ${shellQuote(workDir)} || exit 1`,
    `${[...assignments, "setsid", "nohup", "sh", "-c", shellQuote(WRAPPER), shellQuote(workDir), shellJoin(command)].join(" ")} </dev/null >/dev/null 2>&1 &`,
    `echo $! > ${pidFile}.tmp && mv ${pidFile}.tmp ${pidFile} && echo $!`,
  ].join("\n");
}

/**
 * Exits 0 while a live process is left in group `pgid`, 1 when none is, 3 when it cannot tell.
 * Zombies count as gone: where PID 1 does not reap orphans, an exited job lingers as one.
 */
export function groupAliveScript(pgid: number): string {
  return [
    "out=$(ps -e -o pgid= -o stat=) || exit 3",
    `printf '%s\\n' "$out" | awk -v g=${pgid} '$1 == g && $2 !~ /^Z/ { alive = 1 } END { exit alive ? 0 : 1 }'`,
  ].join("\n");
}

/** Signals every process of group `pgid`; a group already gone is no error. */
export function signalGroupScript(pgid: number, signal: "TERM" | "KILL"): string {
  return `kill -s ${signal} -- -${pgid} 2>/dev/null; exit 0`;
}
