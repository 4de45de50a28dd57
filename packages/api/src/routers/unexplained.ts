import type { TRPCRouterRecord } from "@trpc/server";
import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { backtestDetector, draftDetector, labelNameSchema, nonSeparatingLabels, registerDraftedDetector, unexplainedFailures, type DetectorDefinition, type FailureCluster } from "@evotrainer/core";
import { branchLabelVerdicts, loadBranchFailureData, registerDraftedHarness, type BranchFailureData, type Database } from "@evotrainer/db";
import { accessBranch, approverProcedure, protectedProcedure } from "../trpc.ts";

const MAX_EXAMPLES = 5;

/** The rule a person edits; everything else of the detector comes from the branch and its cluster. */
const editedDetector = z.object({
  label: labelNameSchema,
  description: z.string().trim().min(1, { error: "the description is empty" }).max(1000, { error: "the description is longer than 1000 characters" }),
  when: z.string().trim().min(1, { error: "the rule is empty" }).max(2000, { error: "the rule is longer than 2000 characters" }),
  evidence: z.string().trim().max(2000, { error: "the evidence rule is longer than 2000 characters" }).optional(),
});

// Whether labels that fire as often on successes as on failures (they name no cause) count as explaining.
const mode = { onlySeparatingLabels: z.boolean().default(false) };
const clusterInput = z.object({ clusterKey: z.string().min(1).max(1000), ...mode });

async function failures(db: Database, branchId: string, onlySeparatingLabels: boolean) {
  const data = await loadBranchFailureData(db, branchId);
  const ignoredLabels = onlySeparatingLabels ? nonSeparatingLabels(data.rollouts, data.labels, data.successThreshold) : [];
  const { clusters, ...summary } = unexplainedFailures(data.rollouts, data.labels, {
    domain: data.domain,
    successThreshold: data.successThreshold,
    notExplaining: ignoredLabels,
    maxExamples: MAX_EXAMPLES,
  });
  return { data, clusters, summary: { ...summary, ignoredLabels } };
}

function clusterOf(clusters: readonly FailureCluster[], key: string): FailureCluster {
  const cluster = clusters.find((c) => c.key === key);
  if (!cluster) throw new TRPCError({ code: "NOT_FOUND", message: "this cluster of unexplained failures is no longer on the branch; reload the page" });
  return cluster;
}

/** The edited rule as a full detector of the branch's domain, with the cluster's own line as its must-match case. */
function detectorFrom(edited: z.infer<typeof editedDetector>, data: BranchFailureData, cluster: FailureCluster): DetectorDefinition {
  const { evidence: _drafted, ...draft } = draftDetector(cluster.signature, data.domain, data.harness);
  return {
    ...draft,
    id: `${data.domain}.${edited.label}`,
    label: edited.label,
    description: edited.description,
    when: edited.when,
    ...(edited.evidence ? { evidence: edited.evidence } : {}),
    validity: false,
  };
}

async function backtestOn(db: Database, branchId: string, data: BranchFailureData, cluster: FailureCluster, detector: DetectorDefinition) {
  const result = backtestDetector({
    detector,
    rollouts: data.rollouts,
    labels: data.labels,
    successThreshold: data.successThreshold,
    context: data.context,
    clusterUids: cluster.uids,
    reviews: await branchLabelVerdicts(db, branchId, detector.label),
    maxExamples: MAX_EXAMPLES,
  });
  if (!result.ok) {
    const field = result.field === "when" ? "The rule" : result.field === "evidence" ? "The evidence rule" : "The detector";
    throw new TRPCError({ code: "BAD_REQUEST", message: `${field} was refused: ${result.message}` });
  }
  return result.backtest;
}

export const unexplainedRouter = {
  /** The branch's failed rollouts that no label of the run's harness explains, clustered by error signature. */
  clusters: protectedProcedure.input(z.object({ branchId: z.string().min(1), ...mode })).query(async ({ ctx, input }) => {
    const { role } = await accessBranch(ctx, input.branchId);
    const { data, clusters, summary } = await failures(ctx.db, input.branchId, input.onlySeparatingLabels);
    return {
      ...summary,
      role,
      harnessVersion: data.harness.version,
      labelledNow: data.labelledNow,
      clusters: clusters.map(({ uids: _uids, exampleUids, ...c }) => ({
        ...c,
        examples: exampleUids.map((uid) => ({ uid, rolloutId: data.rolloutIds.get(uid) ?? null })),
      })),
    };
  }),

  /** A detector drafted from one cluster, for a person to edit. */
  draft: approverProcedure.input(clusterInput).query(async ({ ctx, input }) => {
    const { data, clusters } = await failures(ctx.db, input.branchId, input.onlySeparatingLabels);
    const draft = draftDetector(clusterOf(clusters, input.clusterKey).signature, data.domain, data.harness);
    return { label: draft.label, description: draft.description, when: draft.when, evidence: draft.evidence ?? null };
  }),

  /** The (edited) draft replayed on the branch: flag rate, cluster caught, informativeness, precision where reviewed. */
  backtest: approverProcedure.input(clusterInput.extend({ detector: editedDetector })).mutation(async ({ ctx, input }) => {
    const { data, clusters } = await failures(ctx.db, input.branchId, input.onlySeparatingLabels);
    const cluster = clusterOf(clusters, input.clusterKey);
    const backtest = await backtestOn(ctx.db, input.branchId, data, cluster, detectorFrom(input.detector, data, cluster));
    return { backtest, harnessVersionId: data.harnessVersionId, harnessVersion: data.harness.version };
  }),

  /**
   * Registers the draft as the run's next harness version. It is backtested again here (what the
   * person saw may be stale) and refused if the run's harness moved since: `harnessVersionId` is the
   * version the person's backtest ran on.
   */
  register: approverProcedure
    .input(clusterInput.extend({ detector: editedDetector, harnessVersionId: z.string().min(1) }))
    .mutation(async ({ ctx, input }) => {
      const { data, clusters } = await failures(ctx.db, input.branchId, input.onlySeparatingLabels);
      if (data.harnessVersionId !== input.harnessVersionId) {
        throw new TRPCError({ code: "CONFLICT", message: "the run's harness changed since this draft was backtested; backtest it again on the current harness" });
      }
      const cluster = clusterOf(clusters, input.clusterKey);
      const detector = detectorFrom(input.detector, data, cluster);
      const backtest = await backtestOn(ctx.db, input.branchId, data, cluster, detector);
      const next = registerDraftedDetector(data.harness, detector, cluster.key, backtest);
      if (!next.ok) throw new TRPCError({ code: "BAD_REQUEST", message: `The detector was not registered: ${next.message}` });
      const stored = await registerDraftedHarness(ctx.db, {
        runId: data.runId,
        basedOnHarnessVersionId: data.harnessVersionId,
        domain: data.domain,
        harness: next.harness,
        registration: next.registration,
        userId: ctx.userId,
      });
      if (!stored.ok) throw new TRPCError({ code: "CONFLICT", message: stored.message });
      return { harnessVersionId: stored.harnessVersionId, version: stored.version, detectorId: detector.id, label: detector.label };
    }),
} satisfies TRPCRouterRecord;
