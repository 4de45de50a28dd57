import type { CodeTask } from "./code.ts";
import type { MathTask } from "./math.ts";
import type { SweTask } from "./swe.ts";

export const GYM_DOMAINS = ["math", "code", "swe"] as const;
export type GymDomain = (typeof GYM_DOMAINS)[number];

export type Task = MathTask | CodeTask | SweTask;
