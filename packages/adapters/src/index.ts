export type * from "./adapter.ts";
export { gymAdapter } from "./gym-adapter.ts";
export { trainerMetrics } from "./trainer-metrics.ts";
export { parsePythonJson } from "./python-json.ts";
export { shortHash } from "./short-hash.ts";
export { UnsupportedFactorError } from "./unsupported-factor.ts";
export * from "./verl/index.ts";
export * from "./trl/index.ts";
export * from "./agents/index.ts";
