import { compileHarness, runConfigOf, type RunConfig } from "@evotrainer/core";
import type { Database } from "../client.ts";
import { loadHarnessVersion } from "../repositories/harness-versions.ts";
import type { BatchLabeler } from "./batch-labels.ts";
import { harnessLabeler } from "./harness-labeler.ts";

/**
 * The run's harness as ingest runs it on rollouts added to one of its branches: the run's current
 * harness version, the run's domain, and the branch recipe's length limit.
 */
export async function branchLabeler(db: Database, branchId: string): Promise<{ runId: string; config: RunConfig; labeler: BatchLabeler }> {
  const branch = await db.branch.findUnique({ where: { id: branchId }, include: { run: true, recipe: true } });
  if (!branch) throw new Error(`no branch with id ${branchId}; \`evotrainer report <runId>\` lists a run's branches`);
  const config = runConfigOf(branch.run);
  const stored = await loadHarnessVersion(db, branch.run.harnessVersionId!);
  const compiled = compileHarness(stored.definition);
  if (!compiled.ok) throw new Error(`the run's harness does not compile: ${compiled.rejections.map((r) => r.message).join("; ")}`);
  const recipe = JSON.parse(branch.recipe.canonical) as { algo: { maxResponseTokens: number } };
  return { runId: branch.runId, config, labeler: harnessLabeler(compiled.harness, stored.detectorRowIds, config.domain, recipe.algo.maxResponseTokens) };
}
