export type * from "./executor.ts";
