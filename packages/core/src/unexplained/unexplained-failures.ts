import type { Rollout } from "@evotrainer/contract";
import type { Domain, Label } from "../harness/detector.ts";
import { isFailure, isSuccess } from "../harness/metrics.ts";
import { DEFAULT_GAP_OPTIONS } from "../harness-evolution/gap-check.ts";
import { informativeness } from "../label-quality/informativeness.ts";
import { errorSignature, type ErrorSignature } from "./error-signature.ts";

/** Failed rollouts with no explaining label that share one normalised error signature. */
export interface FailureCluster {
  key: string;
  signature: ErrorSignature;
  count: number;
  /** count over all failed rollouts of the branch (explained or not). */
  shareOfFailures: number;
  /** The first rollouts of the cluster, in the order given. */
  exampleUids: string[];
  /** Every rollout of the cluster: what a detector drafted from it is measured against. */
  uids: string[];
}

export interface UnexplainedFailures {
  rollouts: number;
  failures: number;
  unexplained: number;
  clusters: FailureCluster[];
}

export interface UnexplainedOptions {
  domain: Domain;
  /** The branch's success rule: reward at least this, and no validity label. */
  successThreshold: number;
  /** Labels that restate the failure instead of explaining it (a wrong answer is the failure itself). */
  outcomeLabels?: readonly string[];
  /** Further labels that explain nothing here, e.g. those nonSeparatingLabels finds. */
  notExplaining?: readonly string[];
  maxExamples?: number;
}

/**
 * The failures no detector names, grouped by exact normalised signature: largest cluster first, ties
 * by key, so the same rollouts always give the same clusters in the same order. A rollout is failed
 * by the gate's own rule (isFailure) and explained by any label but an outcome label.
 */
export function unexplainedFailures(rollouts: readonly Rollout[], labels: readonly Pick<Label, "rolloutUid" | "label" | "validity">[], options: UnexplainedOptions): UnexplainedFailures {
  const outcome = new Set([...(options.outcomeLabels ?? DEFAULT_GAP_OPTIONS.outcomeLabels), ...(options.notExplaining ?? [])]);
  const maxExamples = options.maxExamples ?? 5;
  const invalid = new Set(labels.filter((l) => l.validity).map((l) => l.rolloutUid));
  const explained = new Set(labels.filter((l) => !outcome.has(l.label)).map((l) => l.rolloutUid));
  const failed = rollouts.filter((r) => isFailure(r, invalid, options.successThreshold));
  const clusters = new Map<string, FailureCluster>();
  let unexplained = 0;
  for (const r of failed) {
    if (explained.has(r.uid)) continue;
    unexplained++;
    const signature = errorSignature(r, options.domain);
    const cluster = clusters.get(signature.key) ?? clusters.set(signature.key, { key: signature.key, signature, count: 0, shareOfFailures: 0, exampleUids: [], uids: [] }).get(signature.key)!;
    cluster.count++;
    cluster.uids.push(r.uid);
    if (cluster.exampleUids.length < maxExamples) cluster.exampleUids.push(r.uid);
  }
  const sorted = [...clusters.values()]
    .map((c) => ({ ...c, shareOfFailures: c.count / failed.length }))
    .sort((a, b) => b.count - a.count || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { rollouts: rollouts.length, failures: failed.length, unexplained, clusters: sorted };
}

/**
 * Labels that do not fire more on failed than on successful rollouts of these rollouts (their
 * informativeness interval holds 0, or leans to successes): true or not, they say nothing about why
 * a rollout failed. tool_error on real SWE trajectories is one (about 60% of resolved and unresolved alike).
 */
export function nonSeparatingLabels(rollouts: readonly Rollout[], labels: readonly Pick<Label, "rolloutUid" | "label" | "validity">[], successThreshold: number): string[] {
  const invalid = new Set(labels.filter((l) => l.validity).map((l) => l.rolloutUid));
  const failed = new Set(rollouts.filter((r) => isFailure(r, invalid, successThreshold)).map((r) => r.uid));
  const succeeded = new Set(rollouts.filter((r) => isSuccess(r, invalid, successThreshold)).map((r) => r.uid));
  const byLabel = new Map<string, Set<string>>();
  for (const l of labels) (byLabel.get(l.label) ?? byLabel.set(l.label, new Set()).get(l.label)!).add(l.rolloutUid);
  const out: string[] = [];
  for (const [label, uids] of byLabel) {
    const flaggedFailed = [...uids].filter((u) => failed.has(u)).length;
    const flaggedSucceeded = [...uids].filter((u) => succeeded.has(u)).length;
    const counts = { flaggedFailed, failed: failed.size, flaggedSucceeded, succeeded: succeeded.size };
    if (informativeness(counts).separates !== "failures") out.push(label);
  }
  return out.sort();
}
