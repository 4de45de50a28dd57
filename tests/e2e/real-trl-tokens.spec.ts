import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { parse } from "yaml";
import { createLocalUser } from "@evotrainer/api";
import { createDatabase } from "@evotrainer/db";
import { CLI } from "../support/cli.ts";
import { SEED_PASSWORD } from "../support/dashboard-seed.ts";
import { buildTinyModel, TRL_PYTHON, trlUnavailable, writeArithmeticTasks } from "../support/real-trainers.ts";
import { signIn } from "./sign-in.ts";

// The token view on a real TRL run: the quickstart's worker trains a tiny model built here with TRL on
// the CPU (adapter trl, executor local); the TRL wrapper records each completion's per-token log-probs
// under the policy that sampled it, and the dashboard shows exactly those. The same job's TRL output
// directory, imported, shows that imported data has none.
const shots = "test-results/screenshots";
const db = createDatabase(process.env.DATABASE_URL!);
const unavailable = trlUnavailable();
// Never a silent skip: the reason is printed where CI logs show it.
if (unavailable) console.error(`\nREAL-TRAINER TESTS NOT RUN: ${unavailable}\n`);

type Tokens = { logprobs: number[]; entropies?: number[]; pieces?: string[] };
type FileRollout = { uid: string; tokens?: Tokens };

// The dashboard's rendering of a measured number (four significant digits), written out here so that
// the expected text is computed from the job's file, not by the code under test.
const fourDigits = (x: number) => (Number.isInteger(x) ? String(x) : String(Number(x.toPrecision(4))));

test.afterAll(() => db.$disconnect());

test("a real TRL run shows the policy's own per-token log-probs, and the same TRL output imported says it has none", async ({ page }) => {
  test.skip(unavailable !== null, `REAL-TRAINER TESTS NOT RUN: ${unavailable}`);
  // A bound against hangs while TRL starts, trains and evaluates on a loaded CPU; the waits below are on state.
  test.setTimeout(360_000);
  const dir = mkdtempSync(join(tmpdir(), "evo-e2e-trl-tokens-"));
  for (const [split, n, offset] of [["train", 4, 0], ["promotion", 2, 20], ["sealed", 2, 40]] as const) writeArithmeticTasks(join(dir, `${split}.jsonl`), split, n, offset);
  const model = buildTinyModel(dir, join(dir, "train.jsonl"));
  const example = parse(readFileSync("examples/gym-math.yaml", "utf8")) as Record<string, any>;
  const split = (name: string) => ({ dataset: join(dir, `${name}.jsonl`), samplesPerTask: 1, temperature: 0.7, maxResponseTokens: 6, grader: "math" });
  // The base branch alone, one step: a single GRPO group of two completions of at most six tokens, and the
  // promotion split's two tasks once.
  const config = (name: string) => ({
    ...example,
    name,
    basePolicy: model,
    recipe: { ...example.recipe, algo: { ...example.recipe.algo, groupSize: 2, maxResponseTokens: 6, lr: 1e-3 } },
    evaluation: { promotion: split("promotion"), sealed: split("sealed"), seed: 7 },
    search: { proposals: 1, keep: 1, stepsPerBranch: 1, proposer: "rule" },
    autonomy: { ...example.autonomy, gates: { ...example.autonomy.gates, design: true } },
    budget: { gpuSeconds: 3_000, branches: 1, rounds: 1 },
    adapter: "trl",
    executor: "local",
    resources: { gpusPerJob: 0 },
    trainer: { python: TRL_PYTHON, dataset: join(dir, "train.jsonl"), args: { per_device_train_batch_size: 2 } },
  });
  const configFile = join(dir, "run.yaml");
  writeFileSync(configFile, JSON.stringify(config(`real-trl-tokens-${Date.now()}`)));
  const started = spawnSync(process.execPath, [CLI, "run", configFile, "--json"], { env: process.env, encoding: "utf8" });
  expect(started.status, started.stderr).toBe(0);
  const { runId } = JSON.parse(started.stdout) as { runId: string };
  const run = await db.run.findUniqueOrThrow({ where: { id: runId } });
  const email = `trl-tokens-viewer-${Date.now()}@example.test`;
  await createLocalUser(db, { email, name: "TRL tokens viewer", password: SEED_PASSWORD, organizationId: run.organizationId, role: "viewer" });

  // The worker ingests the training rollouts while TRL trains; a flagged or sampled one keeps its tokens.
  const withTokens = async () => {
    const rows = await db.rollout.findMany({ where: { runId, split: "train" }, orderBy: { id: "asc" } });
    return rows.find((r) => r.tokens !== null && r.jobId !== null) ?? null;
  };
  await expect.poll(withTokens, { timeout: 300_000, intervals: [1_000] }).not.toBeNull();
  const rollout = (await withTokens())!;

  // What the job wrote: the contract's rollout file under the output dir its job.json names.
  const job = await db.job.findUniqueOrThrow({ where: { id: rollout.jobId! } });
  const { outputDir } = JSON.parse(readFileSync(join(job.outputUri!, "job.json"), "utf8")) as { outputDir: string };
  const written = readFileSync(join(outputDir, "rollouts", "train", `step_${rollout.step}.jsonl`), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as FileRollout)
    .find((r) => r.uid === rollout.uid);
  const tokens = written?.tokens;
  expect(tokens, `${rollout.uid} in the job's step_${rollout.step}.jsonl`).toBeDefined();
  expect(rollout.tokens).toEqual(tokens);
  // One log-prob, one entropy and one piece per completion token TRL sampled.
  expect(tokens!.logprobs.length).toBe(rollout.responseTokens);
  expect(tokens!.entropies?.length).toBe(rollout.responseTokens);
  expect(tokens!.pieces?.length).toBe(rollout.responseTokens);

  await signIn(page, email);
  await page.goto(`/runs/${runId}/branches/${rollout.branchId}/rollouts?r=${rollout.id}`);
  await expect(page.getByRole("heading", { name: `Rollout ${rollout.id} · ${rollout.taskId}` })).toBeVisible();
  const strip = page.getByTestId("rollout-detail").getByTestId("token-strip");
  const cells = strip.getByTestId("token");
  await expect(cells).toHaveCount(tokens!.logprobs.length);
  const mean = tokens!.logprobs.reduce((a, b) => a + b, 0) / tokens!.logprobs.length;
  await expect(strip).toContainText(`${tokens!.logprobs.length} tokens · mean log-prob ${fourDigits(mean)} · min ${fourDigits(Math.min(...tokens!.logprobs))}`);
  // Every token's numbers, in order, are the job's.
  for (const [i, logprob] of tokens!.logprobs.entries()) {
    await expect(cells.nth(i)).toHaveAttribute("title", `${JSON.stringify(tokens!.pieces![i])} · log-prob ${fourDigits(logprob)} · entropy ${fourDigits(tokens!.entropies![i]!)}`);
  }
  // Each cell prints its piece; a piece that would print nothing (a control byte, only spaces) still shows something.
  const shown = await cells.allTextContents();
  for (const [i, piece] of tokens!.pieces!.entries()) {
    if (/^[^\u0000-\u001f\u007f-\u009f]*\S[^\u0000-\u001f\u007f-\u009f]*$/.test(piece)) expect(shown[i], `token ${i + 1}`).toBe(piece);
    else expect(shown[i]!.trim(), `token ${i + 1} (${JSON.stringify(piece)})`).not.toBe("");
  }
  // The detail pane scrolls on its own: bring the strip into the shot.
  await strip.scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${shots}/real-trl-tokens.png`, fullPage: true });
  await strip.screenshot({ path: `${shots}/real-trl-token-strip.png` });

  // The base branch trained, evaluated and diagnosed, the round waits at its design gate: nothing else trains.
  // Stopped there without the sealed evaluation, the run leaves no job behind for the specs after this one.
  await expect.poll(() => db.branch.count({ where: { runId, status: "proposed" } }), { timeout: 300_000, intervals: [1_000] }).toBeGreaterThan(0);
  expect((await db.job.findUniqueOrThrow({ where: { id: job.id } })).state).toBe("succeeded");
  const stopped = spawnSync(process.execPath, [CLI, "stop", runId, "--skip-sealed"], { env: process.env, encoding: "utf8" });
  expect(stopped.status, stopped.stderr).toBe(0);
  await expect.poll(async () => (await db.run.findUniqueOrThrow({ where: { id: runId } })).status, { timeout: 60_000, intervals: [500] }).toBe("cancelled");

  // TRL's own output of the same job (completions parquet, trainer state) imported as a run of its own.
  const importConfig = join(dir, "import.yaml");
  writeFileSync(importConfig, JSON.stringify(config(`imported-trl-tokens-${Date.now()}`)));
  const imported = spawnSync(process.execPath, [CLI, "import", "trl", outputDir, "--config", importConfig, "--json"], { env: process.env, encoding: "utf8" });
  expect(imported.status, imported.stderr).toBe(0);
  const importedRunId = (JSON.parse(imported.stdout) as { runId: string }).runId;
  const importedRollout = await db.rollout.findFirstOrThrow({ where: { runId: importedRunId, split: "train" }, orderBy: { id: "asc" } });
  expect(importedRollout.tokens).toBeNull();
  await page.goto(`/runs/${importedRunId}/branches/${importedRollout.branchId}/rollouts?r=${importedRollout.id}`);
  const detail = page.getByTestId("rollout-detail");
  await expect(detail.getByRole("heading", { name: `Rollout ${importedRollout.id} · ${importedRollout.taskId}` })).toBeVisible();
  await expect(detail.getByTestId("tokens-absent")).toHaveText("Not recorded for this rollout (imported data has no per-token log-probs).");
  await expect(detail.getByTestId("token-strip")).toHaveCount(0);
  await detail.getByTestId("tokens-absent").scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${shots}/real-trl-imported-tokens.png`, fullPage: true });
});
