import type { LockedEvaluation, Proposer, RunConfig } from "@evotrainer/core";
import { LlmProposalError, LlmProposer, resolveLlmSettings, RuleBasedProposer, type LlmCall, type LlmContext } from "@evotrainer/proposers";

/** What a round hands the factory when its run asks for the LLM proposer. */
export interface LlmRound {
  settings: RunConfig["llm"];
  /** Dollars the run has already spent on LLM calls. */
  spentDollars: number;
  context: LlmContext;
  /** Stores a call (event, the run's spend) before the next one starts. */
  onCall: (call: LlmCall) => Promise<void>;
}

/**
 * The proposer of one round; it needs the run's locked evaluation to check its own proposals.
 * Called without `llm` it must give the rule-based proposer: that is also what an LLM round
 * falls back to.
 */
export type ProposerFactory = (lockedEvaluation: LockedEvaluation, llm?: LlmRound) => Proposer;

/**
 * The worker's factory: the LLM proposer for a round that asks for one, configured by the run's
 * `llm:` settings and EVO_LLM_* (the only source of the API key); throws an LlmProposalError when
 * that configuration is incomplete, so the round falls back and says why.
 */
export function proposerFactory(env: Readonly<Record<string, string | undefined>>): ProposerFactory {
  return (lockedEvaluation, llm) => {
    if (!llm) return new RuleBasedProposer({ lockedEvaluation });
    const resolved = resolveLlmSettings(llm.settings, env);
    if (!resolved.ok) throw new LlmProposalError("not_configured", resolved.message);
    return new LlmProposer({ lockedEvaluation, settings: resolved.settings, spentDollars: llm.spentDollars, context: llm.context, onCall: llm.onCall });
  };
}
