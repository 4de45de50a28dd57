export * from "./statuses.ts";
export * from "./decision-rules.ts";
