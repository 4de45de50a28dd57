/**
 * A recipe asks for something the trainer cannot do. Rendering fails instead of dropping the
 * factor, because a silently ignored factor would make an intervention a no-op that the gate then
 * judges as if it had been tried. Executors report it as a config error (exit code 2, not retried).
 */
export class UnsupportedFactorError extends Error {
  constructor(
    readonly trainer: "verl" | "trl",
    readonly factor: string,
    reason: string,
  ) {
    super(`${trainer} cannot run recipe factor ${factor}: ${reason}`);
    this.name = "UnsupportedFactorError";
  }
}
