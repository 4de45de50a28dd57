import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sbatchMinutes, sbatchScript } from "./sbatch-script.ts";
import { slurmSettingsSchema, timeLimitMinutes } from "./slurm-cluster.ts";

const cluster = slurmSettingsSchema.parse({ name: "hpc", jobRoot: "/shared/evo", partition: "gpu", account: "rl-team", qos: "normal", timeLimit: "02:00:00", gpuType: "a100", extraSbatch: ["--mem=64G", "--constraint=nvlink"] });
const job = { jobId: "job1", attempt: 2, workDir: "/shared/evo/job1", command: ["python", "-m", "train", "it's"], env: { HF_HOME: "/shared/hf cache" }, gpus: 4, deadlineSeconds: 86_400 };

describe("sbatchScript", () => {
  it("asks for the cluster's partition, account, QoS, time limit and GPUs, and runs the command in the job's directory", () => {
    expect(sbatchScript(cluster, job)).toBe(
      [
        "#!/bin/sh",
        "# EvoTrainer job job1, attempt 2",
        "#SBATCH --job-name=evo-job1-a2",
        "#SBATCH --chdir=/shared/evo/job1",
        "#SBATCH --output=/shared/evo/job1/job.log",
        "#SBATCH --open-mode=append",
        "#SBATCH --nodes=1",
        "#SBATCH --ntasks=1",
        "#SBATCH --time=120",
        "#SBATCH --partition=gpu",
        "#SBATCH --account=rl-team",
        "#SBATCH --qos=normal",
        "#SBATCH --gres=gpu:a100:4",
        "#SBATCH --mem=64G",
        "#SBATCH --constraint=nvlink",
        "cd '/shared/evo/job1' || exit 2",
        ": > started",
        "export HF_HOME='/shared/hf cache'",
        "export EVO_JOB_DIR='/shared/evo/job1'",
        "'python' '-m' 'train' 'it'\\''s'",
        "code=$?",
        "echo $code > exit_code.tmp && mv exit_code.tmp exit_code",
        'exit "$code"',
        "",
      ].join("\n"),
    );
  });

  it("asks for no GPUs for a CPU job, and for less time when the run's budget leaves less", () => {
    const script = sbatchScript(cluster, { ...job, gpus: 0, deadlineSeconds: 61 });
    expect(script).not.toContain("--gres");
    expect(script).toContain("#SBATCH --time=2\n");
    expect(sbatchMinutes(cluster, 1)).toBe(1);
  });

  it("refuses an environment name that is no shell name", () => {
    expect(() => sbatchScript(cluster, { ...job, env: { "A;rm -rf": "x" } })).toThrow(/not a valid shell name/);
  });

  it("exits with the command's code and leaves it in exit_code", () => {
    const dir = mkdtempSync(join(tmpdir(), "evo-sbatch-"));
    const script = join(dir, "job.sbatch");
    writeFileSync(script, sbatchScript(cluster, { ...job, workDir: dir, command: ["sh", "-c", 'test "$HF_HOME" = "/shared/hf cache" && exit 7']}));
    let code = 0;
    try {
      execFileSync("sh", [script]);
    } catch (error) {
      code = (error as { status: number }).status;
    }
    expect(code).toBe(7);
    expect(readFileSync(join(dir, "exit_code"), "utf8").trim()).toBe("7");
  });
});

describe("the cluster's config", () => {
  it("reads Slurm's time formats in minutes, rounding seconds up", () => {
    expect(["30", "30:30", "01:00:00", "1-00", "1-02:03", "1-00:00:01"].map(timeLimitMinutes)).toEqual([30, 31, 60, 1440, 1563, 1441]);
    expect(timeLimitMinutes("an hour")).toBeNull();
  });

  it("refuses a job root that is relative or would split an #SBATCH line, and an option on two lines", () => {
    expect(slurmSettingsSchema.safeParse({ name: "x", jobRoot: "jobs" }).success).toBe(false);
    expect(slurmSettingsSchema.safeParse({ name: "x", jobRoot: "/my jobs" }).success).toBe(false);
    expect(slurmSettingsSchema.safeParse({ name: "x", jobRoot: "/j", extraSbatch: ["--mem=1G\n#SBATCH --x"] }).success).toBe(false);
    expect(slurmSettingsSchema.safeParse({ name: "x", jobRoot: "/j", partition: "gpu q" }).success).toBe(false);
  });
});
