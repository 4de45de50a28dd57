import type { z } from "zod";

/** One problem found in a contract file: where (a dotted zod path, "" for the whole value) and what. */
export interface ContractIssue {
  path: string;
  message: string;
}

/**
 * A contract file that cannot be used as it is. The message names the file and every offending field,
 * because the person reading it (in a job's failure message or the CLI) has only the text to go on.
 */
export class ContractFileError extends Error {
  override readonly name = "ContractFileError";
  readonly file: string;
  readonly issues: ContractIssue[];

  constructor(file: string, summary: string, issues: ContractIssue[] = []) {
    const details = issues.map((issue) => `\n  - ${issue.path || "(root)"}: ${issue.message}`).join("");
    super(`${file}: ${summary}${details}`);
    this.file = file;
    this.issues = issues;
  }
}

/** `a.b[2].c`: the form people write in job.json, not zod's array of keys. */
export function formatZodPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else out += out === "" ? String(key) : `.${String(key)}`;
  }
  return out;
}

/** Each zod issue as a field and a message that says what to change, not only what is wrong. */
export function describeZodIssues(issues: readonly z.core.$ZodIssue[]): ContractIssue[] {
  return issues.flatMap((issue): ContractIssue[] => {
    const path = formatZodPath(issue.path);
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((key) => ({
        path: path ? `${path}.${key}` : key,
        message: "unknown field: remove it or fix its spelling",
      }));
    }
    if (issue.code === "invalid_type" && issue.message.endsWith("received undefined")) {
      return [{ path, message: `missing: add this field (expected ${issue.expected})` }];
    }
    return [{ path, message: issue.message }];
  });
}

/** One line for a quarantine reason: `reward: Invalid input…; taskId: missing…`. */
export function summarizeZodIssues(issues: readonly z.core.$ZodIssue[]): string {
  return describeZodIssues(issues)
    .map((issue) => `${issue.path || "(root)"}: ${issue.message}`)
    .join("; ");
}
