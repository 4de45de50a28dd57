import { metricValue, type Domain, type EffectDirection, type Finding, type HealthReport, type Intervention, type Recipe } from "@evotrainer/core";

/** An intervention before anyone signs it: the proposer adds the provenance. */
export type Proposal = Omit<Intervention, "provenance">;

export interface ChangeContext {
  domain: Domain;
  recipe: Recipe;
  report: HealthReport;
  /** The finding that called for the change. */
  finding: Finding;
}

/** The metric a change is meant to move, and which way. */
export interface Target {
  metric: string;
  direction: EffectDirection;
}

/** One single-factor change of the playbook; undefined when it does not apply to this recipe (already on, at its cap). */
export interface Change {
  id: string;
  propose(ctx: ChangeContext): Proposal | undefined;
}

export const up = (metric: string): Target => ({ metric, direction: "up" });
export const down = (metric: string): Target => ({ metric, direction: "down" });

export function hypothesis(change: string, effect: string, because: string): string {
  return `if ${change} then ${effect} because ${because}`;
}

/** "truncation_rate (now 0.4200)": the target with the value the report shows, so the claim can be checked. */
export function describeTarget(ctx: ChangeContext, target: Target): string {
  const value = metricValue(ctx.report.metrics, target.metric);
  return value === undefined ? target.metric : `${target.metric} (now ${value.toFixed(4)})`;
}

export function falsifiedUnless(ctx: ChangeContext, target: Target): string {
  return `${describeTarget(ctx, target)} does not go ${target.direction} on the child branch, or the promotion score regresses`;
}
