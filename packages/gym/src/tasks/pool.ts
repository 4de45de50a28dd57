import { rngFor } from "../rng.ts";
import { generateCodeTask } from "./code.ts";
import { generateMathTask } from "./math.ts";
import { generateSweTask } from "./swe.ts";
import type { GymDomain, Task } from "./task.ts";

/** The pool training draws from; promotion and sealed pools are named by the run's datasets. */
export const TRAIN_POOL = "train";

/**
 * Task `index` of a named pool. Tasks depend only on (domain, pool, index), never on a branch's
 * seed, so every branch of a run trains and is evaluated on the same problems, and pools with
 * different names share no task.
 */
export function poolTask(domain: GymDomain, pool: string, index: number): Task {
  const rng = rngFor("gym-task", domain, pool, index);
  // Skewed towards hard: a base policy leaves many groups all-wrong, as real RL data does.
  const difficulty = rng.next() ** 0.8;
  const id = `${pool}-${String(index).padStart(5, "0")}`;
  switch (domain) {
    case "math":
      return generateMathTask(id, difficulty, rng);
    case "code":
      return generateCodeTask(id, difficulty, rng);
    case "swe":
      return generateSweTask(id, difficulty, rng);
  }
}

export function poolTasks(domain: GymDomain, pool: string, count: number): Task[] {
  return Array.from({ length: count }, (_, i) => poolTask(domain, pool, i));
}
