import type { Job } from "@evotrainer/contract";
import type { TrainerAdapter } from "./adapter.ts";

/**
 * Whether `adapter` renders `a` and `b` as the same training: the same command, environment and
 * files. TRL and verl read the recipe only through the files rendered from it (their config, the
 * reward module), so the recipe as job.json carries it is left out of the comparison there; the gym
 * reads job.json's recipe itself. Two jobs of the same plan that differ only in a factor the trainer
 * is told nothing of, or is told the same of, are the same training: an intervention that is a no-op.
 */
export function sameTraining(adapter: TrainerAdapter, a: Job, b: Job): boolean {
  return renderedTraining(adapter, a) === renderedTraining(adapter, b);
}

function renderedTraining(adapter: TrainerAdapter, job: Job): string {
  const { command, env, files } = adapter.render(job);
  const shown = adapter.name === "gym" ? job : { ...job, recipe: null };
  return JSON.stringify({ command, env, files: { ...files, "job.json": JSON.stringify(shown) } });
}
