export { writeBatchLabels, type BatchLabeler } from "./batch-labels.ts";
export { copyRollouts, type RolloutOwner } from "./copy-rollouts.ts";
export { ingestRolloutFile, type IngestBatch, type IngestResult, type IngestRolloutFileInput } from "./ingest-rollout-file.ts";
export { harnessLabeler } from "./harness-labeler.ts";
export { LabelerPool } from "./labeler-pool.ts";
export { refreshStepAggregates } from "./step-aggregates.ts";
export { ingestTrainerMetricsFile, writeTrainerMetrics } from "./trainer-metrics.ts";
