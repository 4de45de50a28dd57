export type * from "./adapter.ts";
