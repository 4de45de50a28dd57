import type { Job } from "@evotrainer/contract";
import type { RenderOutcome } from "@evotrainer/core";
import type { TrainerAdapter } from "./adapter.ts";
import { UnsupportedFactorError } from "./unsupported-factor.ts";
import { BUILTIN_REWARD_COMPONENTS } from "./verl/reward-wrapper.ts";

/**
 * Whether `adapter` renders `job`, by rendering it: rendering only builds strings, so this is the
 * trainer's own answer without launching anything. A refused factor is the answer "no"; any other
 * error is a bug and is thrown.
 */
export function dryRender(adapter: TrainerAdapter, job: Job): RenderOutcome {
  try {
    adapter.render(job);
    return { ok: true };
  } catch (error) {
    if (!(error instanceof UnsupportedFactorError)) throw error;
    return { ok: false, factor: error.factor, message: error.message };
  }
}

/** Reward components a proposer could add: every built-in one, and each the run names a function for (TRL's `rewardFunctions`). */
export function componentCandidates(trainer: unknown): string[] {
  const functions = (trainer as { rewardFunctions?: Record<string, unknown> } | undefined)?.rewardFunctions ?? {};
  return [...new Set([...Object.values(BUILTIN_REWARD_COMPONENTS).flat(), ...Object.keys(functions)])];
}
