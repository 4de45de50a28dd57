import { parseArgs } from "node:util";
import { z } from "zod";
import { AGENT_FORMATS } from "@evotrainer/adapters";

export const AGENT_IMPORT_USAGE =
  "usage: evotrainer import [mini-swe-agent|swe-agent|openhands|openai-chat] <file-or-dir> [--run <runId> | --config <run.yaml>] [--report <report.json or directory>] [--json]";

const FLAGS = {
  run: { type: "string" },
  config: { type: "string" },
  report: { type: "string" },
  json: { type: "boolean", default: false },
} as const;

const formats = Object.keys(AGENT_FORMATS) as [keyof typeof AGENT_FORMATS, ...(keyof typeof AGENT_FORMATS)[]];

const optionsSchema = z
  .strictObject({
    format: z.enum(formats),
    path: z.string({ error: "name the trajectory file or directory" }).min(1),
    run: z.string().min(1).optional(),
    config: z.string().min(1).optional(),
    report: z.string().min(1).optional(),
    json: z.boolean(),
  })
  .refine((o) => o.run === undefined || o.config === undefined, { error: "--run adds the trajectories to a run, --config creates one: give one of them" });

export type AgentImportOptions = z.infer<typeof optionsSchema>;

/** Whether `evotrainer import <what>` names an agent trajectory format. */
export const isAgentFormat = (what: string | undefined): boolean => what !== undefined && what in AGENT_FORMATS;

/** `evotrainer import <format> …`'s arguments, checked; an error says what is wrong and shows the usage. */
export function parseAgentImportArgs(args: string[]): AgentImportOptions {
  let parsed;
  try {
    parsed = parseArgs({ args, options: FLAGS, allowPositionals: true });
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${AGENT_IMPORT_USAGE}`);
  }
  const { values, positionals } = parsed;
  if (positionals.length > 2) throw new Error(`unexpected argument "${positionals[2]}"\n${AGENT_IMPORT_USAGE}`);
  const result = optionsSchema.safeParse({ format: positionals[0], path: positionals[1], run: values.run, config: values.config, report: values.report, json: values.json });
  if (!result.success) throw new Error(`${result.error.issues.map((i) => i.message).join("; ")}\n${AGENT_IMPORT_USAGE}`);
  return result.data;
}
