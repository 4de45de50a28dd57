import { trainerArgFields, unknownTrainerArgLine, type RunConfig } from "@evotrainer/core";
import { unknownTrainerArgs, type RunProbe } from "./unknown-trainer-args.ts";

/**
 * The lines that refuse a run whose trainer arguments its trainer does not take, asked of
 * `trainer.python` through `probe` (where the run's jobs would run), and where that was; no lines
 * when every key is known, and no place either when the run sets none. An interpreter that cannot
 * answer throws a TrainerPythonError naming it.
 */
export async function refusedTrainerArgs(config: RunConfig, probe: RunProbe, timeoutSeconds: number): Promise<{ problems: string[]; where: string | null }> {
  const fields = trainerArgFields(config);
  if (!fields) return { problems: [], where: null };
  const { unknown, where } = await unknownTrainerArgs(probe, fields.trainer, fields.python, [...fields.fields.keys()], timeoutSeconds);
  return { problems: unknown.map((u) => unknownTrainerArgLine(fields, u.key, u.suggestion)), where };
}
