import type { Decision } from "./decision.ts";
import type { FactorPattern } from "./factors.ts";
import type { Domain } from "./harness/detector.ts";
import type { HealthReport } from "./harness/health-report.ts";
import type { Intervention } from "./intervention.ts";
import type { RenderCheck } from "./offered-factors.ts";
import type { Recipe } from "./recipe.ts";
import type { Skill } from "./skill.ts";
import type { Verdict } from "./verdict.ts";

/** One branch of the lineage as a proposer sees it: what was tried, how it was judged, what people said. */
export interface LineageEntry {
  branchId: string;
  parentBranchId?: string;
  recipeHash: string;
  intervention?: Intervention;
  verdict?: Verdict;
  /** Every decision, vetoes with their reasons included: negative evidence the proposer must respect. */
  decisions: Decision[];
}

/** What every proposer (rule-based, LLM, human form) receives. Sealed-split results are never in it. */
export interface ProposerInput {
  domain: Domain;
  report: HealthReport;
  recipe: Recipe;
  /** What the run's trainer renders on this recipe (offeredFactors): factors, and the values of those with a choice. */
  factors: readonly FactorPattern[];
  /** The run's trainer rendering a recipe (a dry run, no IO): a proposal must render to be worth making. */
  renders: RenderCheck;
  lineage: readonly LineageEntry[];
  skills: readonly Skill[];
  /** How many interventions to return. */
  k: number;
  /** Instructions from a "revise" decision, when this round answers one. */
  revision?: string;
}

/**
 * Proposes up to K single-factor interventions. Implementations live in packages/proposers; the
 * caller runs every proposal through applyIntervention, so a proposer cannot bypass the checks.
 */
export interface Proposer {
  readonly name: string;
  propose(input: ProposerInput): Promise<Intervention[]>;
}
