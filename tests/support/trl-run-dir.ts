import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { writeTrlCompletionsParquet } from "../../packages/adapters/src/trl/trl-test-parquet.ts";

export const TRL_PROMPT = "Janet’s ducks lay 16 eggs per day. She eats three for breakfast and bakes muffins with four. She sells the rest for $2 each. How much does she make every day?";
export const TRL_RIGHT = "Janet sells 16 - 3 - 4 = 9 duck eggs a day.\nShe makes 9 * 2 = $18 every day.\n#### 18";
export const TRL_NO_ANSWER = "Janet sells the eggs that are left over and earns two dollars for each of them every day.";

/** TRL's log_history entries of the run: one per step, as `trainer_state.json` holds them. */
export const TRL_LOG_HISTORY = [1, 2, 3].map((step) => ({ step, epoch: step / 100, loss: 0.01, reward: 0.5, kl: step / 1000, entropy: 1 - step / 10, "clip_ratio/region_mean": 0.02 }));

/**
 * A TRL GRPO output directory in TRL's formats: `completions/completions_{step:05d}.parquet` in
 * GRPOTrainer's column layout (step as a string, prompt, completion, one column per reward
 * function, advantage), where step 2 logs step 1's generation batch again, as TRL does between
 * generations; and `checkpoint-3/trainer_state.json` (HF Trainer's json.dumps(indent=2,
 * sort_keys=True), a NaN grad_norm written as Python writes it). 8 distinct rollouts, 4 repeated.
 */
export function writeTrlRunDir(dir: string): void {
  const completions = join(dir, "completions");
  mkdirSync(completions, { recursive: true });
  const batch = (step: number) =>
    [TRL_RIGHT, TRL_NO_ANSWER, TRL_RIGHT, TRL_NO_ANSWER].map((completion) => ({
      prompt: step === 3 ? `${TRL_PROMPT} (again)` : TRL_PROMPT,
      completion,
      rewards: { accuracy_reward: completion === TRL_RIGHT ? 1 : 0, format_reward: completion === TRL_RIGHT ? 1 : 0 },
      advantage: completion === TRL_RIGHT ? 0.87 : -0.87,
    }));
  writeTrlCompletionsParquet(join(completions, "completions_00001.parquet"), 1, batch(1));
  writeTrlCompletionsParquet(join(completions, "completions_00002.parquet"), 2, batch(1));
  writeTrlCompletionsParquet(join(completions, "completions_00003.parquet"), 3, batch(3));
  const history = TRL_LOG_HISTORY.map((entry) => (entry.step === 2 ? { ...entry, grad_norm: "__NaN__" } : entry));
  const state = { best_metric: null, epoch: 0.03, global_step: 3, log_history: history, max_steps: 3 };
  mkdirSync(join(dir, "checkpoint-3"), { recursive: true });
  writeFileSync(join(dir, "checkpoint-3", "trainer_state.json"), JSON.stringify(state, null, 2).replace('"__NaN__"', "NaN"));
}
