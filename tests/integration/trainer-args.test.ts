import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { parse } from "yaml";
import { createDatabase } from "@evotrainer/db";
import { createTestDatabase } from "@evotrainer/db/testing";
import { runCli } from "../support/cli.ts";
import { TRL_PYTHON, trlUnavailable } from "../support/real-trainers.ts";
import { deleteKeys, testPrefix } from "../support/redis-prefix.ts";

const database = await createTestDatabase(inject("databaseUrl"));
const redisUrl = inject("redisUrl");
const prefix = testPrefix();
const unavailable = trlUnavailable();
// Never a silent skip: the reason is printed where CI logs show it.
if (unavailable) console.error(`\nREAL-TRAINER TESTS NOT RUN: ${unavailable}\n`);

const dir = mkdtempSync(join(tmpdir(), "evo-trainer-args-"));
const example = parse(readFileSync("examples/gym-math.yaml", "utf8")) as Record<string, any>;

/** `evotrainer run` of a local run on `adapter` with these trainer settings, and the runs the database then holds. */
async function run(name: string, adapter: "trl" | "verl", trainer: Record<string, unknown>, env: Record<string, string> = {}, passthrough: Record<string, unknown> = {}) {
  const file = join(dir, `${name}.yaml`);
  const recipe = { ...example.recipe, passthrough };
  writeFileSync(file, JSON.stringify({ ...example, name, adapter, executor: "local", resources: { gpusPerJob: 0 }, recipe, trainer }));
  const started = Date.now();
  const result = await runCli(["run", file, "--json"], { DATABASE_URL: database.url, REDIS_URL: redisUrl, EVO_QUEUE_PREFIX: prefix, ...env });
  const db = createDatabase(database.url);
  try {
    return { ...result, file, seconds: (Date.now() - started) / 1000, runs: await db.run.count({ where: { name } }) };
  } finally {
    await db.$disconnect();
  }
}

afterAll(async () => {
  await deleteKeys(redisUrl, `${prefix}:*`);
  await database.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe("a trainer.python that cannot check the run's trainer arguments", () => {
  it("says which trainer.python cannot be run or has no TRL, and creates nothing", async () => {
    const missing = await run("missing", "trl", { python: join(dir, "no-venv/bin/python"), dataset: "/data/train.jsonl", args: { per_device_train_batch_size: 4 } });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`trainer.python: ${join(dir, "no-venv/bin/python")} cannot be run (ENOENT)`);
    expect(missing.runs).toBe(0);
    // The system's python3 (PATH), which has no TRL: the default a config gets without trainer.python.
    const bare = await run("bare", "trl", { dataset: "/data/train.jsonl", args: { per_device_train_batch_size: 4 } }, { PYTHONNOUSERSITE: "1" });
    expect(bare.code).toBe(1);
    expect(bare.stderr).toContain("trainer.python: python3 cannot import trl: ModuleNotFoundError: No module named 'trl'; set trainer.python to the interpreter that has trl installed");
    expect(bare.runs).toBe(0);
  });

});

describe.skipIf(unavailable !== null)("trainer arguments checked by `evotrainer run` with the run's own trainer.python (real TRL in .venv-trl)", () => {
  it("refuses a GRPOConfig key TRL does not take, naming it and the near one, and creates nothing; a good config runs", async () => {
    const typo = await run("typo", "trl", { python: TRL_PYTHON, dataset: "/data/train.jsonl", args: { per_device_train_batch_size: 4, gradient_acumulation_steps: 2, no_such_setting: 1 } }, {}, { trl: { num_generation: 4 } });
    expect(typo.code, typo.stdout).toBe(1);
    expect(typo.stderr).toContain(`${typo.file}: invalid run config:`);
    expect(typo.stderr).toContain("trainer.args.gradient_acumulation_steps: TRL's GRPOConfig has no argument gradient_acumulation_steps (did you mean gradient_accumulation_steps?)");
    expect(typo.stderr).toContain("trainer.args.no_such_setting: TRL's GRPOConfig has no argument no_such_setting\n");
    expect(typo.stderr).toContain("recipe.passthrough.trl.num_generation: TRL's GRPOConfig has no argument num_generation (did you mean num_generations?)");
    expect(typo.stderr).not.toContain("per_device_train_batch_size");
    expect(typo.runs).toBe(0);

    const good = await run("good", "trl", { python: TRL_PYTHON, dataset: "/data/train.jsonl", args: { per_device_train_batch_size: 4, gradient_accumulation_steps: 2 } });
    expect(good.code, good.stderr).toBe(0);
    expect(JSON.parse(good.stdout)).toMatchObject({ runId: expect.any(String) });
    expect(good.runs).toBe(1);
    // One import of TRL (torch, transformers) per `run`: printed so that a slow one shows in CI logs.
    console.error(`trainer-args: \`evotrainer run\` of a TRL config took ${good.seconds.toFixed(1)} s, TRL's import included`);
  });

  it("checks verl's overrides against the Hydra paths of the installed verl's trainer config", async () => {
    // verl is not installed here: a package directory holding verl's real generated config
    // (tests/fixtures/real, verl-commit.txt names the commit) is what the checker finds as `verl`.
    const site = join(dir, "site");
    mkdirSync(join(site, "verl/trainer/config"), { recursive: true });
    copyFileSync("tests/fixtures/real/verl-ppo-trainer-config.yaml", join(site, "verl/trainer/config/_generated_ppo_trainer.yaml"));
    const settings = { python: TRL_PYTHON, trainFiles: "/data/train.parquet" };
    const typo = await run("verl-typo", "verl", { ...settings, overrides: { "actor_rollout_ref.actor.ppo_epoch": 2, "+trainer.extra": 1 } }, { PYTHONPATH: site });
    expect(typo.stderr).toContain('trainer.overrides.actor_rollout_ref.actor.ppo_epoch: verl\'s trainer config has no key actor_rollout_ref.actor.ppo_epoch (did you mean actor_rollout_ref.actor.ppo_epochs?)');
    expect(typo.stderr).not.toContain("+trainer.extra");
    expect(typo.runs).toBe(0);
    const good = await run("verl-good", "verl", { ...settings, overrides: { "actor_rollout_ref.actor.ppo_epochs": 2, "data.train_batch_size": 8 } }, { PYTHONPATH: site });
    expect(good.code, good.stderr).toBe(0);
    expect(good.runs).toBe(1);
  });
});
