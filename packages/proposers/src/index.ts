// The rule-based proposer (issue 4) and the LLM proposer (issue 8) implement core's proposer interface here.
export { RuleBasedProposer, type RuleBasedProposerOptions } from "./rule-based-proposer.ts";
export { PLAYBOOK } from "./playbook.ts";
export type { PlaybookRule, Symptom } from "./playbook-rule.ts";
export { up, down, type Change, type ChangeContext, type Proposal, type Target } from "./change.ts";
export { mentionsFactor } from "./lineage/factor-mentions.ts";
export { triedOnParent, type TriedOutcome } from "./lineage/tried-on-parent.ts";
export { LlmProposer, type LlmProposerOptions, type LlmProposal } from "./llm/llm-proposer.ts";
export { LlmProposalError, type LlmFallbackReason } from "./llm/llm-proposal-error.ts";
export { resolveLlmSettings, type LlmSettings, type ResolvedLlmSettings } from "./llm/llm-settings.ts";
export type { TokenUsage } from "./llm/llm-cost.ts";
export type { LlmCall, LlmCallOutcome } from "./llm/llm-call.ts";
export type { LlmContext, PastProposal } from "./llm/llm-context.ts";
