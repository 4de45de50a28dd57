import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";

const CHECK_PY = fileURLToPath(new URL("./check_trainer_args.py", import.meta.url));

/** A key the trainer does not take, and the nearest one it does, when one is near. */
export interface UnknownTrainerArg {
  key: string;
  suggestion: string | null;
}

/** `trainer.python` cannot answer: missing, not runnable, or without the trainer installed. */
export class TrainerPythonError extends Error {
  constructor(readonly python: string, reason: string) {
    super(`trainer.python: ${python} ${reason}`);
    this.name = "TrainerPythonError";
  }
}

/**
 * Asks the run's own Python which `keys` its trainer does not take (check_trainer_args.py): TRL's
 * GRPOConfig fields, or the Hydra paths of the installed verl's trainer config. The trainer is
 * imported once, so the answer costs one import of it (`importSeconds`).
 */
export function unknownTrainerArgs(trainer: "trl" | "verl", python: string, keys: readonly string[]): Promise<{ unknown: UnknownTrainerArg[]; importSeconds: number }> {
  return new Promise((resolve, reject) => {
    const child = execFile(python, [CHECK_PY, trainer], { encoding: "utf8", maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
      if (!error) return resolve(JSON.parse(stdout) as { unknown: UnknownTrainerArg[]; importSeconds: number });
      const code = (error as NodeJS.ErrnoException).code;
      const lastLine = stderr.trim().split("\n").at(-1) ?? "";
      if (typeof code === "string") reject(new TrainerPythonError(python, `cannot be run (${code}); set trainer.python to the interpreter that has ${trainer} installed`));
      else if (code === 3) reject(new TrainerPythonError(python, `${lastLine}; set trainer.python to the interpreter that has ${trainer} installed`));
      else reject(new TrainerPythonError(python, `failed checking the trainer's arguments (exit ${code ?? error.signal}): ${lastLine}`));
    });
    // A python that never started has no stdin to write to; its spawn error is reported above.
    child.stdin?.on("error", () => {});
    child.stdin?.end(JSON.stringify(keys));
  });
}
