import { readFileSync } from "node:fs";
import { parseDocument } from "yaml";
import type { z } from "zod";
import { runConfigSchema, type RunConfig } from "@evotrainer/core";
import { computeConfigSchema, type ComputeConfig } from "@evotrainer/executors";

/** Reads a YAML config file; errors name the file, the line (YAML) or the field (schema) and what is allowed. */
function readYamlConfig<T>(file: string, schema: z.ZodType<T>, what: string): T {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new Error(`${file}: cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  const document = parseDocument(text, { prettyErrors: true });
  if (document.errors.length > 0) {
    throw new Error(`${file}: not valid YAML:\n${document.errors.map((e) => `  - line ${e.linePos?.[0]?.line ?? "?"}: ${e.message.split("\n")[0]}`).join("\n")}`);
  }
  const parsed = schema.safeParse(document.toJS());
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  - ${issue.path.join(".") || "(top level)"}: ${issue.message}`);
    throw new Error(`${file}: invalid ${what}:\n${lines.join("\n")}`);
  }
  return parsed.data;
}

export const readRunConfig = (file: string): RunConfig => readYamlConfig(file, runConfigSchema, "run config");

export const readComputeConfig = (file: string): ComputeConfig => readYamlConfig(file, computeConfigSchema, "compute config");
