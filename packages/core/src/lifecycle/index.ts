export * from "./statuses.ts";
export * from "./decision-rules.ts";
export * from "./approval-guard.ts";
export * from "./veto-override.ts";
export * from "./run-control.ts";
export * from "./job-retry.ts";
export * from "./retention.ts";
export * from "./gpu-charge.ts";
