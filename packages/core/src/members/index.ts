export * from "./membership-rules.ts";
