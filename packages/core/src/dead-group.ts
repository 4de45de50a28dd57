/**
 * A group whose rewards are all equal: GRPO gives it no signal. Decided on the values, never on a
 * computed standard deviation: eight rewards of 0.1 have a float std of about 1e-17, not 0, and the
 * trainer's own `frac_reward_zero_std` and the per-step stats (min = max) count such a group as dead.
 * A group of fewer than two rewards has no spread to lose and is not counted.
 */
export function isDeadGroup(rewards: readonly number[]): boolean {
  return rewards.length >= 2 && rewards.every((r) => r === rewards[0]);
}
