import { posix } from "node:path";
import { jobFiles, WRAPPER } from "../job-dir.ts";
import { shellJoin, shellQuote } from "./shell-quote.ts";

/** A retry starts clean of the last attempt's markers; its output dir stays, for resuming. */
export function prepareScript(workDir: string, dirs: readonly string[]): string {
  const markers = [jobFiles.exitCode, jobFiles.cancelled, jobFiles.pid, jobFiles.started].map((name) => posix.join(workDir, name));
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

/**
 * Prints, one a line, the mtimes of the wrapper's start marker and exit code in seconds since the
 * epoch (`-` for one that is missing), then the node's clock now: GNU stat and date give nanoseconds,
 * others whole seconds.
 */
export function jobTimesScript(workDir: string): string {
  return [
    `cd ${shellQuote(workDir)} || exit 1`,
    `for f in ${jobFiles.started} ${jobFiles.exitCode}; do if [ -e "$f" ]; then stat -c %.9Y "$f" 2>/dev/null || stat -c %Y "$f" || exit 1; else echo -; fi; done`,
    "date +%s.%N",
  ].join("\n");
}

/** What `jobTimesScript` printed, as times; `null` when the attempt left no start marker. */
export function parseJobTimes(output: string): { startedAt: string; endedAt: string | null; now: string } | null {
  const [started, ended, now] = output.trim().split("\n").map((line) => {
    const seconds = /^[0-9]+(\.[0-9]+)?/.exec(line.trim())?.[0];
    return seconds === undefined ? null : new Date(Number(seconds) * 1000).toISOString();
  });
  if (!started || !now) return null;
  return { startedAt: started, endedAt: ended ?? null, now };
}
