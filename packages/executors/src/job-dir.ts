/**
 * The files an executor keeps in a job's directory, wherever that directory lives. They are plain
 * files so that a restarted control plane (or a reconnected SSH session) can tell a job's fate.
 */
export const jobFiles = {
  log: "job.log",
  exitCode: "exit_code",
  cancelled: "cancelled",
  pid: "pid",
  /** Created by the wrapper as the attempt starts: its mtime is the start on the job's own clock (exit_code's is the end). */
  started: "started",
  attempt: "attempt",
  status: "output/status.json",
} as const;

// The job runs under a shell in its own session (process group) so that a restart of the control
// plane (or a dropped SSH session) neither kills it nor loses its exit code: the shell writes the
// code to a file when the command ends, atomically. `$0` is the work dir, `"$@"` the command.
export const WRAPPER = `cd "$0" || exit 2; : > ${jobFiles.started}; "$@" >> ${jobFiles.log} 2>&1; code=$?; echo $code > ${jobFiles.exitCode}.tmp && mv ${jobFiles.exitCode}.tmp ${jobFiles.exitCode}`;

/** Job ids become directory names (and, over SSH, parts of shell commands): letters, digits, `_`, `-`. */
export function checkJobId(jobId: string): string {
  if (!/^[A-Za-z0-9_-]+$/.test(jobId)) throw new Error(`job id "${jobId}" is not a safe directory name`);
  return jobId;
}
