import { spawn } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  metricsLineSchema,
  paths,
  readCheckpoint,
  readEval,
  readHeartbeat,
  readStatus,
  rolloutSchema,
  writeJob,
} from "@evotrainer/contract";
import { afterAll, describe, expect, it } from "vitest";
import { gymJob } from "./test-job.ts";

const BIN = fileURLToPath(new URL("../bin/evotrainer-gym.js", import.meta.url));
const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

async function jsonl(file: string): Promise<unknown[]> {
  return (await readFile(file, "utf8")).trimEnd().split("\n").map((line) => JSON.parse(line));
}

describe("the gym command line", () => {
  it("runs a job.json to the end, writing every contract file, with a heartbeat that moves while it runs", async () => {
    const dir = await mkdtemp(join(tmpdir(), "gym-cli-"));
    dirs.push(dir);
    const out = join(dir, "out");
    const jobFile = join(dir, "job.json");
    // Paced to 8 steps a second so the heartbeat can be watched.
    await writeJob(jobFile, gymJob(out, { adapter: { tasksPerStep: 8, stepsPerSecond: 8 } }));

    const child = spawn(process.execPath, [BIN, jobFile], { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)));
    let running = true;
    void exited.then(() => (running = false));

    const beats = new Set<string>();
    while (running) {
      const beat = await readHeartbeat(out).catch(() => null);
      if (beat !== null && running) beats.add(`${beat.step}/${beat.phase}/${beat.time}`);
      await new Promise((done) => setTimeout(done, 40));
    }
    expect(await exited, output).toBe(0);
    // The last beat ends the attempt on the job's own clock, which GPU-seconds are charged by.
    const last = (await readHeartbeat(out))!;
    expect(last.phase).toBe("teardown");
    expect(Date.parse(last.time) - Date.parse(last.startedAt!)).toBeGreaterThan(0);
    const trainingBeats = [...beats].filter((b) => /^\d+\/(rollout|update|checkpoint)\//.test(b));
    expect(new Set(trainingBeats.map((b) => b.split("/")[0])).size).toBeGreaterThanOrEqual(3);

    const p = paths(out);
    const metrics = (await jsonl(p.metrics)).map((m) => metricsLineSchema.parse(m));
    expect(metrics.map((m) => m.step)).toEqual([1, 2, 3, 4, 5, 6]);
    // Every line carries the job's attempt (1 here), so a retry's lines replace these in the control plane.
    expect(metrics.every((m) => m.attempt === 1)).toBe(true);
    for (const key of ["critic/score/mean", "actor/entropy", "actor/kl_loss", "actor/pg_clipfrac", "response_length/mean", "train/dead_group_ratio", "train/truncation_rate", "train/pass_rate"]) {
      expect(typeof metrics[5]!.data[key], key).toBe("number");
    }
    for (let step = 1; step <= 6; step++) {
      const rows = (await jsonl(p.rolloutsFile("train", step))).map((r) => rolloutSchema.parse(r));
      expect(rows).toHaveLength(8 * 8);
      expect(new Set(rows.map((r) => r.uid)).size).toBe(rows.length);
      expect(rows.every((r) => r.split === "train" && r.step === step && r.trajectory !== undefined && r.turns >= 1 && r.attempt === 1)).toBe(true);
    }
    const evalRows = (await jsonl(p.rolloutsFile("eval", 6))).map((r) => rolloutSchema.parse(r));
    expect(evalRows.filter((r) => r.split === "promotion")).toHaveLength(16 * 2);
    expect(evalRows.filter((r) => r.split === "sealed")).toHaveLength(8 * 2);
    const evaluation = await readEval(out, 6);
    expect(evaluation?.splits.promotion?.tasks).toHaveLength(16);
    expect(evaluation?.splits.sealed?.tasks).toHaveLength(8);

    const checkpoint = await readCheckpoint(out);
    expect(checkpoint?.step).toBe(6);
    const policy = JSON.parse(await readFile(join(out, checkpoint!.path), "utf8"));
    expect(policy).toMatchObject({ format: "evo.gym.policy/v1", domain: "swe", step: 6 });
    expect(await readHeartbeat(out)).toMatchObject({ step: 6, phase: "teardown", progress: 1 });
    expect(await readStatus(out)).toMatchObject({ state: "succeeded", exitCode: 0, lastStep: 6 });
    expect((await readdir(join(out, "rollouts", "train"))).sort()).toHaveLength(6);
  }, 20_000);

  it("exits 2 on a job it cannot run", async () => {
    const dir = await mkdtemp(join(tmpdir(), "gym-cli-"));
    dirs.push(dir);
    const jobFile = join(dir, "job.json");
    const job = gymJob(join(dir, "out"));
    await writeJob(jobFile, { ...job, recipe: { ...job.recipe, reward: { components: { style: { weight: 1 } }, overlong: { enabled: false, bufferTokens: 0, penalty: 0 } } } });
    const code = await new Promise<number | null>((done) => spawn(process.execPath, [BIN, jobFile], { stdio: "ignore" }).on("exit", done));
    expect(code).toBe(2);
    expect(await readStatus(join(dir, "out"))).toMatchObject({ state: "failed", exitCode: 2, failureClass: "config_error" });
    expect((await readStatus(join(dir, "out")))?.message).toContain("recipe.reward.components.style");
  }, 20_000);
});
