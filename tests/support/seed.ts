import type { Database } from "@evotrainer/db";

/** A run with a base branch and one job: the rows every ingest needs to hang rollouts on. */
export async function seedRunWithJob(db: Database, name: string) {
  const org = await db.organization.create({ data: { name, slug: `${name}-${Math.random().toString(36).slice(2, 8)}` } });
  const run = await db.run.create({
    data: {
      organizationId: org.id,
      name,
      domain: "math",
      basePolicy: "gym:math",
      settings: {},
      evaluationProtocol: {},
      autonomyPolicy: { mode: "full" },
      budget: {},
    },
  });
  const recipe = await db.recipe.upsert({ where: { hash: "0".repeat(64) }, update: {}, create: { hash: "0".repeat(64), canonical: "{}" } });
  const branch = await db.branch.create({ data: { runId: run.id, version: 0, round: 0, recipeId: recipe.id } });
  const job = await db.job.create({ data: { branchId: branch.id, executor: "local", adapter: "gym" } });
  return { org, run, branch, job };
}

/** What ingest needs to store rows into a fresh run's base branch, every text kept. */
export async function seedIngestInput(db: Database, name: string) {
  const { run, branch, job } = await seedRunWithJob(db, name);
  return { owner: { runId: run.id, branchId: branch.id, jobId: job.id }, keepText: () => true };
}
