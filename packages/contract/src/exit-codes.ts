import { constants } from "node:os";
import { z } from "zod";

/** Exit codes a trainer uses to tell the control plane why it stopped. */
export const exitCodes = {
  ok: 0,
  configError: 2,
  dataError: 3,
  // EX_TEMPFAIL from sysexits.h: the conventional "try again later" code.
  preempted: 75,
  // The shell's codes for a command it could not run: not executable, not found (a wrong interpreter path).
  notExecutable: 126,
  notFound: 127,
} as const;

/**
 * Why a job failed, as far as the trainer can tell. Executors know more (Kubernetes OOMKilled,
 * node loss, deadlines) and record that on the job; these are the classes the contract can carry.
 */
export const failureClassSchema = z.enum(["config_error", "data_error", "preempted", "crash", "oom"]);
export type FailureClass = z.infer<typeof failureClassSchema>;

export interface ExitClassification {
  /** `null` when the job succeeded. */
  failureClass: FailureClass | null;
  /** Whether running the same job again can help (a preempted job resumes from its checkpoint). */
  retriable: boolean;
  /** The signal that ended the process, given directly or read from a shell's 128+N exit code. */
  signal: NodeJS.Signals | null;
  /**
   * Killed by SIGKILL, which is what the kernel's OOM killer sends — but so does `kill -9` or a
   * node drain. Only the executor can confirm OOM (cgroup events, a pod's OOMKilled reason).
   */
  oomSuspect: boolean;
}

const signalByNumber = new Map<number, NodeJS.Signals>(
  Object.entries(constants.signals).map(([name, number]) => [number, name as NodeJS.Signals]),
);

/**
 * Classifies how a trainer process ended, from its exit code or the signal that killed it (Node's
 * `exit` event gives `code === null` and a signal name then). 0 ok; 2 config and 3 data/reward
 * errors are not retriable, since a rerun fails the same way, and neither are the shell's 126 and
 * 127 (the command, e.g. trainer.python, is not executable or not there); 75 is a resumable
 * preemption; anything else is a crash worth retrying.
 */
export function classifyExit(code: number | null, signal?: NodeJS.Signals | null): ExitClassification {
  const killedBy = signal ?? (code !== null && code > 128 ? (signalByNumber.get(code - 128) ?? null) : null);
  const oomSuspect = killedBy === "SIGKILL";
  const result = (failureClass: FailureClass | null, retriable: boolean): ExitClassification => ({
    failureClass,
    retriable,
    signal: killedBy,
    oomSuspect,
  });
  if (signal) return result("crash", true);
  switch (code) {
    case exitCodes.ok:
      return result(null, false);
    case exitCodes.configError:
    case exitCodes.notExecutable:
    case exitCodes.notFound:
      return result("config_error", false);
    case exitCodes.dataError:
      return result("data_error", false);
    case exitCodes.preempted:
      return result("preempted", true);
    default:
      return result("crash", true);
  }
}

/**
 * The code a trainer exits with for a failure class. Crash and oom share the generic 1: the class
 * itself travels in status.json.
 */
export function exitCodeFor(failureClass: FailureClass): number {
  switch (failureClass) {
    case "config_error":
      return exitCodes.configError;
    case "data_error":
      return exitCodes.dataError;
    case "preempted":
      return exitCodes.preempted;
    case "crash":
    case "oom":
      return 1;
  }
}
