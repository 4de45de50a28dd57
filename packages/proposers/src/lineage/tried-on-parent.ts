import { applyJsonPatch, branchFailed, contentHash, interventionKey, recipeHash, type LineageEntry, type ProposerInput } from "@evotrainer/core";

/** How an intervention already fared on this parent: failed (rejected or vetoed) or merely there (running, promoted). */
export type TriedOutcome = "failed" | "exists";

/**
 * Interventions (by factor and patch) already tried on the parent whose recipe the input carries.
 * A child is on this parent when its parent branch has this recipe, or, with the parent missing
 * from the lineage, when its recipe is exactly this recipe with its patch applied.
 */
export function triedOnParent(input: Pick<ProposerInput, "recipe" | "lineage">): Map<string, TriedOutcome> {
  const parentHash = recipeHash(input.recipe);
  const byId = new Map(input.lineage.map((e) => [e.branchId, e]));
  const onParent = (e: LineageEntry): boolean => {
    const parent = e.parentBranchId === undefined ? undefined : byId.get(e.parentBranchId);
    if (parent) return parent.recipeHash === parentHash;
    const child = applyJsonPatch(input.recipe, e.intervention!.patch);
    return child.ok && contentHash(child.document) === e.recipeHash;
  };
  const tried = new Map<string, TriedOutcome>();
  for (const e of input.lineage) {
    if (!e.intervention || !onParent(e)) continue;
    const key = interventionKey(e.intervention);
    const failed = e.decisions.some((d) => d.kind === "veto") || branchFailed(e);
    if (failed || !tried.has(key)) tried.set(key, failed ? "failed" : "exists");
  }
  return tried;
}
