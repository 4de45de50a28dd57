// The human reference recipe of bench:learning, frozen on 2026-12-07 before the first full loop run
// and never tuned against the loop. The loop starts from it too: its base branch trains this recipe,
// and every intervention changes one factor of it. Values follow TRL's GRPO documentation and
// examples for a small model, adjusted where the tiny model trained from scratch needs it.
import { readFileSync } from "node:fs";
import { parse } from "yaml";

const example = parse(readFileSync("examples/gym-math.yaml", "utf8")) as { recipe: { algo: Record<string, unknown> } } & Record<string, unknown>;

export const referenceAlgo = {
  ...example.recipe.algo,
  // GRPO's group: TRL's examples use 4-16 generations a prompt; 4 keeps a CPU step short while a
  // group of four still has a spread to rank within at a one-in-three success rate.
  groupSize: 4,
  // A worked solution of five terms is about 50 tokens: 64 leaves room for it and none for a ramble,
  // so a run-on answer is cut (truncation), as TRL's max_completion_length does.
  maxResponseTokens: 64,
  // TRL's default (1e-6) is for pretrained billion-parameter models; a 1 M-parameter model trained
  // from scratch at 3e-3 moves at 1e-4 without forgetting its SFT format in the first steps.
  lr: 1e-4,
  // TRL's default loss is token-level; its default KL coefficient (beta) is 0, kept small here as in
  // the example recipe so the policy stays near its SFT start.
  kl: { mode: "loss", coef: 0.001 },
  temperature: 1,
};

/** TRL trainer arguments beside the recipe: a batch of one group of four a device step. */
export const referenceTrainerArgs = { per_device_train_batch_size: 4 };
