import type { z } from "zod";
import { summarizeZodIssues } from "./contract-error.ts";

export type JsonlLineResult<T> = { ok: true; value: T } | { ok: false; reason: string };

/**
 * Parses and validates one JSONL line without throwing, because ingest keeps going past a bad
 * line: it quarantines it with its file, line number and this `reason`, which names the JSON
 * syntax error or every invalid field by its path.
 */
export function parseJsonlLine<S extends z.ZodType>(text: string, schema: S): JsonlLineResult<z.output<S>> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { ok: false, reason: `invalid JSON: ${(error as Error).message}` };
  }
  return validJsonValue(json, schema);
}

/** Validates a value as parseJsonlLine validates a parsed line, for a caller that holds the value its line was written from. */
export function validJsonValue<S extends z.ZodType>(json: unknown, schema: S): JsonlLineResult<z.output<S>> {
  const parsed = schema.safeParse(json);
  if (!parsed.success) return { ok: false, reason: summarizeZodIssues(parsed.error.issues) };
  return { ok: true, value: parsed.data };
}
