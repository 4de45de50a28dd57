import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";

const CHECK_PY = "check_trainer_args.py";

/**
 * Runs one short command where the run's jobs run: an executor's `probe` (ProbeSpec and ProbeResult
 * in @evotrainer/executors), written out here so that adapters need not depend on executors.
 */
export type RunProbe = (spec: { id: string; command: string[]; stdin: string; files: Record<string, string>; timeoutSeconds: number }) => Promise<{ exitCode: number; stdout: string; stderr: string; where: string }>;

/** A key the trainer does not take, and the nearest one it does, when one is near. */
export interface UnknownTrainerArg {
  key: string;
  suggestion: string | null;
}

/** `trainer.python` cannot answer: missing, not runnable, or without the trainer installed. */
export class TrainerPythonError extends Error {
  constructor(
    readonly python: string,
    reason: string,
    /** Where it was asked: "this machine", an SSH node, a Kubernetes pool. */
    readonly where: string,
  ) {
    super(`trainer.python: ${python} ${reason}`);
    this.name = "TrainerPythonError";
  }
}

/**
 * Asks the run's own Python, where the run's jobs run, which `keys` its trainer does not take
 * (check_trainer_args.py): TRL's GRPOConfig fields, or the Hydra paths of the installed verl's
 * trainer config. The trainer is imported once, so the answer costs one import of it
 * (`importSeconds`), plus, on Kubernetes, the start of a pod.
 */
export async function unknownTrainerArgs(
  probe: RunProbe,
  trainer: "trl" | "verl",
  python: string,
  keys: readonly string[],
  timeoutSeconds: number,
): Promise<{ unknown: UnknownTrainerArg[]; importSeconds: number; where: string }> {
  const script = readFileSync(new URL(`./${CHECK_PY}`, import.meta.url), "utf8");
  const id = `trainer-args-${randomBytes(6).toString("hex")}`;
  const { exitCode, stdout, stderr, where } = await probe({ id, command: [python, CHECK_PY, trainer], stdin: JSON.stringify(keys), files: { [CHECK_PY]: script }, timeoutSeconds });
  if (exitCode === 0) return { ...(JSON.parse(stdout) as { unknown: UnknownTrainerArg[]; importSeconds: number }), where };
  const lastLine = stderr.trim().split("\n").at(-1) ?? "";
  const fix = `set trainer.python to the interpreter that has ${trainer} installed on ${where}`;
  // 127 and 126 are the shell's: the interpreter was not found, or is not runnable.
  if (exitCode === 127) throw new TrainerPythonError(python, `cannot be run (ENOENT); ${fix}`, where);
  if (exitCode === 126) throw new TrainerPythonError(python, `cannot be run (EACCES); ${fix}`, where);
  if (exitCode === 3) throw new TrainerPythonError(python, `${lastLine}; ${fix}`, where);
  throw new TrainerPythonError(python, `failed checking the trainer's arguments on ${where} (exit ${exitCode}): ${lastLine}`, where);
}
