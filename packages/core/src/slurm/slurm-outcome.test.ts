import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { isControllerUnreachable, isUnknownJob, parseScontrolJob } from "./scontrol-job.ts";
import { slurmJobEnded, slurmOutcome } from "./slurm-outcome.ts";
import { parseSinfo } from "./sinfo-partitions.ts";

// Lines captured from the real Slurm 22.05 that tests/support/slurm.ts starts; the file says how each was made.
const captured = new Map<string, string>();
{
  const lines = readFileSync(new URL("./__fixtures__/scontrol-show-job.txt", import.meta.url), "utf8").split("\n");
  lines.forEach((line, i) => {
    const name = /^# ([a-z-]+):/.exec(line)?.[1];
    if (name) captured.set(name, lines[i + 1]!);
  });
}
const job = (name: string) => {
  const parsed = parseScontrolJob(captured.get(name) ?? "");
  if (!parsed) throw new Error(`fixture ${name} has no job`);
  return parsed;
};

describe("parseScontrolJob", () => {
  it("reads every field of a real line, values with `/` and `:` keys included", () => {
    const fields = job("failed");
    expect(fields).toMatchObject({ JobId: "2", JobName: "fail", JobState: "FAILED", Reason: "NonZeroExitCode", ExitCode: "3:0", "CPUs/Task": "1", "AllocNode:Sid": "localhost:8116", StdOut: "/tmp/slurmtry/jobs/fail.log", Power: "" });
  });

  it("keeps a value's spaces up to the next key", () => {
    expect(parseScontrolJob("JobId=5 Comment=two words here JobState=RUNNING")).toEqual({ JobId: "5", Comment: "two words here", JobState: "RUNNING" });
  });

  it("answers null for output without a job, and tells scontrol's errors apart", () => {
    expect(parseScontrolJob("")).toBeNull();
    expect(isUnknownJob("slurm_load_jobs error: Invalid job id specified")).toBe(true);
    expect(isControllerUnreachable("slurm_load_jobs error: Unable to contact slurm controller (connect failure)")).toBe(true);
    expect(isUnknownJob("slurm_load_jobs error: Unable to contact slurm controller (connect failure)")).toBe(false);
  });
});

describe("slurmOutcome on real scontrol output", () => {
  it.each([
    ["completed", { kind: "completed" }],
    ["failed", { kind: "failed", state: "FAILED", exitCode: 3, signal: null }],
    ["cancelled", { kind: "cancelled", by: null }],
    ["timeout", { kind: "timeout", timeLimit: "00:01:00" }],
    ["pending", { kind: "pending", reason: "BeginTime" }],
    ["running", { kind: "running" }],
  ])("%s", (name, outcome) => {
    expect(slurmOutcome(job(name))).toEqual(outcome);
  });

  it("a job Slurm put back in its queue is an infrastructure end, whatever put it there", () => {
    for (const name of ["requeued", "requeued-node-down"]) {
      expect(slurmOutcome(job(name))).toMatchObject({ kind: "infrastructure", cause: "requeued", detail: expect.stringContaining("Restarts=1") });
    }
  });

  it("a node that failed under a job that may not be requeued is an infrastructure end naming the node", () => {
    expect(slurmOutcome(job("node-fail"))).toEqual({ kind: "infrastructure", cause: "node_fail", detail: "a node failed under it (NodeDown) on vm" });
  });
});

describe("slurmJobEnded", () => {
  it("is true once no script of the job runs or will run; a requeue passing through COMPLETING is not an end", () => {
    expect(["completed", "failed", "cancelled", "timeout", "node-fail"].map((name) => slurmJobEnded(job(name)))).toEqual([true, true, true, true, true]);
    expect(["pending", "running", "requeued", "requeued-node-down"].map((name) => slurmJobEnded(job(name)))).toEqual([false, false, false, false]);
    expect(slurmJobEnded({ ...job("requeued"), JobState: "COMPLETING" })).toBe(false);
  });
});

describe("slurmOutcome on states this one-node cluster cannot produce", () => {
  // No cgroup memory limits, no preemption and no sacct here: these follow Slurm's documented states.
  const as = (fields: Record<string, string>) => slurmOutcome({ ...job("failed"), ...fields });
  it("OUT_OF_MEMORY, PREEMPTED, BOOT_FAIL, DEADLINE and sacct's `CANCELLED by <uid>`", () => {
    expect(as({ JobState: "OUT_OF_MEMORY", Reason: "OutOfMemory", ExitCode: "0:125" })).toEqual({ kind: "out_of_memory" });
    expect(as({ JobState: "PREEMPTED", Reason: "None" })).toEqual({ kind: "infrastructure", cause: "preempted", detail: "preempted" });
    expect(as({ JobState: "BOOT_FAIL", Reason: "None" })).toMatchObject({ kind: "infrastructure", cause: "boot_fail" });
    expect(as({ JobState: "DEADLINE", Deadline: "2026-12-07T10:00:00" })).toEqual({ kind: "timeout", timeLimit: "the deadline 2026-12-07T10:00:00" });
    expect(as({ JobState: "CANCELLED by 1000" })).toEqual({ kind: "cancelled", by: "1000" });
  });

  it("a state the mapping does not know ends the job as failed, naming the state", () => {
    expect(as({ JobState: "SPECIAL_EXIT", ExitCode: "7:0" })).toEqual({ kind: "failed", state: "SPECIAL_EXIT", exitCode: 7, signal: null });
  });

  it("a signal in ExitCode is kept", () => {
    expect(as({ JobState: "FAILED", ExitCode: "0:9" })).toEqual({ kind: "failed", state: "FAILED", exitCode: 0, signal: 9 });
  });
});

describe("parseSinfo", () => {
  it("reads real sinfo rows and refuses a line of another shape", () => {
    expect(parseSinfo("debug|up|infinite|1|idle|0/2/0/2|(null)\n")).toEqual([
      { partition: "debug", available: true, timeLimit: "infinite", nodes: 1, state: "idle", cpus: { allocated: 0, idle: 2, other: 0, total: 2 }, gres: null },
    ]);
    expect(() => parseSinfo("debug|up|infinite|1|idle|0/2/0/2|(null)\ndebug up")).toThrow(/line 2/);
  });
});
