import type { CodeTask } from "./code.ts";
import type { MathTask } from "./math.ts";
import type { SweTask } from "./swe.ts";

export const GYM_DOMAINS = ["math", "code", "swe"] as const;
export type GymDomain = (typeof GYM_DOMAINS)[number];

/** What every generated task carries; the rest (answers, tests, fixes) is hidden from the policy. */
export interface TaskCommon {
  id: string;
  // 0 (trivial) to 1 (beyond the base policy): drives solution length and the chance a solve is right.
  difficulty: number;
  prompt: string;
  groundTruth: unknown;
}

export type Task = MathTask | CodeTask | SweTask;
