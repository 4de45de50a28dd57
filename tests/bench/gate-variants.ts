// The config space bench:gate's sweep measures (issue 40): the three shipped gym examples and
// one-change variants of them, each the kind of line a user edits. The guarantee is stated per
// variant: its per-run false-promotion rate, or every round sent to a person with the reason.
import type { RunConfig } from "@evotrainer/core";
import type { GymDomain } from "@evotrainer/gym";

export interface GateVariant {
  name: string;
  domain: GymDomain;
  change: (config: RunConfig) => void;
}

// Per round and for a new parent; a new parent needs two at least, since one measures no noise.
const replicates = (n: number) => (c: RunConfig) => {
  c.search.controlReplicates = n;
  c.search.newParentControlReplicates = Math.max(n, 2);
};

// A base that does not hack: rewarded on the hidden tests only (code), and with the tests read-only
// as well (swe), so no seed can learn a shortcut.
const honestCode = (c: RunConfig) => {
  c.recipe.reward.components = { correctness: { weight: 1 }, format: { weight: 0 } };
};
const honestSwe = (c: RunConfig) => {
  c.recipe.reward.components = { correctness: { weight: 1 }, format: { weight: 0 } };
  c.recipe.env.readOnlyTests = true;
};

export const GATE_VARIANTS: GateVariant[] = [
  { name: "math as shipped", domain: "math", change: () => {} },
  { name: "code as shipped (hacking base)", domain: "code", change: () => {} },
  { name: "swe as shipped (hacking base)", domain: "swe", change: () => {} },
  { name: "code, validityLimits {}", domain: "code", change: (c) => { c.gate.validityLimits = {}; } },
  { name: "swe, validityLimits {}", domain: "swe", change: (c) => { c.gate.validityLimits = {}; } },
  { name: "code, minEffect 0", domain: "code", change: (c) => { c.gate.minEffect = 0; } },
  { name: "math, minEffect 0", domain: "math", change: (c) => { c.gate.minEffect = 0; } },
  { name: "math, budget.rounds 1", domain: "math", change: (c) => { c.budget.rounds = 1; } },
  { name: "math, budget.rounds 8", domain: "math", change: (c) => { c.budget.rounds = 8; } },
  { name: "math, search.keep 4", domain: "math", change: (c) => { c.search.keep = 4; c.search.proposals = Math.max(c.search.proposals, 4); } },
  { name: "math, control replicates 1", domain: "math", change: replicates(1) },
  { name: "math, control replicates 2", domain: "math", change: replicates(2) },
  { name: "math, control replicates 5", domain: "math", change: replicates(5) },
  { name: "math, promotion 16 tasks × 1 sample", domain: "math", change: (c) => { c.evaluation.promotion.taskCount = 16; c.evaluation.promotion.samplesPerTask = 1; } },
  { name: "code, non-hacking base", domain: "code", change: honestCode },
  { name: "swe, non-hacking base", domain: "swe", change: honestSwe },
];
