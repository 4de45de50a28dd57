import { changedFactors } from "./factors.ts";
import type { Intervention } from "./intervention.ts";
import { applyJsonPatch } from "./json-patch.ts";
import { changedEvaluationPath, touchedEvaluationPath, type LockedEvaluation } from "./locked-evaluation.ts";
import { recipeSchema, type Recipe } from "./recipe.ts";

export type RejectionReason =
  | "touches_locked_evaluation"
  | "patch_failed"
  | "unknown_factor"
  | "multiple_factors"
  | "no_change"
  | "factor_mismatch"
  | "invalid_recipe";

export type ApplyResult =
  | { ok: true; recipe: Recipe; factor: string }
  | { ok: false; reason: RejectionReason; message: string; path?: string };

/**
 * The new recipe, or the reason the intervention is refused. Checks run from the most to the least
 * fundamental: evaluation lock, patch mechanics, single-factor rule, then the schema.
 */
export function applyIntervention(
  recipe: Recipe,
  intervention: Intervention,
  lockedEvaluation: LockedEvaluation,
): ApplyResult {
  for (const op of intervention.patch) {
    // Reading a locked value (test, or the source of a copy) changes nothing; writing one does.
    if (op.op === "test") continue;
    for (const path of op.op === "move" ? [op.path, op.from] : [op.path]) {
      const locked = touchedEvaluationPath(path, lockedEvaluation);
      if (locked !== undefined) {
        return {
          ok: false,
          reason: "touches_locked_evaluation",
          message: `${op.op} ${path} touches the locked evaluation (${locked})`,
          path,
        };
      }
    }
  }

  const patched = applyJsonPatch(recipe, intervention.patch);
  if (!patched.ok) {
    return { ok: false, reason: "patch_failed", message: `patch operation ${patched.opIndex} failed: ${patched.message}` };
  }

  const rewritten = changedEvaluationPath(recipe, patched.document, lockedEvaluation);
  if (rewritten !== undefined) {
    return { ok: false, reason: "touches_locked_evaluation", message: `the patch changes the locked evaluation (${rewritten})`, path: rewritten };
  }

  const { factors, unknown } = changedFactors(recipe, patched.document);
  if (unknown.length > 0) {
    return { ok: false, reason: "unknown_factor", message: `changes ${unknown.join(", ")}, which is no declared factor`, path: unknown[0] };
  }
  if (factors.length > 1) {
    return { ok: false, reason: "multiple_factors", message: `changes ${factors.length} factors (${factors.join(", ")}); an intervention changes exactly one` };
  }
  const [factor] = factors;
  if (factor === undefined) {
    return { ok: false, reason: "no_change", message: "the patch leaves the recipe unchanged" };
  }
  if (factor !== intervention.factor) {
    return { ok: false, reason: "factor_mismatch", message: `declares factor ${intervention.factor} but changes ${factor}` };
  }

  const parsed = recipeSchema.safeParse(patched.document);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const path = issue.path.map(String).join(".");
    return { ok: false, reason: "invalid_recipe", message: `invalid recipe at ${path || "(root)"}: ${issue.message}`, path };
  }
  return { ok: true, recipe: parsed.data, factor };
}
