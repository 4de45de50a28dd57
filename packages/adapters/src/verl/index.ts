export { hydraOverride, hydraValue, type HydraValue } from "./hydra-override.ts";
export { verlAdapter } from "./verl-adapter.ts";
export { verlDumpToRollouts, type VerlDumpLine, type VerlDumpOptions } from "./verl-dump.ts";
export { verlMetricsToContract } from "./verl-metrics.ts";
export { jobOverrides, recipeOverrides, verlMetricsPath, verlOverrides, type VerlJobSettings } from "./verl-overrides.ts";
export { verlPaths } from "./verl-paths.ts";
export { readVerlRun, type VerlRunFiles, type VerlStepRollouts } from "./verl-run-dir.ts";
