import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JobHandle, LaunchSpec } from "@evotrainer/executors";
import { localLogin, sshLogin } from "../../packages/executors/src/slurm/login-node.ts";
import { slurmSettingsSchema } from "../../packages/executors/src/slurm/slurm-cluster.ts";
import { SlurmExecutor } from "../../packages/executors/src/slurm/slurm-executor.ts";
import { SshConnection } from "../../packages/executors/src/ssh/ssh-connection.ts";
import { startSlurm, type Slurm } from "../support/slurm.ts";
import { startSshd, type Sshd } from "../support/sshd.ts";
import { until } from "../support/until.ts";

// One real Slurm cluster for the whole file: munged, slurmctld and slurmd on this machine.
let slurm: Slurm;
let executor: SlurmExecutor;
const logs: string[] = [];
const dir = mkdtempSync(join(tmpdir(), "evo-slurm-exec-"));

const spec = (jobId: string, command: string[], extra: Partial<LaunchSpec> = {}): LaunchSpec => ({
  jobId,
  attempt: 1,
  command,
  env: { EVO_TEST_VALUE: "it's here" },
  files: { "job.json": "{}" },
  gpus: 0,
  deadlineSeconds: 3_600,
  ...extra,
});

const settled = (handle: JobHandle, on = executor) =>
  until(`Slurm job ${handle.externalId} to end`, async () => {
    const observation = await on.observe(handle);
    return observation.state === "running" ? null : observation;
  });

// Slurm counts time limits in whole minutes and checks them every 30 s or so: the job that runs
// out of time is submitted first and looked at last, so its minute passes while the others run.
let timeoutHandle: JobHandle;

beforeAll(async () => {
  slurm = await startSlurm();
  process.env.SLURM_CONF = slurm.env.SLURM_CONF;
  const cluster = slurmSettingsSchema.parse({ name: "test", jobRoot: join(slurm.sharedDir, "jobs"), partition: slurm.partition, timeLimit: 1 });
  executor = new SlurmExecutor("test", cluster, localLogin(), { log: (line) => logs.push(line) });
  timeoutHandle = await executor.launch(spec("too-long", ["sleep", "600"]));
});

afterAll(async () => {
  await executor?.close();
  await slurm?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("Slurm executor against a real one-node Slurm", () => {
  it("submits a job with sbatch, runs it in its directory with its files and environment, and reads its outputs", async () => {
    const handle = await executor.launch(spec("ok", ["sh", "-c", 'cat job.json && echo "$EVO_TEST_VALUE" > output/said.txt && echo done']));
    expect(handle).toMatchObject({ executor: "slurm", workDir: join(slurm.sharedDir, "jobs", "ok") });
    expect(await settled(handle)).toEqual({ state: "succeeded" });
    expect(readFileSync(join(handle.workDir, "output", "said.txt"), "utf8")).toBe("it's here\n");
    expect(await executor.list(handle, "output")).toEqual([{ path: "output/said.txt", size: 10 }]);
    expect(await executor.logTail(handle, 100)).toContain("{}done");
    const script = readFileSync(join(handle.workDir, "job.sbatch"), "utf8");
    expect(script).toContain(`#SBATCH --partition=${slurm.partition}`);
    expect(script).toContain("#SBATCH --time=1\n");
    expect(await executor.times(handle)).toMatchObject({ startedAt: expect.any(String), endedAt: expect.any(String) });
    // The same attempt launched again (a worker that crashed after sbatch) adopts the job: nothing new is queued.
    expect(await executor.launch(spec("ok", ["false"]))).toEqual(handle);
    expect((await slurm.client("scontrol", ["show", "job", "-o"])).match(/JobName=evo-ok-/g)).toHaveLength(1);
  });

  it("a non-zero exit fails with the command's code; the sbatch of the job's environment holds none of the worker's secrets", async () => {
    process.env.EVO_MASTER_KEY_FOR_TEST = "secret";
    const handle = await executor.launch(spec("exit-3", ["sh", "-c", 'env > env.txt; echo "bad input" >&2; exit 3']));
    expect(await settled(handle)).toMatchObject({ state: "failed", exitCode: 3 });
    expect(readFileSync(join(handle.workDir, "env.txt"), "utf8")).not.toContain("EVO_MASTER_KEY_FOR_TEST");
    expect(await executor.logTail(handle, 1_000)).toContain("bad input");
  });

  it("an scancel from outside fails the job once, naming Slurm; EvoTrainer's own cancel is a cancellation", async () => {
    const outside = await executor.launch(spec("scancelled", ["sleep", "600"]));
    await until("the job running", async () => (await slurm.client("squeue", ["-h", "-j", outside.externalId, "-o", "%T"])).trim() === "RUNNING");
    await slurm.client("scancel", [outside.externalId]);
    const failed = await settled(outside);
    expect(failed).toMatchObject({ state: "failed", retriable: false, message: expect.stringMatching(/Slurm job \d+ on cluster "test" was cancelled in Slurm outside EvoTrainer/) });

    const ours = await executor.launch(spec("cancelled", ["sleep", "600"]));
    await executor.cancel(ours);
    expect(await executor.observe(ours)).toEqual({ state: "cancelled" });
  });

  it("a job Slurm requeues (scontrol requeue) is an infrastructure failure, retried, and Slurm's own rerun is cancelled", async () => {
    const handle = await executor.launch(spec("requeued", ["sleep", "600"]));
    await until("the job running", async () => (await slurm.client("squeue", ["-h", "-j", handle.externalId, "-o", "%T"])).trim() === "RUNNING");
    await slurm.client("scontrol", ["requeue", handle.externalId]);
    const failed = await settled(handle);
    expect(failed).toMatchObject({ state: "failed", failureClass: "preempted", retriable: true, message: expect.stringContaining("requeued by Slurm (Restarts=1") });
    expect((await slurm.client("scontrol", ["show", "job", "-o", handle.externalId])).match(/JobState=(\w+)/)?.[1]).toBe("CANCELLED");
    // The retry is a new submission; the old job's directory is reused.
    const retry = await executor.launch(spec("requeued", ["true"], { attempt: 2 }));
    expect(retry.externalId).not.toBe(handle.externalId);
    expect(await settled(retry)).toEqual({ state: "succeeded" });
  });

  it("while slurmctld is down the job is presumed running and the executor says so once; then it carries on", async () => {
    const handle = await executor.launch(spec("outage", ["sh", "-c", "until [ -e go ]; do sleep 0.2; done"]));
    await until("the job running", async () => (await slurm.client("squeue", ["-h", "-j", handle.externalId, "-o", "%T"])).trim() === "RUNNING");
    await slurm.stopController();
    for (let i = 0; i < 2; i++) expect(await executor.observe(handle)).toEqual({ state: "running" });
    expect(logs.filter((line) => line.includes("slurmctld cannot be reached"))).toHaveLength(1);
    writeFileSync(join(handle.workDir, "go"), "");
    await slurm.startController();
    expect(await settled(handle)).toEqual({ state: "succeeded" });
    expect(logs.some((line) => line.includes("slurmctld answers again"))).toBe(true);
  });

  it("submits, watches and reads a job through a login node over SSH (the SSH executor's connection code)", async () => {
    let sshd: Sshd | undefined;
    try {
      // The login's environment points the Slurm clients at this cluster, as /etc/slurm would on a real one.
      sshd = await startSshd({ setEnv: slurm.env });
      const connection = new SshConnection(
        { name: "login", host: "127.0.0.1", port: sshd.port, user: userInfo().username, privateKey: sshd.privateKey, workRoot: "/" },
        { connectTimeoutMs: 10_000, reconnect: { initialDelayMs: 100, maxDelayMs: 1_000 }, log: () => {} },
      );
      const cluster = slurmSettingsSchema.parse({ name: "over-ssh", jobRoot: join(slurm.sharedDir, "ssh-jobs"), timeLimit: 5 });
      const remote = new SlurmExecutor("over-ssh", cluster, sshLogin(connection));
      try {
        const handle = await remote.launch(spec("via-ssh", ["sh", "-c", "echo over ssh > output/said.txt"]));
        expect(await settled(handle, remote)).toEqual({ state: "succeeded" });
        expect((await remote.readFrom(handle, "output/said.txt", 0, 100)).toString()).toBe("over ssh\n");
      } finally {
        await remote.close();
      }
    } finally {
      await sshd?.dispose();
    }
  });

  it("a job past its time limit is TIMEOUT, not retried, with a message naming the limit", async () => {
    const failed = await settled(timeoutHandle);
    expect(failed).toMatchObject({ state: "failed", failureClass: "deadline_exceeded", retriable: false, message: expect.stringContaining("at its time limit of 00:01:00") });
    expect(existsSync(join(timeoutHandle.workDir, "exit_code"))).toBe(false);
  });
});
