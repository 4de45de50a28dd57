// Every combination of the filters the rollouts explorer offers (split, step, label, reward range),
// each as a first page and as a later page (keyset cursor): the plans test checks that each is served
// by an index, and the dashboard bench times each at a million rollouts. Free-text search (`q`) is
// left out: a substring of prompts and responses has no index here (it would need pg_trgm).
export interface RolloutFilter {
  split?: "train" | "promotion" | "sealed";
  step?: number;
  label?: string;
  rewardMin?: number;
  rewardMax?: number;
}

export interface FilterValues {
  step: number;
  label: string;
  reward: { min: number; max: number };
}

export function rolloutFilterCombinations(values: FilterValues): { name: string; filter: RolloutFilter }[] {
  const parts = [
    ["split", { split: "train" as const }],
    ["step", { step: values.step }],
    ["label", { label: values.label }],
    ["reward", { rewardMin: values.reward.min, rewardMax: values.reward.max }],
  ] as const;
  const out: { name: string; filter: RolloutFilter }[] = [];
  for (let mask = 0; mask < 1 << parts.length; mask++) {
    const chosen = parts.filter((_, i) => mask & (1 << i));
    out.push({ name: chosen.map(([n]) => n).join("+") || "none", filter: Object.assign({}, ...chosen.map(([, f]) => f)) });
  }
  return out;
}
