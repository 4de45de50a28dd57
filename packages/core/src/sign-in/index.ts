export * from "./password-attempts.ts";
export * from "./client-key.ts";
