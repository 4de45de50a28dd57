export { hydraOverride, hydraValue, type HydraValue } from "./hydra-override.ts";
export { rayJobSubmit, type RayJobSubmitOptions } from "./ray-job-submit.ts";
export {
  BUILTIN_REWARD_COMPONENTS,
  REWARD_WRAPPER_FILE,
  REWARD_WRAPPER_FUNCTION,
  rewardWrapperConfig,
  rewardWrapperModule,
  type RewardWrapperConfig,
} from "./reward-wrapper.ts";
export { verlAdapter } from "./verl-adapter.ts";
export { verlDumpToRollouts, type VerlDumpLine, type VerlDumpOptions } from "./verl-dump.ts";
export { verlMetricsToContract } from "./verl-metrics.ts";
export { verlNodes } from "./verl-nodes.ts";
export { jobOverrides, recipeOverrides, rewardWrapperPath, verlMetricsPath, verlOverrides } from "./verl-overrides.ts";
export type { VerlJobSettings } from "./verl-job-settings.ts";
export { verlPaths } from "./verl-paths.ts";
export { verlResponseKey, verlRewardRecords, withRewardComponents, type VerlRewardRecord } from "./verl-reward-components.ts";
export { readVerlRun, type VerlRunFiles, type VerlStepRollouts } from "./verl-run-dir.ts";
export { verlRunLayout } from "./verl-run-layout.ts";
