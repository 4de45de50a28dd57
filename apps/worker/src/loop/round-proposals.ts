import { recordEvent } from "@evotrainer/db";
import type { Detector, Intervention, LockedEvaluation, ProposerInput, RunConfig } from "@evotrainer/core";
import { LlmProposalError, LlmProposer, type LlmContext } from "@evotrainer/proposers";
import type { LoopDeps } from "./deps.ts";
import { recordLlmCall } from "./llm-calls.ts";

export interface ProposalRound {
  runId: string;
  /** The diagnosed parent; LLM calls are accounted to it. */
  branchId: string;
  round: number;
  config: RunConfig;
  locked: LockedEvaluation;
  input: ProposerInput;
  /** What only the LLM proposer reads; loaded only for runs that use it. */
  context: () => Promise<LlmContext>;
}

export interface RoundProposals {
  interventions: Intervention[];
  /** Detectors the LLM asked for, past their CEL guards and own cases; still to be retro-validated. */
  detectors: Detector[];
}

/**
 * Step 3's proposer call. A run with `search.proposer: llm` asks the LLM proposer; every call is
 * stored as it happens, and when the LLM cannot serve the round (not configured, budget spent,
 * timeout, malformed or twice-refused answer, provider error) the round falls back to the
 * rule-based proposer and a `proposer_fallback` event says why. Whatever comes back still goes
 * through planRound's gates.
 */
export async function roundProposals(deps: Pick<LoopDeps, "db" | "proposerFor" | "log">, round: ProposalRound): Promise<RoundProposals> {
  if (round.config.search.proposer === "rule") return { interventions: await deps.proposerFor(round.locked).propose(round.input), detectors: [] };
  const { llmDollarsUsed } = await deps.db.run.findUniqueOrThrow({ where: { id: round.runId }, select: { llmDollarsUsed: true } });
  try {
    const proposer = deps.proposerFor(round.locked, {
      settings: round.config.llm,
      spentDollars: llmDollarsUsed,
      context: await round.context(),
      onCall: (call) => recordLlmCall(deps.db, round, call),
    });
    if (proposer instanceof LlmProposer) {
      const { interventions, detectors } = await proposer.proposeRound(round.input);
      return { interventions, detectors };
    }
    return { interventions: await proposer.propose(round.input), detectors: [] };
  } catch (error) {
    if (!(error instanceof LlmProposalError)) throw error;
    const fallback = deps.proposerFor(round.locked);
    await recordEvent(deps.db, {
      runId: round.runId,
      branchId: round.branchId,
      type: "proposer_fallback",
      actor: "system",
      payload: { round: round.round, from: "llm", to: fallback.name, reason: error.reason, message: error.message },
    });
    deps.log(`propose: run ${round.runId} round ${round.round}: LLM proposer unavailable (${error.reason}: ${error.message}); using ${fallback.name}`);
    return { interventions: await fallback.propose(round.input), detectors: [] };
  }
}
