import type { BranchStatus, RunStatus } from "./statuses.ts";
import type { DecisionActorKind, DecisionKind } from "./decision-rules.ts";

export type VetoOverrideAdmission =
  | { outcome: "admitted"; overriddenDecisionId: string; next: "promoted" }
  | { outcome: "refused"; reason: "not_policy_veto" | "base_branch" | "run_finished"; message: string };

/**
 * Whether a person may override the autonomy policy's veto of a judged branch (rejected by its gate,
 * say for being a hair over a validity limit) and promote it. Only the policy's own veto is open to
 * this: a person's veto stands, and a branch already overridden is not overridden twice. Once the run
 * is finishing, its sealed evaluation is of the best branch as it stood, so nothing is promoted after.
 * The base branch is every later branch's reference, not a candidate: its own verdict has nothing to
 * override, and promoting it would change nothing.
 */
export function admitVetoOverride(input: {
  status: BranchStatus;
  isBase: boolean;
  runStatus: RunStatus;
  completionDecisions: readonly { id: string; kind: DecisionKind; actor: DecisionActorKind }[];
}): VetoOverrideAdmission {
  if (input.isBase) {
    return { outcome: "refused", reason: "base_branch", message: "the base branch is the run's reference, not a candidate: there is nothing to override" };
  }
  const last = input.completionDecisions.at(-1);
  if (input.status !== "rejected" || !last || last.actor !== "policy" || last.kind !== "veto") {
    return { outcome: "refused", reason: "not_policy_veto", message: `only a branch the policy vetoed can be overridden; this one is ${input.status}${last?.actor === "human" ? ", decided by a person" : ""}` };
  }
  if (!["pending", "running", "paused"].includes(input.runStatus)) {
    return { outcome: "refused", reason: "run_finished", message: `the run is ${input.runStatus}: its result no longer changes` };
  }
  return { outcome: "admitted", overriddenDecisionId: last.id, next: "promoted" };
}
