// The rule-based proposer (issue 4) and the LLM proposer (issue 8) implement core's proposer interface here.
export { RuleBasedProposer, type RuleBasedProposerOptions } from "./rule-based-proposer.ts";
export { PLAYBOOK } from "./playbook.ts";
export type { PlaybookRule, Symptom } from "./playbook-rule.ts";
export { up, down, type Change, type ChangeContext, type Proposal, type Target } from "./change.ts";
export { mentionsFactor } from "./lineage/factor-mentions.ts";
export { triedOnParent, type TriedOutcome } from "./lineage/tried-on-parent.ts";
