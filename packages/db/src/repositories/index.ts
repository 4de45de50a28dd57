export { loadBranchRollouts, loadLastTrainSteps } from "./branch-rollouts.ts";
export { createRun, storeRecipe, type CreatedRun, type CreateRunOptions } from "./create-run.ts";
export { recordEvent, type EventType, type Tx } from "./events.ts";
export { loadHarnessVersion, registerHarnessVersion } from "./harness-versions.ts";
export { listGpuNodes, sshPrivateKeyOf, upsertGpuNode, upsertKubernetesPool, upsertSlurmCluster, recordSlurmPartitions, type GpuNodeInput, type GpuNodeSummary, type SlurmLoginInput, type SshKeySource } from "./gpu-nodes.ts";
export { json } from "./json.ts";
export { buildRunReport, type RunReport } from "./run-report.ts";
export { loadRunProgress, type RunProgress } from "./run-progress.ts";
export { applyRunControl, cancellationOf, requestedStop, requestJobCancel } from "./run-control.ts";
export { overridePolicyVeto, recordDecision, type DecisionActor, type DecisionRecord, type DecisionRequest, type VetoOverrideRecord } from "./decisions.ts";
export {
  acceptInvitation,
  cancelInvitation,
  changeMemberRole,
  completePasswordReset,
  createInvitation,
  createPasswordReset,
  findInvitation,
  findPasswordReset,
  invitedAccount,
  listMembers,
  removeMember,
  type MemberRefusal,
  type MemberRow,
  type PendingInvitation,
} from "./members.ts";
export { ensureLocalAdminRows, ensureLocalOrganization, LOCAL_ADMIN_EMAIL, LOCAL_ORGANIZATION_SLUG, type LocalAdminRows } from "./local-admin.ts";
export { createOrganization, INSTALLATION_ADMIN_ROLE, isInstallationAdmin, listOrganizations, slugOf, type OrganizationSummary } from "./organizations.ts";
export {
  createWebhook, listWebhooks, deleteWebhook, openWebhook, enqueueNotification, writeOutbox, relayOutbox, createTestDelivery, loadDelivery, recordAttempt, pendingDeliveries, listDeliveries, webhookInputSchema,
  type WebhookInput, type WebhookSummary, type OpenedWebhook, type DeliveryWork, type AttemptResult, type DeliveryLogEntry,
} from "./notifications.ts";
export { alphaSpentBefore } from "./alpha-spent.ts";
export { gateCalibrationForRun, recordGateCalibration, type GateCalibrationInput, type GateCalibrationRecord, type RunCalibration } from "./gate-calibrations.ts";
export { branchLabelRates } from "./label-rates.ts";
export { detectorOf, labelDetectors, type LabelDetector } from "./label-detectors.ts";
export { importJob, importTarget, type ImportTarget, type ImportWhere } from "./import-target.ts";
export { discardEmptyImport } from "./discard-empty-import.ts";
export { importSummary, type ImportSummary } from "./import-summary.ts";
export { branchLabelVerdicts, loadBranchFailureData, type BranchFailureData } from "./branch-failures.ts";
export { registerDraftedHarness, type DraftedHarnessOutcome } from "./register-drafted-harness.ts";
export { recordReview, toReviewRecord, type ReviewInput, type ReviewRecord } from "./label-reviews.ts";
export { reviewedPrecisionCounts, reviewHarness, runLabelQuality, runLabelTrust, runReviewQueue, type ReviewedDetector, type ReviewQueueState } from "./label-quality-facts.ts";
export { allRunIds, loadRetentionState, recordRetention, runsDueForRetention, type RetentionJob, type RetentionRecord, type RetentionState } from "./retention.ts";
