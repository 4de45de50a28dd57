export type * from "./executor.ts";
export { LocalExecutor } from "./local/local-executor.ts";
export { listFiles, readRange, readTail } from "./local/read-range.ts";
export { computeConfigSchema, sshNodeConfigSchema, type ComputeConfig, type SshNodeConfig } from "./compute-config.ts";
