import { canonicalJson, DEFAULT_HEALTH_RULES, DETECTOR_CATALOG, recipeHash, type Recipe, type RunConfig } from "@evotrainer/core";
import type { Database } from "../client.ts";
import { recordEvent, type Tx } from "./events.ts";
import { registerHarnessVersion } from "./harness-versions.ts";
import { json } from "./json.ts";

/** Stores a recipe once per content hash and returns its row id. */
export async function storeRecipe(tx: Tx, recipe: Recipe): Promise<string> {
  const hash = recipeHash(recipe);
  const row = await tx.recipe.upsert({ where: { hash }, update: {}, create: { hash, canonical: canonicalJson(recipe) } });
  return row.id;
}

export interface CreatedRun {
  runId: string;
  baseBranchId: string;
}

export interface CreateRunOptions {
  /** An imported base branch has trained already: it waits for a person's decision instead of training. */
  baseStatus?: "queued" | "awaiting_decision";
  /** Writes that commit with the run or not at all (an import's job), so a failure leaves no half-made run. */
  alongside?: (tx: Tx, created: CreatedRun) => Promise<void>;
  /** The config file the run was created from, as the CLI resolved it: the page's calibrate command names it. */
  configPath?: string;
}

/**
 * Creates a run from a validated config: the run (its config frozen in `settings`), harness v1 from
 * the domain's detector catalog, and the base branch v0 queued for training.
 */
export async function createRun(
  db: Database,
  config: RunConfig,
  owner: { organizationId: string; createdById?: string },
  options: CreateRunOptions = {},
): Promise<CreatedRun> {
  return db.$transaction(async (tx) => {
    const run = await tx.run.create({
      data: {
        organizationId: owner.organizationId,
        createdById: owner.createdById ?? null,
        name: config.name,
        domain: config.domain,
        status: "running",
        basePolicy: config.basePolicy,
        settings: json(config),
        evaluationProtocol: json(config.evaluation),
        autonomyPolicy: json(config.autonomy),
        budget: json(config.budget),
        startedAt: new Date(),
      },
    });
    const harnessVersionId = await registerHarnessVersion(tx, {
      runId: run.id,
      parentId: null,
      version: 1,
      domain: config.domain,
      definition: {
        version: 1,
        detectors: DETECTOR_CATALOG.filter((d) => d.domains.includes(config.domain)),
        healthRules: [...DEFAULT_HEALTH_RULES],
        gate: config.gate,
      },
      evidence: { reason: "it is the domain's built-in catalog" },
    });
    await tx.run.update({ where: { id: run.id }, data: { harnessVersionId } });
    const recipeId = await storeRecipe(tx, config.recipe);
    const base = await tx.branch.create({ data: { runId: run.id, version: 0, round: 0, status: options.baseStatus ?? "queued", recipeId } });
    await recordEvent(tx, { runId: run.id, type: "run_created", actor: owner.createdById ? `user:${owner.createdById}` : "cli", payload: { config: json(config), ...(options.configPath ? { configPath: options.configPath } : {}) } });
    await recordEvent(tx, { runId: run.id, type: "harness_version", actor: "system", payload: { version: 1, detectors: DETECTOR_CATALOG.filter((d) => d.domains.includes(config.domain)).length } });
    await recordEvent(tx, { runId: run.id, branchId: base.id, type: "branch_created", actor: "system", payload: { version: 0, base: true } });
    const created = { runId: run.id, baseBranchId: base.id };
    await options.alongside?.(tx, created);
    return created;
    // It writes the domain's whole detector catalog: on a loaded machine (CI with a core held busy,
    // two cores shared) that took past Prisma's 5 s default and the run was never created.
  }, { timeout: 30_000 });
}
