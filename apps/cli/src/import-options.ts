import { parseArgs } from "node:util";
import { z } from "zod";

export const IMPORT_USAGE =
  "usage: evotrainer import verl|trl <dir> (--run <runId> | --config <run.yaml>) [--validation-split promotion|sealed] [--reward-weights name=weight,…] [--json]";

const FLAGS = {
  run: { type: "string" },
  config: { type: "string" },
  "validation-split": { type: "string" },
  "reward-weights": { type: "string" },
  json: { type: "boolean", default: false },
} as const;

const WEIGHT = /^([A-Za-z_][\w.-]*)=(-?(?:\d+\.?\d*|\.\d+)(?:e-?\d+)?)$/i;

const rewardWeightsSchema = z.string().transform((text, ctx) => {
  const weights: Record<string, number> = {};
  for (const pair of text.split(",")) {
    const match = WEIGHT.exec(pair.trim());
    if (!match) {
      ctx.addIssue({ code: "custom", message: `--reward-weights: "${pair}" is not name=weight` });
      return z.NEVER;
    }
    weights[match[1]!] = Number(match[2]);
  }
  return weights;
});

const importOptionsSchema = z
  .strictObject({
    adapter: z.enum(["verl", "trl"], { error: "the trainer is verl or trl" }),
    dir: z.string({ error: "name the run directory" }).min(1),
    run: z.string().min(1).optional(),
    config: z.string().min(1).optional(),
    validationSplit: z.enum(["promotion", "sealed"], { error: "--validation-split is promotion or sealed" }).default("promotion"),
    rewardWeights: rewardWeightsSchema.optional(),
    json: z.boolean(),
  })
  .refine((o) => o.adapter === "trl" || o.rewardWeights === undefined, { error: "--reward-weights is for TRL runs; verl's dumps hold the score" })
  .transform(({ run, config, ...rest }, ctx) => {
    let where: { runId: string } | { configFile: string };
    if (run !== undefined && config === undefined) where = { runId: run };
    else if (config !== undefined && run === undefined) where = { configFile: config };
    else {
      ctx.addIssue({ code: "custom", message: "say where the run lands: --run <runId> adds it to a run as a new base branch, --config <run.yaml> creates a run for it" });
      return z.NEVER;
    }
    return { ...rest, where };
  });

export type ImportOptions = z.infer<typeof importOptionsSchema>;

function splitArgs(args: string[]) {
  try {
    return parseArgs({ args, options: FLAGS, allowPositionals: true });
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${IMPORT_USAGE}`);
  }
}

/** `evotrainer import …`'s arguments, checked; an error says what is wrong and shows the usage. */
export function parseImportArgs(args: string[]): ImportOptions {
  const { values, positionals } = splitArgs(args);
  if (positionals.length > 2) throw new Error(`unexpected argument "${positionals[2]}"\n${IMPORT_USAGE}`);
  const result = importOptionsSchema.safeParse({
    adapter: positionals[0],
    dir: positionals[1],
    run: values.run,
    config: values.config,
    validationSplit: values["validation-split"],
    rewardWeights: values["reward-weights"],
    json: values.json,
  });
  if (!result.success) throw new Error(`${result.error.issues.map((i) => i.message).join("; ")}\n${IMPORT_USAGE}`);
  return result.data;
}
