export type * from "./adapter.ts";
export { gymAdapter } from "./gym-adapter.ts";
export { trainerMetrics } from "./trainer-metrics.ts";
