export type * from "./executor.ts";
export { LocalExecutor } from "./local/local-executor.ts";
