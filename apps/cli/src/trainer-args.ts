import { unknownTrainerArgs } from "@evotrainer/adapters";
import type { RunConfig } from "@evotrainer/core";

/**
 * Refuses a run whose trainer arguments its trainer does not take, before anything is created: TRL's
 * `trainer.args` and `recipe.passthrough.trl` against GRPOConfig, verl's `trainer.overrides` and
 * `recipe.passthrough.verl` against its Hydra config, both asked of `trainer.python` itself. Only a
 * local run is checked here: a run on SSH nodes or Kubernetes has its interpreter there, and its job
 * reports the same keys when it starts. Errors name the file and each field, with a near key when
 * there is one.
 */
export async function checkTrainerArgs(file: string, config: RunConfig): Promise<void> {
  if ((config.adapter !== "trl" && config.adapter !== "verl") || config.executor !== "local") return;
  const trainer = config.trainer as { python?: string; args?: Record<string, unknown>; overrides?: Record<string, unknown> };
  const [setting, own] = config.adapter === "trl" ? ["args", trainer.args] : ["overrides", trainer.overrides];
  const fields = new Map<string, string>();
  for (const key of Object.keys(config.recipe.passthrough[config.adapter] ?? {})) fields.set(key, `recipe.passthrough.${config.adapter}.${key}`);
  for (const key of Object.keys(own ?? {})) fields.set(key, `trainer.${setting}.${key}`);
  if (fields.size === 0) return;
  const { unknown } = await unknownTrainerArgs(config.adapter, trainer.python ?? "python3", [...fields.keys()]).catch((error: Error) => {
    throw new Error(`${file}: ${error.message}`);
  });
  if (unknown.length === 0) return;
  const takes = config.adapter === "trl" ? "TRL's GRPOConfig has no argument" : "verl's trainer config has no key";
  const lines = unknown.map((u) => `  - ${fields.get(u.key)}: ${takes} ${u.key}${u.suggestion ? ` (did you mean ${u.suggestion}?)` : ""}`);
  throw new Error(`${file}: invalid run config:\n${lines.join("\n")}`);
}
