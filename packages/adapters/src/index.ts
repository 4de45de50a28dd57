export type * from "./adapter.ts";
export { gymAdapter } from "./gym-adapter.ts";
