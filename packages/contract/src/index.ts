export * from "./rollout.ts";
