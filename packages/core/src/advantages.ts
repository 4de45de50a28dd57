import { isDeadGroup } from "./dead-group.ts";

const EPS = 1e-6;

/**
 * GRPO group-relative advantages of one group's rewards. With std scaling (GRPO as in verl) the
 * centred reward is divided by the group's sample std; without it (Dr. GRPO) it is only centred.
 * A single-sample group has no baseline and gets advantage 0.
 */
export function groupAdvantages(rewards: readonly number[], scaleByStd: boolean): number[] {
  const n = rewards.length;
  // Equal rewards carry no signal; float arithmetic would leave each a residue of ~1e-17 / (sd + EPS).
  if (n < 2 || isDeadGroup(rewards)) return rewards.map(() => 0);
  let sum = 0;
  for (const r of rewards) sum += r;
  const m = sum / n;
  if (!scaleByStd) return rewards.map((r) => r - m);
  let ss = 0;
  for (const r of rewards) ss += (r - m) ** 2;
  const sd = Math.sqrt(ss / (n - 1));
  return rewards.map((r) => (r - m) / (sd + EPS));
}
