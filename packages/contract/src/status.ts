import { z } from "zod";
import { classifyExit, exitCodeFor, failureClassSchema, type FailureClass } from "./exit-codes.ts";
import { readJsonFile, writeJsonFile } from "./json-file.ts";
import { paths } from "./paths.ts";

export const statusStateSchema = z.enum(["running", "succeeded", "failed"]);
export type StatusState = z.infer<typeof statusStateSchema>;

// Failure classes with a code of their own; crash and oom share the generic ones.
const pinnedByCode = new Set<FailureClass>(["config_error", "data_error", "preempted"]);

/**
 * `status.json`: the trainer's own account of how the job ended, written last. The control plane
 * trusts it over the bare exit code (an exit 1 may be an OOM the trainer caught), so it must agree
 * with the exit code wherever the contract gives that code a meaning.
 */
export const statusSchema = z
  .object({
    state: statusStateSchema,
    exitCode: z.number().int().nullable().default(null),
    failureClass: failureClassSchema.optional(),
    // Last step whose outputs are complete; null when none finished.
    lastStep: z.number().int().nonnegative().nullable().default(null),
    message: z.string().optional(),
  })
  .superRefine((status, ctx) => {
    const issue = (path: string, message: string) => ctx.addIssue({ code: "custom", path: [path], message });
    if (status.state === "failed" && status.failureClass === undefined) {
      issue("failureClass", "missing: a failed job needs a failureClass");
    }
    if (status.state !== "failed" && status.failureClass !== undefined) {
      issue("failureClass", `remove it: only a failed job has a failureClass (state is ${status.state})`);
    }
    if (status.state === "running" && status.exitCode !== null) {
      issue("exitCode", "a running job has no exit code yet: set it to null");
    }
    if (status.state === "succeeded" && status.exitCode !== 0) {
      issue("exitCode", "a succeeded job exits with 0");
    }
    if (status.state === "failed" && status.exitCode !== null && status.failureClass !== undefined) {
      const byCode = classifyExit(status.exitCode).failureClass;
      if (byCode === null) {
        issue("exitCode", "a failed job does not exit with 0");
      } else if (pinnedByCode.has(status.failureClass) && byCode !== status.failureClass) {
        const expected = exitCodeFor(status.failureClass);
        issue("exitCode", `${status.failureClass} exits with ${expected}, not ${status.exitCode}`);
      } else if (pinnedByCode.has(byCode) && byCode !== status.failureClass) {
        issue("failureClass", `exit code ${status.exitCode} means ${byCode}, not ${status.failureClass}`);
      }
    }
  });
export type Status = z.output<typeof statusSchema>;
export type StatusInput = z.input<typeof statusSchema>;

const what = "evo.job/v1 status";

export function writeStatus(outputDir: string, status: StatusInput): Promise<Status> {
  return writeJsonFile(paths(outputDir).status, statusSchema, status, what);
}

/** `null` while the trainer has not reported an outcome (or died before it could). */
export function readStatus(outputDir: string): Promise<Status | null> {
  return readJsonFile(paths(outputDir).status, statusSchema, what);
}
