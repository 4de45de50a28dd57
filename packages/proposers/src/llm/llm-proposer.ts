import type { LanguageModel } from "ai";
import type { Detector, Intervention, LockedEvaluation, Proposer, ProposerInput } from "@evotrainer/core";
import { checkOutput } from "./check-output.ts";
import { buildEvidence } from "./evidence.ts";
import { languageModel } from "./language-model.ts";
import type { LlmCall } from "./llm-call.ts";
import type { LlmContext } from "./llm-context.ts";
import { callDollars, type TokenUsage } from "./llm-cost.ts";
import { LlmProposalError } from "./llm-proposal-error.ts";
import type { LlmSettings } from "./llm-settings.ts";
import { promptFile, type PromptFile } from "./prompt-file.ts";
import { proposalOutputSchema, type ProposalOutput } from "./proposal-output.ts";

export interface LlmProposerOptions {
  /** The run's locked evaluation: every proposal must pass applyIntervention against it. */
  lockedEvaluation: LockedEvaluation;
  settings: LlmSettings;
  /** Dollars the run has already spent on LLM calls; no call starts once the budget is reached. */
  spentDollars: number;
  context: LlmContext;
  /** Stores each call (audit event, the run's spend) before the next one starts. */
  onCall: (call: LlmCall) => Promise<void>;
  prompt?: PromptFile;
}

/** A round's answer from the model, after the gates. */
export interface LlmProposal {
  diagnosis: string;
  hypotheses: string[];
  interventions: Intervention[];
  /** Detectors that passed the CEL guards and their own cases, still to be retro-validated. */
  detectors: Detector[];
}

type Message = LlmCall["request"]["messages"][number];

/**
 * The LLM proposer: the model reads the evidence (never the sealed split) and answers with a
 * diagnosis, hypotheses, K interventions and optional detectors, through `generateObject` and a
 * zod schema. An answer the gates refuse goes back once with the reasons; a second refusal, a
 * malformed answer, a timeout, a provider error or a spent budget throws an LlmProposalError, on
 * which the caller falls back to the rule-based proposer.
 */
export class LlmProposer implements Proposer {
  readonly name = "llm";
  private model: Promise<LanguageModel> | undefined;
  private readonly prompt: PromptFile;
  private spent: number;

  constructor(private readonly options: LlmProposerOptions) {
    this.prompt = options.prompt ?? promptFile("propose.v1");
    this.spent = options.spentDollars;
  }

  async propose(input: ProposerInput): Promise<Intervention[]> {
    return (await this.proposeRound(input)).interventions;
  }

  async proposeRound(input: ProposerInput): Promise<LlmProposal> {
    const { settings, lockedEvaluation, context } = this.options;
    const provenance = { kind: "llm" as const, ref: settings.model };
    const messages: Message[] = [{ role: "user", content: buildEvidence(input, context, lockedEvaluation, settings.evidenceChars) }];
    for (let attempt = 1; ; attempt++) {
      const answer = await this.call(messages, attempt);
      const checked = checkOutput(answer.object, input, lockedEvaluation, provenance);
      const refused = checked.rejections.length > 0 || checked.interventions.length === 0;
      await this.record(messages, attempt, answer, refused ? { outcome: "rejected", rejections: checked.rejections } : { outcome: "ok" });
      if (!refused) {
        return { diagnosis: answer.object.diagnosis, hypotheses: answer.object.hypotheses, interventions: checked.interventions, detectors: checked.detectors };
      }
      if (attempt === 2) {
        throw new LlmProposalError("rejected", `the model's answer was refused twice: ${checked.rejections.join("; ") || "no intervention"}`);
      }
      messages.push(
        { role: "assistant", content: JSON.stringify(answer.object) },
        {
          role: "user",
          content: `Your answer was refused:\n${(checked.rejections.length > 0 ? checked.rejections : ["it holds no usable intervention"]).map((r) => `- ${r}`).join("\n")}\nAnswer again in full, following every rule.`,
        },
      );
    }
  }

  private async call(messages: readonly Message[], attempt: number): Promise<{ object: ProposalOutput; usage: TokenUsage; durationMs: number }> {
    const { settings } = this.options;
    if (this.spent >= settings.budgetDollars) {
      throw new LlmProposalError("budget", `the run's LLM budget is spent ($${this.spent.toFixed(4)} of $${settings.budgetDollars})`);
    }
    // The AI SDK and its providers (a tenth of the worker's code) load with the first call, not with
    // every worker, and before the clock starts: loading is not the model's time.
    const [{ generateObject, NoObjectGeneratedError }, model] = await Promise.all([import("ai"), (this.model ??= languageModel(settings))]);
    const started = Date.now();
    const signal = AbortSignal.timeout(settings.timeoutMs);
    try {
      const result = await generateObject({
        model,
        schema: proposalOutputSchema,
        schemaName: "proposal",
        system: this.prompt.text,
        messages: [...messages],
        maxOutputTokens: settings.maxOutputTokens,
        // One attempt per call: the SDK's own retries would hide spend and stretch the timeout.
        maxRetries: 0,
        abortSignal: signal,
        // Patch values and detector cases are open JSON, which strict schema decoding refuses.
        providerOptions: { openaiCompatible: { strictJsonSchema: false } },
      });
      return { object: result.object, usage: tokens(result.usage), durationMs: Date.now() - started };
    } catch (error) {
      const durationMs = Date.now() - started;
      if (NoObjectGeneratedError.isInstance(error)) {
        await this.record(messages, attempt, { usage: tokens(error.usage), durationMs, ...(error.text !== undefined ? { text: error.text } : {}) }, { outcome: "malformed", error: error.message });
        throw new LlmProposalError("malformed", `the model's answer is not a valid proposal: ${error.message}`);
      }
      const message = error instanceof Error ? error.message : String(error);
      if (signal.aborted) {
        await this.record(messages, attempt, { usage: tokens(undefined), durationMs }, { outcome: "timeout", error: message });
        throw new LlmProposalError("timeout", `the model did not answer within ${settings.timeoutMs} ms`);
      }
      await this.record(messages, attempt, { usage: tokens(undefined), durationMs }, { outcome: "error", error: message });
      throw new LlmProposalError("error", `the LLM call failed: ${message}`);
    }
  }

  private async record(
    messages: readonly Message[],
    attempt: number,
    answer: { object?: ProposalOutput; text?: string; usage: TokenUsage; durationMs: number },
    result: Pick<LlmCall, "outcome" | "rejections" | "error">,
  ): Promise<void> {
    const { settings } = this.options;
    const dollars = callDollars(answer.usage, settings.prices);
    this.spent += dollars;
    await this.options.onCall({
      promptVersion: this.prompt.id,
      provider: settings.provider,
      model: settings.model,
      attempt,
      request: { system: this.prompt.text, messages: [...messages] },
      response: answer.object !== undefined ? { object: answer.object } : answer.text !== undefined ? { text: answer.text } : {},
      usage: answer.usage,
      dollars,
      durationMs: answer.durationMs,
      ...result,
    });
  }
}

function tokens(usage: { inputTokens: number | undefined; outputTokens: number | undefined } | undefined): TokenUsage {
  return { inputTokens: usage?.inputTokens ?? 0, outputTokens: usage?.outputTokens ?? 0 };
}
