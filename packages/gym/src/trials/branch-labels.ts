import type { Rollout } from "@evotrainer/contract";
import type { CompiledHarness, Domain, Label } from "@evotrainer/core";

/** What the detectors of one harness version said about a branch's rollouts. */
export interface BranchLabels {
  train: Label[];
  promotion: Label[];
}

export interface LabelledBranch {
  id: string;
  train: readonly Rollout[];
  promotion: readonly Rollout[];
  /** The recipe's response limit, given to detectors as at ingest (monitor.ts). */
  maxResponseTokens: number;
}

/**
 * Labels per branch and harness version, computed once: the real loop labels rollouts at ingest
 * and every label names the detector version behind it, so relabelling under a new harness version
 * gives what a re-ingest would.
 */
export class LabelStore {
  private readonly cache = new Map<string, BranchLabels>();

  constructor(private readonly domain: Domain) {}

  of(branch: LabelledBranch, harness: CompiledHarness): BranchLabels {
    const key = `${branch.id}@${harness.definition.version}`;
    let labels = this.cache.get(key);
    if (!labels) {
      const context = { maxResponseTokens: branch.maxResponseTokens };
      labels = {
        train: harness.label(branch.train, this.domain, context).labels,
        promotion: harness.label(branch.promotion, this.domain, context).labels,
      };
      this.cache.set(key, labels);
    }
    return labels;
  }
}
