import { readFile } from "node:fs/promises";
import type { z } from "zod";
import { writeFileAtomic } from "./atomic-write.ts";
import { ContractFileError, describeZodIssues } from "./contract-error.ts";

/**
 * Reads and validates one JSON contract file. A missing file is `null` (the trainer has not written
 * it yet); anything else that is not a valid value is a `ContractFileError` naming the file and fields.
 */
export async function readJsonFile<S extends z.ZodType>(
  file: string,
  schema: S,
  what: string,
): Promise<z.output<S> | null> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ContractFileError(file, `not valid JSON (${(error as Error).message}); expected ${what}`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issues = describeZodIssues(parsed.error.issues);
    throw new ContractFileError(file, `is not a valid ${what} (${issues.length} problem(s)):`, issues);
  }
  return parsed.data;
}

/** Validates before writing, so a trainer bug fails in the trainer rather than in the control plane. */
export async function writeJsonFile<S extends z.ZodType>(
  file: string,
  schema: S,
  value: z.input<S>,
  what: string,
): Promise<z.output<S>> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issues = describeZodIssues(parsed.error.issues);
    throw new ContractFileError(file, `refusing to write an invalid ${what}:`, issues);
  }
  await writeFileAtomic(file, `${JSON.stringify(parsed.data, null, 2)}\n`);
  return parsed.data;
}
