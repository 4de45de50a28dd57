// Public API of @evotrainer/core: the EvoTrainer method as pure functions (no IO, no clock).

export { canonicalJson } from "./canonical-json.ts";
export { sha256Hex } from "./sha256.ts";
export { contentHash } from "./content-hash.ts";
export { seededRandom } from "./random.ts";

export { applyJsonPatch, jsonPatchSchema, patchOperationSchema, type JsonPatch, type PatchOperation, type PatchResult } from "./json-patch.ts";
export { parsePointer, formatPointer } from "./json-pointer.ts";
export {
  recipeSchema, algoSchema, rewardSchema, dataSchema, envSchema, estimatorSchema, lossAggregationSchema,
  defaultRecipe, recipeHash, jsonValueSchema, type Recipe, type Estimator,
} from "./recipe.ts";
export {
  adapterNameSchema, trlSettingsSchema, verlSettingsSchema, gymSettingsSchema, TRAINER_SETTINGS_SCHEMAS, parseTrainerSettings,
  type AdapterName, type TrlSettings, type VerlSettings,
} from "./trainer-settings.ts";
export { FACTOR_PATTERNS, factorOf, changedFactors, offersFactor, type FactorPattern, type FactorChanges } from "./factors.ts";
export { factorTrials, offeredFactors, type FactorTrial, type RenderCheck, type RenderOutcome } from "./offered-factors.ts";
export { lockedEvaluationSchema, EVALUATION_PATHS, touchedEvaluationPath, changedEvaluationPath, type LockedEvaluation } from "./locked-evaluation.ts";
export { interventionSchema, provenanceSchema, effectDirectionSchema, type Intervention, type Provenance, type EffectDirection } from "./intervention.ts";
export { applyIntervention, type ApplyResult, type RejectionReason } from "./apply-intervention.ts";

export { compileRule, type CompiledRule, type CompileResult, type CompileOptions, type EvalResult, type RuleRejectionReason } from "./cel/compile.ts";
export { DEFAULT_RULE_LIMITS, type RuleLimits } from "./cel/guards.ts";
export { helperSignatures } from "./cel/functions.ts";
export { celToJson } from "./cel/cel-json.ts";
export { T, typeName, type CelT, type VariableSchema } from "./cel/types.ts";
export { re2Test, re2Span, type Span } from "./cel/regex.ts";

export { finalAnswer, answersEqual } from "./text/final-answer.ts";
export { ngramRepeatRatio, repeatRun, repeatRunAtLeast } from "./text/repetition.ts";
export { scriptMix } from "./text/script-mix.ts";
export { patchFiles } from "./text/patch-files.ts";
export { codeBlock } from "./text/code-block.ts";

export { ROLLOUT_VARIABLES, DEFAULT_INPUT_CAPS, rolloutBindings, capString, type InputCaps, type RolloutContext } from "./harness/rollout-variables.ts";
export {
  detectorSchema, detectorCaseSchema, domainSchema, labelNameSchema, compileDetector, verifyDetectorCases, caseRollout,
  type Detector, type DetectorDefinition, type DetectorCase, type CompiledDetector, type Label, type Domain, type CaseFailure,
} from "./harness/detector.ts";
export {
  harnessSchema, gatePolicySchema, compileHarness, invalidRollouts,
  type Harness, type HarnessDefinition, type CompiledHarness, type GatePolicy, type HarnessRejection, type LabelRun,
} from "./harness/harness.ts";
export { computeMetrics, isFailure, isSuccess, labelledRollouts, labelRates, type BranchMetrics, type MetricExamples, type MetricOptions } from "./harness/metrics.ts";
export {
  healthRuleSchema, layerSchema, METRIC_VARIABLES, DEFAULT_HEALTH_RULES, compileHealthRule, metricBindings,
  type HealthRule, type Layer, type CompiledHealthRule,
} from "./harness/health-rule.ts";
export { healthReport, critFindings, type HealthReport, type Finding, type Level } from "./harness/health-report.ts";
export { DETECTOR_CATALOG, MATH_DETECTORS, CODE_DETECTORS, SWE_DETECTORS } from "./catalog/index.ts";

export { groupAdvantages } from "./advantages.ts";
export { isDeadGroup } from "./dead-group.ts";
export { overlongPenalty, recipeScore, rescore } from "./reward-shaping.ts";
export { backtest, type BacktestInput, type BacktestReport, type Prediction, type AdvantagePair } from "./backtest.ts";

export { taskScores, pairedBootstrap, type BootstrapResult } from "./bootstrap.ts";
export { judgeRound, type ControlComparison, type RoundTestOptions } from "./gate/control-test.ts";
export { roundAlpha, spentByRounds } from "./gate/alpha-spending.ts";
export { roundTestOptions, runAlpha } from "./gate/round-options.ts";
export { addControlRound, seedSd, NO_NOISE_FLOOR, type NoiseFloor } from "./gate/noise-floor.ts";
export { holm } from "./gate/holm.ts";
export { unlimitedValidity, unlimitedValidityWarning, validityLabelsOf, type ValiditySide } from "./gate/unlimited-validity.ts";
export { studentTUpperTail, studentTQuantileUpper } from "./gate/student-t.ts";
export { verdict, metricValue, type Verdict, type VerdictInput, type Check, type GateSide } from "./verdict.ts";

export { decisionSchema, gateStageSchema, actorSchema, type Decision, type GateStage } from "./decision.ts";
export {
  autonomyPolicySchema, gateFor, designGateFor, consecutiveFailures, branchFailed, policyDecision,
  type AutonomyPolicy, type AutonomyContext, type GateDecision, type BranchOutcome,
} from "./autonomy.ts";
export { skillSchema, skillEvidenceSchema, matchingSkills, trackRecord, triggerFires, type Skill, type SkillEvidence } from "./skill.ts";
export { interventionKey } from "./intervention-key.ts";
export { motivatingFindings, skillTrigger } from "./skills/skill-trigger.ts";
export { createSkill, skillEvidence, type SkillSource, type CreateSkillResult } from "./skills/create-skill.ts";
export { updateSkill, appliedSkills, recordApplication, type SkillOutcome } from "./skills/update-skill.ts";
export { retrieveSkills, type RetrievedSkill } from "./skills/retrieve-skills.ts";
export { learnFromBranch, type Learned } from "./skills/learn-from-branch.ts";

export { diagnosticGap, DEFAULT_GAP_OPTIONS, type DiagnosticGap, type GapInput, type GapOptions } from "./harness-evolution/gap-check.ts";
export { EXTRA_DETECTORS } from "./harness-evolution/candidate-library.ts";
export { candidateDetectors } from "./harness-evolution/candidate-detectors.ts";
export { rateSeparation, type RateSeparation } from "./harness-evolution/rate-separation.ts";
export {
  retroValidate, DEFAULT_RETRO_OPTIONS,
  type BranchRollouts, type ConfirmedLabel, type RetroOptions, type RetroValidation, type RetroEvidence, type BranchRate,
} from "./harness-evolution/retro-validate.ts";
export { nextHarnessVersion, registerDetectors, type HarnessRegistration, type RegisteredDetector, type RegisterResult } from "./harness-evolution/register-detectors.ts";
export { evolveHarness, type EvolveInput, type Evolution } from "./harness-evolution/evolve-harness.ts";

export { realisedEffect, type RealisedEffect } from "./calibration/realised-effect.ts";
export { calibrationRecord, type CalibrationRecord } from "./calibration/calibration-record.ts";
export { calibrationSummary, type CalibrationSummary } from "./calibration/calibration-summary.ts";
export type { Proposer, ProposerInput, LineageEntry } from "./proposer.ts";

export { runConfigSchema, lockedEvaluationOf, runConfigOf, uncontrolledRunWarning, UNCONTROLLED_RATE, type RunConfig, type RunConfigInput } from "./run-config.ts";
export { trainerArgFields, unknownTrainerArgLine, type TrainerArgFields } from "./trainer-arg-fields.ts";
export { TRL_FACTOR_ARGS, TRL_POSITIVE_INT_ARGS, positiveIntProblem, trlArgProblems, type TrlFactorArg } from "./trl-factor-args.ts";
export { llmSettingsSchema, llmProviderSchema, type LlmSettings, type LlmProvider } from "./llm-settings.ts";
export { planRound, type PlanRoundInput, type PlannedIntervention } from "./loop/plan-round.ts";
export { placeJob, placementCanWait, type SchedulableNode, type GpuAllocation, type PlacementRequest, type Placement } from "./scheduling/place-job.ts";
export { baselineChecks } from "./loop/baseline-checks.ts";
export { runWithoutBest, type EndingBranch, type RunWithoutBest } from "./loop/run-without-best.ts";
export * from "./lifecycle/index.ts";
export * from "./members/index.ts";
export * from "./sign-in/index.ts";
export * from "./notifications/index.ts";
export { buildJob, type JobPlan } from "./jobs/build-job.ts";
export { FINAL_TRAIN_STEPS } from "./harness/final-steps.ts";
export { wilson, Z95 } from "./label-quality/wilson.ts";
export { informativeness, type FlagCounts, type Informativeness } from "./label-quality/informativeness.ts";
export { normaliseErrorText } from "./unexplained/normalise-error.ts";
export { answerFormat, ANSWER_KINDS, type AnswerFormat } from "./unexplained/answer-format.ts";
export { errorSignature, type ErrorSignature } from "./unexplained/error-signature.ts";
export { programOf } from "./unexplained/shell-command.ts";
export { nonSeparatingLabels, unexplainedFailures, type FailureCluster, type UnexplainedFailures, type UnexplainedOptions } from "./unexplained/unexplained-failures.ts";
export { draftDetector, patternOf } from "./unexplained/draft-detector.ts";
export { backtestDetector, type BacktestResult, type DetectorBacktest, type DetectorBacktestInput, type LabelVerdict, type ReviewedPrecision } from "./unexplained/backtest-detector.ts";
export { registerDraftedDetector, type DraftRegistration, type DraftRegisterResult } from "./unexplained/register-drafted-detector.ts";
export * from "./trainer-env.ts";
export { estimateRecall, type RecallEstimate, type RecallInput, type UnflaggedReview } from "./label-quality/recall-estimate.ts";
export { reviewQueue, type ReviewQueueInput, type ReviewQueueItem, type ReviewStratum, type QueueDetector } from "./label-quality/review-queue.ts";
export { detectorQuality, qualityText, reviewVerdict, type DetectorQuality, type DetectorQualityInput, type ReviewFact } from "./label-quality/detector-quality.ts";
export {
  labelQualityHolds,
  labelQualityRequirementSchema,
  untrustedLabelReason,
  type LabelQualityRequirement,
  type LabelTrust,
} from "./label-quality/label-quality-gate.ts";
export { observeService, isServiceUnavailable, serviceAddress, serverAddress, type ServiceName, type ServiceState, type ServiceObservation, type OutagePlan } from "./services/service-outage.ts";
export { ServiceStatus } from "./services/service-status.ts";
export { parseScontrolJob, isUnknownJob, isControllerUnreachable, type ScontrolJob } from "./slurm/scontrol-job.ts";
export { slurmJobEnded, slurmOutcome, type SlurmOutcome, type SlurmInfrastructureCause } from "./slurm/slurm-outcome.ts";
export { parseSinfo, SINFO_FORMAT, type SinfoRow } from "./slurm/sinfo-partitions.ts";
