// Every combination of the filters the rollouts explorer offers (split, step, label, reward range),
// each as a first page and as a later page (keyset cursor): the plans test checks that each is served
// by an index, and the dashboard bench times each at a million rollouts. Free-text search (`q`) is
// added with a rare term and with a common one (the search index answers each differently), alone,
// with each other filter and with all of them: every subset of the others with both terms would
// triple the combinations for no plan that these do not already show.
export interface RolloutFilter {
  split?: "train" | "promotion" | "sealed";
  step?: number;
  label?: string;
  rewardMin?: number;
  rewardMax?: number;
  q?: string;
}

export interface FilterValues {
  step: number;
  label: string;
  reward: { min: number; max: number };
  /** A term in a few of the branch's rollouts, and one in most of them. */
  q: { rare: string; common: string };
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
  for (const [term, q] of [["q-rare", values.q.rare], ["q-common", values.q.common]] as const) {
    for (const others of [[], ...parts.map((p) => [p]), parts]) {
      out.push({ name: [term, ...others.map(([n]) => n)].join("+"), filter: Object.assign({ q }, ...others.map(([, f]) => f)) });
    }
  }
  return out;
}
