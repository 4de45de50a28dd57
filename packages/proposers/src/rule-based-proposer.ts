import { applyIntervention, interventionKey, offersFactor, type Intervention, type LockedEvaluation, type Proposer, type ProposerInput } from "@evotrainer/core";
import { mentionsFactor } from "./lineage/factor-mentions.ts";
import { triedOnParent } from "./lineage/tried-on-parent.ts";
import { targetKey, unmovedTargets } from "./lineage/unmoved-targets.ts";
import { humanVetoReasons } from "./lineage/veto-reasons.ts";
import { PLAYBOOK } from "./playbook.ts";
import type { PlaybookRule } from "./playbook-rule.ts";
import { ruleProposals } from "./rule-proposals.ts";
import { skillProposals } from "./skill-proposals.ts";

export interface RuleBasedProposerOptions {
  /** The run's locked evaluation: every proposal must pass applyIntervention against it. */
  lockedEvaluation: LockedEvaluation;
  playbook?: readonly PlaybookRule[];
}

/**
 * The default proposer: skills whose trigger fires first, then the playbook's answers to the
 * report's findings. It proposes at most one intervention per factor, only factors the run's trainer
 * runs (`input.factors`) set to values it renders (`input.renders`), none that applyIntervention would refuse, none already tried on this
 * parent, none on a factor a person's veto named, and none aiming a factor at a metric that factor
 * already failed to move in this run, unless a revision note names the factor: a new reason from a person.
 */
export class RuleBasedProposer implements Proposer {
  readonly name = "rule-based";
  private readonly playbook: readonly PlaybookRule[];

  constructor(private readonly options: RuleBasedProposerOptions) {
    this.playbook = options.playbook ?? PLAYBOOK;
  }

  async propose(input: ProposerInput): Promise<Intervention[]> {
    const tried = triedOnParent(input);
    const vetoReasons = humanVetoReasons(input.lineage);
    const unmoved = unmovedTargets(input.lineage);
    const revised = (factor: string) => input.revision !== undefined && mentionsFactor(input.revision, factor);

    const candidates = [...skillProposals(input), ...ruleProposals(input, this.playbook)];
    // What a revision asks for comes first; the sort is stable, so the order is otherwise kept.
    const ordered = candidates.sort((a, b) => Number(revised(b.factor)) - Number(revised(a.factor)));

    const out: Intervention[] = [];
    const factors = new Set<string>();
    for (const c of ordered) {
      if (out.length >= input.k) break;
      if (factors.has(c.factor) || !offersFactor(input.factors, c.factor)) continue;
      const outcome = tried.get(interventionKey(c));
      if (outcome === "exists" || (outcome === "failed" && !revised(c.factor))) continue;
      if (!revised(c.factor) && vetoReasons.some((r) => mentionsFactor(r, c.factor))) continue;
      if (!revised(c.factor) && unmoved.has(targetKey(c.factor, c.targetMetric))) continue;
      const applied = applyIntervention(input.recipe, c, this.options.lockedEvaluation);
      if (!applied.ok || !input.renders(applied.recipe).ok) continue;
      factors.add(c.factor);
      out.push(c);
    }
    return out;
  }
}
