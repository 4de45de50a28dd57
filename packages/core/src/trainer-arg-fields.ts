import type { RunConfig } from "./run-config.ts";

/** The trainer arguments of a run that its trainer checks, each with the config field it came from. */
export interface TrainerArgFields {
  trainer: "trl" | "verl";
  /** The interpreter that has the trainer: `trainer.python`, python3 on the PATH without it. */
  python: string;
  /** Argument key → its field in the run config (`trainer.args.beta`, `recipe.passthrough.trl.beta`). */
  fields: Map<string, string>;
}

/**
 * TRL's `trainer.args` and `recipe.passthrough.trl` (GRPOConfig fields), verl's `trainer.overrides`
 * and `recipe.passthrough.verl` (Hydra paths); null when the run has none to check. A key set in
 * both places is named by its `trainer.*` field, which wins when the job is rendered.
 */
export function trainerArgFields(config: RunConfig): TrainerArgFields | null {
  if (config.adapter !== "trl" && config.adapter !== "verl") return null;
  const trainer = config.trainer as { python?: string; args?: Record<string, unknown>; overrides?: Record<string, unknown> };
  const [setting, own] = config.adapter === "trl" ? ["args", trainer.args] : ["overrides", trainer.overrides];
  const fields = new Map<string, string>();
  for (const key of Object.keys(config.recipe.passthrough[config.adapter] ?? {})) fields.set(key, `recipe.passthrough.${config.adapter}.${key}`);
  for (const key of Object.keys(own ?? {})) fields.set(key, `trainer.${setting}.${key}`);
  return fields.size === 0 ? null : { trainer: config.adapter, python: trainer.python ?? "python3", fields };
}

/** The line of one key the trainer does not take, under its config field, with the near key when there is one. */
export function unknownTrainerArgLine(fields: TrainerArgFields, key: string, suggestion: string | null): string {
  const takes = fields.trainer === "trl" ? "TRL's GRPOConfig has no argument" : "verl's trainer config has no key";
  return `${fields.fields.get(key) ?? key}: ${takes} ${key}${suggestion ? ` (did you mean ${suggestion}?)` : ""}`;
}
