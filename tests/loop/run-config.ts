import { runConfigSchema, type RunConfig } from "@evotrainer/core";
import { readRunConfig } from "../../apps/cli/src/config-files.ts";

/** A run config from examples/*.yaml, read as `evotrainer run` reads it, with test-sized overrides. */
export function loadRunConfig(path: string, change: (config: RunConfig) => void = () => {}): RunConfig {
  const config = readRunConfig(path);
  change(config);
  // Checked again: an override must leave a config the real loop would accept.
  return runConfigSchema.parse(config);
}
