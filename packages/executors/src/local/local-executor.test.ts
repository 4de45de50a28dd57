import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { JobHandle, JobObservation } from "../executor.ts";
import { isAlive, LocalExecutor } from "./local-executor.ts";

const jobsDir = mkdtempSync(join(tmpdir(), "evo-local-"));
afterAll(() => rmSync(jobsDir, { recursive: true, force: true }));

const executor = new LocalExecutor(jobsDir, { cancelGraceMs: 2_000 });

async function settle(handle: JobHandle, using = executor): Promise<JobObservation> {
  for (let i = 0; i < 200; i++) {
    const observation = await using.observe(handle);
    if (observation.state !== "running") return observation;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error("job did not finish");
}

const sh = (script: string) => ["sh", "-c", script];

describe("local executor (real child processes)", () => {
  it("runs the command in the job directory with its files, logs its output and reports success", async () => {
    const handle = await executor.launch({
      jobId: "ok1",
      attempt: 1,
      command: sh('cat job.json; echo "to stderr" >&2; test "$EVO_JOB_DIR" = "$PWD"'),
      env: {}, gpus: 0, deadlineSeconds: 600,
      files: { "job.json": '{"contract":"evo.job/v1"}' },
    });
    expect(await settle(handle)).toEqual({ state: "succeeded" });
    const log = await executor.logTail(handle, 1_000);
    expect(log).toContain('{"contract":"evo.job/v1"}');
    expect(log).toContain("to stderr");
  });

  it.each([
    [2, "config_error", false],
    [3, "data_error", false],
    [75, "preempted", true],
    [1, "crash", true],
  ] as const)("classifies exit code %i as %s (retriable: %s)", async (code, failureClass, retriable) => {
    const handle = await executor.launch({ jobId: `exit${code}`, attempt: 1, command: sh(`echo boom; exit ${code}`), env: {}, gpus: 0, deadlineSeconds: 600, files: {} });
    expect(await settle(handle)).toMatchObject({ state: "failed", exitCode: code, failureClass, retriable });
  });

  it("reads a missing interpreter (exit 127) as a configuration error naming its path, never retried", async () => {
    const handle = await executor.launch({ jobId: "nopython1", attempt: 1, command: ["/opt/no-such-venv/bin/python", "evo_trl_job.py"], env: {}, gpus: 0, deadlineSeconds: 600, files: {} });
    const observed = await settle(handle);
    expect(observed).toMatchObject({ state: "failed", exitCode: 127, failureClass: "config_error", retriable: false });
    expect(observed.state === "failed" && observed.message).toMatch(/was not found .*\/opt\/no-such-venv\/bin\/python/);
  });

  it("reads a SIGKILL it did not send as a retriable crash naming the suspects, not as OOM", async () => {
    const handle = await executor.launch({ jobId: "killed1", attempt: 1, command: sh("kill -9 $$"), env: {}, gpus: 0, deadlineSeconds: 600, files: {} });
    expect(await settle(handle)).toMatchObject({ state: "failed", exitCode: 137, failureClass: "crash", retriable: true, message: expect.stringMatching(/^killed by SIGKILL, not by EvoTrainer: the kernel's out-of-memory killer or another process/) });
  });

  it("reads a CUDA out-of-memory error in the log as gpu_oom, not retriable", async () => {
    const line = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB";
    const handle = await executor.launch({ jobId: "gpuoom1", attempt: 1, command: sh(`echo '${line}' >&2; exit 1`), env: {}, gpus: 0, deadlineSeconds: 600, files: {} });
    expect(await settle(handle)).toMatchObject({ state: "failed", exitCode: 1, failureClass: "gpu_oom", retriable: false, message: line });
  });

  it("prefers the failure class and message the trainer wrote to status.json", async () => {
    const status = JSON.stringify({ state: "failed", exitCode: 3, failureClass: "data_error", lastStep: 4, message: "reward function raised on task 17" });
    const handle = await executor.launch({ jobId: "status1", attempt: 1, command: sh(`printf '%s' '${status}' > output/status.json; exit 3`), env: {}, gpus: 0, deadlineSeconds: 600, files: {} });
    expect(await settle(handle)).toMatchObject({ failureClass: "data_error", retriable: false, message: "reward function raised on task 17" });
  });

  it("cancels the whole process group, children included", async () => {
    const handle = await executor.launch({ jobId: "cancel1", attempt: 1, command: sh("sleep 30 & echo $! > child.pid; sleep 30"), env: {}, gpus: 0, deadlineSeconds: 600, files: {} });
    let childPid = NaN;
    for (let i = 0; i < 200 && !(childPid > 0); i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      childPid = Number((await executor.readFrom(handle, "child.pid", 0, 100)).toString().trim() || NaN);
    }
    expect(await executor.observe(handle)).toEqual({ state: "running" });
    expect(isAlive(childPid)).toBe(true);
    await executor.cancel(handle);
    expect(await settle(handle)).toEqual({ state: "cancelled" });
    expect(isAlive(childPid)).toBe(false);
  });

  it("finds a job again from its handle after a restart of the control plane", async () => {
    const handle = await executor.launch({ jobId: "restart1", attempt: 1, command: sh("sleep 0.3; exit 75"), env: {}, gpus: 0, deadlineSeconds: 600, files: {} });
    const afterRestart = new LocalExecutor(jobsDir);
    expect(await afterRestart.observe(handle)).toEqual({ state: "running" });
    expect(await settle(handle, afterRestart)).toMatchObject({ failureClass: "preempted", retriable: true });
  });

  it("adopts an attempt that is already running instead of starting it twice, and relaunches a retry", async () => {
    const spec = { jobId: "adopt1", attempt: 1, command: sh("echo started >> starts; sleep 0.3; exit 75"), env: {}, gpus: 0, deadlineSeconds: 600, files: {} };
    const first = await executor.launch(spec);
    const again = await executor.launch(spec);
    expect(again).toEqual(first);
    expect(await settle(first)).toMatchObject({ failureClass: "preempted" });
    const retry = await executor.launch({ ...spec, attempt: 2, command: sh("echo started >> starts") });
    expect(retry.externalId).not.toBe(first.externalId);
    expect(await settle(retry)).toEqual({ state: "succeeded" });
    expect((await executor.readFrom(retry, "starts", 0, 100)).toString()).toBe("started\nstarted\n");
  });

  it("reads output files by byte offset for incremental ingest", async () => {
    const handle = await executor.launch({ jobId: "read1", attempt: 1, command: sh("printf 'abcdef' > output/metrics.jsonl"), env: {}, gpus: 0, deadlineSeconds: 600, files: {} });
    await settle(handle);
    expect((await executor.readFrom(handle, "output/metrics.jsonl", 2, 3)).toString()).toBe("cde");
    expect((await executor.readFrom(handle, "output/missing.jsonl", 0, 3)).length).toBe(0);
  });

  it("refuses job ids and files that would escape the jobs directory", async () => {
    expect(() => executor.workDirFor("../etc")).toThrow(/not a safe directory name/);
    await expect(executor.launch({ jobId: "esc1", attempt: 1, command: sh("true"), env: {}, gpus: 0, deadlineSeconds: 600, files: { "../x": "" } })).rejects.toThrow(/outside the job directory/);
  });
});
