import type { HydraValue } from "./hydra-override.ts";

/** Settings of `job.adapter` the verl adapter reads (all optional; core's verlSettingsSchema checks them). */
export interface VerlJobSettings {
  /** The interpreter on the node that runs the job wrapper and verl. */
  python?: string;
  /** `data.train_files`: parquet file(s) in verl's dataset format. */
  trainFiles?: string | string[];
  /**
   * The user's verl reward function (`compute_score(data_source, solution_str, ground_truth,
   * extra_info)`, a path on the node and a function name). verl calls EvoTrainer's reward wrapper,
   * which asks this function for the recipe's components it has no built-in for.
   */
  rewardFunction?: { path: string; name?: string };
  /** Nodes the job spans (`trainer.nnodes`); above 1 it is submitted to a Ray cluster at `rayAddress`. */
  nnodes?: number;
  /** The Ray cluster's job submission address (`ray job submit --address`), for a multi-node job. */
  rayAddress?: string;
  /** Rollout engine (`actor_rollout_ref.rollout.name`), required by verl: vllm or sglang. */
  rolloutEngine?: string;
  /** Further Hydra overrides, verbatim, applied last (cluster sizing, batch sizes, offload). */
  overrides?: Record<string, HydraValue>;
}
