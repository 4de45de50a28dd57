/**
 * A run's trainer settings the trainer would refuse, found while rendering a job: a batch argument
 * that is not a positive integer, more reward weights than reward functions. Rendering is pure, so
 * every attempt fails the same way; dispatch fails the job once as a config error, and `run`
 * refuses the config before anything is created. `field` is the run config field to change.
 */
export class TrainerConfigError extends Error {
  constructor(
    readonly field: string,
    reason: string,
  ) {
    super(`${field}: ${reason}`);
    this.name = "TrainerConfigError";
  }
}
