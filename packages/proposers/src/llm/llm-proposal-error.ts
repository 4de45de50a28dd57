/** Why a round could not use the LLM's proposals: the caller falls back to the rule-based proposer and says so. */
export type LlmFallbackReason = "not_configured" | "budget" | "timeout" | "malformed" | "rejected" | "error";

export class LlmProposalError extends Error {
  override readonly name = "LlmProposalError";

  constructor(
    readonly reason: LlmFallbackReason,
    message: string,
  ) {
    super(message);
  }
}
