// @evotrainer/gym: the built-in CPU trainer implementing evo.job/v1, for the demo and tests.
export { runGymJob, type RunGymJobOptions, type GymJobResult } from "./trainer.ts";
export { resolveSetup, GymConfigError, DEFAULT_GYM_OPTIONS, type GymOptions, type GymSetup } from "./gym-config.ts";
export { createTraining, trainingEnv, type Training, type TrainingSetup, type StepResult } from "./training.ts";
export { evaluateSplit, lockedEnv, parseGymDataset, GYM_DATASET_SIZE, type SplitEvaluation } from "./evaluate.ts";
export { basePolicy, domainModel } from "./domains.ts";
export { saveCheckpoint, loadCheckpoint, policyFileOf, CheckpointError, POLICY_FORMAT, type PolicyFile } from "./checkpoint.ts";
export { poolTask, poolTasks, TRAIN_POOL } from "./tasks/pool.ts";
export { GYM_DOMAINS, type GymDomain, type Task } from "./tasks/task.ts";
export { LR_SCALE, SUPPORTED_ESTIMATORS } from "./grpo.ts";
export type { Policy } from "./policy.ts";
export type { Episode, EpisodeEnv, DomainModel } from "./episodes/episode.ts";
export { runGateTrials, isGymDomain, NotAGymDomainError, REAL_ARMS, type TrialOptions, type NullRun, type PowerRun, type BaseState, type GateTrialsResult } from "./trials/gate-trials.ts";
export { trainGymBranch, type GymBranchInput, type TrainedGymBranch } from "./trials/gym-branch.ts";
export { gateSide, type ScoredSide } from "./trials/gate-side.ts";
export { LabelStore, type BranchLabels, type LabelledBranch } from "./trials/branch-labels.ts";
