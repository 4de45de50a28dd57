import { describe, expect, it } from "vitest";
import { statusSchema } from "./status.ts";

function problems(value: unknown): Record<string, string> {
  const result = statusSchema.safeParse(value);
  return Object.fromEntries((result.error?.issues ?? []).map((issue) => [issue.path.join("."), issue.message]));
}

describe("status.json agrees with the exit code", () => {
  it.each([
    { state: "running" },
    { state: "succeeded", exitCode: 0, lastStep: 40 },
    { state: "failed", exitCode: 2, failureClass: "config_error", message: "unknown estimator" },
    { state: "failed", exitCode: 3, failureClass: "data_error" },
    { state: "failed", exitCode: 75, failureClass: "preempted", lastStep: 12 },
    { state: "failed", exitCode: 1, failureClass: "crash" },
    { state: "failed", exitCode: 1, failureClass: "oom", message: "CUDA out of memory" },
    { state: "failed", exitCode: 137, failureClass: "oom" },
    // Written before the process knew how it would exit.
    { state: "failed", failureClass: "crash" },
  ])("accepts %j", (value) => {
    expect(problems(value)).toEqual({});
  });

  it.each([
    [{ state: "failed", exitCode: 1 }, "failureClass", /missing/],
    [{ state: "succeeded", exitCode: 0, failureClass: "crash" }, "failureClass", /only a failed job/],
    [{ state: "succeeded", exitCode: 1 }, "exitCode", /exits with 0/],
    [{ state: "running", exitCode: 0 }, "exitCode", /no exit code yet/],
    [{ state: "failed", exitCode: 0, failureClass: "crash" }, "exitCode", /does not exit with 0/],
    [{ state: "failed", exitCode: 1, failureClass: "config_error" }, "exitCode", /config_error exits with 2, not 1/],
    [{ state: "failed", exitCode: 75, failureClass: "crash" }, "failureClass", /exit code 75 means preempted/],
    [{ state: "failed", exitCode: 3, failureClass: "config_error" }, "exitCode", /config_error exits with 2, not 3/],
  ])("rejects %j at %s", (value, path, message) => {
    const found = problems(value);
    expect(Object.keys(found)).toEqual([path]);
    expect(found[path]).toMatch(message);
  });
});
