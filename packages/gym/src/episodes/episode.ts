import type { TestResults, Turn } from "@evotrainer/contract";
import type { Rng } from "../rng.ts";
import type { Task } from "../tasks/task.ts";

/** The sandbox an episode runs in: the recipe's limits and hardening flags (or the locked eval's). */
export interface EpisodeEnv {
  maxResponseTokens: number;
  maxTurns: number;
  clearGitHistory: boolean;
  readOnlyTests: boolean;
  hideTestFiles: boolean;
}

/** What one rollout produced, as a trainer would log it; every reward component is scored. */
export interface Episode {
  response?: string;
  trajectory?: Turn[];
  responseTokens: number;
  turns: number;
  finishReason: string;
  truncated: boolean;
  components: Record<string, number>;
  testResults?: TestResults;
  extra?: Record<string, unknown>;
}

/** One domain's behaviours, and how each plays out on a task. */
export interface DomainModel<T extends Task = Task> {
  behaviours: readonly string[];
  // The reference (base) policy's behaviour probabilities, in `behaviours` order.
  baseProbs: readonly number[];
  baseSkill: number;
  // Every component the domain scores; a recipe may weight any of them.
  components: readonly string[];
  /**
   * For a genuine attempt, the logit offset of getting it right on top of skill − difficulty
   * (testing helps, guessing blind hurts); `undefined` when the behaviour's result needs no skill.
   */
  outcomeBias(task: T, behaviour: string, env: EpisodeEnv): number | undefined;
  play(task: T, behaviour: string, correct: boolean, env: EpisodeEnv, rng: Rng): Episode;
}

/** Tokens of generated text, at the usual ~4 characters per token of English and code. */
export function countTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** A single-turn response cut at the token limit, as an inference engine's max_tokens would. */
export function limitResponse(text: string, maxTokens: number): Pick<Episode, "response" | "responseTokens" | "finishReason" | "truncated"> {
  const tokens = countTokens(text);
  if (tokens <= maxTokens) return { response: text, responseTokens: tokens, finishReason: "stop", truncated: false };
  return { response: text.slice(0, maxTokens * 4), responseTokens: maxTokens, finishReason: "length", truncated: true };
}
